/**
 * A current copy revalidated before the framework (issue 16: a 304 must cost far less than a 200): over a real
 * socket, an anonymous `If-None-Match` for a URL the response cache holds, still current, is answered 304 by the
 * raw server with the headers the framework's own 304 carried; a write, credentials, a cross-origin request or
 * another tag go to the framework as always.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { makeEvent } from '../helpers/factories.js';

const NS = '/calendar/events/v1';

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${NS}${path}`, { headers });
  const body = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), body };
}

/** The framework's 304 carries the request id Fastify gives (`req-<n>`); the raw server's says `req-r<n>`. */
const fromRawServer = (headers: Record<string, string>) => /^req-r\d+$/.test(headers['x-request-id'] ?? '');

describe('revalidation before the framework', () => {
  let t: ListeningTestApp;
  before(async () => (t = await createListeningTestApp()));
  after(() => t.close());

  it('answers a current copy 304 from the raw server, with the headers of the framework’s 304, until a write', async () => {
    const event = await makeEvent(t, { title: 'Polled' });
    const path = `/events/${event.id}`;
    const first = await get(t.base, path);
    assert.equal(first.status, 200);
    const etag = first.headers.etag;
    await get(t.base, path); // the response cache keeps an answer the second time its URL is asked for
    const framework = await get(t.base, path, { 'if-none-match': etag });
    assert.equal(framework.status, 304);
    assert.ok(!fromRawServer(framework.headers), 'the first 304 of an entry is the framework’s');
    const raw = await get(t.base, path, { 'if-none-match': etag });
    assert.equal(raw.status, 304);
    assert.equal(raw.body, '');
    assert.ok(fromRawServer(raw.headers), `answered by the raw server: ${raw.headers['x-request-id']}`);
    const { 'x-request-id': _a, date: _b, connection: _c, 'keep-alive': _d, ...same } = framework.headers;
    const { 'x-request-id': _e, date: _f, connection: _g, 'keep-alive': _h, ...replayed } = raw.headers;
    assert.deepEqual(replayed, same);
    assert.equal(replayed.etag, etag);
    assert.match(replayed.vary ?? '', /Authorization/);

    // another tag, credentials, a browser from another origin: the framework answers
    const other = await get(t.base, path, { 'if-none-match': '"other"' });
    assert.equal(other.status, 200);
    const authed = await get(t.base, path, { 'if-none-match': etag, ...t.authHeader('editor') });
    assert.ok(!fromRawServer(authed.headers));
    const cors = await get(t.base, path, { 'if-none-match': etag, origin: 'https://elsewhere.example' });
    assert.ok(!fromRawServer(cors.headers));

    // a write moves the data version: the copy is checked again, and is stale
    assert.equal((await t.post(path, { as: 'administrator', json: { title: 'Polled, renamed' } })).status, 200);
    const stale = await get(t.base, path, { 'if-none-match': etag });
    assert.equal(stale.status, 200);
    assert.equal(JSON.parse(stale.body).title, 'Polled, renamed');
    assert.notEqual(stale.headers.etag, etag);
  });

  it('is filled by pollers alone: a 304 the framework computed keeps its answer in the response cache', async () => {
    const event = await makeEvent(t, { title: 'Only polled' });
    const path = `/events/${event.id}`;
    const etag = (await get(t.base, path)).headers.etag;
    // from here on only conditional requests, as after the cache entry expired under a crowd of pollers
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(t.base, path, { 'if-none-match': etag }));
    assert.deepEqual(
      answers.map((a) => a.status),
      [304, 304, 304, 304],
    );
    assert.equal(answers[2].headers['x-cache'], 'hit', 'the third is answered from the cache the 304s filled');
    assert.ok(fromRawServer(answers[3].headers), 'and the fourth before the framework');
    // what the cache keeps is the 200 the 304 stood for
    const plain = await get(t.base, path);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['x-cache'], 'hit');
    assert.equal(JSON.parse(plain.body).title, 'Only polled');
    assert.equal(plain.headers.etag, etag);
  });

  it('serves lists the same way, and HEAD', async () => {
    await makeEvent(t, { title: 'Listed' });
    const first = await get(t.base, '/events');
    await get(t.base, '/events');
    const etag = first.headers.etag;
    assert.equal((await get(t.base, '/events', { 'if-none-match': etag })).status, 304);
    const raw = await get(t.base, '/events', { 'if-none-match': etag });
    assert.equal(raw.status, 304);
    assert.ok(fromRawServer(raw.headers));
    const head = await fetch(`${t.base}${NS}/events`, { method: 'HEAD', headers: { 'if-none-match': etag } });
    assert.equal(head.status, 304);
    // the same list under the original's WordPress path is the same entry
    const wp = await fetch(`${t.base}/wp-json/tribe/events/v1/events`, { headers: { 'if-none-match': etag } });
    assert.equal(wp.status, 304);
  });

  it('never confirms the tag it matched when the entry was answered anew while the data version was read', async () => {
    const event = await makeEvent(t, { title: 'Raced' });
    const path = `/events/${event.id}`;
    const etag = (await get(t.base, path)).headers.etag;
    await get(t.base, path);
    assert.equal(await get(t.base, path, { 'if-none-match': etag }).then((r) => r.status), 304, 'the framework’s 304, learnt');
    // while the raw server reads the data version for a poller holding `etag`, a write commits and another
    // request answers the URL anew: the entry the version finds current is no longer the one the tag matched
    const services = t.app.services;
    const read = services.dataVersion;
    let raced = false;
    services.dataVersion = async () => {
      if (!raced) {
        raced = true;
        assert.equal((await t.post(path, { as: 'administrator', json: { title: 'Raced, renamed' } })).status, 200);
        assert.equal((await t.get(path)).body.title, 'Raced, renamed');
      }
      return read.call(services);
    };
    try {
      const polled = await get(t.base, path, { 'if-none-match': etag });
      assert.ok(raced);
      assert.equal(polled.status, 200);
      assert.equal(JSON.parse(polled.body).title, 'Raced, renamed');
    } finally {
      services.dataVersion = read;
    }
  });
});
