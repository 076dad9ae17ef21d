/**
 * Every SQL statement of one write, with its duration: the round trips each operation costs (issue 17's "fewer
 * round trips per write"). On a fresh database of either kind, through `app.inject()`:
 *
 * (a) `POST /events` with the realistic payload of the mixed traffic (bench/traffic.ts: inline venue and organizer
 *     reused by name, two categories and a tag that exist, an image URL already stored), after one warm-up create;
 * (b) one imported VEVENT: the feed of 1,000 seeded events (bench/ical.ts' file), imported into another fresh
 *     database: the statements between one item's savepoint and its release, and the average per item;
 * (c) `POST /events` of a daily series without an end (bench/recurrence.ts' body);
 * (d) a whole-series edit of it (a rename and `featured`).
 *
 * `node dist/bench/statements.js --dialect postgres [--verbose] [--events N]` prints counts and, with --verbose,
 * each statement (its first 140 characters, or env SQL_CHARS) and its milliseconds; N events are seeded (1,000; (b) imports at most
 * 5,000 of them, one feed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { UserService } from '../src/domain/users/user.service.js';
import { PostgresDialect } from '../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import { seed } from './seed.js';
import { createBody } from './traffic.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--verbose') args.set('verbose', '1');
  else args.set(a.replace(/^--/, ''), process.argv[++i] ?? '');
}
const DIALECT = args.get('dialect') ?? 'sqlite';
const VERBOSE = args.has('verbose');
/** Events seeded, and so VEVENTs imported in (b) (bench/ical.ts imports 10,000). */
const EVENTS = Number(args.get('events') ?? 1000);
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const NS = '/calendar/events/v1';
const ADMIN = { authorization: `Basic ${Buffer.from('bench-admin:bench-admin-password').toString('base64')}` };

interface Logged {
  sql: string;
  ms: number;
}

async function open(name: string, log: Logged[]) {
  const onQuery = (sql: string, ms: number) => void log.push({ sql, ms });
  if (DIALECT === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `calendar-statements-${name}-`));
    return {
      storage: new Storage(new SqliteDialect({ path: join(dir, 'db.sqlite'), onQuery })),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_statements_${name}_${process.pid}`;
  const d = new PostgresDialect({ url: POSTGRES_URL, schema, onQuery });
  await d.prepare();
  return {
    storage: new Storage(d),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

async function appOn(storage: Storage, events = 0) {
  await storage.migrate();
  if (events > 0) {
    await seed(storage, { events });
    await storage.optimize();
  }
  await new UserService(storage).add({ login: 'bench-admin', role: 'administrator', password: 'bench-admin-password' });
  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0' }), storage, { logger: false });
  await app.ready();
  return app;
}

type App = Awaited<ReturnType<typeof appOn>>;

async function inject(app: App, method: 'GET' | 'POST', url: string, payload?: string, type = 'application/json') {
  const res = await app.inject({ method, url, headers: { ...ADMIN, ...(payload ? { 'content-type': type } : {}) }, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res;
}

/** What the request ran, without the reads every request makes before it reaches the route (credentials, version). */
function summary(name: string, statements: readonly Logged[]) {
  const ms = statements.reduce((s, l) => s + l.ms, 0);
  console.log(`\n(${name}) ${statements.length} statements, ${ms.toFixed(1)} ms in the database`);
  if (!VERBOSE) return;
  for (const l of statements)
    console.log(`  ${l.ms.toFixed(2).padStart(7)}  ${l.sql.replace(/\s+/g, ' ').slice(0, Number(process.env.SQL_CHARS ?? 140))}`);
}

const log: Logged[] = [];
const a = await open('a', log);
try {
  const app = await appOn(a.storage, EVENTS);
  // the terms, venue, organizer and image the realistic body names exist (as on a running site)
  await inject(app, 'POST', `${NS}/events`, createBody('realistic', 0, 'warm'));
  log.length = 0;
  await inject(app, 'POST', `${NS}/events`, createBody('realistic', 0, 'measured'));
  summary('a: POST /events, realistic payload', log);

  // the first create of the body: its venue, organizer, image and terms are new
  log.length = 0;
  await inject(app, 'POST', `${NS}/events`, createBody('realistic', 1, 'fresh'));
  summary('a2: POST /events, realistic payload, everything new', log);

  const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const series = JSON.stringify({
    title: 'Daily',
    timezone: 'America/New_York',
    start_date: `${day} 09:00:00`,
    end_date: `${day} 10:00:00`,
    categories: ['category-1', 'category-2'],
    tags: ['tag-1'],
    recurrence: ['RRULE:FREQ=DAILY'],
  });
  await inject(app, 'POST', `${NS}/events`, series);
  log.length = 0;
  const made = await inject(app, 'POST', `${NS}/events`, series);
  summary('c: POST /events, daily series without an end', log);
  log.length = 0;
  await inject(app, 'POST', `${NS}/events/${made.json().id}`, JSON.stringify({ title: 'Daily renamed', featured: true }));
  summary('d: whole-series edit (rename, featured)', log);

  // the file of bench/ical.ts: the seeded events' own feed
  const ics = (await inject(app, 'GET', `${NS}/events.ics?start_date=2000-01-01&end_date=2099-12-31&limit=${Math.min(EVENTS, 5000)}`)).body;
  const singles = ics
    .split(/(?=BEGIN:VEVENT\r\n)/)
    .filter((v) => v.startsWith('BEGIN:VEVENT') && !v.includes('RRULE:') && !v.includes('RECURRENCE-ID'));
  const header = ics.slice(0, ics.indexOf('BEGIN:VEVENT'));
  const file = `${header}${singles.map((v) => v.replace(/END:VCALENDAR\r\n$/, '')).join('')}END:VCALENDAR\r\n`;
  await app.close();

  const b = await open('b', log);
  try {
    const target = await appOn(b.storage);
    log.length = 0;
    const started = performance.now();
    const posted = await inject(target, 'POST', `${NS}/imports`, file, 'text/calendar');
    await target.services.imports.runPending();
    const wallMs = performance.now() - started;
    const all = [...log];
    const job = (await inject(target, 'GET', `${NS}/imports/${posted.json().id}`)).json();
    // An item begins with its savepoint, if it has one, or else with the lookup of its import record; a batch
    // that looks its items' records up together has neither per item: there, from one event's venue lookup (or,
    // without one, its slug check) to the next.
    const first = (pattern: RegExp) => all.flatMap((l, i) => (pattern.test(l.sql) ? [i] : []));
    let starts = first(/^\s*savepoint import_item/i);
    if (starts.length === 0) starts = first(/^select "import_items"\.\*, \(select/);
    if (starts.length < singles.length / 2) {
      const slugChecks = first(/^select 1 as taken from posts where type = 'event'/);
      starts = slugChecks.map((i) => {
        let from = i;
        while (from > 0 && /from "(venues|organizers)" as "d"/.test(all[from - 1].sql) && !/^insert|^with/.test(all[from - 1].sql)) from--;
        return from;
      });
    }
    // an item late in the file: its venue, organizer and terms exist from earlier ones, as for most of a long file
    const k = Math.floor(starts.length * 0.8);
    const end = all.findIndex((l, i) => i > starts[k] && (starts.includes(i) || /^\s*(commit|release savepoint import_item)/i.test(l.sql)));
    const upto = /^\s*release/i.test(all[end]?.sql ?? '') ? end + 1 : end;
    summary(`b: one imported VEVENT (item ${k + 1} of ${singles.length})`, all.slice(starts[k], upto));
    console.log(
      `(b) the whole import: ${all.length} statements for ${singles.length} VEVENTs (${(all.length / singles.length).toFixed(1)} per item), ${(wallMs / singles.length).toFixed(2)} ms per item, ${(all.reduce((t, l) => t + l.ms, 0) / singles.length).toFixed(2)} ms of it in statements, job ${JSON.stringify(job.counts)}`,
    );
    // where the import's time goes, by statement (its first words)
    const shapes = new Map<string, { n: number; ms: number }>();
    for (const l of all) {
      const shape = l.sql.replace(/\s+/g, ' ').slice(0, 90);
      const entry = shapes.get(shape) ?? { n: 0, ms: 0 };
      entry.n++;
      entry.ms += l.ms;
      shapes.set(shape, entry);
    }
    for (const [shape, { n, ms }] of [...shapes].sort((x, y) => y[1].ms - x[1].ms).slice(0, 25)) {
      console.log(`  ${String(n).padStart(6)} × ${(ms / n).toFixed(3)} ms = ${ms.toFixed(0).padStart(6)} ms  ${shape}`);
    }
    await target.close();
  } finally {
    await b.storage.close().catch(() => undefined);
    await b.cleanup();
  }
} finally {
  await a.storage.close().catch(() => undefined);
  await a.cleanup();
}
