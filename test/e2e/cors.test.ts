/**
 * CORS as CONTRACT.md §0 and the README describe it: every origin by default (`*`, as WordPress answers every
 * origin), listed origins only or none (`none`) when CORS_ORIGINS says so; a preflight (OPTIONS with
 * Access-Control-Request-Method) from an allowed origin is answered 204 before authentication and the rate limit;
 * other OPTIONS requests still get WordPress' route description; a disallowed origin gets no CORS header; the
 * exposed and allowed header lists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

const APP = 'https://app.example.org';
const OTHER = 'https://other.example.org';
const EVIL = 'https://evil.example.org';
const EXPOSED =
  'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, Allow, X-Request-Id, ETag, Location, X-Sync-Token, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
const ALLOWED_HEADERS =
  'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-Request-Id, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since';
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

describe('CORS off (CORS_ORIGINS=none)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ CORS_ORIGINS: 'none' })));
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

for (const [name, env] of [
  ['by default (no CORS_ORIGINS)', {}],
  ['CORS_ORIGINS=*', { CORS_ORIGINS: '*' }],
] as const) {
  describe(`CORS for any origin, ${name}`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(env)));
    after(() => t.close());

    it('answers * with the same headers to every request, Origin or not, and nothing that varies by Origin', async () => {
      for (const headers of [{ origin: 'https://x.example' }, {}] as Record<string, string>[]) {
        const res = await t.get('/tags', { headers });
        assert.equal(res.status, 200);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.equal(res.headers['access-control-expose-headers'], EXPOSED);
        assert.equal(res.headers['access-control-allow-headers'], ALLOWED_HEADERS, 'WordPress sends the allowed headers on every answer');
        assert.equal(res.headers['access-control-allow-credentials'], undefined, 'no cookies are asked for');
        assert.equal(res.headers['access-control-allow-methods'], undefined, 'preflight headers only on preflights');
        assert.doesNotMatch(String(res.headers.vary ?? ''), /origin/i, 'the answer is the same for every Origin');
      }
    });

    it('answers a preflight 204 before authentication, and lets other OPTIONS reach the route description', async () => {
      for (const path of ['/tags', '/events/123', '/no-such-route']) {
        const pre = await t.request('OPTIONS', path, { as: 'bad', headers: preflight('https://y.example', 'PUT') });
        assert.equal(pre.status, 204, path);
        assert.equal(pre.text, '');
        assert.equal(pre.headers['content-length'], '0', 'Safari waits for a body without it');
        assert.equal(pre.headers['access-control-allow-origin'], '*');
        assert.equal(pre.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
        assert.equal(pre.headers['access-control-allow-headers'], ALLOWED_HEADERS);
        assert.equal(pre.headers['access-control-max-age'], '600');
      }
      const description = await t.request('OPTIONS', '/tags', { headers: { origin: 'https://y.example' } });
      assert.equal(description.status, 200);
      assert.equal(description.body.namespace, 'calendar/events/v1');
      assert.equal(description.headers['access-control-allow-origin'], '*');
      assert.equal(description.headers['access-control-allow-methods'], undefined);
    });

    it('lets the browser read the errors: a 401, a 404 and a 400', async () => {
      const refused = await t.get('/events', { as: 'bad', headers: { origin: 'https://x.example' } });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'incorrect_password');
      assert.equal(refused.headers['access-control-allow-origin'], '*');
      const missing = await t.get('/events/999999', { headers: { origin: 'https://x.example' } });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['access-control-allow-origin'], '*');
      const bad = await t.get('/events?per_page=zero', { headers: { origin: 'https://x.example' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'rest_invalid_param');
      assert.equal(bad.headers['access-control-expose-headers'], EXPOSED);
    });

    it('keeps the CORS headers on a cached answer and on a 304', async () => {
      await t.get('/categories');
      const hit = await t.get('/categories', { headers: { origin: 'https://x.example' } });
      assert.equal(hit.status, 200);
      assert.equal(hit.headers['access-control-allow-origin'], '*');
      const again = await t.get('/categories', { headers: { 'if-none-match': String(hit.headers.etag) } });
      assert.equal(again.status, 304);
      assert.equal(again.headers['access-control-allow-origin'], '*');
    });
  });
}

describe('CORS_ORIGINS', () => {
  it('refuses what is not an origin, and turns CORS off with none or off', async () => {
    const { loadConfig } = await import('../../src/config/config.js');
    assert.deepEqual(loadConfig({}).corsOrigins, ['*']);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'none' }).corsOrigins, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'OFF' }).corsOrigins, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, *' }).corsOrigins, ['*']);
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'a.example' }), /CORS_ORIGINS/);
  });
});
