/**
 * One load run with autocannon, in its own process so it never shares an event loop with a server.
 * Usage: node dist/bench/load.js SPEC_FILE  → prints a JSON LoadResult (the spec is a file: a mixed-traffic
 * request list does not fit in a command line).
 *
 * Many distinct URLs without the load generator becoming the bottleneck: autocannon builds a request's bytes
 * once, when the list is set, unless the request has a `setupRequest` (then it builds them for every request).
 * So reads carry no `setupRequest`: each connection gets, through `setupClient`, its own share of the list
 * (connection k: entries k, k+C, k+2C, …), built once and then cycled through — every URL is built once in
 * all, and the connections do not walk the list in step. Only creates use `setupRequest`, for a fresh body.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { createBody, type RequestSpec } from './traffic.js';

export interface LoadSpec {
  url: string;
  connections: number;
  duration: number;
  /** Seconds before autocannon gives up on a response (and reconnects): long, so that it never resends. */
  timeout: number;
  /** Sent on requests marked `auth`. */
  authorization?: string;
  requests: RequestSpec[];
  /**
   * The entry of the list the run starts at: runs of a long list (mixed traffic) continue where the last one
   * stopped instead of sending its URLs again.
   */
  startAt?: number;
  /** Count the answers the service took from its response cache (`X-Cache: hit`). */
  countCacheHits?: boolean;
  /** Makes create titles unique across runs. */
  nonce: string;
}

export interface LoadResult {
  /** autocannon's mean of per-second counts, every status included. */
  requestsPerSec: number;
  /** Milliseconds (autocannon's histogram). */
  p50: number;
  p99: number;
  total: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  cacheHits?: number;
  /** Answers per status code (a conditional GET's are 304s, which autocannon counts as non-2xx). */
  statusCodes?: Record<string, number>;
}

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec;
let created = 0;
let cacheHits = 0;

function toAutocannon(r: RequestSpec): Record<string, unknown> {
  const headers: Record<string, string> = { ...r.headers };
  if (r.auth && spec.authorization) headers.authorization = spec.authorization;
  if (r.body) headers['content-type'] = 'application/json';
  const out: Record<string, unknown> = { method: r.method, path: r.path, headers };
  if (r.body) {
    const kind = r.body;
    out.setupRequest = (req: Record<string, unknown>) => ({ ...req, body: createBody(kind, ++created, spec.nonce) });
  }
  if (spec.countCacheHits) {
    out.onResponse = (_status: number, _body: unknown, _context: unknown, headers: Record<string, unknown>) => {
      if (headers['x-cache'] === 'hit' || headers['X-Cache'] === 'hit') cacheHits++;
    };
  }
  return out;
}

const C = spec.connections;
const L = spec.requests.length;
let nextClient = 0;

/**
 * Connection k's share. A list at least as long as the connections: entries startAt+k, startAt+k+C, … (round
 * the list), so that the connections together send the list in order from `startAt`. A shorter list: the
 * whole list, from entry k.
 */
function share(k: number): RequestSpec[] {
  const from = spec.startAt ?? 0;
  if (L >= C) return Array.from({ length: Math.ceil(L / C) }, (_, j) => spec.requests[(from + k + j * C) % L]);
  return [...spec.requests.slice(k % L), ...spec.requests.slice(0, k % L)];
}

const instance = autocannon({
  url: spec.url,
  connections: C,
  duration: spec.duration,
  timeout: spec.timeout,
  // a placeholder: each client replaces it with its share (a client would otherwise build the whole list)
  requests: [toAutocannon(spec.requests[0])],
  setupClient: (client: { setRequests(requests: unknown[]): void }) => {
    client.setRequests(share(nextClient++ % C).map(toAutocannon));
  },
});

instance.on('done', (result: any) => {
  const out: LoadResult = {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    ...(spec.countCacheHits ? { cacheHits } : {}),
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]: [string, any]) => [code, s.count])),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
});
