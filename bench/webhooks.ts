/**
 * `npm run bench:webhooks`: webhooks under a burst of writes (issue 18, FEATURES.md §4.4 case 13: 1,000 writes in
 * 10 s fanned out to 3 endpoints — every delivery made, p99 from commit to send under 2 s, and the API's write
 * throughput and p99 within 10 % of the same run without webhooks). Per database: a site of `--events` events
 * (bench/seed.ts), `calendar serve` on it as a user runs it (production settings, the response cache on as in the
 * write scenarios of `npm run bench`, WEBHOOKS_ALLOW_PRIVATE=on, WEBHOOKS_VERIFY=off), an administrator, and
 * `--endpoints` receivers in this process (bare node:http servers on 127.0.0.1 answering 200 as soon as the body
 * is read, noting when each request arrived and its type, data.id and data.seq).
 *
 * Each round runs the same writes twice, one run right after the other (the order alternates between rounds):
 *  A. no endpoint: `--writes` `POST /events` (the realistic body of `npm run bench`) paced at `--rate` per second,
 *     open loop over `--connections` keep-alive connections; each write's latency counts from the moment it was due
 *     (a write that waits for a free connection waits in its latency), and its answer's arrival stands for its
 *     commit (the service answers after COMMIT);
 *  B. the same with `--endpoints` endpoints (event_types `event.*`, made over HTTP before the run, removed after
 *     it), then waiting (at most `--timeout` s) until every endpoint has received every write's `event.created`.
 *     Commit → send = a delivery's arrival at its receiver − the answer to its write (same machine, same clock);
 *     the delivery table's `created_at` splits it into commit → fan-out and fan-out → send.
 * Reported per round: writes/s achieved (writes ÷ first due → last answer), write p50/p99, the service process's
 * CPU per write (on PostgreSQL the database server's is not in it), B/A of throughput and p99, deliveries made /
 * expected and their p50/p95/p99; over the rounds the median [min–max] of each; and the p99 of every round's
 * writes together (A's against B's: `--rounds` × `--writes` latencies each, where one round's p99 rests on its
 * ten slowest writes).
 * `--control`: B without endpoints too (A/A), the same runs otherwise: how far two runs of one service apart
 * differ by chance, the noise the B/A of a round stands against.
 *
 * Options: --dialects sqlite,postgres --events N (10000) --writes N (1000) --rate R (100) --connections C (8)
 *          --endpoints E (3) --rounds R (3) --timeout S (60) --body realistic|minimal --control --out FILE
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Storage } from '../src/storage/storage.js';
import { openStorage } from '../src/storage/storage.js';
import { locateDatabase, machineInfo, writeMeasured } from './artefacts.js';
import { killChildren, type Proc, settle, sleep, startService } from './pages-measure.js';
import { type Spread, spread } from './report.js';
import { prepareSite } from './seed.js';
import { createBody, EVENTS_PATH, NS } from './traffic.js';

const { values } = parseArgs({
  options: {
    ...(Object.fromEntries(
      (['dialects', 'events', 'writes', 'rate', 'connections', 'endpoints', 'rounds', 'timeout', 'body', 'out'] as const).map((name) => [
        name,
        { type: 'string' as const },
      ]),
    ) as Record<'dialects' | 'events' | 'writes' | 'rate' | 'connections' | 'endpoints' | 'rounds' | 'timeout' | 'body' | 'out', { type: 'string' }>),
    control: { type: 'boolean' as const },
  },
});
const o = {
  dialects: (values.dialects ?? 'sqlite,postgres').split(','),
  events: Number(values.events ?? 10_000),
  writes: Number(values.writes ?? 1000),
  rate: Number(values.rate ?? 100),
  connections: Number(values.connections ?? 8),
  endpoints: Number(values.endpoints ?? 3),
  rounds: Number(values.rounds ?? 3),
  timeout: Number(values.timeout ?? 60),
  body: (values.body ?? 'realistic') as 'realistic' | 'minimal',
  /** A/A: B runs without endpoints too. */
  control: values.control === true,
};
/** The goal's bounds: commit → send p99, and how far B's writes may fall behind A's. */
const GOAL = { sendP99Ms: 2000, tolerance: 0.1 };
const WARMUP_WRITES = 100;
const LOGIN = 'bench-webhooks-admin';
const PASSWORD = 'bench-webhooks-admin-password';
const AUTH = `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`;
const NONCE = `wh${Date.now().toString(36)}`;

process.on('SIGINT', () => {
  killChildren();
  process.exit(130);
});

/** Milliseconds since the epoch, to the fraction: the service's `Date.now()` and this process's clock are the same. */
const now = () => performance.timeOrigin + performance.now();

/** Nearest-rank quantile of sorted values. */
const quantile = (sorted: readonly number[], q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]);
const round2 = (x: number) => Number(x.toFixed(2));

interface Quantiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}
function quantiles(values: readonly number[]): Quantiles {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round2(quantile(s, 0.5)),
    p95: round2(quantile(s, 0.95)),
    p99: round2(quantile(s, 0.99)),
    max: round2(s.at(-1) ?? Number.NaN),
  };
}

// ---- receivers -------------------------------------------------------------------------------------------

interface Arrival {
  receiver: number;
  at: number;
  type: string;
  id: number;
  seq: number;
}

/** Where the receivers note what arrives; swapped per run (what arrives between runs is counted as stray). */
let arrivals: Arrival[] = [];
let stray = 0;
let collecting = false;

function startReceiver(index: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: number; seq: number } };
      if (collecting) arrivals.push({ receiver: index, at, type: body.type, id: body.data.id, seq: body.data.seq });
      else stray++;
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook/${index}` }));
  });
}

// ---- the service -----------------------------------------------------------------------------------------

const CLOCK_TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

/** CPU time (user + system, all threads) a process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

/** The machine's CPU time so far, busy and in all (ms, every core): /proc/stat's first line. */
function machineCpuMs(): { busy: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  // idle and iowait
  return { busy: (total - ticks[3] - (ticks[4] ?? 0)) * CLOCK_TICK_MS, total: total * CLOCK_TICK_MS };
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${NS}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

async function addEndpoints(base: string, urls: readonly string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const url of urls) {
    const r = await api(base, 'POST', '/webhooks', { url, description: 'bench receiver', event_types: ['event.*'] });
    if (r.status !== 201) throw new Error(`POST /webhooks answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
    ids.push(r.json.id as number);
  }
  return ids;
}

async function removeEndpoints(base: string, ids: readonly number[]): Promise<void> {
  for (const id of ids) {
    const r = await api(base, 'DELETE', `/webhooks/${id}`);
    if (r.status !== 200) throw new Error(`DELETE /webhooks/${id} answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  }
}

// ---- the writes ------------------------------------------------------------------------------------------

interface Write {
  id: number;
  /** When it was due, when its answer had arrived (epoch ms). */
  due: number;
  answered: number;
}

let written = 0;

/** `count` creates, one due every 1/rate s from now, over `connections` keep-alive connections (open loop). */
async function writeBurst(base: string, count: number): Promise<{ writes: Write[]; seconds: number }> {
  const url = new URL(`${base}${EVENTS_PATH}`);
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const one = (due: number, payload: string) =>
    new Promise<Write>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: { authorization: AUTH, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const answered = now();
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 201) reject(new Error(`POST /events answered ${res.statusCode}: ${text.slice(0, 300)}`));
            else resolve({ id: (JSON.parse(text) as { id: number }).id, due, answered });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const interval = 1000 / o.rate;
  const start = now() + 20;
  const pending: Promise<Write>[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const due = start + i * interval;
      const payload = createBody(o.body, written++, NONCE);
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      pending.push(one(due, payload));
    }
    const writes = await Promise.all(pending);
    return { writes, seconds: (Math.max(...writes.map((w) => w.answered)) - start) / 1000 };
  } finally {
    agent.destroy();
  }
}

// ---- one run ---------------------------------------------------------------------------------------------

interface WriteFigures {
  writes: number;
  seconds: number;
  writesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  serviceCpuMsPerWrite: number;
  /** The share of the machine's CPU (all cores) busy during the writes: the service, the database, this bench, anything else. */
  machineBusy: number;
}

interface DeliveryFigures {
  expected: number;
  made: number;
  /** Arrivals beyond one per write and endpoint (at-least-once: repeats), and of other types or writes. */
  repeats: number;
  unmatched: number;
  /** Deliveries the service recorded with more than one attempt. */
  retried: number;
  /** From the last write's answer to the last delivery's arrival. */
  drainSeconds: number;
  commitToSendMs: Quantiles;
  commitToFanOutMs: Quantiles;
  fanOutToSendMs: Quantiles;
}

interface Run {
  round: number;
  /** A, or B: with the endpoints (without them too under `--control`). */
  kind: 'A' | 'B';
  endpoints: number;
  write: WriteFigures;
  delivery?: DeliveryFigures;
}

/** Every write's latency of each run, for the p99 over all rounds (beside the runs: not written to the JSON). */
const latencies = new WeakMap<Run, number[]>();

function writeFigures(burst: { writes: Write[]; seconds: number }, cpu: number, machine: { busy: number; total: number }): WriteFigures {
  const latency = quantiles(burst.writes.map((w) => w.answered - w.due));
  return {
    writes: burst.writes.length,
    seconds: round2(burst.seconds),
    writesPerSec: round2(burst.writes.length / burst.seconds),
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    maxMs: latency.max,
    serviceCpuMsPerWrite: round2(cpu / burst.writes.length),
    machineBusy: round2(machine.busy / machine.total),
  };
}

/** Waits until every receiver has every write's `event.created`, or the timeout. */
async function awaitDeliveries(ids: ReadonlySet<number>, receivers: number): Promise<void> {
  const until = now() + o.timeout * 1000;
  const expected = ids.size * receivers;
  for (;;) {
    const got = new Set(arrivals.filter((a) => a.type === 'event.created' && ids.has(a.id)).map((a) => `${a.receiver} ${a.id}`));
    if (got.size >= expected || now() > until) return;
    await sleep(50);
  }
}

/** The service's own record of the run's deliveries, once none is pending: when each was fanned out, its attempts. */
async function deliveryRows(
  storage: Storage,
  endpointIds: readonly number[],
): Promise<{ endpoint_id: number; seq: number; created_at: number; attempts: number }[]> {
  const until = now() + 30_000;
  for (;;) {
    const rows = (
      await storage.db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'seq', 'created_at', 'attempts', 'state'])
        .where('endpoint_id', 'in', endpointIds)
        .execute()
    ).map((r) => ({
      endpoint_id: Number(r.endpoint_id),
      seq: Number(r.seq),
      created_at: Number(r.created_at),
      attempts: Number(r.attempts),
      state: r.state,
    }));
    if (rows.every((r) => r.state !== 'pending') || now() > until) return rows;
    await sleep(100);
  }
}

async function runOnce(
  service: Proc,
  storage: Storage,
  receiverUrls: readonly string[],
  round: number,
  count: number,
  kind: Run['kind'],
): Promise<Run> {
  const withEndpoints = kind === 'B' && !o.control;
  await settle(service.base);
  const endpointIds = withEndpoints ? await addEndpoints(service.base, receiverUrls) : [];
  arrivals = [];
  collecting = true;
  const pid = service.child.pid as number;
  const cpu0 = cpuMs(pid);
  const machine0 = machineCpuMs();
  const burst = await writeBurst(service.base, count);
  const cpu = cpuMs(pid) - cpu0;
  const machine1 = machineCpuMs();
  const machine = { busy: machine1.busy - machine0.busy, total: machine1.total - machine0.total };
  const run: Run = {
    round,
    kind,
    endpoints: endpointIds.length,
    write: writeFigures(burst, cpu, machine),
  };
  latencies.set(
    run,
    burst.writes.map((w) => w.answered - w.due),
  );
  if (withEndpoints) {
    const ids = new Set(burst.writes.map((w) => w.id));
    await awaitDeliveries(ids, receiverUrls.length);
    collecting = false;
    const rows = await deliveryRows(storage, endpointIds);
    await removeEndpoints(service.base, endpointIds);
    const answered = new Map(burst.writes.map((w) => [w.id, w.answered]));
    const fannedOut = new Map(rows.map((r) => [`${endpointIds.indexOf(r.endpoint_id)} ${r.seq}`, r.created_at]));
    const first = new Map<string, Arrival>();
    let unmatched = 0;
    for (const a of arrivals) {
      const key = `${a.receiver} ${a.id}`;
      if (a.type !== 'event.created' || !answered.has(a.id)) unmatched++;
      else if (!first.has(key)) first.set(key, a);
    }
    const made = [...first.values()];
    const lastWrite = Math.max(...burst.writes.map((w) => w.answered));
    run.delivery = {
      expected: ids.size * receiverUrls.length,
      made: made.length,
      repeats: arrivals.length - unmatched - made.length,
      unmatched,
      retried: rows.filter((r) => r.attempts > 1).length,
      drainSeconds: round2((Math.max(...made.map((a) => a.at)) - lastWrite) / 1000),
      commitToSendMs: quantiles(made.map((a) => a.at - (answered.get(a.id) as number))),
      commitToFanOutMs: quantiles(made.map((a) => (fannedOut.get(`${a.receiver} ${a.seq}`) ?? Number.NaN) - (answered.get(a.id) as number))),
      fanOutToSendMs: quantiles(made.map((a) => a.at - (fannedOut.get(`${a.receiver} ${a.seq}`) ?? Number.NaN))),
    };
  } else {
    collecting = false;
  }
  return run;
}

/** The write p99 of every round's A writes together and of every round's B writes together. */
function pooledP99(pairs: readonly { a: Run; b: Run }[]): { writes: number; aP99Ms: number; bP99Ms: number; ratio: number } {
  const a = quantiles(pairs.flatMap((p) => latencies.get(p.a) ?? []));
  const b = quantiles(pairs.flatMap((p) => latencies.get(p.b) ?? []));
  return { writes: a.n, aP99Ms: a.p99, bP99Ms: b.p99, ratio: round2(b.p99 / a.p99) };
}

// ---- the bench -------------------------------------------------------------------------------------------

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const pct = (n: number) => `${Math.round(n * 100)} %`;
const fmtSpread = (s: Spread, f: (n: number) => string = fmt) => `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;

function describe(run: Run): string {
  const w = run.write;
  const head = `${run.kind === 'A' ? 'A no endpoints ' : run.endpoints === 0 ? 'B (control) no endpoints' : `B ${run.endpoints} endpoints`}  ${w.writes} writes ${fmt(w.writesPerSec)}/s  p50 ${fmt(w.p50Ms)} p99 ${fmt(w.p99Ms)} max ${fmt(w.maxMs)} ms  CPU ${fmt(w.serviceCpuMsPerWrite)} ms/write, machine ${Math.round(w.machineBusy * 100)} % busy`;
  const d = run.delivery;
  if (!d) return head;
  const q = (x: Quantiles) => `p50 ${fmt(x.p50)} p95 ${fmt(x.p95)} p99 ${fmt(x.p99)} max ${fmt(x.max)}`;
  return (
    `${head}\n      deliveries ${d.made}/${d.expected}${d.repeats > 0 ? ` (+${d.repeats} repeated)` : ''}${d.unmatched > 0 ? ` (+${d.unmatched} unmatched)` : ''}${d.retried > 0 ? `, ${d.retried} retried` : ''}, last ${fmt(d.drainSeconds)} s after the last write` +
    `\n      commit → send ${q(d.commitToSendMs)} ms  (commit → fan-out ${q(d.commitToFanOutMs)}; fan-out → send ${q(d.fanOutToSendMs)})`
  );
}

const loadBefore = loadavg();
const receivers = await Promise.all(Array.from({ length: o.endpoints }, (_, i) => startReceiver(i)));
const receiverUrls = receivers.map((r) => r.url);
const results: Record<string, unknown> = {};
/** A run that did not get every delivery: a failure, not a figure (exit code 1). */
let failed = false;
const started = Date.now();

try {
  for (const dialect of o.dialects) {
    const where = locateDatabase(dialect, 'webhooks');
    const storage = await openStorage(where.config);
    try {
      await prepareSite(storage, dialect, o.events, { login: LOGIN, password: PASSWORD });
      const service = await startService(where.databaseUrl, { WEBHOOKS_ALLOW_PRIVATE: 'on', WEBHOOKS_VERIFY: 'off' });
      const pairs: { a: Run; b: Run; throughputRatio: number; p99Ratio: number; cpuRatio: number }[] = [];
      try {
        // wakes the write path and the delivery path (not measured)
        const warm = await runOnce(service, storage, receiverUrls, 0, WARMUP_WRITES, 'B');
        console.log(
          `[${dialect} warm-up] ${warm.delivery ? `${warm.delivery.made}/${warm.delivery.expected} deliveries` : 'no endpoints (control)'}`,
        );
        for (let round = 1; round <= o.rounds; round++) {
          // A then B in odd rounds, B then A in even ones: a drift of the machine spreads over both
          const order: Run['kind'][] = round % 2 === 1 ? ['A', 'B'] : ['B', 'A'];
          const runs: Run[] = [];
          for (const kind of order) {
            const run = await runOnce(service, storage, receiverUrls, round, o.writes, kind);
            console.log(`[${dialect} r${round}] ${describe(run)}`);
            runs.push(run);
          }
          const a = runs.find((r) => r.kind === 'A') as Run;
          const b = runs.find((r) => r.kind === 'B') as Run;
          const pair = {
            a,
            b,
            throughputRatio: round2(b.write.writesPerSec / a.write.writesPerSec),
            p99Ratio: round2(b.write.p99Ms / a.write.p99Ms),
            cpuRatio: round2(b.write.serviceCpuMsPerWrite / a.write.serviceCpuMsPerWrite),
          };
          pairs.push(pair);
          console.log(
            `[${dialect} r${round}] B/A: throughput ${pair.throughputRatio.toFixed(2)}, write p99 ${pair.p99Ratio.toFixed(2)}, service CPU per write ${pair.cpuRatio.toFixed(2)}`,
          );
        }
      } finally {
        service.child.kill('SIGTERM');
      }
      const sp = (f: (p: (typeof pairs)[number]) => number): Spread => spread(pairs.map(f));
      const summary = {
        a: {
          writesPerSec: sp((p) => p.a.write.writesPerSec),
          p50Ms: sp((p) => p.a.write.p50Ms),
          p99Ms: sp((p) => p.a.write.p99Ms),
          serviceCpuMsPerWrite: sp((p) => p.a.write.serviceCpuMsPerWrite),
          machineBusy: sp((p) => p.a.write.machineBusy),
        },
        b: {
          writesPerSec: sp((p) => p.b.write.writesPerSec),
          p50Ms: sp((p) => p.b.write.p50Ms),
          p99Ms: sp((p) => p.b.write.p99Ms),
          serviceCpuMsPerWrite: sp((p) => p.b.write.serviceCpuMsPerWrite),
          machineBusy: sp((p) => p.b.write.machineBusy),
        },
        throughputRatio: sp((p) => p.throughputRatio),
        p99Ratio: sp((p) => p.p99Ratio),
        cpuRatio: sp((p) => p.cpuRatio),
        deliveriesMade: sp((p) => p.b.delivery?.made ?? 0),
        deliveriesExpected: o.writes * o.endpoints,
        commitToSendP50Ms: sp((p) => p.b.delivery?.commitToSendMs.p50 ?? Number.NaN),
        commitToSendP95Ms: sp((p) => p.b.delivery?.commitToSendMs.p95 ?? Number.NaN),
        commitToSendP99Ms: sp((p) => p.b.delivery?.commitToSendMs.p99 ?? Number.NaN),
        drainSeconds: sp((p) => p.b.delivery?.drainSeconds ?? Number.NaN),
        /** The p99 of every round's writes together, A's and B's, and their ratio. */
        pooled: pooledP99(pairs),
      };
      const goals = {
        everyDelivery: o.control || pairs.every((p) => p.b.delivery?.made === p.b.delivery?.expected),
        commitToSendP99: pairs.every((p) => (p.b.delivery?.commitToSendMs.p99 ?? Number.POSITIVE_INFINITY) < GOAL.sendP99Ms),
        throughput: pairs.every((p) => p.throughputRatio >= 1 - GOAL.tolerance),
        writeP99: pairs.every((p) => p.p99Ratio <= 1 + GOAL.tolerance),
      };
      failed ||= !goals.everyDelivery;
      results[dialect] = { events: o.events, control: o.control, summary, goals, rounds: pairs };
      const s = summary;
      const mark = (met: boolean) => (met ? 'met' : 'MISSED');
      console.log(
        [
          `[${dialect}] median [min–max] of ${pairs.length} rounds:`,
          `  A (no endpoints)   writes/s ${fmtSpread(s.a.writesPerSec)}  p50 ${fmtSpread(s.a.p50Ms)}  p99 ${fmtSpread(s.a.p99Ms)} ms  CPU ${fmtSpread(s.a.serviceCpuMsPerWrite)} ms/write, machine ${fmtSpread(s.a.machineBusy, pct)} busy`,
          `  ${o.control ? 'B (control)        ' : `B (${o.endpoints} endpoints)   `} writes/s ${fmtSpread(s.b.writesPerSec)}  p50 ${fmtSpread(s.b.p50Ms)}  p99 ${fmtSpread(s.b.p99Ms)} ms  CPU ${fmtSpread(s.b.serviceCpuMsPerWrite)} ms/write, machine ${fmtSpread(s.b.machineBusy, pct)} busy`,
          `  B/A throughput ${fmtSpread(s.throughputRatio)} (≥ ${1 - GOAL.tolerance}: ${mark(goals.throughput)}), write p99 ${fmtSpread(s.p99Ratio)} (≤ ${1 + GOAL.tolerance}: ${mark(goals.writeP99)}), CPU per write ${fmtSpread(s.cpuRatio)}`,
          `  write p99 of all ${s.pooled.writes} writes of each: A ${fmt(s.pooled.aP99Ms)} ms, B ${fmt(s.pooled.bP99Ms)} ms, B/A ${s.pooled.ratio.toFixed(2)}`,
          ...(o.control
            ? ['  (control: B had no endpoints either)']
            : [
                `  deliveries ${fmtSpread(s.deliveriesMade)} of ${s.deliveriesExpected} (${mark(goals.everyDelivery)}), last ${fmtSpread(s.drainSeconds)} s after the last write`,
                `  commit → send p50 ${fmtSpread(s.commitToSendP50Ms)}  p95 ${fmtSpread(s.commitToSendP95Ms)}  p99 ${fmtSpread(s.commitToSendP99Ms)} ms (< ${GOAL.sendP99Ms}: ${mark(goals.commitToSendP99)})`,
              ]),
        ].join('\n'),
      );
    } finally {
      await storage.close();
      await where.cleanup();
    }
  }
} finally {
  killChildren();
  for (const r of receivers) r.server.close();
}

if (stray > 0) console.log(`${stray} deliveries arrived outside a run (late or repeated)`);
const file = writeMeasured('webhooks', o.dialects, values.out, {
  command: `node dist/bench/webhooks.js --dialects ${o.dialects.join(',')} --events ${o.events} --writes ${o.writes} --rate ${o.rate} --connections ${o.connections} --endpoints ${o.endpoints} --rounds ${o.rounds} --timeout ${o.timeout} --body ${o.body}${o.control ? ' --control' : ''}`,
  options: o,
  results: { ...results, strayDeliveries: stray, wallSeconds: Math.round((Date.now() - started) / 1000) },
  machine: machineInfo(loadBefore),
});
console.log(`results: ${file} (${Math.round((Date.now() - started) / 1000)} s)`);
if (failed) {
  console.log('!! FAILED: a run did not get every delivery');
  process.exitCode = 1;
}
