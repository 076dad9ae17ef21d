/**
 * Where a page's time goes, in-process (no production code for it): the app is built on the benchmark's
 * database as `calendar serve` builds it, and a few of its functions are wrapped with timers —
 *
 * - `read`: the event service's `feed` (month, day) or `list` (list page, venue), which is
 *   - `sql`: the event store's `list` (the events' rows and the count), and
 *   - `hydrate`: the service's `views` (terms, organizers, venues, series, images of those rows);
 * - `queries`: every query's time from the call to its rows (`query <table>`: by the first table read);
 * - `render`: Eta's `render` (the template, HTML escaping included);
 * - `rest`: the whole request (`app.inject`) less the two — the page builders (an item per event, sorting,
 *   the month grid), the chrome, routing, the ETag's hash.
 *
 * Sequential requests, so each request's timers are its own. With `--profile`, also a CPU profile of the
 * measured requests (node:inspector), summed by self time per function and per part of the code.
 * Usage: node dist/bench/pages-phases.js --database-url URL --pages JSON [--requests N] [--profile]
 * (prints one JSON line; bench/pages.ts runs it).
 */
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { strongEtag } from '../src/http/conditional.js';
import { openStorage } from '../src/storage/storage.js';
import { eta } from '../src/web/render.js';
import { SITE_TIMEZONE } from './pages-data.js';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    pages: { type: 'string' },
    requests: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const N = Number(values.requests ?? 30);
const pages = JSON.parse(values.pages!) as Record<string, string>;

const config = loadConfig({ DATABASE_URL: values['database-url']!, LOG_LEVEL: 'silent', NODE_ENV: 'production', SITE_TIMEZONE });
const storage = await openStorage(config.database);
await storage.migrate();
const app = await buildApp(config, storage, { logger: false });
await app.ready();

const spent: Record<string, number> = {};
function timed<T extends object, K extends keyof T>(target: T, name: K, phase: string) {
  const fn = target[name] as unknown as (...a: unknown[]) => unknown;
  (target as Record<K, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
    const t0 = performance.now();
    const out = fn.apply(this, a);
    const done = () => {
      spent[phase] = (spent[phase] ?? 0) + performance.now() - t0;
    };
    if (out instanceof Promise) return out.finally(done);
    done();
    return out;
  };
}
const events = app.services.events;
timed(events, 'feed', 'read');
timed(events, 'list', 'read');
timed(events, 'getBySlug', 'read');
timed(events, 'views', 'hydrate');
timed(storage.events, 'list', 'sql');
timed(eta, 'render', 'render');
// every query through Kysely (the reads of these pages all are), by the first table it reads: the time it holds
// its connection (SQLite: running it and building the row objects; PostgreSQL: the round trip and parsing) —
// not its wait for the connection, which SQLite's one connection would add to queries sent together
type Connection = { executeQuery(q: { sql: string }): Promise<unknown>; streamQuery(q: unknown, n?: number): unknown };
let executor: object = storage.db.getExecutor();
while (!Object.hasOwn(executor, 'provideConnection')) executor = Object.getPrototypeOf(executor);
const provide = (executor as { provideConnection: (consumer: (c: Connection) => Promise<unknown>) => Promise<unknown> }).provideConnection;
(executor as { provideConnection: typeof provide }).provideConnection = function (this: unknown, consumer) {
  return provide.call(this, (connection) =>
    consumer({
      async executeQuery(q) {
        const t0 = performance.now();
        try {
          return await connection.executeQuery(q);
        } finally {
          const ms = performance.now() - t0;
          const table = /^select count/.test(q.sql) ? 'count' : (/ from "?(\w+)"?/.exec(q.sql)?.[1] ?? 'other');
          spent.queries = (spent.queries ?? 0) + ms;
          spent[`query ${table}`] = (spent[`query ${table}`] ?? 0) + ms;
        }
      },
      streamQuery: (q, n) => connection.streamQuery(q, n),
    }),
  );
};

const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const r2 = (x: number) => Number(x.toFixed(2));

/** Self time per function and per part of the code, in ms per request. */
function summarize(
  requests: number,
  profile: {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
    samples: number[];
    timeDeltas: number[];
  },
) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  // the profiler's own work (the inspector session answering Profiler.stop) is not the page's
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const own = new Set<number>();
  const mark = (id: number, inside: boolean) => {
    const node = nodes.get(id)!;
    const here = inside || node.callFrame.url === 'node:inspector';
    if (here) own.add(id);
    for (const c of node.children ?? []) mark(c, here);
  };
  mark(profile.nodes[0].id, false);
  const fns = new Map<string, number>();
  const parts = new Map<string, number>();
  const part = (url: string, name: string) => {
    if (url === '') return name.startsWith('(') ? name : `native: ${name}`;
    if (url.includes('/src/web/')) return 'src/web';
    for (const p of ['/src/domain/', '/src/storage/', '/src/http/', '/src/serializers/', '/src/time/']) if (url.includes(p)) return p.slice(1, -1);
    const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (mod) return mod[1];
    return url.startsWith('node:') ? 'node internals' : 'other';
  };
  profile.samples.forEach((id, i) => {
    if (own.has(id)) return;
    const f = byId.get(id)!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000 / requests;
    const where = f.url === '' ? '' : ` ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'}${where}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
    const p = part(f.url, f.functionName);
    parts.set(p, (parts.get(p) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, ms]) => ({ name, ms: r2(ms) }));
  return { byPart: top(parts, 20), topFunctions: top(fns, 25) };
}

const session = values.profile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
}
const out: Record<string, unknown> = {};
for (const [name, url] of Object.entries(pages)) {
  for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url });
  const rows: Record<string, number>[] = [];
  let html = '';
  for (let i = 0; i < N; i++) {
    for (const k of Object.keys(spent)) delete spent[k];
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url });
    const total = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    html = res.body;
    rows.push({ total, ...spent, rest: total - (spent.read ?? 0) - (spent.render ?? 0) });
  }
  // profiled apart from the timings (sampling slows what it samples)
  let profile: ReturnType<typeof summarize> | undefined;
  if (session) {
    await session.post('Profiler.start');
    for (let i = 0; i < N; i++) await app.inject({ method: 'GET', url });
    profile = summarize(N, (await session.post('Profiler.stop')).profile as never);
  }
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) strongEtag(html);
  const etagMs = (performance.now() - t0) / 20;
  const phases: Record<string, { p50: number; p95: number }> = {};
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k.startsWith('query '));
  for (const k of ['total', 'read', 'sql', 'hydrate', 'queries', 'render', 'rest', ...keys.sort()]) {
    const xs = rows.map((r) => r[k] ?? 0);
    phases[k] = { p50: r2(at(xs, 0.5)), p95: r2(at(xs, 0.95)) };
  }
  out[name] = { url, requests: N, bytes: Buffer.byteLength(html), etagHashMs: r2(etagMs), phases, ...(profile ? { profile } : {}) };
}
await app.close();
await storage.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
