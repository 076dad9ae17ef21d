/**
 * In-process list latency at N events, without the response cache (`CACHE_MB=0`), and how long the event loop
 * was held while each kind of list ran (issue 17: "uncached filtered list and 50 km location search: p50 ≤ 20 ms
 * at 1M events in-process, and no request blocks the event loop for more than 50 ms"). The requests run one
 * after the other through `app.inject` (no HTTP, no load generator); the loop's delay is `monitorEventLoopDelay`
 * at 1 ms resolution over each scenario's runs, with a turn of the loop between requests — its max is the longest
 * the loop went without turning (garbage collection and the machine's other work included). On SQLite, whose driver is synchronous, a request does not give the loop a
 * turn until it is done, so that is close to its whole time; on PostgreSQL it turns at every statement. The full
 * harness is `npm run bench`.
 *
 * Usage: node dist/bench/quick-list.js [events] [--dialects sqlite,postgres] [--runs N] [--read-threads LIST]
 * [--sqlite-memory] [--out FILE]
 * (SQLite in a file of its own, as the service runs it, removed after — `--sqlite-memory`: in memory, as before
 * session 25, where no read thread can reach it; PostgreSQL in a schema of its own, dropped after.)
 * `--read-threads 0,1`: SQLite only, each scenario measured once per value (SQLITE_READ_THREADS: apps on the same
 * file, one after the other scenario by scenario); default: the service's default.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { DEFAULT_READ_THREADS, SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { openStorage, Storage } from '../src/storage/storage.js';
import { locateDatabase, writeMeasured } from './artefacts.js';
import { seed } from './seed.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dialects: { type: 'string' },
    runs: { type: 'string' },
    out: { type: 'string' },
    'read-threads': { type: 'string' },
    'sqlite-memory': { type: 'boolean' },
  },
});
const n = Number(positionals[0] ?? 10_000);
const dialects = (values.dialects ?? 'sqlite').split(',');
const maxRuns = Number(values.runs ?? process.env.RUNS ?? 300);
const threadCounts = values['read-threads']?.split(',').map(Number) ?? [DEFAULT_READ_THREADS];

const B = '/calendar/events/v1';
const scenarios = (publishedEventId: number): [id: string, url: string, runs: number][] => [
  ['list', `${B}/events`, 300],
  ['list-per-page-50', `${B}/events?per_page=50`, 300],
  ['category', `${B}/events?categories=category-1`, 100],
  ['filtered', `${B}/events?categories=category-1&search=jazz&start_date=-1 year&end_date=+1 year&per_page=10`, 100],
  ['geolocation', `${B}/events?geoloc_lat=48.8566&geoloc_lng=2.3522`, 100],
  ['geolocation-page-3', `${B}/events?geoloc_lat=48.8566&geoloc_lng=2.3522&page=3`, 100],
  ['single', `${B}/events/${publishedEventId}`, 300],
  ['categories', `${B}/categories`, 300],
];

const results: Record<string, unknown[]> = {};
for (const dialect of dialects) {
  const memory = dialect === 'sqlite' && values['sqlite-memory'] === true;
  const where = memory ? undefined : locateDatabase(dialect, 'quick-list');
  const storage = where ? await openStorage(where.config) : new Storage(new SqliteDialect({ path: ':memory:' }));
  /** Per read-thread count (SQLite on a file), an app on a storage of its own; else the one app. */
  const apps: { threads?: number; app: Awaited<ReturnType<typeof buildApp>>; storage: Storage }[] = [];
  try {
    await storage.migrate();
    const seeded = await seed(storage, { events: n });
    await storage.optimize();
    console.log(`[${dialect}] seeded ${n} events in ${seeded.seconds.toFixed(1)} s`);
    const config = loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0' });
    if (dialect === 'sqlite' && where?.config.dialect === 'sqlite') {
      await storage.close();
      for (const threads of threadCounts) {
        const own = new Storage(new SqliteDialect({ path: where.config.path, readThreads: threads }));
        apps.push({ threads, app: await buildApp(config, own, { logger: false }), storage: own });
      }
    } else apps.push({ app: await buildApp(config, storage, { logger: false }), storage });
    for (const { app } of apps) await app.ready();
    results[dialect] = [];
    for (const [id, url, wanted] of scenarios(seeded.publishedEventId))
      for (const { threads, app } of apps) {
        const runs = Math.min(wanted, maxRuns);
        for (let i = 0; i < Math.min(20, runs); i++) await app.inject({ method: 'GET', url });
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const times: number[] = [];
        for (let i = 0; i < runs; i++) {
          const t0 = process.hrtime.bigint();
          const res = await app.inject({ method: 'GET', url });
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          // a turn of the loop between requests (a server's loop turns between them): the monitor's timer runs,
          // and what it measures late is what one request held
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        loop.disable();
        times.sort((a, b) => a - b);
        const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
        const row = {
          id,
          url,
          ...(threads === undefined ? {} : { readThreads: threads }),
          runs,
          p50Ms: at(0.5),
          p99Ms: at(0.99),
          maxMs: times[times.length - 1],
          loopDelayMaxMs: loop.max / 1e6,
        };
        results[dialect].push(row);
        console.log(
          `[${dialect}${threads === undefined ? '' : ` ${threads} read thread${threads === 1 ? '' : 's'}`}] ${id.padEnd(20)} p50 ${row.p50Ms.toFixed(2)} ms  p99 ${row.p99Ms.toFixed(2)} ms  max ${row.maxMs.toFixed(2)} ms  loop held ≤ ${row.loopDelayMaxMs.toFixed(1)} ms`,
        );
      }
    for (const { app } of apps) await app.close();
  } finally {
    // (app.close() may have closed them already)
    for (const s of [storage, ...apps.map((a) => a.storage)]) await s.close().catch(() => undefined);
    await where?.cleanup();
  }
}
const file = writeMeasured('quick-list', dialects, values.out, {
  command: `node dist/bench/quick-list.js ${process.argv.slice(2).join(' ')}`,
  options: { events: n, dialects, runs: maxRuns, readThreads: threadCounts, sqlite: values['sqlite-memory'] ? 'memory' : 'file' },
  results,
});
console.log(`results: ${file}`);
