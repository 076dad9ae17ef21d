/**
 * Crash safety: the service runs as a child process, clients send concurrent creates and updates, and the
 * process is killed with SIGKILL mid-stream. After a restart every write that got a 2xx answer is there and
 * intact (an update that got no answer may or may not have happened), and the database passes its checks.
 * `npm test` runs a couple of rounds; `npm run test:crash` runs many (CRASH_ROUNDS).
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
import { startServer } from '../helpers/server.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 2);
const CLIENTS = 8;
const LOGIN = 'crash-admin';
const PASSWORD = 'crash-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };

interface Tracked {
  /** The title of the last acknowledged write. */
  acked: string;
  /** Titles of writes sent after it that got no answer: any of them may have landed. */
  maybe: Set<string>;
}

describe('crash safety: kill -9 mid-stream', () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  const tracked = new Map<number, Tracked>();
  let kills = 0;
  let acknowledged = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-crash-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'crash.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    env = { DATABASE_URL: databaseUrl(db.config) };
  });
  after(async () => {
    process.stdout.write(`# crash safety: ${kills} kills survived, ${acknowledged} acknowledged writes, ${tracked.size} events verified\n`);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function client(base: string, round: number, n: number, stop: { now: boolean }) {
    const mine: number[] = [];
    for (let i = 0; !stop.now; i++) {
      const update = mine.length > 0 && i % 3 === 2;
      const id = update ? mine[i % mine.length] : undefined;
      const title = `crash r${round} c${n} w${i}`;
      if (id !== undefined) tracked.get(id)!.maybe.add(title);
      try {
        const res = await fetch(id === undefined ? `${base}/calendar/events/v1/events` : `${base}/calendar/events/v1/events/${id}`, {
          method: id === undefined ? 'POST' : 'PATCH',
          headers: AUTH,
          body: JSON.stringify({ title, start_date: '+1 day 10am', end_date: '+1 day 11am', categories: [`crash-${n % 3}`], cost: String(i) }),
        });
        if (res.status >= 500) throw new Error(`server error ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as { id: number; title: string };
        assert.ok(res.status === 200 || res.status === 201, `write answered ${res.status}`);
        acknowledged++;
        if (id === undefined) {
          tracked.set(body.id, { acked: title, maybe: new Set() });
          mine.push(body.id);
        } else {
          const t = tracked.get(id)!;
          t.acked = title;
          t.maybe.clear();
        }
      } catch (error) {
        if (error instanceof assert.AssertionError || String(error).includes('server error')) throw error;
        return; // the server is gone
      }
    }
  }

  it(`keeps every acknowledged write through ${ROUNDS} kills, and the database stays sound`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServer(env);
      const stop = { now: false };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(server.base, round, n, stop));
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
      server.child.kill('SIGKILL');
      await server.exited;
      kills++;
      stop.now = true;
      await Promise.all(clients);

      // restart, and read everything back through the API
      const again = await startServer(env);
      try {
        for (const [id, t] of tracked) {
          const res = await fetch(`${again.base}/calendar/events/v1/events/${id}`, { headers: AUTH });
          assert.equal(res.status, 200, `acknowledged event ${id} is there`);
          const body = (await res.json()) as { title: string; categories: unknown[] };
          assert.ok(body.title === t.acked || t.maybe.has(body.title), `event ${id}: "${body.title}" is "${t.acked}" or an unanswered later write`);
          assert.equal(body.categories.length, 1, `event ${id} kept its category`);
        }
      } finally {
        await again.stop();
      }
    }
    assert.ok(tracked.size > 0, 'some writes were acknowledged');

    // the database itself: SQLite's integrity check; on both, no orphans and exact term counts
    if (db.config.dialect === 'sqlite') {
      const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db.storage.db);
      assert.equal(rows[0].integrity_check, 'ok');
    }
    const orphans = await sql<{ n: number }>`select count(*) as n from events e left join posts p on p.id = e.post_id where p.id is null`.execute(db.storage.db);
    assert.equal(Number(orphans.rows[0].n), 0);
    const terms = await db.storage.db.selectFrom('terms').select(['id', 'count']).orderBy('id').execute();
    await db.storage.terms.recount();
    assert.deepEqual(await db.storage.db.selectFrom('terms').select(['id', 'count']).orderBy('id').execute(), terms);
  });
});
