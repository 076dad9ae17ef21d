/**
 * `node dist/bench/revalidate.js`: what a poller whose copy is current costs (issue 16's target: a 304
 * revalidation of the default list and of a single event at ≥ 0.8 of the bare baseline). Per database: a site of
 * `--events` events (bench/seed.ts), `calendar serve` twice on it (the response cache on, as a user runs it, and
 * off: `CACHE_MB=0`), and per scenario a bare node:http server sending the same status, headers and bytes
 * (bench/baseline.ts). Per round and scenario: req/s at `--connections` for the bare server, then the service,
 * and their ratio (autocannon in its own process, as `npm run bench` measures). The 200s beside the 304s say
 * what revalidating saves. Anonymous requests, with the ETag a first GET answered.
 *
 * Options: --dialects sqlite,postgres --events N (10000) --rounds R (3) --duration S (5) --connections C (64) --out FILE
 * --scenarios list-304,single-304 (the ids below; all when absent)
 * --control: a second bare server with the same answer measured in the service's place (its ratio should be 1):
 * how far two runs of one server apart differ on this machine, the resolution of the ratios above
 * --slices N (1): each round's bare and service runs cut into N slices of `--duration` each, sent in the order
 * bare, service, service, bare, bare, service… (ABBA), and a round's ratio taken from the slices' mean req/s:
 * a drift of the machine's speed during a round (this machine's bare servers moved by ±30 % from one run to the
 * next) then weighs on both sides alike instead of on whichever ran second
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStorage } from '../src/storage/storage.js';
import { locateDatabase, writeMeasured } from './artefacts.js';
import type { LoadResult } from './load.js';
import { type Answer, fetchAnswer, killChildren, load, type Proc, settle, startBaseline, startService } from './pages-measure.js';
import { type Spread, spread } from './report.js';
import { seed } from './seed.js';
import { NS, type RequestSpec } from './traffic.js';

const { values } = parseArgs({
  options: {
    ...(Object.fromEntries(
      ['dialects', 'events', 'rounds', 'duration', 'connections', 'out', 'scenarios', 'slices'].map((name) => [name, { type: 'string' as const }]),
    ) as Record<'dialects' | 'events' | 'rounds' | 'duration' | 'connections' | 'out' | 'scenarios' | 'slices', { type: 'string' }>),
    control: { type: 'boolean' as const },
  },
});
const o = {
  dialects: (values.dialects ?? 'sqlite,postgres').split(','),
  events: Number(values.events ?? 10_000),
  rounds: Number(values.rounds ?? 3),
  duration: Number(values.duration ?? 5),
  connections: Number(values.connections ?? 64),
  /** ids of the scenarios to run (all when absent), e.g. `list-304,single-304` */
  scenarios: values.scenarios?.split(','),
  /** A second bare server in the service's place. */
  control: values.control === true,
  /** Slices per side and round, interleaved ABBA (1: the bare server's run, then the service's). */
  slices: Number(values.slices ?? 1),
};
if (!Number.isInteger(o.slices) || o.slices < 1) throw new Error('--slices is a whole number, 1 or more');

/** One side's slices as one run: req/s and counts from all of them, the latencies of the median slice by p50. */
function merged(parts: LoadResult[]): LoadResult {
  if (parts.length === 1) return parts[0];
  const sum = (f: (r: LoadResult) => number) => parts.reduce((n, r) => n + f(r), 0);
  const byP50 = [...parts].sort((a, b) => a.p50 - b.p50)[Math.floor(parts.length / 2)];
  const statusCodes: Record<string, number> = {};
  for (const r of parts) for (const [code, n] of Object.entries(r.statusCodes ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    requestsPerSec: sum((r) => r.requestsPerSec) / parts.length,
    p50: byP50.p50,
    p99: Math.max(...parts.map((r) => r.p99)),
    total: sum((r) => r.total),
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    seconds: sum((r) => r.seconds),
    statusCodes,
  };
}

interface Scenario {
  id: string;
  name: string;
  service: 'normal' | 'nocache';
  request: RequestSpec;
  status: number;
}

process.on('SIGINT', () => {
  killChildren();
  process.exit(130);
});

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const results: Record<string, unknown> = {};

for (const dialect of o.dialects) {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-revalidate-'));
  const where = locateDatabase(dialect, 'revalidate');
  const { databaseUrl, config } = where;
  const storage = await openStorage(config);
  try {
    await storage.migrate();
    const seeded = await seed(storage, { events: o.events });
    await storage.optimize();
    await storage.close();
    const services: Record<Scenario['service'], Proc> = {
      normal: await startService(databaseUrl, {}),
      nocache: await startService(databaseUrl, { CACHE_MB: '0' }),
    };
    const list = `${NS}/events`;
    const single = `${NS}/events/${seeded.publishedEventId}`;
    // each service's own tag: their bodies differ (the URLs they emit name their own port)
    const etagOf = async (service: Proc, path: string) => (await fetchAnswer(service.base, { method: 'GET', path })).headers.etag ?? '';
    const etags = { list: await etagOf(services.normal, list), single: await etagOf(services.normal, single) };
    const uncachedEtags = { list: await etagOf(services.nocache, list), single: await etagOf(services.nocache, single) };
    const cond = (path: string, etag: string): RequestSpec => ({ method: 'GET', path, headers: { 'if-none-match': etag } });
    const scenarios: Scenario[] = (
      [
        { id: 'list-304', name: 'GET /events, If-None-Match (304), cache on', service: 'normal', request: cond(list, etags.list), status: 304 },
        { id: 'list-200', name: 'GET /events (200), cache on', service: 'normal', request: { method: 'GET', path: list }, status: 200 },
        {
          id: 'single-304',
          name: 'GET /events/<id>, If-None-Match (304), cache on',
          service: 'normal',
          request: cond(single, etags.single),
          status: 304,
        },
        { id: 'single-200', name: 'GET /events/<id> (200), cache on', service: 'normal', request: { method: 'GET', path: single }, status: 200 },
        {
          id: 'list-304-nocache',
          name: 'GET /events, If-None-Match (304), CACHE_MB=0',
          service: 'nocache',
          request: cond(list, uncachedEtags.list),
          status: 304,
        },
        {
          id: 'single-304-nocache',
          name: 'GET /events/<id>, If-None-Match (304), CACHE_MB=0',
          service: 'nocache',
          request: cond(single, uncachedEtags.single),
          status: 304,
        },
      ] satisfies Scenario[]
    ).filter((s) => !o.scenarios || o.scenarios.includes(s.id));
    const answers = new Map<string, Answer>();
    const baselines = new Map<string, Proc>();
    const controls = new Map<string, Proc>();
    for (const s of scenarios) {
      const answer = await fetchAnswer(services[s.service].base, s.request);
      if (answer.status !== s.status) throw new Error(`${s.id}: ${answer.status}, expected ${s.status}`);
      answers.set(s.id, answer);
      baselines.set(s.id, await startBaseline(dir, s.id, s.request, answer));
      if (o.control) controls.set(s.id, await startBaseline(dir, `${s.id}-control`, s.request, answer));
    }
    const runs = new Map<string, { round: number; service: LoadResult; baseline: LoadResult; ratio: number }[]>(scenarios.map((s) => [s.id, []]));
    for (let round = 1; round <= o.rounds; round++) {
      for (const s of scenarios) {
        const [baseParts, targetParts]: LoadResult[][] = [[], []];
        for (let i = 0; i < 2 * o.slices; i++) {
          // ABBA: bare, service, service, bare, …; one slice each way when --slices is 1
          const bareNow = o.slices === 1 ? i === 0 : (i + 1) % 4 < 2;
          const to = bareNow ? baselines.get(s.id)! : (controls.get(s.id) ?? services[s.service]);
          (bareNow ? baseParts : targetParts).push(await load(dir, to.base, s.request, o.connections, o.duration));
          if (!bareNow) await settle(services[s.service].base);
        }
        const [base, target] = [merged(baseParts), merged(targetParts)];
        for (const [who, r] of [
          ['service', target],
          ['baseline', base],
        ] as const) {
          const other = Object.entries(r.statusCodes ?? {}).filter(([code]) => Number(code) !== s.status);
          if (r.errors + r.timeouts > 0 || other.length > 0) {
            throw new Error(`${dialect} ${s.id} ${who}: errors ${r.errors}, timeouts ${r.timeouts}, statuses ${JSON.stringify(r.statusCodes)}`);
          }
        }
        const ratio = target.requestsPerSec / base.requestsPerSec;
        runs.get(s.id)!.push({ round, service: target, baseline: base, ratio });
        console.log(
          `[${dialect} r${round}] ${s.id.padEnd(19)} ${fmt(target.requestsPerSec)} req/s p50 ${target.p50} p99 ${target.p99} ms  bare ${fmt(base.requestsPerSec)} req/s  ratio ${ratio.toFixed(3)}${o.control ? ' (control: a second bare server in the service’s place)' : ratio > 1 ? ' !! ABOVE 1: MEASUREMENT ERROR' : ''}`,
        );
      }
    }
    for (const p of [...Object.values(services), ...baselines.values(), ...controls.values()]) p.child.kill('SIGTERM');
    results[dialect] = scenarios.map((s) => {
      const r = runs.get(s.id)!;
      const sp = (f: (x: (typeof r)[number]) => number): Spread => spread(r.map(f));
      return {
        id: s.id,
        name: s.name,
        url: s.request.path,
        status: s.status,
        bytes: answers.get(s.id)!.body.length,
        reqPerSec: sp((x) => x.service.requestsPerSec),
        baselineReqPerSec: sp((x) => x.baseline.requestsPerSec),
        ratio: sp((x) => x.ratio),
        p50Ms: sp((x) => x.service.p50),
        p99Ms: sp((x) => x.service.p99),
        runs: r,
      };
    });
    for (const s of results[dialect] as { id: string; reqPerSec: Spread; ratio: Spread }[]) {
      console.log(
        `[${dialect}] ${s.id.padEnd(19)} ${fmt(s.reqPerSec.median)} req/s [${fmt(s.reqPerSec.min)}–${fmt(s.reqPerSec.max)}]  ratio ${s.ratio.median.toFixed(2)} [${s.ratio.min.toFixed(2)}–${s.ratio.max.toFixed(2)}]`,
      );
    }
  } finally {
    killChildren();
    rmSync(dir, { recursive: true, force: true });
    await where.cleanup();
  }
}

const file = writeMeasured('revalidate', o.dialects, values.out, {
  command: `node dist/bench/revalidate.js --dialects ${o.dialects.join(',')} --events ${o.events} --rounds ${o.rounds} --duration ${o.duration} --connections ${o.connections}${o.scenarios ? ` --scenarios ${o.scenarios.join(',')}` : ''}${o.control ? ' --control' : ''}${o.slices > 1 ? ` --slices ${o.slices}` : ''}`,
  options: o,
  results,
});
console.log(`results: ${file}`);
