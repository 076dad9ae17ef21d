/**
 * `npm run bench`: seeds a database in bulk, starts the service as a user would (`calendar serve`, production
 * settings) — once with its normal cache, once with `CACHE_MB=0`, and on SQLite once with
 * `SQLITE_SYNCHRONOUS=FULL` — captures every URL's answer, starts a bare node:http server replaying those
 * answers URL by URL, and loads each scenario (autocannon, its own process): its baseline, then the service,
 * in rounds, so that each scenario is measured `--rounds` times with the machine's drift spread over all of
 * them. Prints tables (median and min–max) and writes JSON to bench/measured/. See bench/README.md.
 *
 * Options: --events N (10000) --dialects sqlite,postgres --duration S (6) --warmup S (1) --rounds R (3) --drain S (10)
 *          --connections C (64) --scenarios id,id (or parts of names) --seed N (42) --workers N (1)
 *          --mix-size N (most reads captured for the mixed stream: 100000)
 *          --list --smoke (tiny and quick: CI runs it) --out FILE
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { UserService } from '../src/domain/users/user.service.js';
import { PostgresDialect } from '../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import { freePort } from '../test/helpers/server.js';
import type { LoadResult, LoadSpec } from './load.js';
import { fmtRatio, type RunRecord, type ScenarioSummary, type Section, summarize, table } from './report.js';
import { seed } from './seed.js';
import {
  baselineKey,
  createBody,
  EVENTS_PATH,
  FILTERED_PATH,
  GEOLOCATION_PATH,
  type Manifest,
  mixedReads,
  NS,
  type RequestSpec,
  sample,
  withWrites,
} from './traffic.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(here, '../..');
const BIN = join(here, '../src/cli/main.js');
const LOAD = join(here, 'load.js');
const BASELINE = join(here, 'baseline.js');
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const AUTHORIZATION = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;

const { values } = parseArgs({
  options: {
    events: { type: 'string' },
    dialects: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    drain: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string' },
    scenarios: { type: 'string' },
    'mix-size': { type: 'string' },
    seed: { type: 'string', default: '42' },
    smoke: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});
const smoke = values.smoke === true;
const EVENTS = Number(values.events ?? (smoke ? 300 : 10_000));
const DURATION = Number(values.duration ?? (smoke ? 1 : 6));
const WARMUP = Number(values.warmup ?? (smoke ? 0 : 1));
/** Longest wait for a service to finish a run's leftovers before it is restarted instead (see drain). */
const DRAIN_MS = Number(values.drain ?? 10) * 1000;
const ROUNDS = Number(values.rounds ?? (smoke ? 1 : 3));
const CONNECTIONS = Number(values.connections ?? (smoke ? 8 : 64));
const MIX_SIZE = Number(values['mix-size'] ?? (smoke ? 2_000 : 100_000));
/**
 * The warm-up wakes the code paths and the database's page cache up; one connection does (thousands of cached
 * answers a second) and leaves at most one request behind it (one slow uncached search, not 64).
 */
const WARMUP_CONNECTIONS = 1;
const SEED = Number(values.seed);
const WORKERS = values.workers!;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
/** Long enough that autocannon never gives up on a slow answer and sends the request again. */
const LOAD_TIMEOUT_S = 120;
for (const [name, n] of Object.entries({
  events: EVENTS,
  duration: DURATION,
  warmup: WARMUP,
  rounds: ROUNDS,
  connections: CONNECTIONS,
  'mix-size': MIX_SIZE,
  seed: SEED,
  drain: DRAIN_MS,
})) {
  if (!Number.isFinite(n) || n < 0 || (name !== 'warmup' && n === 0)) throw new Error(`--${name}: not a usable number`);
}

type Dialect = 'sqlite' | 'postgres';
/** The service processes: normal settings; the response cache off; SQLite syncing every commit. */
type ServiceKind = 'normal' | 'nocache' | 'full';

interface Scenario {
  id: string;
  section: Section;
  name: string;
  service: ServiceKind;
  /** Reads run first, in rounds; writes (which grow the database) after every read. */
  phase: 'read' | 'write';
  requests: RequestSpec[];
  /** Measured against a bare server with its bytes (not pure writes: a durable commit has no bare equivalent). */
  baseline: boolean;
  countCacheHits?: boolean;
  /** A long list (mixed traffic): each run continues where the previous one stopped. */
  stream?: boolean;
  /** Mixed traffic: the share of creates among its requests. */
  writeShare?: number;
  note?: string;
}

interface Ids {
  publishedEventId: number;
  eventIds: number[];
  venueIds: number[];
}

/** The scenarios asked for (all, or --scenarios). Stream scenarios get their requests as the stream is captured. */
function scenarios(dialect: Dialect, ids: Ids): Scenario[] {
  const single = `${EVENTS_PATH}/${ids.publishedEventId}`;
  // 1000 published events, one URL each: the uncached single event reads different rows, not one hot row
  const singles = sample(ids.eventIds, smoke ? 50 : 1000, SEED + 1).map((id): RequestSpec => ({ method: 'GET', path: `${EVENTS_PATH}/${id}` }));
  const get = (path: string, auth = false): RequestSpec[] => [{ method: 'GET', path, ...(auth ? { auth } : {}) }];
  const read = { phase: 'read' as const, baseline: true };
  const all: Scenario[] = [
    { ...read, id: 'cache.list', section: 'cache', service: 'normal', name: 'GET /events (default)', requests: get(EVENTS_PATH) },
    {
      ...read,
      id: 'cache.per-page-50',
      section: 'cache',
      service: 'normal',
      name: 'GET /events?per_page=50',
      requests: get(`${EVENTS_PATH}?per_page=50`),
    },
    {
      ...read,
      id: 'cache.filtered',
      section: 'cache',
      service: 'normal',
      name: 'GET /events filtered (category+search+dates)',
      requests: get(FILTERED_PATH),
    },
    {
      ...read,
      id: 'cache.geolocation',
      section: 'cache',
      service: 'normal',
      name: 'GET /events geolocation (50 km)',
      requests: get(GEOLOCATION_PATH),
    },
    { ...read, id: 'cache.single', section: 'cache', service: 'normal', name: 'GET /events/<id>', requests: get(single) },
    {
      ...read,
      id: 'cache.venues-search',
      section: 'cache',
      service: 'normal',
      name: 'GET /venues?search=hall',
      requests: get(`${NS}/venues?search=hall`),
    },
    { ...read, id: 'cache.list-auth', section: 'cache', service: 'normal', name: 'GET /events with Basic auth', requests: get(EVENTS_PATH, true) },
    { ...read, id: 'uncached.list', section: 'uncached', service: 'nocache', name: 'GET /events (default)', requests: get(EVENTS_PATH) },
    { ...read, id: 'uncached.single', section: 'uncached', service: 'nocache', name: `GET /events/<id>, ${singles.length} ids`, requests: singles },
    {
      ...read,
      id: 'uncached.filtered',
      section: 'uncached',
      service: 'nocache',
      name: 'GET /events filtered (category+search+dates)',
      requests: get(FILTERED_PATH),
    },
    {
      ...read,
      id: 'uncached.geolocation',
      section: 'uncached',
      service: 'nocache',
      name: 'GET /events geolocation (50 km)',
      requests: get(GEOLOCATION_PATH),
    },
    { ...read, id: 'mixed.reads', section: 'mixed', service: 'normal', name: 'reads only', requests: [], countCacheHits: true, stream: true },
    {
      id: 'mixed.writes',
      section: 'mixed',
      service: 'normal',
      phase: 'write',
      baseline: true,
      name: 'with 2% writes',
      requests: [],
      countCacheHits: true,
      stream: true,
      writeShare: 0.02,
      note: 'POST realistic, authenticated',
    },
  ];
  const writes: [string, ServiceKind, 'minimal' | 'realistic'][] = [
    ['write.minimal', 'normal', 'minimal'],
    ['write.realistic', 'normal', 'realistic'],
    ...(dialect === 'sqlite'
      ? ([
          ['write.minimal.full', 'full', 'minimal'],
          ['write.realistic.full', 'full', 'realistic'],
        ] as [string, ServiceKind, 'minimal' | 'realistic'][])
      : []),
  ];
  for (const [id, service, body] of writes) {
    all.push({
      id,
      section: 'writes',
      service,
      phase: 'write',
      baseline: false,
      name: `POST /events, ${body} body`,
      requests: [{ method: 'POST', path: EVENTS_PATH, auth: true, body }],
      note: dialect === 'postgres' ? 'PostgreSQL' : `synchronous=${service === 'full' ? 'FULL' : 'NORMAL'}`,
    });
  }
  const only =
    values.scenarios?.split(',').map((s) => s.trim().toLowerCase()) ?? (smoke ? ['cache.list', 'uncached.single', 'mixed.writes'] : undefined);
  return only
    ? all.filter((s) => only.some((o) => s.id === o || s.id.startsWith(`${o}.`) || `${s.section} ${s.name}`.toLowerCase().includes(o)))
    : all;
}

const startedAt = new Date();

// ---- processes ---------------------------------------------------------------------------------------------

const children = new Set<ChildProcess>();

function killChildren(): void {
  for (const child of children) child.kill('SIGTERM');
  children.clear();
}
process.on('SIGINT', () => {
  killChildren();
  process.exit(130);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      children.delete(child);
      if (code === 0) resolve(out);
      else reject(new Error(`${script} exited ${code}`));
    });
  });
}

async function load(spec: LoadSpec, dir: string): Promise<LoadResult> {
  const file = join(dir, 'load-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  return JSON.parse((await runNode(LOAD, [file])).trim().split('\n').pop()!) as LoadResult;
}

/**
 * Waits until the service is idle: `/healthz` answered within 20 ms three times in a row. Answers the seconds
 * it took, or undefined if the service was still busy after `maxMs`.
 */
async function settle(base: string, maxMs: number): Promise<number | undefined> {
  const started = Date.now();
  let calm = 0;
  while (Date.now() - started < maxMs) {
    const t0 = performance.now();
    try {
      await (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(Math.max(100, maxMs - (Date.now() - started))) })).arrayBuffer();
    } catch {
      // not answering (in time) counts as busy
      await sleep(100);
    }
    calm = performance.now() - t0 < 20 ? calm + 1 : 0;
    if (calm >= 3) return (Date.now() - started) / 1000;
    await sleep(50);
  }
  return undefined;
}

/**
 * After a run: the load generator stops at the deadline and drops its connections, but the service still
 * finishes the up to one request per connection it had started — at a million events, 64 uncached location
 * searches are minutes of work. The next measurement must not share the machine with that. A service that is
 * not idle within DRAIN_MS is killed and started again (every scenario begins with a warm-up); on PostgreSQL
 * its queries still running are ended too.
 */
async function drain(service: Service): Promise<{ seconds: number; restarted: boolean }> {
  const started = Date.now();
  if ((await settle(service.base, DRAIN_MS)) !== undefined) return { seconds: (Date.now() - started) / 1000, restarted: false };
  await restartService(service);
  if ((await settle(service.base, 120_000)) === undefined) throw new Error(`${service.kind} service still busy after a restart`);
  return { seconds: (Date.now() - started) / 1000, restarted: true };
}

const processTree = (pid: number): number[] => {
  try {
    return [pid, ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)];
  } catch {
    return [pid];
  }
};

/** Resets the kernel's peak-RSS mark of the process and its children, so the next reading is this run's. */
function resetPeakRss(pid: number): boolean {
  let ok = true;
  for (const p of processTree(pid)) {
    try {
      writeFileSync(`/proc/${p}/clear_refs`, '5');
    } catch {
      ok = false;
    }
  }
  return ok;
}

/** The largest peak RSS among the process and its children (the workers, in cluster mode), in MB. */
function peakRssMb(pid: number): number {
  const hwm = (p: number) => {
    try {
      return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  return Math.max(...processTree(pid).map(hwm));
}

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

interface Service {
  kind: ServiceKind;
  child: ChildProcess;
  base: string;
  databaseUrl: string;
}

/** Tags a PostgreSQL URL with the name the service's connections show in pg_stat_activity. */
function applicationName(databaseUrl: string, kind: ServiceKind): string {
  if (!databaseUrl.startsWith('postgres')) return databaseUrl;
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', `calendar-bench-${process.pid}-${kind}`);
  return url.toString();
}

async function restartService(service: Service): Promise<void> {
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  // SIGKILL: a graceful stop would wait for the very requests it is meant to drop (both databases are safe)
  service.child.kill('SIGKILL');
  await exited;
  children.delete(service.child);
  if (service.databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [
        `calendar-bench-${process.pid}-${service.kind}`,
      ]);
    } finally {
      await client.end();
    }
  }
  Object.assign(service, await startService(service.kind, service.databaseUrl));
}

async function startService(kind: ServiceKind, databaseUrl: string): Promise<Service> {
  const port = await freePort();
  const env: Record<string, string | undefined> = { ...process.env };
  // the service's own defaults unless the scenario says otherwise, whatever the caller's environment holds
  delete env.CACHE_MB;
  delete env.SQLITE_SYNCHRONOUS;
  delete env.RATE_LIMIT;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...env,
      DATABASE_URL: applicationName(databaseUrl, kind),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      WORKERS,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...(kind === 'nocache' ? { CACHE_MB: '0' } : {}),
      ...(kind === 'full' ? { SQLITE_SYNCHRONOUS: 'FULL' } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  return { kind, child, base, databaseUrl };
}

// ---- capture ----------------------------------------------------------------------------------------------

/** Response headers the baseline does not replay: per-connection ones, and the ones node:http writes itself. */
const UNREPLAYED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-cache']);

interface Captured {
  key: string;
  status: number;
  /** How long the uncached service took to answer it (with CAPTURE_CONCURRENCY requests at a time). */
  ms: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function fetchOne(service: Service, r: RequestSpec): Promise<Captured | { key: string; status: number }> {
  const key = baselineKey(r.method, r.path, r.auth === true);
  const headers: Record<string, string> = {};
  if (r.auth) headers.authorization = AUTHORIZATION;
  if (r.body) headers['content-type'] = 'application/json';
  const t0 = performance.now();
  const res = await fetch(`${service.base}${r.path}`, {
    method: r.method,
    headers,
    body: r.body ? createBody(r.body, 0, `capture-${process.pid}`) : undefined,
  });
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.status >= 300) return { key, status: res.status };
  const kept: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!UNREPLAYED.has(name)) kept[name] = value;
  });
  return { key, status: res.status, ms, headers: kept, body };
}

/**
 * One request at a time: on SQLite the service answers one at a time anyway, and alone each answer's time is
 * its own cost (the JSON keeps it, per kind of URL, for the mixed stream). PostgreSQL works on several at once.
 */
let CAPTURE_CONCURRENCY = 1;

/**
 * Asks the service (the one without a response cache, so the capture neither warms nor teaches the cache of
 * the measured one) for every distinct request of the scenarios. Creates are sent once, so that the baseline
 * has a 201 to answer them with.
 */
async function capture(service: Service, requests: RequestSpec[]): Promise<{ captured: Captured[]; failed: { key: string; status: number }[] }> {
  const distinct = new Map<string, RequestSpec>();
  for (const r of requests) distinct.set(baselineKey(r.method, r.path, r.auth === true), r);
  const queue = [...distinct.values()];
  const captured: Captured[] = [];
  const failed: { key: string; status: number }[] = [];
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      const got = await fetchOne(service, r);
      if ('body' in got) captured.push(got);
      else failed.push(got);
    }
  };
  await Promise.all(Array.from({ length: CAPTURE_CONCURRENCY }, worker));
  return { captured, failed };
}

/**
 * The mixed stream: its read URLs in order, each distinct one captured once. A real stream keeps bringing URLs
 * never seen; a short list sent again and again would turn that tail into cache hits. So each run takes up the
 * stream where the last one stopped, the stream is captured further whenever the next run might need more
 * than is left, and a run that still comes round to URLs it already sent says so (`repeatedShare`).
 */
class MixStream {
  /** The captured reads, in stream order, without the URLs that did not answer 2xx. */
  readonly paths: string[] = [];
  readonly captured: Captured[] = [];
  readonly failed: { key: string; status: number }[] = [];
  private readonly seen = new Set<string>();
  private readonly rejected = new Set<string>();
  /** Stream positions per second of capture (a guess of what the service does uncached, for the first run). */
  rate = 0;

  constructor(
    private readonly service: Service,
    private readonly source: Iterator<string>,
  ) {}

  /** Captures until `count` reads are available (at most MIX_SIZE), keeping the stream's order. */
  async extendTo(count: number): Promise<void> {
    const target = Math.min(count, MIX_SIZE);
    const started = Date.now();
    const before = this.paths.length;
    while (this.paths.length < target) {
      const slots = Array.from({ length: target - this.paths.length }, () => this.source.next().value as string);
      const ok = slots.map(() => true);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < slots.length; i = next++) {
          const path = slots[i];
          if (this.seen.has(path)) continue;
          this.seen.add(path);
          const got = await fetchOne(this.service, { method: 'GET', path });
          if ('body' in got) this.captured.push(got);
          else {
            this.failed.push(got);
            this.rejected.add(path);
          }
        }
      };
      await Promise.all(Array.from({ length: CAPTURE_CONCURRENCY }, worker));
      slots.forEach((path, i) => {
        ok[i] = !this.rejected.has(path);
      });
      this.paths.push(...slots.filter((_, i) => ok[i]));
    }
    const seconds = (Date.now() - started) / 1000;
    if (this.paths.length > before && seconds > 0.2) this.rate = (this.paths.length - before) / seconds;
  }
}

/** The kinds of URL of the mixed stream (see mixedReads), to tell which cost what uncached. */
const URL_KINDS: [string, RegExp][] = [
  ['front page', /\/events$/],
  ['later page', /\/events\?page=/],
  ['page size', /\/events\?per_page=/],
  ['date window', /\/events\?start_date=/],
  ['category', /\/events\?categories=/],
  ['search', /\/events\?search=/],
  ['single event', /\/events\/\d+$/],
  ['venue search or page', /\/venues\?/],
  ['single venue', /\/venues\/\d+$/],
  ['events at a venue', /\/events\?venue=/],
];

function costByKind(captured: Captured[]) {
  const byKind = new Map<string, number[]>();
  for (const c of captured) {
    const url = c.key.replace(/^GET /, '');
    const kind = URL_KINDS.find(([, re]) => re.test(url))?.[0] ?? 'other';
    byKind.set(kind, [...(byKind.get(kind) ?? []), c.ms]);
  }
  return [...byKind].map(([kind, ms]) => {
    ms.sort((a, b) => a - b);
    const at = (q: number) => Number(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(1));
    return { kind, urls: ms.length, medianMs: at(0.5), p90Ms: at(0.9), maxMs: at(1) };
  });
}

function writeManifest(file: string, captured: Captured[]): void {
  const entries: Manifest['entries'] = [];
  let offset = 0;
  for (const c of captured) {
    entries.push({ key: c.key, status: c.status, headers: c.headers, offset, length: c.body.length });
    offset += c.body.length;
  }
  writeFileSync(file, JSON.stringify({ entries } satisfies Manifest));
  writeFileSync(`${file}.body`, Buffer.concat(captured.map((c) => c.body)));
}

// ---- one database -----------------------------------------------------------------------------------------

interface ScenarioResult {
  id: string;
  section: Section;
  name: string;
  note?: string;
  service: ServiceKind;
  requestsInList: number;
  distinctRequests: number;
  runs: RunRecord[];
  summary?: ScenarioSummary;
}

async function countEvents(dialect: Dialect, location: string, schema: string): Promise<number> {
  if (dialect === 'sqlite') {
    const db = new SqliteDatabase(location, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('select count(*) as n from events').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    return Number((await client.query(`select count(*) as n from ${schema}.events`)).rows[0].n);
  } finally {
    await client.end();
  }
}

async function benchDialect(dialect: Dialect) {
  const started = Date.now();
  const dir = join(tmpdir(), `calendar-bench-${process.pid}-${dialect}`);
  mkdirSync(dir, { recursive: true });
  const schema = `bench_${process.pid}`;
  let databaseUrl: string;
  let storage: Storage;
  const sqlitePath = join(dir, 'bench.db');
  if (dialect === 'sqlite') {
    databaseUrl = `sqlite:${sqlitePath}`;
    storage = new Storage(new SqliteDialect({ path: sqlitePath }));
  } else {
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
    const d = new PostgresDialect({ url: POSTGRES_URL, schema });
    await d.prepare();
    storage = new Storage(d);
  }
  const services = new Map<ServiceKind, Service>();
  try {
    await storage.migrate();
    await new UserService(storage).add({ login: ADMIN.login, role: 'administrator', password: ADMIN.password });
    process.stdout.write(`[${dialect}] seeding ${EVENTS.toLocaleString('en-US')} events… `);
    const seeded = await seed(storage, { events: EVENTS, venues: smoke ? 20 : 500, organizers: smoke ? 10 : 300, seed: SEED });
    await storage.optimize();
    process.stdout.write(`${seeded.seconds.toFixed(1)} s\n`);
    const published = await storage.db
      .selectFrom('posts')
      .select('id')
      .where('type', '=', 'event')
      .where('status', '=', 'publish')
      .orderBy('id')
      .execute();
    const venues = await storage.db
      .selectFrom('posts')
      .select('id')
      .where('type', '=', 'venue')
      .where('status', '=', 'publish')
      .orderBy('id')
      .execute();
    const ids: Ids = { publishedEventId: seeded.publishedEventId, eventIds: published.map((r) => r.id), venueIds: venues.map((r) => r.id) };
    await storage.close();

    const selected = scenarios(dialect, ids);
    for (const kind of ['nocache', 'normal', 'full'] as ServiceKind[]) {
      if (kind === 'nocache' || selected.some((s) => s.service === kind)) services.set(kind, await startService(kind, databaseUrl));
    }

    // capture every answer the baselines will give, from the service without a response cache
    const captureStarted = Date.now();
    const nocache = services.get('nocache')!;
    const toCapture = selected.filter((s) => s.baseline && !s.stream).flatMap((s) => s.requests);
    const streamed = selected.filter((s) => s.stream);
    // the creates of mixed traffic are answered by the baseline with the 201 of one real create
    if (streamed.some((s) => (s.writeShare ?? 0) > 0)) toCapture.push({ method: 'POST', path: EVENTS_PATH, auth: true, body: 'realistic' });
    CAPTURE_CONCURRENCY = dialect === 'sqlite' ? 1 : 4;
    const fixed = await capture(nocache, toCapture);
    const mix =
      streamed.length > 0
        ? new MixStream(
            nocache,
            mixedReads({
              seed: SEED,
              eventIds: ids.eventIds,
              venueIds: ids.venueIds,
              categories: 50,
              today: Math.floor(startedAt.getTime() / 86_400_000) * 86_400_000,
            }),
          )
        : undefined;
    // a first stretch, which also tells how fast the service answers the stream uncached
    await mix?.extendTo(smoke ? 100 : 200);
    const captureSeconds = (Date.now() - captureStarted) / 1000;
    const reportFailures = (failed: { key: string; status: number }[], what: string) => {
      if (failed.length === 0) return;
      const shown = failed.slice(0, 3).map((f) => `${f.key} → ${f.status}`);
      process.stdout.write(
        `[${dialect}] ${what}: ${failed.length} URL(s) did not answer 2xx and were left out: ${shown.join('; ')}${failed.length > 3 ? '; …' : ''}\n`,
      );
    };
    reportFailures(fixed.failed, 'capture');
    const good = new Set(fixed.captured.map((c) => c.key));
    for (const s of selected.filter((s) => s.baseline && !s.stream))
      s.requests = s.requests.filter((r) => good.has(baselineKey(r.method, r.path, r.auth === true)));
    // a scenario none of whose URLs answered has nothing to measure: it is reported as failed, not run
    const skipped = selected.filter((s) => !s.stream && s.requests.length === 0).map((s) => s.id);
    for (const id of skipped) process.stdout.write(`[${dialect}] ${id}: no URL of it answered 2xx: not measured\n`);
    const list = selected.filter((s) => !skipped.includes(s.id));

    const manifest = join(dir, 'baseline.json');
    let baseline: { child: ChildProcess; base: string } | undefined;
    /** (Re)starts the bare server with every answer captured so far. */
    const startBaseline = async () => {
      if (baseline) {
        baseline.child.kill('SIGTERM');
        children.delete(baseline.child);
      }
      writeManifest(manifest, [...fixed.captured, ...(mix?.captured ?? [])]);
      const port = await freePort();
      const child = spawn(process.execPath, [BASELINE, String(port), manifest], {
        env: { ...process.env, WORKERS },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.add(child);
      baseline = { child, base: `http://127.0.0.1:${port}` };
      await waitFor(`${baseline.base}/`);
    };
    await startBaseline();
    process.stdout.write(
      `[${dialect}] captured ${fixed.captured.length + (mix?.captured.length ?? 0)} answers in ${captureSeconds.toFixed(1)} s; services: ${[...services.keys()].join(', ')}\n`,
    );

    const results: ScenarioResult[] = list.map((s) => ({
      id: s.id,
      section: s.section,
      name: s.name,
      ...(s.note ? { note: s.note } : {}),
      service: s.service,
      requestsInList: s.requests.length,
      distinctRequests: new Set(s.requests.map((r) => baselineKey(r.method, r.path, r.auth === true))).size,
      runs: [],
    }));
    let peakScope = 'run' as 'run' | 'process';
    const nonce = `${process.pid.toString(36)}${Date.now().toString(36)}`;
    let loads = 0;

    /**
     * Per stream scenario: where its stretch of the stream begins (mixed.writes goes on where mixed.reads
     * stopped), how far into its list earlier runs have gone, and the most a run (warm-up included) has sent.
     */
    const streams = new Map<string, { offset: number; cursor: number; mostSent: number }>();
    /** Makes sure the stream holds what the next run of `s` can send; captures more (and restarts the baseline) if not. */
    const ensureStream = async (s: Scenario, result: ScenarioResult) => {
      let st = streams.get(s.id);
      if (!st) {
        const before = [...streams.values()];
        st = {
          offset: before.reduce((n, o) => Math.max(n, o.offset + o.cursor), 0),
          cursor: 0,
          mostSent: Math.max(0, ...before.map((o) => o.mostSent)),
        };
        streams.set(s.id, st);
      }
      // a first guess from the capture's pace, then what runs sent, with room: a warmer cache and a warmer
      // process answer more in the next round (2.5 times more was seen between one-second rounds)
      const perRun = 3 * Math.max(st.mostSent, mix!.rate * (DURATION + WARMUP));
      const needed = st.offset + st.cursor + Math.ceil(perRun) + 2 * CONNECTIONS;
      if (mix!.paths.length < needed && mix!.paths.length < MIX_SIZE) {
        const t0 = Date.now();
        await mix!.extendTo(needed);
        await startBaseline();
        process.stdout.write(
          `[${dialect}] mixed stream captured up to ${mix!.paths.length.toLocaleString('en-US')} requests (${mix!.captured.length.toLocaleString('en-US')} distinct URLs) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
        );
      }
      s.requests = withWrites(mix!.paths.slice(st.offset), s.writeShare ?? 0, SEED + st.offset);
      result.requestsInList = s.requests.length;
      result.distinctRequests = new Set(s.requests.map((r) => baselineKey(r.method, r.path, r.auth === true))).size;
      return st;
    };

    const runScenario = async (s: Scenario, result: ScenarioResult, round: number) => {
      const service = services.get(s.service)!;
      const st = s.stream ? await ensureStream(s, result) : undefined;
      if (s.requests.length === 0) throw new Error(`${s.id}: no request left to send`);
      const spec = (url: string, duration: number, connections = CONNECTIONS): LoadSpec => ({
        url,
        connections,
        duration,
        timeout: LOAD_TIMEOUT_S,
        authorization: AUTHORIZATION,
        requests: s.requests,
        ...(st ? { startAt: st.cursor } : {}),
        countCacheHits: s.countCacheHits,
        // every load process counts its creates from 1: the titles (and slugs) stay unique across them
        nonce: `${nonce}-${++loads}`,
      });
      /** Moves the stream on past what this run sent; answers the share of its requests that came round again. */
      const advance = (sent: number): number | undefined => {
        if (!st) return undefined;
        const before = st.cursor;
        st.mostSent = Math.max(st.mostSent, sent);
        // the connections go at their own pace: a margin so that the next run starts past all of them
        st.cursor += Math.ceil(sent * 1.05) + CONNECTIONS;
        return Math.min(1, Math.max(0, before + sent - s.requests.length) / Math.max(1, sent));
      };
      const eventsBefore = s.phase === 'write' ? await countEvents(dialect, dialect === 'sqlite' ? sqlitePath : POSTGRES_URL, schema) : undefined;
      if (WARMUP > 0) {
        const warm = await load(spec(service.base, WARMUP, WARMUP_CONNECTIONS), dir);
        advance(warm.total);
        await drain(service);
      }
      // the baseline is sent the stretch of the stream the service is about to be sent (it goes round it faster)
      const base = s.baseline ? await load(spec(baseline!.base, DURATION), dir) : undefined;
      if (!resetPeakRss(service.child.pid!)) peakScope = 'process';
      const target = await load(spec(service.base, DURATION), dir);
      const rss = peakRssMb(service.child.pid!);
      const repeatedShare = advance(target.total);
      const { seconds: settleSeconds, restarted } = await drain(service);
      const run: RunRecord = {
        round,
        service: target,
        ...(base ? { baseline: base, ratio: target.requestsPerSec / base.requestsPerSec } : {}),
        peakRssMb: rss,
        settleSeconds,
        ...(restarted ? { restarted } : {}),
        ...(eventsBefore !== undefined ? { eventsBefore } : {}),
        ...(repeatedShare !== undefined ? { repeatedShare } : {}),
      };
      result.runs.push(run);
      const f = (n: number) => (n >= 100 ? Math.round(n) : Number(n.toFixed(2))).toLocaleString('en-US');
      process.stdout.write(
        `[${dialect} r${round}] ${`${s.id}`.padEnd(22)} ${f(target.requestsPerSec).padStart(8)} ${s.phase === 'write' && !s.baseline ? 'writes/s' : 'req/s'}  p50 ${f(target.p50)} ms  p99 ${f(target.p99)} ms` +
          (base
            ? `  baseline ${f(base.requestsPerSec)} req/s  ratio ${fmtRatio(run.ratio!)}${run.ratio! > 1 ? ' (ABOVE 1: measurement error)' : ''}`
            : '') +
          (target.cacheHits !== undefined && target.total > 0 ? `  cache hits ${Math.round((100 * target.cacheHits) / target.total)}%` : '') +
          (target.non2xx + target.errors + target.timeouts > 0
            ? `  (non-2xx ${target.non2xx}, errors ${target.errors}, timeouts ${target.timeouts})`
            : '') +
          `  RSS ${rss.toFixed(0)} MB` +
          (restarted
            ? `  (still busy after ${DRAIN_MS / 1000} s: restarted)`
            : settleSeconds > 1
              ? `  settled in ${settleSeconds.toFixed(1)} s`
              : '') +
          (eventsBefore !== undefined ? `  (${eventsBefore.toLocaleString('en-US')} events before)` : '') +
          (repeatedShare ? `  (${Math.round(repeatedShare * 100)}% of the requests came round the stream again)` : '') +
          '\n',
      );
    };

    for (const phase of ['read', 'write'] as const) {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [i, s] of list.entries()) if (s.phase === phase) await runScenario(s, results[i], round);
      }
    }
    // pages past the end of a short date window, mostly: the data decides, and the same data gives the same stream
    if (mix) reportFailures(mix.failed, 'mixed stream');
    const mixCost = mix ? costByKind(mix.captured) : [];
    if (mix) {
      process.stdout.write(`[${dialect}] uncached cost of the mixed stream's URLs, as captured ${CAPTURE_CONCURRENCY} at a time (ms):\n`);
      for (const k of mixCost)
        process.stdout.write(`    ${k.kind.padEnd(22)} ${String(k.urls).padStart(6)} URLs  median ${k.medianMs}  p90 ${k.p90Ms}  max ${k.maxMs}\n`);
    }
    for (const r of results) r.summary = summarize(r.runs);
    const peakRss = Math.max(...[...services.values()].map((s) => peakRssMb(s.child.pid!)));
    return {
      dialect,
      events: EVENTS,
      seedSeconds: seeded.seconds,
      captureSeconds,
      capturedAnswers: fixed.captured.length + (mix?.captured.length ?? 0),
      captureFailures: [...fixed.failed, ...(mix?.failed ?? [])],
      mixedStream: mix
        ? {
            requests: mix.paths.length,
            distinctUrls: mix.captured.length,
            offsets: Object.fromEntries(streams),
            captureConcurrency: CAPTURE_CONCURRENCY,
            uncachedCostByKind: mixCost,
          }
        : undefined,
      peakRssScope: peakScope,
      /** The largest lifetime peak among the service processes (whatever scenario raised it). */
      servicePeakRssMb: peakRss,
      wallSeconds: (Date.now() - started) / 1000,
      skipped,
      scenarios: results,
    };
  } finally {
    killChildren();
    await sleep(300);
    if (dialect === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- main -------------------------------------------------------------------------------------------------

function gitInfo(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

const dialects = (values.dialects ?? (smoke ? 'sqlite' : 'sqlite,postgres')).split(',').map((d) => d.trim()) as Dialect[];
for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--dialects: unknown "${d}"`);

if (values.list) {
  const ids: Ids = { publishedEventId: 1, eventIds: [1], venueIds: [1] };
  for (const d of dialects)
    for (const s of scenarios(d, ids))
      process.stdout.write(`${d.padEnd(9)}${s.id.padEnd(24)}${s.section.padEnd(10)}${s.name}${s.note ? ` (${s.note})` : ''}\n`);
  process.exit(0);
}

{
  // the README's rule of thumb (How long it takes): per round, ~3 s beside the loads of a read, ~2 s of a write
  const seconds = dialects
    .flatMap((d) => scenarios(d, { publishedEventId: 1, eventIds: [1], venueIds: [1] }))
    .reduce((n, s) => n + ROUNDS * (s.baseline ? 2 * DURATION + WARMUP + 3 : DURATION + WARMUP + 2), 0);
  process.stdout.write(
    `${EVENTS.toLocaleString('en-US')} events, ${dialects.join(' + ')}, ${ROUNDS} round(s), ${DURATION} s per load (+${WARMUP} s warm-up): ` +
      `about ${seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`} of runs, plus seeding, capture and draining\n`,
  );
}

const loadBefore = loadavg();
const results = [];
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await postgresAnswers())) {
    process.stdout.write(`[postgres] ${POSTGRES_URL} does not answer: skipped\n`);
    continue;
  }
  results.push(await benchDialect(dialect));
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  os: `${process.platform} ${release()}`,
  node: process.version,
  loadAverageBefore: loadBefore,
  loadAverageAfter: loadavg(),
};
const options = {
  events: EVENTS,
  dialects,
  /** The service's kept event JSON (src/http/fragments.ts): its MiB as the environment sets it, or its default. */
  fragmentCacheMb: process.env.FRAGMENT_CACHE_MB ?? 'default (16)',
  duration: DURATION,
  warmup: WARMUP,
  drainSeconds: DRAIN_MS / 1000,
  rounds: ROUNDS,
  connections: CONNECTIONS,
  mixSize: MIX_SIZE,
  seed: SEED,
  workers: WORKERS,
  smoke,
  scenarios: values.scenarios ?? null,
};

process.stdout.write(
  `\n${EVENTS.toLocaleString('en-US')} events, ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION} s, ${WORKERS} worker(s); ${machine.cores} cores (${machine.cpu}), node ${machine.node}; ` +
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${machine.loadAverageAfter.map((l) => l.toFixed(2)).join(' ')}\n`,
);
for (const r of results) {
  const rows = r.scenarios.map((s) => ({ section: s.section, name: s.name, note: s.note, summary: s.summary! }));
  process.stdout.write(`${table(`${r.dialect}, ${EVENTS.toLocaleString('en-US')} events`, rows)}\n`);
  process.stdout.write(
    `\n  ${r.dialect}: seeding ${r.seedSeconds.toFixed(1)} s, capture ${r.captureSeconds.toFixed(1)} s, whole run ${(r.wallSeconds / 60).toFixed(1)} min, ` +
      `largest service peak RSS ${r.servicePeakRssMb.toFixed(0)} MB${r.peakRssScope === 'process' ? ' (per-run peaks could not be reset: RSS figures are process peaks)' : ''}\n`,
  );
}

const git = gitInfo();
const stamp = startedAt.toISOString().replace(/[:.]/g, '-').slice(0, 19);
const out =
  values.out ??
  (smoke
    ? join(tmpdir(), `calendar-bench-smoke-${process.pid}.json`)
    : join(ROOT, 'bench/measured', `${stamp}-${EVENTS >= 1_000_000 ? `${EVENTS / 1_000_000}m` : `${EVENTS / 1000}k`}-${dialects.join('-')}.json`));
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, `${JSON.stringify({ date: startedAt.toISOString(), git, machine, options, results }, null, 2)}\n`);
process.stdout.write(`\nresults: ${out}${git.dirty ? ' (the working tree had uncommitted changes)' : ''}\n`);
const failed = results.flatMap((r) =>
  [...r.scenarios.filter((s) => s.summary!.failed).map((s) => s.id), ...r.skipped].map((id) => `${r.dialect} ${id}`),
);
if (failed.length > 0) process.stdout.write(`failed: ${failed.join(', ')}\n`);
process.exit(failed.length > 0 || results.length === 0 ? 1 : 0);
