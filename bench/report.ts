/** Summaries of the repeated runs (median and spread) and the printed tables. */
import type { LoadResult } from './load.js';

export type Section = 'cache' | 'uncached' | 'mixed' | 'writes';

export const SECTION_TITLES: Record<Section, string> = {
  cache: 'Cache throughput — one URL asked again and again: response-cache hits, not the work behind them',
  uncached: `Uncached — CACHE_MB=0: no response cache, every request computed (events' JSON ${
    process.env.FRAGMENT_CACHE_MB === '0' ? 'made afresh too: FRAGMENT_CACHE_MB=0' : 'from kept fragments: FRAGMENT_CACHE_MB on'
  })`,
  mixed: 'Mixed traffic — many distinct URLs from a seed, normal cache on',
  writes: 'Writes — POST /events, creates per second',
};

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface RunRecord {
  round: number;
  service: LoadResult;
  /** The bare server with this scenario's bytes, loaded just before the service (none for pure writes). */
  baseline?: LoadResult;
  ratio?: number;
  /** Peak RSS of the service's process(es) during this run (the peak was reset just before it). */
  peakRssMb: number;
  /** Seconds the service needed after the run to finish what the load left in flight (or to be restarted). */
  settleSeconds: number;
  /** The service was still busy with the run's leftovers after a while, and was restarted instead. */
  restarted?: boolean;
  /** Events in the database when a write run started (writes make the database grow). */
  eventsBefore?: number;
  /** Mixed traffic: the share of this run's requests that came round the stream to URLs already sent. */
  repeatedShare?: number;
}

export interface ScenarioSummary {
  reqPerSec: Spread;
  p50: Spread;
  p99: Spread;
  ratio?: Spread;
  baselineReqPerSec?: Spread;
  /** Share of the service's answers that came from its response cache. */
  cacheHitShare?: Spread;
  peakRssMb: number;
  /** Mixed traffic: the largest share of a run's requests that repeated the stream (0: none did). */
  repeatedShare?: number;
  /** Set when a result cannot be right (a ratio above 1, errors): then it is not a result. */
  measurementError?: string;
  failed?: string;
  noAnswer?: string;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

export function summarize(runs: RunRecord[]): ScenarioSummary {
  const s: ScenarioSummary = {
    reqPerSec: spread(runs.map((r) => r.service.requestsPerSec)),
    p50: spread(runs.map((r) => r.service.p50)),
    p99: spread(runs.map((r) => r.service.p99)),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
  };
  const withBaseline = runs.filter((r) => r.baseline !== undefined && r.ratio !== undefined);
  if (withBaseline.length > 0) {
    s.ratio = spread(withBaseline.map((r) => r.ratio!));
    s.baselineReqPerSec = spread(withBaseline.map((r) => r.baseline!.requestsPerSec));
    const above = withBaseline.filter((r) => r.ratio! > 1);
    if (above.length > 0) {
      s.measurementError =
        `ratio above 1 in round ${above.map((r) => r.round).join(', ')}: the service cannot beat a bare server sending the same bytes, ` +
        'so the baseline run was disturbed (or the load generator was the limit); not a result, measure again';
    }
  }
  const repeated = runs.filter((r) => r.repeatedShare !== undefined);
  if (repeated.length > 0) s.repeatedShare = Math.max(...repeated.map((r) => r.repeatedShare!));
  const counted = runs.filter((r) => r.service.cacheHits !== undefined && r.service.total > 0);
  if (counted.length > 0) s.cacheHitShare = spread(counted.map((r) => r.service.cacheHits! / r.service.total));
  // wrong answers or refused connections are failures; no answer at all within the run is a (slow) result
  const wrong = (l: LoadResult) => l.non2xx > 0 || l.errors > 0;
  const broken = runs.filter((r) => wrong(r.service) || (r.baseline !== undefined && (wrong(r.baseline) || r.baseline.ok === 0)));
  if (broken.length > 0) {
    const r = broken[0];
    s.failed =
      `round ${r.round}: service ${r.service.ok} 2xx / ${r.service.non2xx} non-2xx / ${r.service.errors} errors` +
      (r.baseline ? `, baseline ${r.baseline.ok} 2xx / ${r.baseline.non2xx} non-2xx / ${r.baseline.errors} errors` : '');
  }
  const silent = runs.filter((r) => r.service.total === 0);
  if (silent.length > 0) {
    s.noAnswer = `round ${silent.map((r) => r.round).join(', ')}: no answer came back within the run (each took longer than the run lasted, with the others queued before it)`;
  }
  return s;
}

const num = (n: number) => (n >= 100 || Number.isInteger(n) ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
/** Ratios: three decimals below 0.1, where two would print an uncached 0.004 as 0.00. */
export const fmtRatio = (n: number) => n.toFixed(n < 0.1 ? 3 : 2);
const fmtSpread = (s: Spread | undefined, f: (n: number) => string = num) =>
  s === undefined ? '—' : s.min === s.max ? f(s.median) : `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;

export interface PrintedScenario {
  section: Section;
  name: string;
  summary: ScenarioSummary;
  /** A note after the name (sync mode, payload, dataset growth…). */
  note?: string;
}

export function table(title: string, scenarios: PrintedScenario[]): string {
  const lines: string[] = [];
  for (const section of Object.keys(SECTION_TITLES) as Section[]) {
    const rows = scenarios.filter((s) => s.section === section);
    if (rows.length === 0) continue;
    lines.push('', `${title} — ${SECTION_TITLES[section]}`);
    const head = [
      'scenario',
      section === 'writes' ? 'writes/s median [min–max]' : 'req/s median [min–max]',
      'p50 ms',
      'p99 ms',
      'ratio to own baseline',
      'cache hits',
      'peak RSS MB',
    ];
    const body = rows.map((r) => [
      r.note ? `${r.name} (${r.note})` : r.name,
      fmtSpread(r.summary.reqPerSec),
      fmtSpread(r.summary.p50),
      fmtSpread(r.summary.p99),
      r.summary.ratio ? `${fmtSpread(r.summary.ratio, fmtRatio)}${r.summary.measurementError ? ' !ERROR' : ''}` : '—',
      r.summary.cacheHitShare ? fmtSpread(r.summary.cacheHitShare, (n) => `${Math.round(n * 100)}%`) : '',
      Math.round(r.summary.peakRssMb).toString(),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`;
    lines.push(line(head));
    for (const b of body) lines.push(line(b));
    for (const r of rows) {
      if (r.summary.measurementError) lines.push(`  !! MEASUREMENT ERROR, ${r.name}: ${r.summary.measurementError}`);
      if (r.summary.failed) lines.push(`  !! FAILED, ${r.name}: ${r.summary.failed}`);
      if (r.summary.noAnswer) lines.push(`  note, ${r.name}: ${r.summary.noAnswer}`);
      if (r.summary.repeatedShare) {
        lines.push(
          `  note, ${r.name}: up to ${Math.round(r.summary.repeatedShare * 100)}% of a run's requests repeated URLs of the stream (more cache hits than fresh traffic would give); raise --mix-capture`,
        );
      }
    }
  }
  return lines.join('\n');
}
