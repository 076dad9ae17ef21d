/**
 * Webhooks (issue 18, FEATURES.md §4.4 cases 1–12): endpoints administrators manage, deliveries made from the
 * change log after commit, signed as Standard Webhooks asks — checked with the `standardwebhooks` package, code
 * we did not write — retried on the schedule (a test clock moves time), logged, replayed. Receivers are HTTP
 * servers on 127.0.0.1 (WEBHOOKS_ALLOW_PRIVATE).
 */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { httpSender } from '../../src/domain/webhooks/send.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked } from '../helpers/factories.js';
import { machinery, type Receiver, startReceiver, type TestClock, testClock } from '../helpers/webhooks.js';

const ENV = { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_VERIFY: 'off' };

/** Verifies a received request with the standardwebhooks package; throws when it does not verify. */
function verify(secret: string, r: { body: string; headers: Record<string, unknown> }): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}

describe('webhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  let clock: TestClock;
  beforeEach(async () => {
    t = await createTestApp(ENV);
    // (the clock starts at now: signatures are checked against the real time by the package)
    clock = testClock(Date.now());
    receiver = await startReceiver(clock);
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await t.post('/webhooks', { as: 'administrator', json: { url: `${receiver.url}/hook`, ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  it('makes an endpoint whose secret is shown once; administrators only (case 1)', async () => {
    const made = await create({ description: 'CRM', event_types: ['event.*'] });
    assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(made.active, true);
    assert.deepEqual(made.event_types, ['event.*']);
    assert.equal(made.payload, 'thin');
    assert.equal(made.owner, t.users.administrator.id);
    const read = await t.get(`/webhooks/${made.id}`, { as: 'administrator' });
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined);
    assert.equal(read.body.url, `${receiver.url}/hook`);
    const list = await t.get('/webhooks', { as: 'administrator' });
    assert.deepEqual(
      list.body.webhooks.map((w: any) => [w.id, w.secret]),
      [[made.id, undefined]],
    );
    assert.equal((await t.get('/webhooks', { as: 'editor' })).status, 403);
    assert.equal((await t.get('/webhooks')).status, 401);
    assert.equal((await t.post('/webhooks', { as: 'editor', json: { url: `${receiver.url}/x` } })).status, 403);
    assert.equal((await t.get('/webhooks/999999', { as: 'administrator' })).body.code, 'webhook-not-found');
    const bad = await t.post('/webhooks', { as: 'administrator', json: { url: `${receiver.url}/x`, event_types: ['event.exploded'] } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.ok(bad.body.data.params.event_types);
  });

  it('delivers create, update, trash and restore of an event, signed, with increasing seq (case 2)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    const event = await makeEvent(t, { title: 'Launch', start_date: '2032-05-01 10:00', end_date: '2032-05-01 11:00' });
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Launch party' } })).status, 200);
    // (the API's DELETE moves an event to the trash, as the original's does; nothing deletes it for good)
    assert.equal((await t.del(`/events/${event.id}`, { as: 'administrator' })).status, 200);
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { status: 'draft' } })).status, 200);
    await m.round();
    // delivery is unordered (up to 4 at once): receivers order by seq
    const got = [...(await receiver.waitFor(4))].sort((a, b) => a.json.data.seq - b.json.data.seq);
    assert.deepEqual(
      got.map((r) => r.json.type),
      ['event.created', 'event.updated', 'event.trashed', 'event.restored'],
    );
    assert.equal(new Set(got.map((r) => r.json.data.seq)).size, 4);
    for (const r of got) {
      assert.deepEqual(verify(hook.secret, r), r.json);
      assert.equal(r.json.data.id, event.id);
      assert.equal(r.json.data.rest_url, `http://calendar.test/calendar/events/v1/events/${event.id}`);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(String(r.headers['user-agent']), /^events-api-webhooks\//);
      assert.equal(r.headers['webhook-id'], `msg_${r.json.data.seq}`);
      assert.match(r.json.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
    assert.deepEqual(got[1].json.data.changed, ['title']);
    assert.deepEqual(
      got.map((r) => r.json.data.status),
      ['publish', 'publish', 'trash', 'draft'],
    );
    // each carries the ETag of the event as it is when sent (a draft, readable by its owner, the administrator)
    const read = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.ok(got.every((r) => r.json.data.etag === read.headers.etag));
    // a wrong secret, or one byte changed, does not verify
    const other = await create();
    assert.throws(() => verify(other.secret, got[0]));
    assert.throws(() => verify(hook.secret, { ...got[0], body: got[0].body.replace('"event.created"', '"event.createe"') }));
  });

  it('carries the ETag a read answers, and the names of the fields changed', async () => {
    const m = machinery(t, clock);
    await create({ event_types: ['event.updated'] });
    const event = await makeEvent(t, { start_date: '2032-05-01 10:00', end_date: '2032-05-01 11:00' });
    await t.post(`/events/${event.id}`, { as: 'administrator', json: { start_date: '2032-05-02 10:00', end_date: '2032-05-02 11:00', cost: '5' } });
    await m.round();
    const [r] = await receiver.waitFor(1);
    assert.equal(r.json.type, 'event.updated');
    assert.deepEqual(r.json.data.changed, ['cost', 'end_date', 'start_date', 'utc_end_date', 'utc_start_date']);
    const read = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.equal(r.json.data.etag, read.headers.etag);
    assert.equal(r.json.data.object, undefined);
  });

  it("names changed fields by the object's v1 keys: organizer, sticky, a venue's stateprovince", async () => {
    const m = machinery(t, clock);
    await create({ event_types: ['event.updated', 'venue.updated'] });
    const organizer = await makeLinked(t, 'organizer');
    const venue = await makeLinked(t, 'venue', { city: 'Lyon' });
    const event = await makeEvent(t, { start_date: '2032-05-01 10:00', end_date: '2032-05-01 11:00' });
    await t.post(`/events/${event.id}`, { as: 'administrator', json: { organizer: [organizer.id] } });
    await m.round();
    await t.post(`/events/${event.id}`, { as: 'administrator', json: { sticky: true } });
    await m.round();
    await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { stateprovince: 'Rhône' } });
    await m.round();
    const got = await receiver.waitFor(3);
    const changed = (type: string, id: number) =>
      got.find((r) => r.json.type === type && r.json.data.id === id && r.json.data.seq)?.json.data.changed;
    const events = got.filter((r) => r.json.type === 'event.updated').sort((a, b) => a.json.data.seq - b.json.data.seq);
    assert.deepEqual(events[0].json.data.changed, ['organizer']);
    assert.deepEqual(events[1].json.data.changed, ['sticky']);
    assert.deepEqual(changed('venue.updated', venue.id), ['stateprovince']);
    for (const r of got)
      for (const name of r.json.data.changed ?? []) assert.ok(!['organizers', 'menu_order', 'stateprovince_explicit'].includes(name), name);
  });

  it('sends an event hidden from listings as its single read answers the owner: with its ETag, and whole in a full payload', async () => {
    const m = machinery(t, clock);
    await create({ payload: 'full', event_types: ['event.updated'] });
    const event = await makeEvent(t, { title: 'Unlisted talk', hide_from_listings: true });
    await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Unlisted talk, moved' } });
    await m.round();
    const [r] = await receiver.waitFor(1);
    const read = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.equal(r.json.data.etag, read.headers.etag);
    assert.equal(r.json.data.object.title, 'Unlisted talk, moved');
    assert.equal(r.json.data.object.hide_from_listings, true);
  });

  it('filters by a category with the categories under it, as the lists do', async () => {
    const m = machinery(t, clock);
    const music = await makeCategory(t, { name: 'Music' });
    const jazz = await makeCategory(t, { name: 'Jazz', parent: music.id });
    const talks = await makeCategory(t, { name: 'Talks' });
    await create({ filter: { categories: [music.id] }, event_types: ['event.created'] });
    const inJazz = await makeEvent(t, { categories: [jazz.id] });
    await makeEvent(t, { categories: [talks.id] });
    await m.round();
    const [r] = await receiver.waitFor(1);
    assert.equal(r.json.data.id, inJazz.id);
    assert.equal(receiver.received.length, 1);
  });

  it('clears an optional field sent as null (description, event types, payload, active, owner), back to its default; a URL cannot be cleared', async () => {
    const hook = await create({ description: 'CRM', event_types: ['event.*'], payload: 'full' });
    const cleared = await t.patch(`/webhooks/${hook.id}`, { as: 'administrator', json: { description: null, event_types: null, payload: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.description, '');
    assert.deepEqual(cleared.body.event_types, ['*']);
    assert.equal(cleared.body.payload, 'thin');
    // active back to true (its default), owner back to whoever writes (as on a create without one)
    const off = await t.patch(`/webhooks/${hook.id}`, { as: 'administrator', json: { active: false, owner: t.users.author.id } });
    assert.equal(off.body.active, false);
    assert.equal(off.body.owner, t.users.author.id);
    const reset = await t.patch(`/webhooks/${hook.id}`, { as: 'administrator', json: { active: null, owner: null } });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.active, true);
    assert.equal(reset.body.owner, t.users.administrator.id);
    const noUrl = await t.patch(`/webhooks/${hook.id}`, { as: 'administrator', json: { url: null } });
    assert.equal(noUrl.status, 400);
    assert.ok(noUrl.body.data.params.url);
    assert.equal((await t.get(`/webhooks/${hook.id}`, { as: 'administrator' })).body.url, `${receiver.url}/hook`);
  });

  it('keeps the webhook-id across retries: 500, 500, then 200 at ~0 s, ~5 s, ~5 min, all in the log (case 3)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    receiver.script({ status: 500 }, { status: 500, body: 'still down' }, { status: 200 });
    const start = clock();
    await makeEvent(t);
    await m.round();
    await receiver.waitFor(1);
    // not due yet
    clock.advance(4_000);
    await m.round();
    assert.equal(receiver.received.length, 1);
    clock.advance(1_000);
    await m.round();
    await receiver.waitFor(2);
    clock.advance(299_000);
    await m.round();
    assert.equal(receiver.received.length, 2);
    clock.advance(1_000);
    await m.round();
    const got = await receiver.waitFor(3);
    assert.deepEqual(
      got.map((r) => r.at - start),
      [0, 5_000, 305_000],
    );
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1);
    const deliveries = await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' });
    assert.equal(deliveries.status, 200);
    const [d] = deliveries.body.deliveries;
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempts, 3);
    assert.deepEqual(
      d.log.map((a: any) => [a.attempt, a.status]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    assert.equal(d.log[1].response, 'still down');
    assert.equal(d.log[0].request_headers['webhook-id'], d.webhook_id);
  });

  it('disables an endpoint that answers 410: no further deliveries, what follows is held (case 4)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    receiver.script({ status: 410 });
    await makeEvent(t);
    await m.round();
    await receiver.waitFor(1);
    const read = await t.get(`/webhooks/${hook.id}`, { as: 'administrator' });
    assert.equal(read.body.active, false);
    assert.equal(read.body.disabled_reason, 'gone');
    await makeEvent(t);
    clock.advance(3_600_000);
    await m.round();
    assert.equal(receiver.received.length, 1);
    const held = await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator', query: { status: 'held' } });
    assert.equal(held.body.deliveries.length, 1);
    const failed = await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator', query: { status: 'failed' } });
    assert.deepEqual(
      failed.body.deliveries.map((d: any) => d.last_status),
      [410],
    );
    // brought back by hand, it gets what was held
    const back = await t.patch(`/webhooks/${hook.id}`, { as: 'administrator', json: { active: true } });
    assert.equal(back.body.active, true);
    assert.equal(back.body.disabled_reason, null);
    await m.round();
    await receiver.waitFor(2);
    assert.equal(receiver.received[1].json.type, 'event.created');
  });

  it('waits as long as Retry-After asks when that is longer than the schedule (case 5)', async () => {
    const m = machinery(t, clock);
    await create();
    receiver.script({ status: 429, headers: { 'retry-after': '30' } });
    await makeEvent(t);
    await m.round();
    await receiver.waitFor(1);
    clock.advance(29_000);
    await m.round();
    assert.equal(receiver.received.length, 1);
    clock.advance(1_000);
    await m.round();
    await receiver.waitFor(2);
    assert.equal(receiver.received[1].at - receiver.received[0].at, 30_000);
  });

  it('counts an answer that does not come within the timeout as a failure (case 6)', async () => {
    // (the service's timeout is 15 s; the test's sender has the same code with a shorter one)
    const m = machinery(t, clock, { timeoutMs: 300 });
    const hook = await create();
    receiver.script({ status: 200, delayMs: 2_000 });
    await makeEvent(t);
    await m.round();
    const [d] = (await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries;
    assert.equal(d.status, 'pending');
    assert.equal(d.log.length, 1);
    assert.equal(d.log[0].status, null);
    assert.match(d.log[0].error, /^timeout/);
    assert.ok(d.log[0].duration_ms >= 300 && d.log[0].duration_ms < 2_000, String(d.log[0].duration_ms));
  });

  it('does not follow a redirect: a 302 is a failure, its target never called (case 7)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    const other = await startReceiver(clock);
    try {
      receiver.script({ status: 302, headers: { location: `${other.url}/elsewhere` } });
      await makeEvent(t);
      await m.round();
      await receiver.waitFor(1);
      assert.equal(other.received.length, 0);
      const [d] = (await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries;
      assert.equal(d.status, 'pending');
      assert.equal(d.last_status, 302);
      assert.match(d.last_error, /redirect/);
    } finally {
      await other.close();
    }
  });

  it('a write that fails sends nothing (case 8, rollback)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    const event = await makeEvent(t);
    await m.round();
    await receiver.waitFor(1);
    // the update reaches the transaction (title set, dates read) and fails on the rule: all of it rolls back
    const bad = await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Never', recurrence: ['RRULE:FREQ=SECONDLY'] } });
    assert.equal(bad.status, 400);
    clock.advance(60_000);
    await m.round();
    assert.equal(receiver.received.length, 1);
    assert.equal((await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries.length, 1);
  });

  it("sends full payloads as the owner reads them at send time: never another author's private event (case 9)", async () => {
    const m = machinery(t, clock);
    const full = await create({ payload: 'full', owner: t.users.author.id, event_types: ['event.created'] });
    const own = await makeEvent(t, { title: 'Mine', start_date: '2032-05-01 10:00', end_date: '2032-05-01 11:00' }, 'author');
    const secret = await makeEvent(
      t,
      { title: 'Board meeting', status: 'private', start_date: '2032-05-02 10:00', end_date: '2032-05-02 11:00' },
      'author2',
    );
    const draft = await makeEvent(t, { title: 'Unannounced', status: 'draft', start_date: '2032-05-03 10:00', end_date: '2032-05-03 11:00' });
    await m.round();
    const got = await receiver.waitFor(3);
    const byId = new Map(got.map((r) => [r.json.data.id, r.json]));
    assert.equal(byId.get(own.id).data.object.title, 'Mine');
    assert.equal(byId.get(own.id).data.object.id, own.id);
    for (const hidden of [secret, draft]) {
      const body = byId.get(hidden.id);
      assert.equal(body.data.object, undefined);
      assert.equal(body.data.etag, undefined);
      assert.ok(!JSON.stringify(body).includes(hidden.title), JSON.stringify(body));
    }
    // an administrator's full endpoint gets all three, as the administrator reads them
    assert.equal(full.owner, t.users.author.id);
    const admin = await create({ payload: 'full', event_types: ['event.updated'] });
    await t.post(`/events/${secret.id}`, { as: 'administrator', json: { excerpt: 'Agenda' } });
    await m.round();
    const [r] = (await receiver.waitFor(4)).filter((x) => x.json.type === 'event.updated');
    assert.equal(r.json.data.object.title, 'Board meeting');
    assert.deepEqual(verify(admin.secret, r), r.json);
  });

  it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only (case 10)', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    const rotated = await t.post(`/webhooks/${hook.id}/rotate-secret`, { as: 'administrator' });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, hook.secret);
    assert.ok(rotated.body.previous_secret_expires_utc);
    assert.equal((await t.get(`/webhooks/${hook.id}`, { as: 'administrator' })).body.secret, undefined);
    await makeEvent(t);
    await m.round();
    const [first] = await receiver.waitFor(1);
    assert.equal(String(first.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(
      String(first.headers['webhook-signature'])
        .split(' ')
        .every((sig) => sig.startsWith('v1,')),
    );
    // a receiver with either secret accepts it
    assert.deepEqual(verify(hook.secret, first), first.json);
    assert.deepEqual(verify(rotated.body.secret, first), first.json);
    // (the rotation ran on the real clock, a little after the test's)
    clock.advance(24 * 3_600_000 + 60_000);
    await makeEvent(t);
    await m.round();
    const [, second] = await receiver.waitFor(2);
    assert.equal(String(second.headers['webhook-signature']).split(' ').length, 1);
    assert.throws(() =>
      verify(hook.secret, { ...second, headers: { ...second.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) } }),
    );
  });

  it('filters by category as the event is when fanned out: moving it into the category sends event.updated (case 11)', async () => {
    const m = machinery(t, clock);
    const music = await makeCategory(t, { name: 'Music' });
    const talks = await makeCategory(t, { name: 'Talks' });
    await create({ filter: { categories: [music.id] } });
    const event = await makeEvent(t, { categories: [talks.id] });
    await m.round();
    assert.equal(receiver.received.length, 0);
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { categories: [music.id] } })).status, 200);
    await m.round();
    const [r] = await receiver.waitFor(1);
    assert.equal(r.json.type, 'event.updated');
    assert.equal(r.json.data.id, event.id);
    assert.deepEqual(r.json.data.changed, ['categories']);
    // a filter names categories that exist
    const bad = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url, filter: { categories: [999999] } } });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.params.filter);
    const odd = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url, filter: { city: 'Paris' } } });
    assert.equal(odd.status, 400);
  });

  it("filters an occurrence by its series' categories (it has no links of its own)", async () => {
    const m = machinery(t, clock);
    const music = await makeCategory(t, { name: 'Music' });
    const talks = await makeCategory(t, { name: 'Talks' });
    await create({ event_types: ['event.occurrence.*'], filter: { categories: [music.id] } });
    const body = (categories: number[]) => ({
      start_date: '2034-01-02 20:00',
      end_date: '2034-01-02 22:00',
      categories,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    const concerts = await t.post('/events', { as: 'administrator', json: { title: 'Concerts', ...body([music.id]) } });
    const lectures = await t.post('/events', { as: 'administrator', json: { title: 'Lectures', ...body([talks.id]) } });
    const first = async (id: number) =>
      (await t.get(`/events/${id}/occurrences`, { as: 'administrator', query: { start_date: '2034-01-01', end_date: '2034-12-31' } })).body.events[0]
        .id;
    const [concert, lecture] = [await first(concerts.body.id), await first(lectures.body.id)];
    await t.post(`/events/${lecture}`, { as: 'administrator', json: { title: 'A lecture' } });
    await t.post(`/events/${concert}`, { as: 'administrator', json: { title: 'A concert' } });
    await m.round();
    const [r] = await receiver.waitFor(1);
    assert.equal(r.json.type, 'event.occurrence.updated');
    assert.equal(r.json.data.id, concert);
    await m.round();
    assert.equal(receiver.received.length, 1);
  });

  it('replays from a seq in seq order, one at a time, with the original webhook-ids (case 12)', async () => {
    const m = machinery(t, clock);
    const hook = await create({ event_types: ['event.created'] });
    for (let i = 0; i < 6; i++) await makeEvent(t, { title: `E${i}` });
    await m.round();
    const first = await receiver.waitFor(6);
    const ids = new Map(first.map((r) => [r.json.data.seq, r.headers['webhook-id']]));
    const seqs = [...ids.keys()].sort((a, b) => a - b);
    const replay = await t.post(`/webhooks/${hook.id}/replay`, { as: 'administrator', json: { since_seq: seqs[2] } });
    assert.equal(replay.status, 202, replay.text);
    assert.deepEqual(replay.body, { queued: 4, first_seq: seqs[2], last_seq: seqs[5] });
    // (the route's service runs on the real clock, the machinery on the test's: let the test's catch up)
    clock.advance(60_000);
    await m.round();
    const again = (await receiver.waitFor(10)).slice(6);
    assert.deepEqual(
      again.map((r) => r.json.data.seq),
      seqs.slice(2),
    );
    assert.deepEqual(
      again.map((r) => r.headers['webhook-id']),
      seqs.slice(2).map((q) => ids.get(q)),
    );
    assert.equal((await t.post(`/webhooks/${hook.id}/replay`, { as: 'administrator', json: {} })).status, 400);
  });

  it('names published, unpublished, occurrence and term changes by their types', async () => {
    const m = machinery(t, clock);
    await create();
    const draft = await makeEvent(t, { status: 'draft', start_date: '2032-05-01 10:00', end_date: '2032-05-01 11:00' });
    await t.post(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } });
    await t.post(`/events/${draft.id}`, { as: 'administrator', json: { status: 'pending' } });
    const series = await makeEvent(t, { start_date: '2032-06-01 09:00', end_date: '2032-06-01 10:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const occ = (await t.get('/events', { query: { post_parent: series.id, start_date: '2032-06-01', end_date: '2032-07-01' } })).body.events;
    assert.equal(occ.length, 3);
    await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { title: 'Moved one' } });
    await t.del(`/events/${occ[2].id}`, { as: 'administrator' });
    const category = await makeCategory(t, { name: 'Jazz' });
    await t.post(`/categories/${category.id}`, { as: 'administrator', json: { name: 'Jazz & Blues' } });
    await t.del(`/categories/${category.id}`, { as: 'administrator', query: { force: 'true' } });
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Hall' } });
    await m.round();
    const got = [...(await receiver.waitFor(10))].sort((a, b) => a.json.data.seq - b.json.data.seq);
    assert.deepEqual(
      got.map((r) => [r.json.type, r.json.data.id]),
      [
        ['event.created', draft.id],
        ['event.published', draft.id],
        ['event.unpublished', draft.id],
        ['event.created', series.id],
        ['event.occurrence.updated', occ[1].id],
        ['event.occurrence.cancelled', occ[2].id],
        ['category.created', category.id],
        ['category.updated', category.id],
        ['category.deleted', category.id],
        ['venue.created', venue.body.id],
      ],
    );
    const unpublished = got[2].json.data;
    assert.equal(unpublished.status, 'pending');
    assert.deepEqual(unpublished.changed, ['status']);
    assert.deepEqual(got[7].json.data.changed, ['name']);
    assert.equal(got[8].json.data.rest_url, `http://calendar.test/calendar/events/v1/categories/${category.id}`);
  });

  it('sends a webhook.test at once and answers with its delivery; lists deliveries in cursor pages; redelivers one', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    const test = await t.post(`/webhooks/${hook.id}/test`, { as: 'administrator' });
    assert.equal(test.status, 200, test.text);
    assert.equal(test.body.type, 'webhook.test');
    assert.equal(test.body.status, 'succeeded');
    assert.equal(test.body.log[0].status, 200);
    const [r] = await receiver.waitFor(1);
    assert.deepEqual(verify(hook.secret, r), { type: 'webhook.test', timestamp: r.json.timestamp, data: { endpoint: hook.id } });
    for (let i = 0; i < 5; i++) await makeEvent(t);
    await m.round();
    await receiver.waitFor(6);
    const seen: number[] = [];
    let query: Record<string, string | number> = { per_page: 2 };
    for (;;) {
      const page = await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator', query });
      assert.equal(page.status, 200);
      seen.push(...page.body.deliveries.map((d: any) => d.id));
      if (!page.body.next_page_token) break;
      query = { per_page: 2, page_token: page.body.next_page_token };
    }
    assert.equal(seen.length, 6);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => b - a),
    );
    assert.equal((await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator', query: { page_token: 'nope' } })).status, 400);
    const one = seen[1];
    const redo = await t.post(`/webhooks/${hook.id}/deliveries/${one}/redeliver`, { as: 'administrator' });
    assert.equal(redo.status, 200);
    assert.equal(redo.body.status, 'pending');
    clock.advance(60_000);
    await m.round();
    const [, , , , , , again] = await receiver.waitFor(7);
    assert.equal(again.headers['webhook-id'], redo.body.webhook_id);
    assert.equal(
      (await t.post(`/webhooks/${hook.id}/deliveries/99999999/redeliver`, { as: 'administrator' })).body.code,
      'webhook-delivery-not-found',
    );
    // a test is not sent again (a new one is): a clear 400, not a 404 for a delivery the log lists
    const testAgain = await t.post(`/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver`, { as: 'administrator' });
    assert.equal(testAgain.status, 400);
    assert.equal(testAgain.body.code, 'webhook-test-not-redeliverable');
    const gone = await t.del(`/webhooks/${hook.id}`, { as: 'administrator' });
    assert.equal(gone.status, 200);
    assert.equal(gone.body.deleted, true);
    assert.equal((await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).status, 404);
  });

  it('gives a delivery up after the schedule, and disables an endpoint after five days of failures without a success', async () => {
    const m = machinery(t, clock);
    const hook = await create();
    for (let i = 0; i < 40; i++) receiver.script({ status: 503 });
    const schedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];
    await makeEvent(t);
    await m.round();
    for (const wait of schedule) {
      clock.advance(wait);
      await m.round();
    }
    // 10 attempts over 3 days 3 hours: the delivery has failed, the endpoint is still on
    const [first] = (await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries;
    assert.equal(first.attempts, 10);
    assert.equal(first.status, 'failed');
    assert.equal(first.next_attempt_utc, null);
    assert.equal((await t.get(`/webhooks/${hook.id}`, { as: 'administrator' })).body.active, true);
    // a later change keeps failing: once five days have passed since the first failure, the endpoint goes off
    await makeEvent(t);
    await m.round();
    for (const wait of schedule.slice(0, 7)) {
      clock.advance(wait);
      await m.round();
    }
    assert.equal((await t.get(`/webhooks/${hook.id}`, { as: 'administrator' })).body.active, true);
    clock.advance(schedule[7]);
    await m.round();
    const read = await t.get(`/webhooks/${hook.id}`, { as: 'administrator' });
    assert.equal(read.body.active, false);
    assert.equal(read.body.disabled_reason, 'failing');
    assert.equal(receiver.received.length, 19);
  });
});

describe('webhook endpoints and the network', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('refuses http, private, loopback, link-local and metadata addresses unless WEBHOOKS_ALLOW_PRIVATE (case 7)', async () => {
    t = await createTestApp({ WEBHOOKS_VERIFY: 'off' });
    for (const url of [
      'http://example.com/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
      'https://127.0.0.1:8443/hook',
      'https://[::1]/hook',
      'https://[::ffff:192.168.1.1]/hook',
      'https://localhost/hook',
      'https://user:pass@example.com/hook',
      'ftp://example.com/hook',
      'not a url',
    ]) {
      const res = await t.post('/webhooks', { as: 'administrator', json: { url } });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.code, 'webhook-url-refused', url);
    }
    assert.equal((await t.get('/webhooks', { as: 'administrator' })).body.total, 0);
  });

  it('refuses a name that resolves to a private address, when made and at every attempt', async () => {
    t = await createTestApp({ WEBHOOKS_VERIFY: 'off' });
    // (this machine's own name resolves to its own address, a private or loopback one in any test machine)
    const res = await t.post('/webhooks', { as: 'administrator', json: { url: `https://${hostname()}/hook` } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'webhook-url-refused');
    const sent = await httpSender({ allowPrivate: false, timeoutMs: 2_000 })(`https://${hostname()}:9/hook`, {}, '{}');
    assert.equal(sent.status, undefined);
    assert.match(String(sent.error), /private|reserved|resolve|ENOTFOUND|EAI_AGAIN/);
  });

  it('checks a new endpoint with a signed webhook.test when WEBHOOKS_VERIFY is on', async () => {
    t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE: '1' });
    const receiver = await startReceiver();
    try {
      receiver.script({ status: 500 });
      const refused = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'webhook-endpoint-unreachable');
      assert.equal((await t.get('/webhooks', { as: 'administrator' })).body.total, 0);
      const made = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url } });
      assert.equal(made.status, 201);
      const check = receiver.received[1];
      assert.equal(check.json.type, 'webhook.test');
      assert.deepEqual(verify(made.body.secret, check), check.json);
      // a secret of one's own: a receiver started with it answers the check (Standard Webhooks' format only)
      const own = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const mine = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url, secret: own } });
      assert.equal(mine.status, 201, mine.text);
      assert.equal(mine.body.secret, own);
      assert.deepEqual(verify(own, receiver.received[2]), receiver.received[2].json);
      for (const bad of ['whsec_short', 'secret', `whsec_${Buffer.alloc(80).toString('base64')}`]) {
        const refused = await t.post('/webhooks', { as: 'administrator', json: { url: receiver.url, secret: bad } });
        assert.equal(refused.status, 400, bad);
        assert.ok(refused.body.data.params.secret);
      }
      // a new URL is checked as a new endpoint is, with the endpoint's secret: one made at a URL that answers
      // cannot then be moved to one that does not
      receiver.script({ status: 500 });
      const moved = await t.patch(`/webhooks/${made.body.id}`, {
        as: 'administrator',
        json: { url: `${receiver.url}/elsewhere`, description: 'moved' },
      });
      assert.equal(moved.status, 400, moved.text);
      assert.equal(moved.body.code, 'webhook-endpoint-unreachable');
      const kept = await t.get(`/webhooks/${made.body.id}`, { as: 'administrator' });
      assert.deepEqual([kept.body.url, kept.body.description], [made.body.url, ''], 'nothing of the refused update is stored');
      const accepted = await t.patch(`/webhooks/${made.body.id}`, { as: 'administrator', json: { url: `${receiver.url}/elsewhere` } });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.url, `${receiver.url}/elsewhere`);
      assert.equal(receiver.received[4].path, '/elsewhere');
      assert.deepEqual(verify(made.body.secret, receiver.received[4]), receiver.received[4].json);
      // (the same URL again is no new URL: not checked)
      assert.equal((await t.patch(`/webhooks/${made.body.id}`, { as: 'administrator', json: { url: `${receiver.url}/elsewhere` } })).status, 200);
      assert.equal(receiver.received.length, 5);
      // a send may have a shorter limit than the sender's (the check on create waits 10 s, a delivery 15 s)
      receiver.script({ delayMs: 1_000 });
      const sender = httpSender({ allowPrivate: true, timeoutMs: 15_000 });
      const slow = await sender(receiver.url, {}, '{}', 300);
      assert.equal(slow.status, undefined);
      assert.match(String(slow.error), /within 0.3 s/);
    } finally {
      await receiver.close();
    }
  });
});
