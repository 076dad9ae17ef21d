/**
 * `npm run bench`: seeds a database in bulk, starts the service as a user would (`calendar serve`, production
 * settings) and a bare node:http server with the exact bytes of its default `GET /events` answer, loads each
 * with autocannon (same connections and duration, alternating baseline and service per scenario), and prints
 * a table and JSON: req/s, p50, p99, ratio to the baseline, peak RSS. See bench/README.md.
 *
 * Options: --events N (10000) --dialects sqlite,postgres --duration S (10) --connections C (64)
 *          --scenarios name,name --smoke (tiny and quick: CI runs it) --out FILE
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { UserService } from '../src/domain/users/user.service.js';
import { PostgresDialect } from '../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import type { LoadResult, LoadSpec } from './load.js';
import { freePort } from '../test/helpers/server.js';
import { seed } from './seed.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const BIN = join(here, '../src/cli/main.js');
const LOAD = join(here, 'load.js');
const BASELINE = join(here, 'baseline.js');
const NS = '/calendar/events/v1';
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };

const { values } = parseArgs({
  options: {
    events: { type: 'string' },
    dialects: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    scenarios: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});
const smoke = values.smoke === true;
const EVENTS = Number(values.events ?? (smoke ? 300 : 10_000));
const DURATION = Number(values.duration ?? (smoke ? 1 : 10));
const CONNECTIONS = Number(values.connections ?? (smoke ? 8 : 64));
const WORKERS = values.workers!;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';

interface Scenario {
  name: string;
  requests: LoadSpec['requests'];
  auth?: boolean;
  /** Writes: the figure is writes per second. */
  writes?: boolean;
  /**
   * Its answer is much larger than the default list's: also measure a bare server returning these exact bytes
   * (the physical limit for this payload size, reported beside the ratio, not instead of it).
   */
  sameBytes?: boolean;
}

function scenarios(eventId: number): Scenario[] {
  const list = `${NS}/events`;
  const all: Scenario[] = [
    { name: 'GET /events (default, anonymous)', requests: [{ method: 'GET', path: list }] },
    { name: 'GET /events?per_page=50', requests: [{ method: 'GET', path: `${list}?per_page=50` }], sameBytes: true },
    {
      name: 'GET /events filtered (category+search+dates)',
      requests: [{ method: 'GET', path: `${list}?categories=category-3&search=jazz&start_date=-1%20year&end_date=%2B1%20year` }],
    },
    { name: 'GET /events geolocation (50 km)', requests: [{ method: 'GET', path: `${list}?geoloc_lat=48.8566&geoloc_lng=2.3522` }] },
    { name: 'GET /events/<id>', requests: [{ method: 'GET', path: `${list}/${eventId}` }] },
    { name: 'GET /venues?search=hall', requests: [{ method: 'GET', path: `${NS}/venues?search=hall` }] },
    { name: 'GET /events with Basic auth', requests: [{ method: 'GET', path: list }], auth: true },
    { name: 'POST /events (writes/s)', requests: [{ method: 'POST', path: list, body: 'event' }], auth: true, writes: true },
    {
      name: 'mix 90% GET /events, 10% POST',
      requests: [...Array(9).fill({ method: 'GET', path: list }), { method: 'POST', path: list, body: 'event' }],
      auth: true,
    },
    { name: 'GET /events uncached (unique URLs)', requests: [{ method: 'GET', path: list, unique: true }] },
    { name: 'GET /events/<id> uncached (unique URLs)', requests: [{ method: 'GET', path: `${list}/${eventId}`, unique: true }] },
  ];
  // the smoke run (CI) only proves the harness works: three scenarios, one second each
  const only = values.scenarios?.split(',').map((s) => s.trim().toLowerCase()) ?? (smoke ? ['default', 'post /events', 'get /events/<id>'] : undefined);
  return only ? all.filter((s) => only.some((o) => s.name.toLowerCase().includes(o))) : all;
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}`))));
  });
}

async function load(spec: LoadSpec): Promise<LoadResult> {
  return JSON.parse((await runNode(LOAD, [JSON.stringify(spec)])).trim().split('\n').pop()!) as LoadResult;
}

/** The largest peak RSS among the process and its children (the workers, in cluster mode). */
function peakRssMb(pid: number): number {
  const hwm = (p: number) => {
    try {
      return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return Math.max(hwm(pid), ...children.map(hwm));
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

interface Row {
  scenario: string;
  target: LoadResult;
  baseline: LoadResult;
  ratio: number;
  /** A bare server returning this scenario's own bytes (scenarios with `sameBytes`). */
  sameBytesBaseline?: LoadResult;
  sameBytesRatio?: number;
  /** The service's peak RSS so far, read after this scenario (which scenario raised it). */
  peakRssMb?: number;
}

/** Starts a bare server answering every request with these bytes; resolves once it answers. */
async function startBaseline(port: number, body: Buffer, file: string): Promise<ChildProcess> {
  writeFileSync(file, body);
  const child = spawn(process.execPath, [BASELINE, String(port), file], { env: { ...process.env, WORKERS }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor(`http://127.0.0.1:${port}/`);
  return child;
}

async function benchDialect(dialect: 'sqlite' | 'postgres') {
  const dir = join(tmpdir(), `calendar-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const schema = `bench_${process.pid}`;
  let databaseUrl: string;
  let storage: Storage;
  if (dialect === 'sqlite') {
    const path = join(dir, 'bench.db');
    databaseUrl = `sqlite:${path}`;
    storage = new Storage(new SqliteDialect({ path }));
  } else {
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
    const d = new PostgresDialect({ url: POSTGRES_URL, schema });
    await d.prepare();
    storage = new Storage(d);
  }
  await storage.migrate();
  await new UserService(storage).add({ login: ADMIN.login, role: 'administrator', password: ADMIN.password });
  process.stdout.write(`[${dialect}] seeding ${EVENTS} events… `);
  const seeded = await seed(storage, { events: EVENTS, venues: smoke ? 20 : 500, organizers: smoke ? 10 : 300 });
  await storage.optimize();
  process.stdout.write(`${seeded.seconds.toFixed(1)} s\n`);
  await storage.close();

  const port = await freePort();
  const basePort = await freePort();
  const children: ChildProcess[] = [];
  try {
    const server = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        WORKERS,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(server);
    await waitFor(`http://127.0.0.1:${port}/healthz`);
    const body = Buffer.from(await (await fetch(`http://127.0.0.1:${port}${NS}/events`)).arrayBuffer());
    children.push(await startBaseline(basePort, body, join(dir, 'events.json')));
    await new Promise((r) => setTimeout(r, 300));

    const auth = { authorization: `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}` };
    const rows: Row[] = [];
    for (const scenario of scenarios(seeded.publishedEventId)) {
      const common = { connections: CONNECTIONS, duration: DURATION };
      // warm the service, then measure the baseline and the service back to back
      if (!smoke) await load({ ...common, duration: 1, url: `http://127.0.0.1:${port}`, requests: scenario.requests, headers: scenario.auth ? auth : undefined });
      const base = await load({ ...common, url: `http://127.0.0.1:${basePort}`, requests: [{ method: 'GET', path: '/' }] });
      const target = await load({ ...common, url: `http://127.0.0.1:${port}`, requests: scenario.requests, headers: scenario.auth ? auth : undefined });
      const row: Row = { scenario: scenario.name, target, baseline: base, ratio: target.requestsPerSec / base.requestsPerSec };
      if (scenario.sameBytes && !smoke) {
        const own = Buffer.from(await (await fetch(`http://127.0.0.1:${port}${scenario.requests[0].path}`)).arrayBuffer());
        const samePort = await freePort();
        const same = await startBaseline(samePort, own, join(dir, 'same-bytes.json'));
        try {
          row.sameBytesBaseline = await load({ ...common, url: `http://127.0.0.1:${samePort}`, requests: [{ method: 'GET', path: '/' }] });
          row.sameBytesRatio = target.requestsPerSec / row.sameBytesBaseline.requestsPerSec;
        } finally {
          same.kill('SIGTERM');
        }
      }
      row.peakRssMb = peakRssMb(server.pid!);
      rows.push(row);
      process.stdout.write(
        `[${dialect}] ${scenario.name.padEnd(44)} ${fmt(target.requestsPerSec, 9)} req/s  p50 ${fmt(target.p50, 4)} ms  p99 ${fmt(target.p99, 4)} ms  ` +
          `baseline ${fmt(base.requestsPerSec, 9)} req/s  ratio ${row.ratio.toFixed(2)}` +
          (row.sameBytesBaseline ? `  (same-bytes baseline ${fmt(row.sameBytesBaseline.requestsPerSec, 0)} req/s, ratio ${row.sameBytesRatio!.toFixed(2)})` : '') +
          `${target.non2xx + target.errors > 0 ? `  (non-2xx ${target.non2xx}, errors ${target.errors})` : ''}  peak RSS ${row.peakRssMb.toFixed(0)} MB\n`,
      );
    }
    return { dialect, events: EVENTS, seedSeconds: seeded.seconds, peakRssMb: peakRssMb(server.pid!), rows };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    if (dialect === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, width: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2)).padStart(width);

const dialects = (values.dialects ?? (smoke ? 'sqlite' : 'sqlite,postgres')).split(',').map((d) => d.trim()) as ('sqlite' | 'postgres')[];
const results = [];
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await postgresAnswers())) {
    process.stdout.write(`[postgres] ${POSTGRES_URL} does not answer: skipped\n`);
    continue;
  }
  results.push(await benchDialect(dialect));
}

process.stdout.write(`\n${EVENTS} events, ${CONNECTIONS} connections, ${DURATION} s per run, ${WORKERS} worker(s), ${cpus().length} cores, node ${process.version}\n`);
process.stdout.write(
  `${'dialect'.padEnd(9)}${'scenario'.padEnd(46)}${'req/s'.padStart(9)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'base req/s'.padStart(11)}${'ratio'.padStart(7)}${'same-bytes ratio'.padStart(18)}\n`,
);
for (const r of results) {
  for (const row of r.rows) {
    process.stdout.write(
      `${r.dialect.padEnd(9)}${row.scenario.padEnd(46)}${fmt(row.target.requestsPerSec, 9)}${fmt(row.target.p50, 8)}${fmt(row.target.p99, 8)}${fmt(row.baseline.requestsPerSec, 11)}${row.ratio.toFixed(2).padStart(7)}${(row.sameBytesRatio === undefined ? '' : row.sameBytesRatio.toFixed(2)).padStart(18)}\n`,
    );
  }
  process.stdout.write(`${r.dialect.padEnd(9)}seeding ${r.seedSeconds.toFixed(1)} s, peak RSS of the service ${r.peakRssMb.toFixed(0)} MB\n`);
}
const out = values.out ?? join(here, '../../bench/results', `bench-${EVENTS}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), events: EVENTS, connections: CONNECTIONS, duration: DURATION, workers: WORKERS, node: process.version, cores: cpus().length, results }, null, 2)}\n`,
);
process.stdout.write(`results: ${out}\n`);
const failed = results.some((r) => r.rows.some((row) => row.target.ok === 0));
process.exit(failed ? 1 : 0);
