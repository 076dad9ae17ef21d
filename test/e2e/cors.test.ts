/**
 * CORS as CONTRACT.md §0 and the README describe it: off unless CORS_ORIGINS is set; a preflight (OPTIONS with
 * Access-Control-Request-Method) from an allowed origin is answered 204 before authentication and the rate limit;
 * other OPTIONS requests still get WordPress' route description; a disallowed origin gets no CORS header; the
 * exposed and allowed header lists; `*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

const APP = 'https://app.example.org';
const OTHER = 'https://other.example.org';
const EVIL = 'https://evil.example.org';
const EXPOSED = 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, Allow, X-Request-Id';
const ALLOWED_HEADERS = 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-Request-Id';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-allow-credentials',
];

const preflight = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization, content-type',
});

function corsHeaders(headers: Record<string, unknown>): string[] {
  return CORS_HEADERS.filter((h) => headers[h] !== undefined);
}

describe('CORS off (no CORS_ORIGINS)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('sends no CORS header, and a preflight is just an OPTIONS request', async () => {
    const get = await t.get('/events', { headers: { origin: APP } });
    assert.equal(get.status, 200);
    assert.deepEqual(corsHeaders(get.headers), []);
    assert.doesNotMatch(String(get.headers.vary ?? ''), /origin/i, 'no CORS: the answer does not depend on Origin');
    const options = await t.request('OPTIONS', '/events', { headers: preflight(APP) });
    assert.equal(options.status, 200, 'WordPress answers OPTIONS with the route description');
    assert.equal(options.body.namespace, 'calendar/events/v1');
    assert.deepEqual(corsHeaders(options.headers), []);
  });
});

describe('CORS for listed origins', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ CORS_ORIGINS: `${APP}, ${OTHER}` })));
  after(() => t.close());

  it('answers a listed origin with that origin, the exposed headers and Vary: Origin', async () => {
    const res = await t.get('/events', { headers: { origin: OTHER } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], OTHER);
    assert.equal(res.headers['access-control-expose-headers'], EXPOSED);
    assert.match(String(res.headers.vary), /(^|, )Origin(,|$)/);
    assert.equal(res.headers['access-control-allow-credentials'], undefined, 'no cookies are asked for');
    assert.equal(res.headers['access-control-allow-methods'], undefined, 'preflight headers only on preflights');
  });

  it('answers a preflight 204 before authentication, even with bad credentials', async () => {
    const refused = await t.get('/events', { as: 'bad', headers: { origin: APP } });
    assert.equal(refused.status, 401, 'these credentials are refused on a real request');
    assert.equal(refused.body.code, 'incorrect_password');
    assert.equal(refused.headers['access-control-allow-origin'], APP, 'and the browser may read that 401');

    for (const path of ['/events', '/events/123', '/venues', '/no-such-route']) {
      const res = await t.request('OPTIONS', path, { as: 'bad', headers: preflight(APP, 'DELETE') });
      assert.equal(res.status, 204, path);
      assert.equal(res.text, '');
      assert.equal(res.headers['access-control-allow-origin'], APP);
      assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      assert.equal(res.headers['access-control-allow-headers'], ALLOWED_HEADERS);
      assert.equal(res.headers['access-control-max-age'], '600');
      assert.match(String(res.headers.vary), /(^|, )Origin(,|$)/);
    }
  });

  it('gives an origin that is not listed no CORS header, and no preflight', async () => {
    const get = await t.get('/categories', { headers: { origin: EVIL } });
    assert.deepEqual(corsHeaders(get.headers), []);
    assert.match(String(get.headers.vary), /(^|, )Origin(,|$)/, 'the answer depends on Origin, so caches must key on it');
    const res = await t.request('OPTIONS', '/categories', { headers: preflight(EVIL) });
    assert.notEqual(res.status, 204);
    assert.deepEqual(corsHeaders(res.headers), []);
    const bad = await t.request('OPTIONS', '/categories', { as: 'bad', headers: preflight(EVIL) });
    assert.equal(bad.status, 401, 'not answered before authentication either');
    // an origin must match exactly: scheme, host and port
    for (const near of ['http://app.example.org', 'https://app.example.org:8443', 'https://app.example.org.evil.example', 'null']) {
      assert.deepEqual(corsHeaders((await t.get('/categories', { headers: { origin: near } })).headers), [], near);
    }
  });

  it("lets an OPTIONS request that is not a preflight reach WordPress' route description, with CORS headers", async () => {
    const res = await t.request('OPTIONS', '/categories', { headers: { origin: APP } });
    assert.equal(res.status, 200);
    assert.equal(res.body.namespace, 'calendar/events/v1');
    assert.ok(String(res.headers.allow).includes('GET'));
    assert.equal(res.headers['access-control-allow-origin'], APP);
    assert.equal(res.headers['access-control-expose-headers'], EXPOSED);
    assert.equal(res.headers['access-control-allow-methods'], undefined);
  });
});

describe('CORS and the rate limit', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ CORS_ORIGINS: APP, RATE_LIMIT: '3/60s' })));
  after(() => t.close());

  it('answers preflights beyond the rate limit, and lets the browser read the 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.get('/tags', { headers: { origin: APP } })).status);
    assert.deepEqual(statuses, [200, 200, 200]);
    const limited = await t.get('/tags', { headers: { origin: APP } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rest_too_many_requests');
    assert.equal(limited.headers['access-control-allow-origin'], APP);
    assert.equal(limited.headers['access-control-expose-headers'], EXPOSED);
    for (let i = 0; i < 3; i++) assert.equal((await t.request('OPTIONS', '/tags', { headers: preflight(APP) })).status, 204);
  });
});

describe('CORS for any origin (*)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ CORS_ORIGINS: '*' })));
  after(() => t.close());

  it('answers * to any origin, and nothing without one', async () => {
    const res = await t.get('/tags', { headers: { origin: 'https://x.example' } });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-expose-headers'], EXPOSED);
    const pre = await t.request('OPTIONS', '/tags', { as: 'bad', headers: preflight('https://y.example', 'PUT') });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.equal(pre.headers['access-control-allow-headers'], ALLOWED_HEADERS);
    const none = await t.get('/tags');
    assert.deepEqual(corsHeaders(none.headers), []);
  });
});
