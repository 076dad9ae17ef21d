/**
 * Recurring events (issue 12), in-process through `app.inject()` with the response cache off:
 *
 * 1. writes: creating a daily series without an end (~1,800 occurrences at the default 60-month horizon) and a
 *    whole-series edit of it (a rename that every occurrence follows), p50/p90 over repeated runs;
 * 2. reads: a dataset of `--singles` single events plus `--series` series (daily, weekly, monthly; a third
 *    without an end) against a dataset of as many single events as the first has occurrences and singles, on the
 *    same queries (default list, a month window, a category filter, one occurrence/event): p50 of each, and
 *    the ratio series/singles (target ≤ 1.5);
 * 3. peak RSS per phase (the kernel's mark reset before each): the process that writes (10k-event database,
 *    in-process), the service that the dataset's series are created through (`--serve-child`: a process of its
 *    own, so the HTTP client's memory is not counted as the service's), and for reads a fresh process per
 *    dataset, as a service started on it (`--reads-child`); the bulk seeding (a 1 GB page cache on SQLite) runs
 *    in a child of its own (`--seed-child`).
 *
 * `node dist/bench/recurrence.js [--singles N] [--series M] [--dialects sqlite,postgres] [--runs R] [--out DIR]`
 * writes `recurrence-<stamp>.json` (and prints a table) into bench/measured/ by default.
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { rng } from './traffic.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const SINGLES = Number(args.get('singles') ?? 100_000);
const SERIES = Number(args.get('series') ?? 5_000);
const RUNS = Number(args.get('runs') ?? 3);
const DIALECTS = (args.get('dialects') ?? 'sqlite').split(',');
const OUT = args.get('out') ?? join(new URL('..', import.meta.url).pathname, '..', 'bench', 'measured');
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const headers = {
  authorization: `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`,
  'content-type': 'application/json',
};
const NS = '/calendar/events/v1';
const tty = process.stdout.isTTY;

function progress(label: string, done: number, total: number) {
  if (tty) process.stdout.write(`\r${label} ${'█'.repeat(Math.round((done / total) * 30)).padEnd(30, '░')} ${done}/${total}`);
  else if (done === total || done % Math.max(1, Math.floor(total / 10)) === 0) process.stdout.write(`${label} ${done}/${total}\n`);
  if (tty && done === total) process.stdout.write('\n');
}

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

/** Where a dataset lives: a SQLite file or a PostgreSQL schema (the seeding child opens the same one). */
function locationFor(dialect: string, name: string): string {
  if (dialect === 'sqlite') return join(mkdtempSync(join(tmpdir(), 'calendar-recurrence-')), `${name}.sqlite`);
  return `bench_rec_${name}_${process.pid}`;
}

async function openAt(dialect: string, location: string) {
  if (dialect === 'sqlite') return new Storage(new SqliteDialect({ path: location }));
  const d = new PostgresDialect({ url: POSTGRES_URL, schema: location });
  await d.prepare();
  return new Storage(d);
}

/** Opens a dataset with `events` singles, seeded (and migrated) by a child process. */
async function open(dialect: string, name: string, events: number) {
  const location = locationFor(dialect, name);
  execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--seed-child', dialect, '--location', location, '--events', String(events)], {
    stdio: 'inherit',
  });
  const storage = await openAt(dialect, location);
  await storage.migrate();
  let closed = false;
  const close = async () => {
    if (!closed) await storage.close();
    closed = true;
  };
  return {
    storage,
    location,
    /** Closes this process' connection (a reads child opens its own). */
    close,
    cleanup: async () => {
      await close();
      if (dialect === 'sqlite') {
        rmSync(join(location, '..'), { recursive: true, force: true });
        return;
      }
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${location} cascade`);
      await client.end();
    },
  };
}

/** The kernel's peak-RSS mark of this process: reset before a phase, read after it (MB). */
function resetPeakRss() {
  writeFileSync('/proc/self/clear_refs', '5');
}
const peakRssMb = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
const peaks: Record<string, number> = {};
function phase(name: string) {
  peaks[name] = peakRssMb();
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 1048576);
  console.log(
    `  ${name}: peak RSS ${peaks[name]} MB (now: RSS ${mb(m.rss)}, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)}, external ${mb(m.external)} MB)`,
  );
  resetPeakRss();
}

async function appFor(storage: Storage, addUser = true) {
  if (addUser) await new UserService(storage).add({ login: ADMIN.login, role: 'administrator', password: ADMIN.password });
  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0' }), storage, { logger: false });
  await app.ready();
  return app;
}

type App = Awaited<ReturnType<typeof appFor>>;

/** Writes as the administrator; reads as a visitor (a public calendar's traffic, and no password hashing in it). */
async function inject(app: App, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const t0 = process.hrtime.bigint();
  const res = await app.inject({
    method,
    url,
    headers: method === 'GET' ? {} : headers,
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return { ms, body: res.json() };
}

/** Creates `count` series through the API (over loopback HTTP: see fetchGet): daily, weekly and monthly in turn, a third without an end. */
async function makeSeries(base: string, count: number): Promise<number> {
  const random = rng(7);
  let occurrences = 0;
  for (let i = 0; i < count; i++) {
    const freq = ['DAILY', 'WEEKLY', 'MONTHLY'][i % 3];
    const unbounded = Math.floor(i / 3) % 3 === 0;
    const countPart = freq === 'DAILY' ? 100 + Math.floor(random() * 200) : freq === 'WEEKLY' ? 52 + Math.floor(random() * 100) : 24;
    const dayOffset = Math.floor(random() * 700) - 350;
    const start = new Date(Date.now() + dayOffset * 86_400_000).toISOString().slice(0, 10);
    const body = {
      title: `Series ${i} jazz`,
      timezone: ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata'][i % 3],
      start_date: `${start} 18:00:00`,
      end_date: `${start} 20:00:00`,
      categories: [`category-${i % 50}`],
      tags: [`tag-${i % 200}`],
      recurrence: [unbounded ? `RRULE:FREQ=${freq}` : `RRULE:FREQ=${freq};COUNT=${countPart}`],
    };
    const res = await fetch(`${base}${NS}/events`, { method: 'POST', headers, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /events: ${res.status}`);
    occurrences += unbounded ? 0 : countPart;
    if (i === 0 || (i + 1) % 50 === 0 || i === count - 1) progress('  series', i + 1, count);
  }
  return occurrences;
}

/** Single events and occurrences: `events` rows but masters, and plain occurrences (migration 0023), which have none. */
async function countOccurrences(storage: Storage): Promise<number> {
  const row = await storage.db
    .selectFrom('events')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('kind', '<>', 'series')
    .executeTakeFirstOrThrow();
  const plain = await storage.db
    .selectFrom('occurrences')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('own_rows', '=', 0)
    .where('state', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(row.n) + Number(plain.n);
}

/**
 * A GET over loopback HTTP to a listening service (the reads child): `app.inject()` keeps every response's
 * buffer alive (measured: +62 MB of ArrayBuffers after 200 reads of 50 events, none over HTTP), which would be
 * counted as the service's memory.
 */
async function fetchGet(base: string, url: string) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${base}${url}`);
  await res.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status >= 300) throw new Error(`GET ${url}: ${res.status}`);
  return { ms };
}

async function readQueries(app: App, storage: Storage, base?: string) {
  const get = (url: string) => (base ? fetchGet(base, url) : inject(app, 'GET', url));
  const month = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 7);
  // the newest published event or occurrence: in the series dataset an occurrence of the last series (a plain
  // one, migration 0023, has no `events` row of its own), in the singles dataset the last single
  const plain = await storage.db
    .selectFrom('occurrences')
    .select('id as post_id')
    .where('own_rows', '=', 0)
    .where('state', '=', 'active')
    .where('status', '=', 'publish')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const one =
    plain ??
    (await storage.db
      .selectFrom('events')
      .select('post_id')
      .where('kind', '<>', 'series')
      .where('status', '=', 'publish')
      .orderBy('post_id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow());
  const queries: Record<string, string> = {
    default_list: `${NS}/events`,
    month_window: `${NS}/events?start_date=${month}-01&end_date=${month}-28&per_page=50`,
    category_filter: `${NS}/events?categories=category-3`,
    single_item: `${NS}/events/${one.post_id}`,
  };
  const out: Record<string, { p50: number; p90: number }> = {};
  for (const [name, url] of Object.entries(queries)) {
    for (let w = 0; w < 5; w++) await get(url);
    const times: number[] = [];
    for (let r = 0; r < 60; r++) times.push((await get(url)).ms);
    out[name] = { p50: p(times, 0.5), p90: p(times, 0.9) };
  }
  return out;
}

if (args.has('seed-child')) {
  const storage = await openAt(args.get('seed-child') as string, args.get('location') as string);
  await storage.migrate();
  await seed(storage, { events: Number(args.get('events')) });
  await storage.close();
  process.exit(0);
}

if (args.has('reads-child')) {
  // a fresh serving process for one dataset, as a service started on it: its reads and its own peak RSS
  resetPeakRss();
  const storage = await openAt(args.get('reads-child') as string, args.get('location') as string);
  await storage.migrate();
  await storage.optimize();
  const app = await appFor(storage, false);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const runs = [];
  for (let r = 0; r < RUNS; r++) runs.push(await readQueries(app, storage, base));
  const total = await countOccurrences(storage);
  await app.close();
  await storage.close();
  process.stdout.write(`${JSON.stringify({ runs, total, peakRssMb: peakRssMb() })}\n`);
  process.exit(0);
}

if (args.has('serve-child')) {
  // the service the series are created through, as a process of its own: it says where it listens, serves
  // until its parent says it is done, then reports its peak RSS
  resetPeakRss();
  const storage = await openAt(args.get('serve-child') as string, args.get('location') as string);
  await storage.migrate();
  const app = await appFor(storage);
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send?.({ base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` });
  process.once('message', async () => {
    await app.close();
    await storage.close();
    process.send?.({ peakRssMb: peakRssMb() }, () => process.exit(0));
  });
  await new Promise<never>(() => undefined);
}

/** Creates the dataset's series through a service in a child process of its own (see --serve-child); its peak RSS. */
async function seriesThroughChild(dialect: string, location: string, count: number): Promise<number> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve-child', dialect, '--location', location], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Record<string, unknown>));
      child.once('exit', (code) => reject(new Error(`the serving child exited (${code})`)));
    });
  const { base } = (await next()) as { base: string };
  await makeSeries(base, count);
  const reported = next();
  child.send('done');
  return ((await reported) as { peakRssMb: number }).peakRssMb;
}

/** The reads of a dataset, in a child process of their own (see --reads-child). */
function readsInChild(dialect: string, location: string): { runs: Record<string, { p50: number; p90: number }>[]; total: number; peakRssMb: number } {
  const out = execFileSync(
    process.execPath,
    [new URL(import.meta.url).pathname, '--reads-child', dialect, '--location', location, '--runs', String(RUNS)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

const results: Record<string, unknown> = {};
resetPeakRss();
for (const dialect of DIALECTS) {
  console.log(`[${dialect}] writes`);
  const writes = await open(dialect, 'writes', Math.min(SINGLES, 10_000));
  try {
    const app = await appFor(writes.storage);
    const create: number[] = [];
    const edit: number[] = [];
    for (let r = 0; r < 10 * RUNS; r++) {
      const start = new Date(Date.now() + r * 86_400_000).toISOString().slice(0, 10);
      const made = await inject(app, 'POST', `${NS}/events`, {
        title: `Daily ${r}`,
        timezone: 'America/New_York',
        start_date: `${start} 09:00:00`,
        end_date: `${start} 10:00:00`,
        categories: ['category-1', 'category-2'],
        tags: ['tag-1'],
        recurrence: ['RRULE:FREQ=DAILY'],
      });
      create.push(made.ms);
      edit.push((await inject(app, 'POST', `${NS}/events/${made.body.id}`, { title: `Daily ${r} renamed`, featured: true })).ms);
    }
    const occurrences = await countOccurrences(writes.storage);
    await app.close();
    results[`${dialect}_writes`] = {
      occurrences_per_series: Math.round((occurrences - Math.min(SINGLES, 10_000)) / (10 * RUNS)),
      create_daily_unbounded_ms: { p50: p(create, 0.5), p90: p(create, 0.9), runs: create.length },
      whole_series_edit_ms: { p50: p(edit, 0.5), p90: p(edit, 0.9), runs: edit.length },
    };
    console.log(results[`${dialect}_writes`]);
  } finally {
    await writes.cleanup();
  }

  console.log(`[${dialect}] reads: ${SINGLES} singles + ${SERIES} series`);
  phase(`${dialect}_writes`);
  const withSeries = await open(dialect, 'series', SINGLES);
  let total = 0;
  try {
    await withSeries.close();
    const serving = await seriesThroughChild(dialect, withSeries.location, SERIES);
    phase(`${dialect}_client_creating_series`);
    peaks[`${dialect}_creating_series (serving process)`] = serving;
    console.log(`  ${dialect}_creating_series (serving process): peak RSS ${serving} MB`);
    const reads = readsInChild(dialect, withSeries.location);
    total = reads.total;
    peaks[`${dialect}_series_reads (own process)`] = reads.peakRssMb;
    console.log(`  ${dialect}_series_reads (own process): peak RSS ${reads.peakRssMb} MB`);
    results[`${dialect}_series_reads`] = { events_and_occurrences: total, runs: reads.runs };
  } finally {
    await withSeries.cleanup();
  }

  console.log(`[${dialect}] reads: ${total} singles`);
  const singles = await open(dialect, 'singles', total);
  try {
    await singles.close();
    const reads = readsInChild(dialect, singles.location);
    peaks[`${dialect}_singles_reads (own process)`] = reads.peakRssMb;
    console.log(`  ${dialect}_singles_reads (own process): peak RSS ${reads.peakRssMb} MB`);
    results[`${dialect}_singles_reads`] = { events: total, runs: reads.runs };
  } finally {
    await singles.cleanup();
  }
  resetPeakRss();

  const s = results[`${dialect}_series_reads`] as { runs: Record<string, { p50: number }>[] };
  const b = results[`${dialect}_singles_reads`] as { runs: Record<string, { p50: number }>[] };
  const ratios: Record<string, number[]> = {};
  for (const name of Object.keys(s.runs[0])) ratios[name] = s.runs.map((run, i) => run[name].p50 / b.runs[i][name].p50);
  results[`${dialect}_p50_ratio_series_to_singles`] = ratios;
  console.log(`[${dialect}] p50 ratio, series / singles (three runs):`);
  for (const [name, values] of Object.entries(ratios)) console.log(`  ${name.padEnd(16)} ${values.map((v) => v.toFixed(2)).join('  ')}`);
}
results.peak_rss_mb_by_phase = peaks;
// (the service's processes: the bench's own HTTP client, while it creates the series, is not one of them)
results.peak_rss_mb = Math.max(
  ...Object.entries(peaks)
    .filter(([name]) => !name.includes('client'))
    .map(([, mb]) => mb),
);
results.settings = { singles: SINGLES, series: SERIES, runs: RUNS, dialects: DIALECTS, node: process.version };
console.log(`peak RSS ${results.peak_rss_mb} MB (serving processes; by phase: ${JSON.stringify(peaks)})`);
mkdirSync(OUT, { recursive: true });
const file = join(OUT, `recurrence-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${file}`);
