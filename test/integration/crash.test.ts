/**
 * Crash safety: the service runs as a child process, clients send concurrent creates and updates that set
 * every writable field (dates and zone, all_day, cost, website, flags, status, categories and tags by name,
 * inline and linked venues and organizers), and the process is killed with SIGKILL mid-stream. After a
 * restart every write that got a 2xx answer is there, field by field as it was answered; an update that got no
 * answer either landed whole or not at all; a create that got no answer is either absent or whole; venues and
 * organizers created inline exist with their fields; and the database passes its checks (SQLite
 * integrity_check, no orphan or half-stored rows, term counts and day counts equal a recount; the change log has
 * a row for every committed write and none for a write that was rolled back).
 * `npm test` runs a couple of rounds; `npm run test:crash` runs many (CRASH_ROUNDS) and writes a summary to
 * CRASH_SUMMARY_DIR (test/measured/).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { UserService } from '../../src/domain/users/user.service.js';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, DIALECT, type TestDatabase } from '../helpers/db.js';
import { type Body, checkWrite, compareReads, ORGANIZER_FIELDS, randomWrite, seeded, VENUE_FIELDS } from '../helpers/event-writes.js';
import { startServer } from '../helpers/server.js';
import { withoutJsonLd } from '../helpers/shapes.js';
import { monthsOfDayCounts, recountedDayCounts, storedDayCounts, storedMonthCounts } from '../helpers/snapshot.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 2);
const SUMMARY_DIR = process.env.CRASH_SUMMARY_DIR;
const CLIENTS = 8;
/** Acknowledged writes in a round before the kill may come. */
const MIN_WRITES_BEFORE_KILL = 16;
const LOGIN = 'crash-admin';
const PASSWORD = 'crash-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
const NS = '/calendar/events/v1';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Tracked {
  /** The client that writes it (no two clients write one event). */
  owner: number;
  /** The event as the last acknowledged write answered it (or as read back after a restart). */
  acked: any;
  /** An update sent after it that got no answer: it may have landed. */
  maybe?: Body;
}

/** Rows that a whole write never leaves: details without their post, posts without their details, dangling links. */
const ORPHANS: [string, string][] = [
  ['events without a post', 'select count(*) as n from events e left join posts p on p.id = e.post_id where p.id is null'],
  [
    'event posts without an event row',
    `select count(*) as n from posts p left join events e on e.post_id = p.id where p.type = 'event' and e.post_id is null`,
  ],
  [
    'venue posts without details',
    `select count(*) as n from posts p left join venues v on v.post_id = p.id where p.type = 'venue' and v.post_id is null`,
  ],
  ['venue details without a post', 'select count(*) as n from venues v left join posts p on p.id = v.post_id where p.id is null'],
  [
    'organizer posts without details',
    `select count(*) as n from posts p left join organizers o on o.post_id = p.id where p.type = 'organizer' and o.post_id is null`,
  ],
  ['organizer details without a post', 'select count(*) as n from organizers o left join posts p on p.id = o.post_id where p.id is null'],
  [
    'image posts without details',
    `select count(*) as n from posts p left join images i on i.post_id = p.id where p.type = 'image' and i.post_id is null`,
  ],
  [
    'events linked to a missing venue',
    'select count(*) as n from events e left join posts v on v.id = e.venue_id where e.venue_id is not null and v.id is null',
  ],
  [
    'organizer links to a missing post',
    'select count(*) as n from event_organizers l left join posts e on e.id = l.event_id left join posts o on o.id = l.organizer_id where e.id is null or o.id is null',
  ],
  [
    'term links to a missing post or term',
    'select count(*) as n from term_relationships r left join posts p on p.id = r.post_id left join terms t on t.id = r.term_id where p.id is null or t.id is null',
  ],
];

describe('crash safety: kill -9 mid-stream', () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  const started = Date.now();
  const tracked = new Map<number, Tracked>();
  /** Venues and organizers created inline by acknowledged writes, with the fields they were sent. */
  const venues = new Map<number, Body>();
  const organizers = new Map<number, Body>();
  /** Creates that got no answer: each is either absent after the restart, or whole. */
  let unansweredCreates: { input: Body; owner: number }[] = [];
  const stats = {
    kills: 0,
    acknowledged: { creates: 0, updates: 0 },
    unanswered: { creates: 0, creates_landed: 0, updates: 0, updates_landed: 0 },
    event_reads_verified: 0,
    venue_reads_verified: 0,
    organizer_reads_verified: 0,
    /** Fields compared: in each 2xx answer against its write, and after each restart against the answers. */
    fields_checked: { answers: 0, after_restart: 0 },
  };
  const failures: string[] = [];
  const database: Record<string, unknown> = {};

  const fail = (context: string, mismatches: string[]) => {
    for (const m of mismatches) if (failures.length < 200) failures.push(`${context}: ${m}`);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-crash-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'crash.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    env = { DATABASE_URL: databaseUrl(db.config) };
  });
  after(async () => {
    const events = tracked.size;
    process.stdout.write(
      `# crash safety: ${stats.kills} kills survived, ${stats.acknowledged.creates + stats.acknowledged.updates} acknowledged writes, ` +
        `${events} events verified, ${stats.fields_checked.answers + stats.fields_checked.after_restart} fields checked, ${failures.length} failures\n`,
    );
    if (SUMMARY_DIR) writeSummary(events);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function writeSummary(events: number) {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const date = new Date().toISOString();
    const summary = {
      test: 'test/integration/crash.test.ts',
      command: `CRASH_ROUNDS=${ROUNDS} npm run test:crash`,
      date,
      commit: git('rev-parse', 'HEAD'),
      // uncommitted changes to what the run exercised (the summaries themselves aside)
      dirty: git('status', '--porcelain', '--', '.', ':!test/measured').length > 0,
      dialect: DIALECT,
      rounds: ROUNDS,
      clients: CLIENTS,
      ...stats,
      events_verified: events,
      venues_verified: venues.size,
      organizers_verified: organizers.size,
      database,
      duration_s: Math.round((Date.now() - started) / 100) / 10,
      failures,
    };
    const out = resolve(ROOT, SUMMARY_DIR!);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `crash-${date.slice(0, 10)}-${DIALECT}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  }

  /** Remembers what an acknowledged write created inline, with the fields it was sent. */
  function noteCreatedLinked(input: Body, event: any) {
    if (input.venue && typeof input.venue === 'object' && !Array.isArray(event.venue)) venues.set(event.venue.id, input.venue as Body);
    if (Array.isArray(input.organizer)) {
      (input.organizer as unknown[]).forEach((o, j) => {
        if (o && typeof o === 'object' && event.organizer[j]) organizers.set(event.organizer[j].id, o as Body);
      });
    }
  }

  async function client(base: string, round: number, n: number, stop: { now: boolean }) {
    const rand = seeded(round * 1000 + n);
    const mine = [...tracked].filter(([, t]) => t.owner === n).map(([id]) => id);
    for (let i = 0; !stop.now; i++) {
      const id = mine.length > 0 && rand() < 0.4 ? mine[Math.floor(rand() * mine.length)] : undefined;
      const context = `r${round} c${n} w${i}`;
      const input = randomWrite(rand, { tag: context, create: id === undefined, venues: [...venues.keys()], organizers: [...organizers.keys()] });
      if (id !== undefined) tracked.get(id)!.maybe = input;
      let res: globalThis.Response;
      let body: any;
      try {
        res = await fetch(`${base}${NS}/events${id === undefined ? '' : `/${id}`}`, {
          method: id === undefined ? 'POST' : 'PATCH',
          headers: AUTH,
          body: JSON.stringify(input),
        });
        body = await res.json();
      } catch {
        // the server is gone: this write may or may not have landed
        if (id === undefined) unansweredCreates.push({ input, owner: n });
        if (id === undefined) stats.unanswered.creates++;
        else stats.unanswered.updates++;
        return;
      }
      assert.ok(res.status === 200 || res.status === 201, `${context}: write answered ${res.status} ${JSON.stringify(body)}`);
      const previous = id === undefined ? undefined : tracked.get(id)!.acked;
      const check = checkWrite(body, input, previous);
      stats.fields_checked.answers += check.fields;
      fail(`${context} answer`, check.mismatches);
      noteCreatedLinked(input, body);
      if (id === undefined) {
        stats.acknowledged.creates++;
        tracked.set(body.id, { owner: n, acked: body });
        mine.push(body.id);
      } else {
        stats.acknowledged.updates++;
        const t = tracked.get(id)!;
        t.acked = body;
        t.maybe = undefined;
      }
    }
  }

  /** After a restart: every acknowledged event, venue and organizer, field by field, and the unanswered writes. */
  async function verify(base: string, round: number) {
    const get = async (path: string) => {
      const res = await fetch(`${base}${NS}${path}`, { headers: AUTH });
      return { status: res.status, body: withoutJsonLd((await res.json()) as any) };
    };
    const inBatches = async <T>(items: T[], fn: (item: T) => Promise<void>) => {
      for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(fn));
    };

    await inBatches([...tracked], async ([id, t]) => {
      const read = await get(`/events/${id}`);
      stats.event_reads_verified++;
      if (read.status !== 200) return fail(`round ${round} event ${id}`, [`acknowledged event answered ${read.status}`]);
      let check: ReturnType<typeof compareReads>;
      if (read.body.title === t.acked.title) check = compareReads(read.body, t.acked);
      else if (t.maybe && read.body.title === t.maybe.title) {
        stats.unanswered.updates_landed++;
        check = checkWrite(read.body, t.maybe, t.acked);
      } else
        check = {
          fields: 1,
          mismatches: [`title "${read.body.title}" is neither the acknowledged "${t.acked.title}" nor an unanswered later write`],
        };
      stats.fields_checked.after_restart += check.fields;
      fail(`round ${round} event ${id}`, check.mismatches);
      if (check.mismatches.length === 0) {
        t.acked = read.body;
        t.maybe = undefined;
      }
    });

    for (const { input, owner } of unansweredCreates) {
      const rows = await db.storage.db
        .selectFrom('posts')
        .select('id')
        .where('type', '=', 'event')
        .where('title', '=', String(input.title))
        .execute();
      if (rows.length === 0) continue;
      if (rows.length > 1) fail(`round ${round} unanswered create "${input.title}"`, [`stored ${rows.length} times`]);
      const read = await get(`/events/${rows[0].id}`);
      const check = checkWrite(read.body, input);
      stats.unanswered.creates_landed++;
      stats.fields_checked.after_restart += check.fields;
      fail(`round ${round} unanswered create ${rows[0].id}`, check.mismatches);
      if (check.mismatches.length === 0) {
        tracked.set(rows[0].id, { owner, acked: read.body });
        noteCreatedLinked(input, read.body);
      }
    }
    unansweredCreates = [];

    for (const [kind, known, fields] of [
      ['venue', venues, VENUE_FIELDS],
      ['organizer', organizers, ORGANIZER_FIELDS],
    ] as const) {
      await inBatches([...known], async ([id, sent]) => {
        const read = await get(`/${kind}s/${id}`);
        stats[kind === 'venue' ? 'venue_reads_verified' : 'organizer_reads_verified']++;
        if (read.status !== 200) return fail(`round ${round} ${kind} ${id}`, [`answered ${read.status}`]);
        for (const f of fields) {
          stats.fields_checked.after_restart++;
          if (read.body[f] !== sent[f])
            fail(`round ${round} ${kind} ${id}`, [`${f}: read ${JSON.stringify(read.body[f])}, sent ${JSON.stringify(sent[f])}`]);
        }
      });
    }
  }

  it(`keeps every acknowledged write whole through ${ROUNDS} kills, and the database stays sound`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServer(env);
      const stop = { now: false };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(server.base, round, n, stop));
      // kill at a random moment once the clients are under way (a busy machine can take a second to warm up)
      const acked = () => stats.acknowledged.creates + stats.acknowledged.updates;
      const from = acked();
      const until = Date.now() + 10_000;
      while (acked() - from < MIN_WRITES_BEFORE_KILL && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.random() * 700));
      server.child.kill('SIGKILL');
      await server.exited;
      stats.kills++;
      stop.now = true;
      await Promise.all(clients);

      const again = await startServer(env);
      try {
        await verify(again.base, round);
      } finally {
        await again.stop();
      }
      assert.deepEqual(failures.slice(0, 20), [], `round ${round}: ${failures.length} failures`);
    }
    assert.ok(tracked.size > 0, 'some writes were acknowledged');

    // the database itself
    if (db.config.dialect === 'sqlite') {
      const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db.storage.db);
      database.integrity_check = rows[0].integrity_check;
      assert.equal(rows[0].integrity_check, 'ok');
      const fk = await sql`pragma foreign_key_check`.execute(db.storage.db);
      database.foreign_key_violations = fk.rows.length;
      assert.equal(fk.rows.length, 0);
    }
    const orphans: Record<string, number> = {};
    for (const [name, query] of ORPHANS) orphans[name] = Number((await sql<{ n: number }>`${sql.raw(query)}`.execute(db.storage.db)).rows[0].n);
    database.orphans = Object.values(orphans).reduce((a, b) => a + b, 0);
    assert.deepEqual(
      Object.entries(orphans).filter(([, n]) => n > 0),
      [],
      'no orphan or half-stored rows',
    );
    // the change log (issue 16): written in each write's transaction, so every committed write has its row and
    // no rolled back one left any — a create's row names a post that exists, and the counts match the answers
    const logOrphans = Number(
      (
        await sql<{ n: number }>`select count(*) as n from changes c left join posts p on p.id = c.resource_id
          where c.resource_type in ('event', 'venue', 'organizer') and p.id is null`.execute(db.storage.db)
      ).rows[0].n,
    );
    const unlogged = Number(
      (
        await sql<{ n: number }>`select count(*) as n from posts p where p.type in ('event', 'venue', 'organizer')
          and not exists (select 1 from changes c where c.resource_id = p.id and c.op = 'create')`.execute(db.storage.db)
      ).rows[0].n,
    );
    const logged = async (op: string) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from changes where resource_type = 'event' and op = ${op}`.execute(db.storage.db)).rows[0].n,
      );
    const [creates, updates] = [await logged('create'), await logged('update')];
    database.change_log = {
      rows_without_their_post: logOrphans,
      posts_without_their_create: unlogged,
      event_creates: creates,
      event_updates: updates,
    };
    assert.equal(logOrphans, 0, 'no change row of a write that was rolled back');
    assert.equal(unlogged, 0, 'every stored post has its create in the change log');
    assert.ok(
      creates >= stats.acknowledged.creates && creates <= stats.acknowledged.creates + stats.unanswered.creates,
      `event creates logged ${creates}, acknowledged ${stats.acknowledged.creates}, unanswered ${stats.unanswered.creates}`,
    );
    assert.ok(
      updates >= stats.acknowledged.updates && updates <= stats.acknowledged.updates + stats.unanswered.updates,
      `event updates logged ${updates}, acknowledged ${stats.acknowledged.updates}, unanswered ${stats.unanswered.updates}`,
    );

    const dayCounts = await storedDayCounts(db.storage.db);
    database.day_counts_equal_recount = JSON.stringify(dayCounts) === JSON.stringify(await recountedDayCounts(db.storage.db));
    assert.deepEqual(dayCounts, await recountedDayCounts(db.storage.db), 'day counts equal a recount');
    const monthCounts = await storedMonthCounts(db.storage.db);
    database.month_counts_equal_days = JSON.stringify(monthCounts) === JSON.stringify(await monthsOfDayCounts(db.storage.db));
    assert.deepEqual(monthCounts, await monthsOfDayCounts(db.storage.db), 'month counts sum the day counts');
    const terms = await db.storage.db.selectFrom('terms').select(['id', 'count']).orderBy('id').execute();
    await db.storage.terms.recount();
    const recounted = await db.storage.db.selectFrom('terms').select(['id', 'count']).orderBy('id').execute();
    database.term_counts_equal_recount = JSON.stringify(terms) === JSON.stringify(recounted);
    database.terms = terms.length;
    assert.deepEqual(terms, recounted, 'term counts equal a recount');
  });
});
