/**
 * Sync against concurrent writers in two service processes on one database (issue 16): writers create, edit,
 * unpublish and trash events through both processes while a client syncs in a loop, alternating between them (a
 * token of one process serves on the other). At the end the client's copy — objects kept, tombstones applied —
 * equals the database: the same events, each as it is now. On PostgreSQL the writers commit in any order
 * relative to the numbers their changes took; a copy built from seq alone would miss some.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { UserService } from '../../src/domain/users/user.service.js';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

const NS = '/calendar/events/v1';
const LOGIN = 'sync-admin';
const PASSWORD = 'sync-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
const WRITERS_PER_PROCESS = 3;
const WRITE_MS = Number(process.env.SYNC_WRITE_MS ?? 4000);

describe('sync while two processes write', () => {
  let db: TestDatabase;
  let servers: RunningServer[] = [];

  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-sync-'));
    // (a file: both processes open the same SQLite database)
    db = await createTestDatabase({ sqlitePath: join(dir, 'sync.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    const env = { DATABASE_URL: databaseUrl(db.config), CACHE_MB: '0' };
    servers = await Promise.all([startServer(env), startServer(env)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}${NS}${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  async function writer(base: string, n: number, until: number, counts: Record<string, number>) {
    const mine: number[] = [];
    for (let i = 0; Date.now() < until; i++) {
      const pick = mine.length === 0 ? 0 : (i * 7 + n) % 10;
      if (pick < 5 || mine.length === 0) {
        const day = 1 + ((i + n) % 28);
        const res = await call(base, 'POST', '/events', {
          title: `w${n} e${i}`,
          start_date: `2033-02-${String(day).padStart(2, '0')} 10:00`,
          end_date: `2033-02-${String(day).padStart(2, '0')} 11:00`,
          status: 'publish',
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        mine.push(res.body.id);
        counts.create++;
      } else {
        const id = mine[(i * 13) % mine.length];
        if (pick < 8) {
          const res = await call(base, 'POST', `/events/${id}`, { title: `w${n} e${id} edit ${i}` });
          assert.ok(res.status === 200 || res.status === 403, JSON.stringify(res.body));
          counts.update++;
        } else if (pick === 8) {
          const res = await call(base, 'POST', `/events/${id}`, { status: i % 2 === 0 ? 'draft' : 'publish' });
          assert.ok(res.status === 200 || res.status === 403, JSON.stringify(res.body));
          counts.status++;
        } else {
          const res = await call(base, 'DELETE', `/events/${id}`);
          assert.ok(res.status === 200 || res.status === 410 || res.status === 403, JSON.stringify(res.body));
          mine.splice(mine.indexOf(id), 1);
          counts.trash++;
        }
      }
    }
  }

  /** Follows a sync from `token` on `base`; applies every item to `copy`; answers the next token. */
  async function syncInto(base: string, copy: Map<number, any>, token: string, stats: { pages: number; items: number }): Promise<string> {
    let query = `sync_token=${encodeURIComponent(token)}&per_page=37`;
    for (;;) {
      const res = await fetch(`${base}${NS}/events?${query}`);
      const body: any = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      stats.pages++;
      for (const item of body.events) {
        stats.items++;
        if (item.removed) copy.delete(item.id);
        else copy.set(item.id, item);
      }
      if (body.next_sync_token) return body.next_sync_token;
      query = `page_token=${encodeURIComponent(body.next_page_token)}&per_page=37`;
    }
  }

  it("ends with the client's copy equal to the database, syncing through either process while both write", async () => {
    const until = Date.now() + WRITE_MS;
    const counts = { create: 0, update: 0, status: 0, trash: 0 };
    const writers = servers.flatMap((s, p) => Array.from({ length: WRITERS_PER_PROCESS }, (_, k) => writer(s.base, p * 10 + k, until, counts)));
    const copy = new Map<number, any>();
    const stats = { pages: 0, items: 0, syncs: 0 };
    let token = 'start';
    let done = false;
    const all = Promise.all(writers).finally(() => (done = true));
    while (!done) {
      token = await syncInto(servers[stats.syncs % 2].base, copy, token, stats);
      stats.syncs++;
    }
    await all;
    token = await syncInto(servers[stats.syncs % 2].base, copy, token, stats);

    // the database, as an anonymous caller sees it
    const rows = await sql<{ id: number; title: string; modified_utc: string }>`
      select p.id, p.title, p.modified_utc from posts p join events e on e.post_id = p.id
      where p.type = 'event' and p.status = 'publish' and e.hide_from_listings = 0 order by p.id`.execute(db.storage.db);
    const expected = rows.rows.map((r) => [Number(r.id), r.title, r.modified_utc]);
    const got = [...copy.values()].sort((a, b) => a.id - b.id).map((e) => [e.id, e.title, e.modified_utc]);
    assert.ok(counts.create > 20 && counts.update > 5, `writers wrote too little: ${JSON.stringify(counts)}`);
    assert.ok(stats.syncs >= 3, `the client synced ${stats.syncs} times`);
    assert.deepEqual(got, expected);
    // and a fresh full sync agrees
    const fresh = new Map<number, any>();
    await syncInto(servers[0].base, fresh, 'start', { pages: 0, items: 0 });
    assert.deepEqual(
      [...fresh.keys()].sort((a, b) => a - b),
      expected.map((e) => e[0]),
    );
    process.stdout.write(`# sync under two writing processes: ${JSON.stringify({ ...counts, ...stats, events: expected.length })}\n`);
  });
});
