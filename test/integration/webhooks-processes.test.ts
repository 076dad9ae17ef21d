/**
 * Webhooks across real service processes (issue 18, FEATURES.md §4.4 case 8 and "exactly one process per
 * delivery"): the change log is the outbox, so a write that got its 201 is delivered even when its process is
 * killed (-9) before the delivery succeeded — by the next process, with the same `webhook-id`, once the dead
 * process' lease has run out and not before; a write rolled back after it began sends nothing; and two processes
 * sending from one database deliver every change once. Each test has a database of its own (a SQLite file both
 * processes open, or a PostgreSQL schema) and a receiver on 127.0.0.1; signatures are checked with the
 * `standardwebhooks` package.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { UserService } from '../../src/domain/users/user.service.js';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, type RunningServer, startServer } from '../helpers/server.js';
import { type Received, type Receiver, startReceiver } from '../helpers/webhooks.js';

const NS = '/calendar/events/v1';
const LOGIN = 'webhooks-admin';
const PASSWORD = 'webhooks-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
/** How long to keep listening after the last expected request (the runners tick every 200 ms). */
const GRACE_MS = 1_500;
const WRITES = 60;
const PUBLIC = 'http://calendar.test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Verifies a received request with the standardwebhooks package; throws when it does not verify. */
function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${NS}${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function createEndpoint(base: string, url: string): Promise<{ id: number; secret: string }> {
  const res = await call(base, 'POST', '/webhooks', { url: `${url}/hook` });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.secret, /^whsec_/);
  return res.body;
}

async function createEvent(base: string, title: string, day = 1): Promise<{ id: number; title: string }> {
  const date = `2033-03-${String(day).padStart(2, '0')}`;
  const res = await call(base, 'POST', '/events', { title, start_date: `${date} 10:00`, end_date: `${date} 11:00`, status: 'publish' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function deliveries(base: string, endpointId: number): Promise<any[]> {
  const res = await call(base, 'GET', `/webhooks/${endpointId}/deliveries?per_page=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.deliveries;
}

describe('webhooks across service processes', () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  let servers: RunningServer[];
  let receivers: Receiver[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-'));
    // (a file: every process opens the same SQLite database)
    db = await createTestDatabase({ sqlitePath: join(dir, 'webhooks.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    // (one public URL for every process: payloads name the same rest_url and ETag whichever sends them)
    env = {
      DATABASE_URL: databaseUrl(db.config),
      PUBLIC_URL: PUBLIC,
      CACHE_MB: '0',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_VERIFY: 'off',
    };
    servers = [];
    receivers = [];
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(receivers.map((r) => r.close()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (extra: Record<string, string> = {}) => {
    const server = await startServer({ ...env, ...extra });
    servers.push(server);
    return server;
  };
  const receive = async (port?: number) => {
    const receiver = await startReceiver(Date.now, { port });
    receivers.push(receiver);
    return receiver;
  };
  const kill = async (server: RunningServer) => {
    server.child.kill('SIGKILL');
    assert.equal(await server.exited, null, 'killed by the signal, not exited');
  };
  /** The seq of the change log's row for an event's create (its deliveries' `webhook-id` is `msg_<seq>`). */
  const createSeq = async (id: number) => {
    const rows = await db.storage.db
      .selectFrom('changes')
      .select('seq')
      .where('resource_type', '=', 'event')
      .where('resource_id', '=', id)
      .where('op', '=', 'create')
      .execute();
    assert.equal(rows.length, 1);
    return Number(rows[0].seq);
  };

  it('sends again, with the same webhook-id, a delivery in flight when its process was killed (case 8)', { timeout: 60_000 }, async () => {
    const receiver = await receive();
    // the first request is held unanswered: the process dies while it waits
    receiver.script({ delayMs: 60_000 });
    const first = await serve({ WEBHOOKS_LEASE_SECONDS: '4' });
    const hook = await createEndpoint(first.base, receiver.url);
    const event = await createEvent(first.base, 'Killed while sending');
    const [held] = await receiver.waitFor(1);
    assert.equal(held.json.type, 'event.created');
    assert.equal(held.json.data.id, event.id);
    assert.deepEqual(verify(hook.secret, held), held.json);
    await kill(first);

    const second = await serve({ WEBHOOKS_LEASE_SECONDS: '2' });
    const [, again] = await receiver.waitFor(2, 20_000);
    assert.equal(again.headers['webhook-id'], held.headers['webhook-id']);
    assert.equal(again.headers['webhook-id'], `msg_${await createSeq(event.id)}`);
    assert.deepEqual(verify(hook.secret, again), again.json);
    assert.equal(again.json.type, 'event.created');
    assert.deepEqual(again.json.data, held.json.data);
    // the dead process' lease (4 s from its claim, just before `held` arrived) was not cut short
    assert.ok(again.at - held.at >= 3_000, `sent again ${again.at - held.at} ms after the first attempt, inside the dead process' lease`);
    await sleep(GRACE_MS);
    assert.equal(receiver.received.length, 2);
    // two claims; the log has the second process' attempt only (the first died before writing its own)
    const [d, ...more] = await deliveries(second.base, hook.id);
    assert.deepEqual(more, []);
    assert.equal(d.webhook_id, held.headers['webhook-id']);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempts, 2);
    assert.deepEqual(
      d.log.map((a: any) => [a.attempt, a.status, a.request_headers['webhook-id']]),
      [[2, 200, d.webhook_id]],
    );
  });

  it('delivers after a restart a write committed just before its process was killed (case 8)', { timeout: 60_000 }, async () => {
    // the receiver's address is given out now, and nothing listens there until the process is dead
    const port = await freePort();
    const first = await serve({ WEBHOOKS_LEASE_SECONDS: '2' });
    const hook = await createEndpoint(first.base, `http://127.0.0.1:${port}`);
    const event = await createEvent(first.base, 'Committed, then killed');
    await kill(first);
    const receiver = await receive(port);
    assert.equal(receiver.received.length, 0);

    const second = await serve({ WEBHOOKS_LEASE_SECONDS: '2' });
    const [r] = await receiver.waitFor(1, 20_000);
    const seq = await createSeq(event.id);
    assert.equal(r.headers['webhook-id'], `msg_${seq}`);
    assert.deepEqual(verify(hook.secret, r), r.json);
    assert.equal(r.json.type, 'event.created');
    assert.equal(r.json.data.id, event.id);
    assert.equal(r.json.data.seq, seq);
    assert.equal(r.json.data.status, 'publish');
    assert.equal(r.json.data.rest_url, `${PUBLIC}${NS}/events/${event.id}`);
    const read = await fetch(`${second.base}${NS}/events/${event.id}`);
    assert.equal(read.status, 200);
    assert.equal(r.json.data.etag, read.headers.get('etag'));
    await sleep(GRACE_MS);
    assert.equal(receiver.received.length, 1);
    // one delivery, succeeded; whatever the dead process had tried (refused: nothing listened) had the same id
    const [d, ...more] = await deliveries(second.base, hook.id);
    assert.deepEqual(more, []);
    assert.equal(d.status, 'succeeded');
    assert.ok(d.attempts === 1 || d.attempts === 2, `attempts ${d.attempts}`);
    assert.equal(d.log.at(-1).status, 200);
    assert.ok(d.log.length <= d.attempts);
    for (const a of d.log) assert.equal(a.request_headers['webhook-id'], r.headers['webhook-id']);
    process.stdout.write(`# killed before delivery: delivered after the restart, ${d.attempts} claim(s), ${d.log.length} logged\n`);
  });

  it('sends nothing for a write rolled back after it began, then the next good write alone (case 8)', { timeout: 60_000 }, async () => {
    const receiver = await receive();
    const server = await serve();
    const hook = await createEndpoint(server.base, receiver.url);
    const event = await createEvent(server.base, 'Before');
    const [created] = await receiver.waitFor(1);
    assert.equal(created.json.type, 'event.created');

    // the update reaches the transaction — the post is rewritten and its change noted, a venue is created
    // inline, a new category made — and fails on the rule after them: all of it rolls back
    const bad = await call(server.base, 'POST', `/events/${event.id}`, {
      title: 'Never',
      venue: { venue: 'Rolled Back Hall', city: 'Nowhere' },
      categories: ['rolled-back-category'],
      recurrence: ['RRULE:FREQ=SECONDLY'],
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'rest_invalid_param');
    const good = await call(server.base, 'POST', `/events/${event.id}`, { title: 'After' });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.equal(good.body.title, 'After');
    assert.deepEqual(good.body.venue, []);
    assert.deepEqual(good.body.categories, []);

    const [, updated] = await receiver.waitFor(2);
    await sleep(GRACE_MS);
    assert.deepEqual(
      receiver.received.map((r) => [r.json.type, r.json.data.id]),
      [
        ['event.created', event.id],
        ['event.updated', event.id],
      ],
    );
    assert.deepEqual(updated.json.data.changed, ['title']);
    assert.deepEqual(verify(hook.secret, updated), updated.json);
    assert.ok(updated.json.data.seq > created.json.data.seq);
    // the venue and the category the failed write made are not there, and nothing else was logged
    const venues = await db.storage.db.selectFrom('posts').select('id').where('title', '=', 'Rolled Back Hall').execute();
    assert.deepEqual(venues, []);
    const changes = await db.storage.db.selectFrom('changes').select(['resource_type', 'op']).orderBy('seq').execute();
    assert.deepEqual(
      changes.map((c) => `${c.resource_type}.${c.op}`),
      ['event.create', 'event.update'],
    );
    assert.equal((await deliveries(server.base, hook.id)).length, 2);
  });

  it(`delivers each of ${WRITES} changes written through two processes exactly once`, { timeout: 60_000 }, async () => {
    const receiver = await receive();
    // answers at 100–300 ms: the writes outrun the sending, and both processes claim from the backlog at once
    receiver.script(...Array.from({ length: WRITES }, (_, i) => ({ delayMs: 100 + ((i * 37) % 200) })));
    const pair = await Promise.all([serve(), serve()]);
    const hook = await createEndpoint(pair[0].base, receiver.url);
    const clients = 6;
    const ids: number[] = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < WRITES / clients; i++) {
          const event = await createEvent(pair[(c + i) % 2].base, `c${c} w${i}`, 1 + ((c + i) % 28));
          ids.push(event.id);
        }
      }),
    );
    assert.equal(ids.length, WRITES);

    await receiver.waitFor(WRITES, 30_000);
    await sleep(GRACE_MS);
    const got = receiver.received;
    const messageIds = new Set(got.map((r) => String(r.headers['webhook-id'])));
    assert.equal(got.length, WRITES, `${got.length} requests for ${WRITES} changes`);
    assert.equal(messageIds.size, WRITES);
    for (const r of got) {
      assert.deepEqual(verify(hook.secret, r), r.json);
      assert.equal(r.json.type, 'event.created');
      assert.equal(r.headers['webhook-id'], `msg_${r.json.data.seq}`);
    }
    assert.deepEqual(
      got.map((r) => r.json.data.id).sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );
    // each delivery was claimed once, by one process, and succeeded at its first attempt
    const log = await deliveries(pair[1].base, hook.id);
    assert.equal(log.length, WRITES);
    assert.deepEqual(
      log.filter((d) => d.status !== 'succeeded' || d.attempts !== 1 || d.log.length !== 1),
      [],
    );
    // and both stop cleanly with what they ran (on PostgreSQL the runner's thread: told to stop, it ends)
    const started = Date.now();
    assert.deepEqual(await Promise.all(pair.map((s) => s.stop())), [0, 0]);
    assert.ok(Date.now() - started < 5000, `stopped in ${Date.now() - started} ms`);
  });
});
