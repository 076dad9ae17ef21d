/**
 * One load run with autocannon, in its own process so it never shares an event loop with a server.
 * Usage: node dist/bench/load.js '<json LoadSpec>'  → prints a JSON LoadResult.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  /** Requests each connection cycles through, in order (e.g. nine reads and a write). */
  requests: { method: 'GET' | 'POST'; path: string; body?: 'event' | 'none'; unique?: boolean }[];
}

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

const spec = JSON.parse(process.argv[2]) as LoadSpec;
let counter = 0;
const day = 86_400_000;

const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  headers: spec.headers,
  requests: spec.requests.map((r) => ({
    method: r.method,
    path: r.path,
    headers: r.body === 'event' ? { 'content-type': 'application/json' } : undefined,
    setupRequest: (req: any) => {
      const n = ++counter;
      const out = { ...req };
      if (r.unique) out.path = `${r.path}${r.path.includes('?') ? '&' : '?'}_nocache=${n}`;
      if (r.body === 'event') {
        const start = new Date(Date.now() + (n % 700) * day).toISOString().slice(0, 10);
        out.body = JSON.stringify({
          title: `Bench event ${process.pid}-${n}`,
          start_date: `${start} 19:00:00`,
          end_date: `${start} 21:00:00`,
          categories: [`category-${n % 50}`],
          tags: [`tag-${n % 200}`],
          cost: String(n % 40),
        });
      }
      return out;
    },
  })),
});

instance.on('done', (result: any) => {
  const out: LoadResult = {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
});
