/**
 * How the webhook runner spends the database (bench/webhooks.ts measured a burst of writes slowed by it): it
 * claims deliveries a batch at a time and moves the lease of one that waited long before sending it, gives back
 * what it claimed and did not start when it stops, renders an object once for the endpoints of one owner while
 * the data stays the same, and writes the successes that come together in one go (a success ending an endpoint's
 * run of failures). The statements are counted through the dialect's query hook; the sends go through a sender
 * the test holds, on a test clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { httpSender, type Sender } from '../../src/domain/webhooks/send.js';
import { startWebhookRunner, type WebhookRunner } from '../../src/domain/webhooks/webhook.runner.js';
import { WebhookService } from '../../src/domain/webhooks/webhook.service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeEvent } from '../helpers/factories.js';
import { type Receiver, startReceiver, type TestClock, testClock } from '../helpers/webhooks.js';

const ENV = { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_VERIFY: 'off' };

/** A sender that counts what is in flight, and can hold each send before it goes out and after its answer came. */
function spySender(inner: Sender) {
  const spy = {
    calls: [] as { url: string; body: any }[],
    inFlight: 0,
    maxInFlight: 0,
    answered: 0,
    /** Called with each send before it goes out; the send waits for it. */
    before: async (_call: number): Promise<void> => {},
    /** Called with each send once its answer came; the answer waits for it. */
    after: async (_call: number): Promise<void> => {},
    send: (async (url, headers, body) => {
      const call = spy.calls.push({ url, body: JSON.parse(body) }) - 1;
      spy.inFlight++;
      spy.maxInFlight = Math.max(spy.maxInFlight, spy.inFlight);
      try {
        await spy.before(call);
        const result = await inner(url, headers, body);
        spy.answered++;
        await spy.after(call);
        return result;
      } finally {
        spy.inFlight--;
      }
    }) as Sender,
  };
  return spy;
}

/** A promise and the function that resolves it. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('the webhook runner', () => {
  let t: TestApp;
  let receiver: Receiver;
  let clock: TestClock;
  let statements: string[];
  let runners: WebhookRunner[];
  beforeEach(async () => {
    statements = [];
    t = await createTestApp(ENV, { onQuery: (sql) => void statements.push(sql.replace(/\s+/g, ' ').trim()) });
    clock = testClock(Date.now());
    receiver = await startReceiver(clock);
    runners = [];
  });
  afterEach(async () => {
    for (const r of runners) await r.stop();
    await receiver.close();
    await t.close();
  });

  const endpoint = async (fields: Record<string, unknown> = {}) => {
    const res = await t.post('/webhooks', { as: 'administrator', json: { url: `${receiver.url}/hook`, ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number };
  };
  const machinery = (options: { concurrency?: number; claimBatch?: number; leaseMs?: number; yieldTo?: () => Promise<void> } = {}) => {
    const { yieldTo, ...serviceOptions } = options;
    const sender = spySender(httpSender({ allowPrivate: true, timeoutMs: 15_000 }));
    const service = new WebhookService(t.storage, {
      allowPrivate: true,
      verifyUrl: false,
      sender: sender.send,
      userAgent: 'events-api-webhooks/test',
      clock,
      random: () => 0,
      ...serviceOptions,
    });
    const failures: unknown[] = [];
    const runner = startWebhookRunner(service, t.app.webhookObjects, (error) => failures.push(error), { timer: false, yieldTo });
    runners.push(runner);
    const round = async () => {
      await runner.tick();
      await runner.idle();
      if (failures.length > 0) throw failures[0];
    };
    return { service, runner, sender, round };
  };
  const count = (prefix: string) => statements.filter((s) => s.startsWith(prefix)).length;
  /** Reads of one event by id (what a render of an event does: its single read's record). */
  const renders = () =>
    statements.filter((s) => s.includes('from events inner join posts on posts.id = events.post_id where events.post_id =')).length;
  const CLAIM = 'update "webhook_deliveries" set "lease_owner"';
  const delivery = (endpointId: number, seq: number) =>
    t.storage.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('seq', '=', seq).executeTakeFirstOrThrow();

  it('claims a batch at a time, never more than `concurrency` in flight', async () => {
    const m = machinery({ concurrency: 4, claimBatch: 16 });
    await endpoint();
    for (let i = 0; i < 20; i++) await makeEvent(t, { title: `E${i}` });
    // the first four wait for each other: four go out at once, and no more
    const four = gate();
    m.sender.before = async (call) => {
      if (call === 3) four.open();
      if (call < 4) await four.opened;
    };
    statements.length = 0;
    await m.round();
    await receiver.waitFor(20);
    assert.equal(m.sender.calls.length, 20);
    assert.equal(m.sender.maxInFlight, 4);
    // 16 + 4, and a few that find nothing left (one claim per delivery would be 20 and more)
    const claims = count(CLAIM);
    assert.ok(claims >= 2 && claims <= 8, `${claims} claims for 20 deliveries`);
    assert.deepEqual([...new Set(receiver.received.map((r) => r.json.type))], ['event.created']);
    // the endpoint is read once per batch that claimed something (not once per send), the owner once
    const endpointReads = count('select * from "webhook_endpoints" where "id" =');
    assert.ok(endpointReads >= 2 && endpointReads <= 3, `${endpointReads} reads of the endpoint for ${claims} claims`);
    assert.equal(count('select * from "users" where "id" ='), 1);
  });

  it('sends what was claimed with the endpoint as it was claimed, and the next claim reads the edit', async () => {
    const m = machinery({ concurrency: 1, claimBatch: 16 });
    const hook = await endpoint();
    const other = await startReceiver(clock);
    try {
      for (let i = 0; i < 3; i++) await makeEvent(t, { title: `E${i}` });
      await m.service.fanOut();
      const claimed = await m.service.claim(hook.id, 'test-owner', 2);
      assert.equal(claimed.length, 2);
      // moved after the claim: the two claimed go where the endpoint pointed when claimed, the third to the new URL
      assert.equal((await t.post(`/webhooks/${hook.id}`, { as: 'administrator', json: { url: `${other.url}/hook` } })).status, 200);
      for (const d of claimed) await m.service.send(d, 'test-owner', t.app.webhookObjects);
      await receiver.waitFor(2);
      await m.round();
      await other.waitFor(1);
      assert.equal(receiver.received.length, 2);
      assert.equal(other.received.length, 1);
    } finally {
      await other.close();
    }
  });

  it('waits for its turn (yieldTo) before the fan-out, each claim and each send', async () => {
    // the API is "busy" until the test says so: nothing is fanned out, claimed or sent meanwhile
    let busy = gate();
    let waits = 0;
    const m = machinery({
      concurrency: 2,
      claimBatch: 16,
      yieldTo: async () => {
        waits++;
        await busy.opened;
      },
    });
    await endpoint();
    for (let i = 0; i < 3; i++) await makeEvent(t, { title: `E${i}` });
    statements.length = 0;
    const round = m.round();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(waits, 1, 'the round waits before its fan-out');
    const fannedOut = await t.storage.db
      .selectFrom('webhook_deliveries')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(fannedOut.n), 0, 'nothing fanned out');
    assert.equal(m.sender.calls.length, 0);
    busy.open();
    await round;
    await receiver.waitFor(3);
    assert.equal(m.sender.calls.length, 3);
    // one wait for the fan-out, one per claim (at least one), one per send
    assert.ok(waits >= 1 + 1 + 3, `${waits} waits`);
    // held again: a send due now waits too
    busy = gate();
    const before = m.sender.calls.length;
    await makeEvent(t, { title: 'Later' });
    const next = m.round();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(m.sender.calls.length, before);
    busy.open();
    await next;
    await receiver.waitFor(4);
    assert.equal(m.sender.calls.length, before + 1);
  });

  it('answers a tick asked for during a round with a round after it, which fans out what was committed meanwhile', async () => {
    await endpoint();
    const first = await makeEvent(t, { title: 'Before the round' });
    // the round that starts with the runner passes its fan-out, then is held before its claim
    const held = gate();
    let waits = 0;
    const m = machinery({
      concurrency: 1,
      claimBatch: 16,
      yieldTo: async () => {
        if (++waits > 1) await held.opened;
      },
    });
    while (waits < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await makeEvent(t, { title: 'During the round' });
    const asked = m.runner.tick();
    held.open();
    await asked;
    await m.runner.idle();
    const rows = await t.storage.db.selectFrom('webhook_deliveries').select(['resource_id', 'type']).orderBy('seq').execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.resource_id), r.type]),
      [
        [first.id, 'event.created'],
        [second.id, 'event.created'],
      ],
    );
    await receiver.waitFor(2);
  });

  it('moves on the lease of a delivery that waited half of it, and does not send one whose lease another process took', async () => {
    const m = machinery({ concurrency: 1, claimBatch: 4, leaseMs: 10_000 });
    const hook = await endpoint();
    for (let i = 0; i < 3; i++) await makeEvent(t, { title: `E${i}` });
    await m.service.fanOut();
    const seqs = (await t.storage.db.selectFrom('webhook_deliveries').select('seq').orderBy('seq').execute()).map((r) => Number(r.seq));
    assert.equal(seqs.length, 3);
    const claimedAt = clock();
    const leases: (number | null)[] = [];
    m.sender.before = async (call) => {
      if (call === 0) {
        // the first send takes 6 s of the 10 s lease the three were claimed with; meanwhile another process
        // takes the third over (as if this one had been given up for dead)
        clock.advance(6_000);
        await t.storage.db.updateTable('webhook_deliveries').set({ lease_owner: 'another-process' }).where('seq', '=', seqs[2]).execute();
      }
      leases.push((await delivery(hook.id, seqs[call])).lease_until);
    };
    await m.round();
    await receiver.waitFor(2);
    assert.deepEqual(
      m.sender.calls.map((c) => c.body.data.seq),
      seqs.slice(0, 2),
    );
    // the first went out on its claim's lease; the second had 4 s left, and went out with 10 s from then
    assert.deepEqual(leases.map(Number), [claimedAt + 10_000, claimedAt + 6_000 + 10_000]);
    const third = await delivery(hook.id, seqs[2]);
    assert.equal(third.state, 'pending');
    assert.equal(third.lease_owner, 'another-process');
    assert.equal(receiver.received.length, 2);
  });

  it('gives back, when it stops, what it claimed and did not start', async () => {
    const m = machinery({ concurrency: 1, claimBatch: 4 });
    const hook = await endpoint();
    for (let i = 0; i < 3; i++) await makeEvent(t, { title: `E${i}` });
    await m.service.fanOut();
    const sending = gate();
    const held = gate();
    m.sender.before = async () => {
      sending.open();
      await held.opened;
    };
    void m.runner.tick();
    await sending.opened;
    const stopped = m.runner.stop();
    held.open();
    await stopped;
    const rows = await t.storage.db
      .selectFrom('webhook_deliveries')
      .select(['seq', 'state', 'attempts', 'lease_owner', 'lease_until'])
      .where('endpoint_id', '=', hook.id)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.state, Number(r.attempts), r.lease_owner, r.lease_until]),
      [
        ['succeeded', 1, null, null],
        ['pending', 0, null, null],
        ['pending', 0, null, null],
      ],
    );
    assert.equal(m.sender.calls.length, 1);
  });

  it('renders an object once for the endpoints of one owner while nothing changes, and again after a write', async () => {
    const m = machinery();
    for (let i = 0; i < 3; i++) await endpoint({ event_types: ['event.*'] });
    const event = await makeEvent(t, { title: 'Shared' });
    await m.service.fanOut();
    statements.length = 0;
    await m.round();
    const first = await receiver.waitFor(3);
    assert.equal(renders(), 1);
    const read = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.deepEqual(
      first.map((r) => r.json.data.etag),
      [read.headers.etag, read.headers.etag, read.headers.etag],
    );
    // a write moves the data version: the next deliveries carry the object as it is now
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Renamed' } })).status, 200);
    await m.service.fanOut();
    statements.length = 0;
    await m.round();
    const second = (await receiver.waitFor(6)).slice(3);
    assert.equal(renders(), 1);
    const reread = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.notEqual(reread.headers.etag, read.headers.etag);
    assert.deepEqual(
      second.map((r) => [r.json.type, r.json.data.etag]),
      Array.from({ length: 3 }, () => ['event.updated', reread.headers.etag]),
    );
  });

  it('shares a render between endpoints after an unrelated write, never one that began before the change was claimed', async () => {
    const m = machinery();
    const a = await endpoint({ event_types: ['event.*'] });
    const b = await endpoint({ event_types: ['event.*'] });
    const event = await makeEvent(t, { title: 'Shared across a write' });
    await m.service.fanOut();
    const [forA] = await m.service.claim(a.id, 'test-owner', 1);
    statements.length = 0;
    await m.service.send(forA, 'test-owner', t.app.webhookObjects);
    assert.equal(renders(), 1);
    // another event is written: the data version moves, the shared event does not
    await makeEvent(t, { title: 'Unrelated' });
    const [forB] = await m.service.claim(b.id, 'test-owner', 1);
    assert.equal(forB.seq, forA.seq);
    statements.length = 0;
    await m.service.send(forB, 'test-owner', t.app.webhookObjects);
    assert.equal(renders(), 0, 'the render made for endpoint a served endpoint b');
    // the shared event changes: its delivery is claimed after that render began, so it gets a render of its own
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Changed after the render' } })).status, 200);
    await m.service.fanOut();
    const due = await m.service.claim(a.id, 'test-owner', 10);
    const update = due.find((d) => d.type === 'event.updated') as (typeof due)[number];
    statements.length = 0;
    await m.service.send(update, 'test-owner', t.app.webhookObjects);
    assert.equal(renders(), 1);
    const received = await receiver.waitFor(3);
    const read = await t.get(`/events/${event.id}`, { as: 'administrator' });
    assert.equal(received[2].json.type, 'event.updated');
    assert.equal(received[2].json.data.etag, read.headers.etag);
    assert.notEqual(received[2].json.data.etag, received[0].json.data.etag);
  });

  it('writes the successes that come together in one go; a success ends the run of failures', async () => {
    const m = machinery({ concurrency: 4 });
    const hook = await endpoint();
    // one failure first: the endpoint is failing since then
    receiver.script({ status: 500 });
    const failed = await makeEvent(t, { title: 'Failed once' });
    await m.round();
    await receiver.waitFor(1);
    const failing = async () =>
      (await t.storage.db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', hook.id).executeTakeFirstOrThrow()).failing_since;
    assert.equal(Number(await failing()), clock());
    for (let i = 0; i < 3; i++) await makeEvent(t, { title: `E${i}` });
    await m.service.fanOut();
    // four sends due (the retry of the first, five seconds on, and three new ones): their answers come together
    clock.advance(5_000);
    const together = gate();
    m.sender.after = async () => {
      if (m.sender.answered === 5) together.open();
      await together.opened;
    };
    statements.length = 0;
    await m.round();
    await receiver.waitFor(5);
    assert.equal(count('insert into "webhook_attempts"'), 1);
    assert.equal(await failing(), null);
    const rows = await t.storage.db
      .selectFrom('webhook_deliveries')
      .select(['resource_id', 'state', 'attempts', 'last_status', 'completed_at'])
      .where('endpoint_id', '=', hook.id)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.resource_id === failed.id, r.state, Number(r.attempts), r.last_status, Number(r.completed_at)]),
      [
        [true, 'succeeded', 2, 200, clock()],
        [false, 'succeeded', 1, 200, clock()],
        [false, 'succeeded', 1, 200, clock()],
        [false, 'succeeded', 1, 200, clock()],
      ],
    );
    const [logged] = (await t.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries.slice(-1);
    assert.deepEqual(
      logged.log.map((a: { attempt: number; status: number }) => [a.attempt, a.status]),
      [
        [1, 500],
        [2, 200],
      ],
    );
  });
});
