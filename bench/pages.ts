/**
 * `npm run bench:pages`: the HTML calendar pages (issue 14) against a listening service, uncached (pages are
 * not in the response cache: every request renders). Per database: a site with `--busy` events in one month
 * (bench/pages-data.ts) among `--events` in all, `calendar serve` on it as a user runs it, and per scenario and
 * round: time to the last byte over one keep-alive connection (p50/p95; the service's time plus loopback), the
 * same against a bare node:http server sending the same bytes (the floor), then req/s at `--connections` for
 * the bare server and the service (autocannon, its own process; the service's run lasts at least two waves of
 * `--connections` requests) and their ratio, and the service's peak RSS.
 * Then where the time goes, in-process (bench/pages-phases.ts). Rounds: every scenario once, three times.
 *
 * Options: --dialects sqlite,postgres --events N (10000) --busy N (1000) --month YYYY-MM (next month)
 *          --rounds R (3) --duration S (5) --connections C (64) --requests N (200, most per latency run)
 *          --budget S (3, seconds per latency run) --phase-requests N (30) --seed N (42) --out FILE
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PostgresDialect } from '../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import { locateDatabase, machineInfo, POSTGRES_URL, writeMeasured } from './artefacts.js';
import type { LoadResult } from './load.js';
import { type BusySite, SITE_TIMEZONE, seedBusySite } from './pages-data.js';
import {
  type Answer,
  children,
  fetchAnswer,
  killChildren,
  load,
  type Proc,
  peakRssMb,
  resetPeakRss,
  settle,
  startBaseline,
  startService,
  type Ttlb,
  timeToLastByte,
} from './pages-measure.js';
import { type Spread, spread } from './report.js';
import { NS, type RequestSpec } from './traffic.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({
  options: Object.fromEntries(
    [
      'dialects',
      'events',
      'busy',
      'month',
      'rounds',
      'duration',
      'connections',
      'requests',
      'budget',
      'phase-requests',
      'seed',
      'out',
      'seed-child',
      'location',
    ].map((name) => [name, { type: 'string' as const }]),
  ),
});
const now = new Date();
const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
const o = {
  dialects: (values.dialects ?? 'sqlite,postgres').split(','),
  events: Number(values.events ?? 10_000),
  busy: Number(values.busy ?? 1000),
  month: values.month ?? nextMonth,
  rounds: Number(values.rounds ?? 3),
  duration: Number(values.duration ?? 5),
  connections: Number(values.connections ?? 64),
  requests: Number(values.requests ?? 200),
  budgetSeconds: Number(values.budget ?? 3),
  phaseRequests: Number(values['phase-requests'] ?? 30),
  seed: Number(values.seed ?? 42),
};

/** Where a dialect's site lives, and the URL a service opens it with. */
const locate = (dialect: string) => locateDatabase(dialect, 'pages');

if (values['seed-child']) {
  // seeding in a process of its own: its memory and its warm caches are not the service's
  const dialect = values['seed-child'];
  const location = values.location!;
  let storage: Storage;
  if (dialect === 'sqlite') storage = new Storage(new SqliteDialect({ path: location }));
  else {
    const d = new PostgresDialect({ url: POSTGRES_URL, schema: location });
    await d.prepare();
    storage = new Storage(d);
  }
  const site = await seedBusySite(storage, { month: o.month, total: o.events, busy: o.busy, seed: o.seed });
  await storage.close();
  process.stdout.write(`${JSON.stringify(site)}\n`);
  process.exit(0);
}

process.on('SIGINT', () => {
  killChildren();
  process.exit(130);
});

interface Scenario {
  id: string;
  name: string;
  request: RequestSpec;
  /** `nocache`: the API list, on a service with CACHE_MB=0 (pages are never cached; the API list would be). */
  service: 'normal' | 'nocache';
  status: number;
}

function scenarios(site: BusySite, etag: string): Scenario[] {
  const days = new Date(Date.UTC(Number(site.month.slice(0, 4)), Number(site.month.slice(5, 7)), 0)).getUTCDate();
  const monthUrl = `/events/month/${site.month}/`;
  const page = (id: string, name: string, path: string): Scenario => ({ id, name, request: { method: 'GET', path }, service: 'normal', status: 200 });
  return [
    page('month', `month page, ${site.month}`, monthUrl),
    {
      ...page('month-304', 'month page, If-None-Match (304)', monthUrl),
      request: { method: 'GET', path: monthUrl, headers: { 'if-none-match': etag } },
      status: 304,
    },
    page('list', 'list page (upcoming, first page)', '/events/list/'),
    page('day', `day page, ${site.busyDay}`, `/events/${site.busyDay}/`),
    page('event', 'one event page', `/event/${site.eventSlug}/`),
    page('category-month', `category month, ${site.categorySlug}`, `/events/category/${site.categorySlug}/month/${site.month}/`),
    {
      ...page(
        'api-list',
        'API list, per_page=50, the month (CACHE_MB=0)',
        `${NS}/events?per_page=50&start_date=${site.month}-01&end_date=${site.month}-${days}`,
      ),
      service: 'nocache',
    },
  ];
}

interface Run {
  round: number;
  ttlb: Ttlb;
  baselineTtlb: Ttlb;
  service: LoadResult;
  baseline: LoadResult;
  ratio: number;
  peakRssMb: number;
  /** How long the service's load ran (at least --duration; see measure). */
  seconds: number;
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fmtSpread = (s: Spread) => `${fmt(s.median)} [${fmt(s.min)}–${fmt(s.max)}]`;
const ratioSpread = (s: Spread) => `${s.median.toFixed(3)} [${s.min.toFixed(3)}–${s.max.toFixed(3)}]`;

async function benchDialect(dialect: string) {
  const started = Date.now();
  const where = locate(dialect);
  const dir = mkdtempSync(join(tmpdir(), 'calendar-pages-run-'));
  try {
    process.stdout.write(
      `[${dialect}] seeding ${o.events.toLocaleString('en-US')} events, ${o.busy.toLocaleString('en-US')} of them in ${o.month}… `,
    );
    const out = execFileSync(
      process.execPath,
      [fileURLToPath(import.meta.url), ...process.argv.slice(2), '--seed-child', dialect, '--location', where.location],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const site = JSON.parse(out.trim().split('\n').at(-1)!) as BusySite;
    process.stdout.write(
      `${site.seconds.toFixed(1)} s: ${site.eventsInMonth} in the month (${site.singlesInMonth} singles, ${site.occurrencesInMonth} occurrences of ${site.series} weekly series), ` +
        `busiest day ${site.busyDay} (${site.busyDayStarts} starts)\n`,
    );

    const env = { SITE_TIMEZONE };
    const start = (kind: Scenario['service']) => startService(where.databaseUrl, kind === 'nocache' ? { ...env, CACHE_MB: '0' } : env);
    const services: Record<Scenario['service'], Proc> = { normal: await start('normal'), nocache: await start('nocache') };
    const month = await fetchAnswer(services.normal.base, { method: 'GET', path: `/events/month/${site.month}/` });
    const list = scenarios(site, month.headers.etag ?? '');
    // each scenario's own bare server, with the answer the service gave it
    const answers = new Map<string, Answer>();
    const baselines = new Map<string, Proc>();
    for (const s of list) {
      const answer = await fetchAnswer(services[s.service].base, s.request);
      if (answer.status !== s.status) throw new Error(`${s.request.path}: ${answer.status}, expected ${s.status}`);
      answers.set(s.id, answer);
      baselines.set(s.id, await startBaseline(dir, s.id, s.request, answer));
    }
    const runs = new Map<string, Run[]>(list.map((s) => [s.id, []]));
    let servicePeakRssMb = 0;
    const measure = async (s: Scenario, round: number) => {
      const service = services[s.service];
      const baseline = baselines.get(s.id)!;
      const ttlb = await timeToLastByte(service.base, s.request, s.status, o.requests, 5, o.budgetSeconds * 1000);
      const baselineTtlb = await timeToLastByte(baseline.base, s.request, s.status, o.requests, 5, 1000);
      const base = await load(dir, baseline.base, s.request, o.connections, o.duration);
      // the connections' requests run together and end together, after about `connections` times one's cost:
      // a run shorter than two such waves would measure the first wave's wait, or nothing
      const duration = Math.max(o.duration, Math.min(30, Math.ceil((2 * o.connections * ttlb.p50) / 1000)));
      resetPeakRss(service.child.pid!);
      const target = await load(dir, service.base, s.request, o.connections, duration);
      const rss = peakRssMb(service.child.pid!);
      servicePeakRssMb = Math.max(servicePeakRssMb, rss);
      await settle(service.base);
      for (const [who, r] of [
        ['service', target],
        ['baseline', base],
      ] as const) {
        const other = Object.entries(r.statusCodes ?? {}).filter(([code]) => Number(code) !== s.status);
        // no answer at all is slow, not wrong: 64 requests in flight finish together, after 64 times one's cost
        if (r.errors + r.timeouts > 0 || other.length > 0)
          throw new Error(`${dialect} ${s.id} ${who}: errors ${r.errors}, timeouts ${r.timeouts}, statuses ${JSON.stringify(r.statusCodes)}`);
      }
      const ratio = target.requestsPerSec / base.requestsPerSec;
      runs.get(s.id)!.push({ round, ttlb, baselineTtlb, service: target, baseline: base, ratio, peakRssMb: rss, seconds: duration });
      process.stdout.write(
        `[${dialect} r${round}] ${s.id.padEnd(15)} last byte p50 ${fmt(ttlb.p50)} p95 ${fmt(ttlb.p95)} ms (n ${ttlb.n}; bare ${fmt(baselineTtlb.p50)})  ` +
          `${fmt(target.requestsPerSec)} req/s p50 ${target.p50} p99 ${target.p99} ms${duration > o.duration ? ` (${duration} s)` : ''}  bare ${fmt(base.requestsPerSec)} req/s  ratio ${ratio.toFixed(3)}` +
          `${ratio > 1 ? ' !! ABOVE 1: MEASUREMENT ERROR' : ''}${target.total === 0 ? ' (no answer within the run: raise --duration)' : ''}  RSS ${rss} MB\n`,
      );
    };
    const alive = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;
    const restarts: { round: number; scenario: string; process: string; exit: string }[] = [];
    for (let round = 1; round <= o.rounds; round++) {
      for (const s of list) {
        for (let attempt = 1; ; attempt++) {
          try {
            await measure(s, round);
            break;
          } catch (error) {
            // on a shared machine a process of ours may be ended from outside: start it again and measure again
            const gone = [
              ['service', services[s.service]],
              ['baseline', baselines.get(s.id)!],
            ].filter(([, p]) => !alive(p as Proc)) as [string, Proc][];
            if (gone.length === 0 || attempt >= 3) throw error;
            for (const [what, p] of gone) {
              const exit = `code ${p.child.exitCode}, signal ${p.child.signalCode}`;
              restarts.push({ round, scenario: s.id, process: what, exit });
              process.stdout.write(`[${dialect} r${round}] ${s.id}: the ${what} process was gone (${exit}): started again, measuring again\n`);
              if (what === 'service') services[s.service] = await start(s.service);
              else baselines.set(s.id, await startBaseline(dir, s.id, s.request, answers.get(s.id)!));
            }
          }
        }
      }
    }
    for (const p of Object.values(services)) p.child.kill('SIGTERM');
    for (const p of baselines.values()) p.child.kill('SIGTERM');
    children.clear();

    process.stdout.write(`[${dialect}] where the time goes (in-process, ${o.phaseRequests} requests per page)…\n`);
    const pages = Object.fromEntries(list.filter((s) => s.service === 'normal' && s.status === 200).map((s) => [s.id, s.request.path]));
    const phaseArgs = ['--database-url', where.databaseUrl, '--pages', JSON.stringify(pages), '--requests', String(o.phaseRequests), '--profile'];
    const phases = JSON.parse(
      execFileSync(process.execPath, [join(here, 'pages-phases.js'), ...phaseArgs], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 << 20,
      })
        .trim()
        .split('\n')
        .at(-1)!,
    ) as Record<string, { phases: Record<string, { p50: number }>; etagHashMs: number }>;
    for (const [id, p] of Object.entries(phases)) {
      const ph = p.phases;
      process.stdout.write(
        `  ${id.padEnd(15)} total ${fmt(ph.total.p50)} ms = read ${fmt(ph.read.p50)} (sql ${fmt(ph.sql.p50)}, hydrate ${fmt(ph.hydrate.p50)}) + render ${fmt(ph.render.p50)} + rest ${fmt(ph.rest.p50)} (etag hash ${fmt(p.etagHashMs)})\n`,
      );
    }
    const summaries = list.map((s) => {
      const r = runs.get(s.id)!;
      const sp = (f: (x: Run) => number) => spread(r.map(f));
      return {
        id: s.id,
        name: s.name,
        url: s.request.path,
        ...(s.request.headers ? { headers: s.request.headers } : {}),
        service: s.service,
        status: s.status,
        bytes: answers.get(s.id)!.body.length,
        runs: r,
        summary: {
          ttlbP50Ms: sp((x) => x.ttlb.p50),
          ttlbP95Ms: sp((x) => x.ttlb.p95),
          baselineTtlbP50Ms: sp((x) => x.baselineTtlb.p50),
          reqPerSec: sp((x) => x.service.requestsPerSec),
          baselineReqPerSec: sp((x) => x.baseline.requestsPerSec),
          ratio: sp((x) => x.ratio),
          p50Ms: sp((x) => x.service.p50),
          p99Ms: sp((x) => x.service.p99),
          peakRssMb: Math.max(...r.map((x) => x.peakRssMb)),
          measurementError: r.some((x) => x.ratio > 1) ? 'a round measured a ratio above 1' : undefined,
          noAnswer: r.some((x) => x.service.total === 0) ? 'a round had no answer within its duration' : undefined,
        },
      };
    });
    return { dialect, site, wallSeconds: (Date.now() - started) / 1000, servicePeakRssMb, restarts, scenarios: summaries, phases };
  } finally {
    killChildren();
    rmSync(dir, { recursive: true, force: true });
    await where.cleanup();
  }
}

const loadBefore = loadavg();
const results = [];
for (const dialect of o.dialects) results.push(await benchDialect(dialect));
const machine = machineInfo(loadBefore);

process.stdout.write(
  `\n${o.events.toLocaleString('en-US')} events, ${o.busy.toLocaleString('en-US')} in ${o.month}; ${o.rounds} rounds, ${o.connections} connections, ${o.duration} s per load; ` +
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${machine.loadAverageAfter.map((l) => l.toFixed(2)).join(' ')}\n`,
);
for (const r of results) {
  process.stdout.write(`\n${r.dialect}: median [min–max] of ${o.rounds} rounds; service peak RSS ${r.servicePeakRssMb} MB\n`);
  process.stdout.write(
    '| scenario | bytes | last byte p50 ms | p95 ms | bare p50 ms | req/s at 64 | bare req/s | ratio | peak RSS MB |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n',
  );
  for (const s of r.scenarios) {
    const m = s.summary;
    process.stdout.write(
      `| ${s.name} | ${s.bytes.toLocaleString('en-US')} | ${fmtSpread(m.ttlbP50Ms)} | ${fmtSpread(m.ttlbP95Ms)} | ${fmt(m.baselineTtlbP50Ms.median)} | ${fmtSpread(m.reqPerSec)} | ${fmt(m.baselineReqPerSec.median)} | ${m.measurementError ? '**error**' : ratioSpread(m.ratio)} | ${m.peakRssMb} |\n`,
    );
  }
}
const file = writeMeasured('pages', o.dialects, values.out, { machine, options: o, results });
process.stdout.write(`\nresults: ${file}\n`);
process.exit(0);
