/**
 * Site import rate (issue 15): events per second of a `{"source":"tec"}` import job, from the POST to the
 * job's end, run by the job runner as the service runs it (default options: 2 requests in flight):
 *
 * 1. the recorded TEC 6.17 site (test/fixtures/tec-6.17, replayed by the tests' fixture server on loopback):
 *    151 events, 9 categories, 11 tags, 12 venues, 8 organizers; a first run into an empty database, then a
 *    second run (nothing changed: every record read and compared);
 * 2. a 10,000-event source: this service itself, with the benchmark dataset (seed.ts: ±2 years, some drafts and
 *    events hidden from listings), `calendar serve` in a process of its own on loopback (so its answers do not
 *    share the importer's event loop; its response cache off, so that every answer is computed); imported into
 *    an empty database, then again: anonymously (the published events; drafts answer 403 to the id probes), and
 *    with an editor's application password (all of them).
 *
 * The source is SQLite in a file; the target is each dialect in turn. Three rounds each.
 * `node dist/bench/tec-import.js [--events N] [--rounds R] [--dialects sqlite,postgres] [--out DIR]` writes
 * `tec-import-<stamp>.json` into bench/measured/ by default.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { UserService } from '../src/domain/users/user.service.js';
import { PostgresDialect } from '../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import { freePort } from '../test/helpers/server.js';
import { recordedEntries, TecSite, writtenEntries } from '../test/helpers/tec-site.js';
import { seed } from './seed.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const EVENTS = Number(args.get('events') ?? 10_000);
const ROUNDS = Number(args.get('rounds') ?? 3);
const DIALECTS = (args.get('dialects') ?? 'sqlite,postgres').split(',');
const OUT = args.get('out') ?? join(new URL('..', import.meta.url).pathname, '..', 'bench', 'measured');
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const NS = '/calendar/events/v1';
const ADMIN = { authorization: `Basic ${Buffer.from('bench-admin:bench-admin-password').toString('base64')}` };
const ENV = { LOG_LEVEL: 'silent', IMPORT_ALLOW_PRIVATE: 'on', SITE_TIMEZONE: 'America/New_York' };

async function open(dialect: string, name: string) {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `calendar-tec-${name}-`));
    return {
      storage: new Storage(new SqliteDialect({ path: join(dir, 'db.sqlite') })),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_tec_${name}_${process.pid}`;
  const d = new PostgresDialect({ url: POSTGRES_URL, schema });
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

interface Run {
  seconds: number;
  events: number;
  events_per_second: number;
  requests: number;
  state: string;
  counts: unknown;
}

/** One import job into `app`, timed from the POST to the job's end. */
async function importOnce(app: Awaited<ReturnType<typeof buildApp>>, url: string, appPassword?: string): Promise<Run> {
  const started = process.hrtime.bigint();
  const payload = { source: 'tec', url, ...(appPassword ? { app_password: appPassword } : {}) };
  const posted = await app.inject({ method: 'POST', url: `${NS}/imports`, headers: ADMIN, payload });
  if (posted.statusCode !== 202) throw new Error(`import: ${posted.statusCode} ${posted.body.slice(0, 300)}`);
  await app.services.imports.runPending();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const job = (await app.inject({ url: `${NS}/imports/${posted.json().id}`, headers: ADMIN })).json();
  const e = job.report.resources.events;
  const events = e.created + e.updated + e.unchanged;
  return { seconds, events, events_per_second: events / seconds, requests: job.report.requests, state: job.state, counts: job.report.resources };
}

/** First and second import of `url` into a fresh database of `dialect`, `ROUNDS` times. */
async function rounds(dialect: string, name: string, url: string, appPassword?: string): Promise<{ first: Run[]; second: Run[] }> {
  const out = { first: [] as Run[], second: [] as Run[] };
  for (let r = 0; r < ROUNDS; r++) {
    const target = await open(dialect, `${name}${r}`);
    try {
      await target.storage.migrate();
      await new UserService(target.storage).add({ login: 'bench-admin', role: 'administrator', password: 'bench-admin-password' });
      const app = await buildApp(loadConfig(ENV), target.storage, { logger: false });
      const first = await importOnce(app, url, appPassword);
      const second = await importOnce(app, url, appPassword);
      await app.close();
      out.first.push(first);
      out.second.push(second);
      const line = (label: string, run: Run) =>
        `${label} ${run.events} events in ${run.seconds.toFixed(2)} s = ${run.events_per_second.toFixed(0)} events/s (${run.requests} requests, ${run.state})`;
      console.log(`  [${dialect}] ${name} round ${r + 1}: ${line('first', first)}; ${line('second', second)}`);
    } finally {
      await target.storage.close();
      await target.cleanup();
    }
  }
  return out;
}

const results: Record<string, unknown> = {};
const site = await TecSite.start([...recordedEntries(), ...writtenEntries('span-probes')]);
console.log(`source 1: the recorded TEC 6.17 site at ${site.url}`);
const dir = mkdtempSync(join(tmpdir(), 'calendar-tec-source-'));
const sourceStorage = new Storage(new SqliteDialect({ path: join(dir, 'source.sqlite') }));
await sourceStorage.migrate();
const seeded = await seed(sourceStorage, { events: EVENTS });
// an editor's application password on the source: with it every event comes, drafts too
await new UserService(sourceStorage).add({ login: 'source-editor', role: 'editor', password: 'source-editor-password' });
await sourceStorage.optimize();
await sourceStorage.close();
const port = await freePort();
const sourceUrl = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [join(new URL('..', import.meta.url).pathname, 'src', 'cli', 'main.js'), 'serve'], {
  // (its response cache off: every answer is computed, as a site without a page cache computes it)
  env: {
    PATH: process.env.PATH ?? '',
    ...ENV,
    CACHE_MB: '0',
    DATABASE_URL: `sqlite:${join(dir, 'source.sqlite')}`,
    PORT: String(port),
    PUBLIC_URL: sourceUrl,
  },
  stdio: 'ignore',
});
for (let i = 0; i < 200; i++) {
  const up = await fetch(`${sourceUrl}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  await new Promise((r) => setTimeout(r, 50));
}
console.log(`source 2: this service with ${EVENTS} events (seeded in ${seeded.seconds.toFixed(1)} s) at ${sourceUrl}, pid ${server.pid}`);
try {
  for (const dialect of DIALECTS) {
    results[dialect] = {
      recorded_site: await rounds(dialect, 'recorded', site.url),
      own_service: await rounds(dialect, 'own', sourceUrl),
      own_service_with_app_password: await rounds(dialect, 'authed', sourceUrl, 'source-editor:source-editor-password'),
    };
  }
} finally {
  server.kill();
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  await site.close();
}
results.settings = { events: EVENTS, rounds: ROUNDS, dialects: DIALECTS, concurrency: 2, node: process.version };
mkdirSync(OUT, { recursive: true });
const file = join(OUT, `tec-import-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${file}`);
