/**
 * iCalendar (issue 13), in-process through `app.inject()`:
 *
 * 1. a feed of `--feed` events (default 5,000, the most one feed holds), rendered uncached (response cache off),
 *    three runs of `--repeat` requests each: p50 and max;
 * 2. a repeat poll of the same feed with the response cache on and the ETag of the last answer: served without
 *    rendering (304), p50;
 * 3. importing `--import` events (default 10,000) from one .ics file, made from this dataset's feeds, into an
 *    empty database through `POST /imports` and the job runner: seconds from the POST to the job's end.
 *
 * `node dist/bench/ical.js [--events N] [--feed N] [--repeat R] [--dialects sqlite,postgres] [--out DIR]`
 * writes `ical-<stamp>.json` into bench/measured/ by default.
 */
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
import { seed } from './seed.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const EVENTS = Number(args.get('events') ?? 10_000);
const FEED = Number(args.get('feed') ?? 5_000);
const REPEAT = Number(args.get('repeat') ?? 5);
const IMPORT = Number(args.get('import') ?? 10_000);
const DIALECTS = (args.get('dialects') ?? 'sqlite').split(',');
const OUT = args.get('out') ?? join(new URL('..', import.meta.url).pathname, '..', 'bench', 'measured');
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const NS = '/calendar/events/v1';
const ADMIN = { authorization: `Basic ${Buffer.from('bench-admin:bench-admin-password').toString('base64')}` };
const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

async function open(dialect: string, name = 'feed') {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `calendar-ical-${name}-`));
    return {
      storage: new Storage(new SqliteDialect({ path: join(dir, 'ical.sqlite') })),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_ical_${name}_${process.pid}`;
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

async function time(app: Awaited<ReturnType<typeof buildApp>>, url: string, headers: Record<string, string> = {}) {
  const t0 = process.hrtime.bigint();
  const res = await app.inject({ method: 'GET', url, headers });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, res };
}

const results: Record<string, unknown> = {};
for (const dialect of DIALECTS) {
  console.log(`[${dialect}] ${EVENTS} events`);
  const { storage, cleanup } = await open(dialect);
  try {
    await storage.migrate();
    await seed(storage, { events: EVENTS });
    await storage.optimize();
    await new UserService(storage).add({ login: 'bench-admin', role: 'administrator', password: 'bench-admin-password' });
    // the seed spreads events over ±2 years: a window of all of them, so that the feed holds `limit`
    const url = `${NS}/events.ics?start_date=2000-01-01&end_date=2099-12-31&limit=${FEED}`;
    const uncached = await buildApp(loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0' }), storage, { logger: false });
    const runs: { p50: number; max: number; vevents: number; bytes: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const times: number[] = [];
      let vevents = 0;
      let bytes = 0;
      for (let i = 0; i < REPEAT; i++) {
        const { ms, res } = await time(uncached, url);
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`);
        times.push(ms);
        vevents = (res.body.match(/\r\nBEGIN:VEVENT\r\n/g) ?? []).length;
        bytes = res.rawPayload.length;
      }
      runs.push({ p50: p(times, 0.5), max: Math.max(...times), vevents, bytes });
      console.log(
        `  uncached feed run ${r + 1}: p50 ${p(times, 0.5).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${vevents} VEVENTs, ${bytes} bytes)`,
      );
    }
    await uncached.close();

    const cached = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), storage, { logger: false });
    let etag = '';
    for (let i = 0; i < 3; i++) etag = String((await time(cached, url)).res.headers.etag);
    const polls: number[] = [];
    for (let i = 0; i < 50; i++) {
      const { ms, res } = await time(cached, url, { 'if-none-match': etag });
      if (res.statusCode !== 304) throw new Error(`repeat poll: ${res.statusCode}`);
      polls.push(ms);
    }
    console.log(`  repeat poll (304, cache on): p50 ${p(polls, 0.5).toFixed(2)} ms`);

    // one file of IMPORT events: the VEVENTs of consecutive feeds (5,000 at most each), under one VCALENDAR
    const seeded = await storage.db.selectFrom('events').select(['start_date']).orderBy('start_date').execute();
    const parts: string[] = [];
    let header = '';
    for (let from = 0; from < seeded.length; from += 5000) {
      const upto = Math.min(from + 5000, seeded.length) - 1;
      const window = `start_date=${seeded[from].start_date.slice(0, 10)}&end_date=${seeded[upto].start_date.slice(0, 10)}`;
      const body = (await time(cached, `${NS}/events.ics?${window}&limit=${upto - from + 1}`, ADMIN)).res.body;
      const first = body.indexOf('BEGIN:VEVENT');
      header ||= body.slice(0, first);
      parts.push(body.slice(first, body.lastIndexOf('END:VCALENDAR')));
    }
    // consecutive windows share their edge days: each event once, and IMPORT of them
    const seen = new Set<string>();
    const unique = parts
      .join('')
      .split(/(?=BEGIN:VEVENT\r\n)/)
      .filter((v) => {
        const uid = /\r\nUID:([^\r]*)\r\n/.exec(v)?.[1] ?? v;
        if (seen.has(uid)) return false;
        seen.add(uid);
        return true;
      })
      .slice(0, IMPORT);
    await cached.close();
    const file = `${header}${unique.join('')}END:VCALENDAR\r\n`;
    const vevents = (file.match(/\r\nBEGIN:VEVENT\r\n/g) ?? []).length;
    const target = await open(dialect, 'import');
    let importSeconds = 0;
    let counts: unknown;
    try {
      await target.storage.migrate();
      await new UserService(target.storage).add({ login: 'bench-admin', role: 'administrator', password: 'bench-admin-password' });
      const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), target.storage, { logger: false });
      const started = process.hrtime.bigint();
      const posted = await app.inject({
        method: 'POST',
        url: `${NS}/imports`,
        headers: { ...ADMIN, 'content-type': 'text/calendar' },
        payload: file,
      });
      if (posted.statusCode !== 202) throw new Error(`import: ${posted.statusCode} ${posted.body.slice(0, 300)}`);
      await app.services.imports.runPending();
      importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const job = (await app.inject({ url: `${NS}/imports/${posted.json().id}`, headers: ADMIN })).json();
      counts = { state: job.state, ...job.counts, errors: (job.errors ?? []).slice(0, 3) };
      await app.close();
    } finally {
      await target.storage.close();
      await target.cleanup();
    }
    console.log(`  import of ${vevents} VEVENTs (${(file.length / 1048576).toFixed(1)} MB): ${importSeconds.toFixed(1)} s ${JSON.stringify(counts)}`);
    results[dialect] = {
      events: EVENTS,
      feed_limit: FEED,
      uncached_feed_ms: runs,
      repeat_poll_304_ms: { p50: p(polls, 0.5), max: Math.max(...polls) },
      import: { vevents, bytes: file.length, seconds: importSeconds, job: counts },
    };
  } finally {
    await storage.close();
    await cleanup();
  }
}
results.settings = { events: EVENTS, feed: FEED, repeat: REPEAT, dialects: DIALECTS, node: process.version };
mkdirSync(OUT, { recursive: true });
const file = join(OUT, `ical-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${file}`);
