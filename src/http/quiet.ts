/**
 * Whether the API is answering requests right now, for background work that shares its event loop (issue 18:
 * "delivery never slows the API"). On SQLite the webhook runner works on the API's loop (webhook-worker.ts says
 * why), and a write that arrived while it rendered, signed or recorded a burst of deliveries waited for the
 * burst: bench/webhooks.ts measured the write p99 at twice the one without webhooks. The runner now waits before
 * each step until no request is in flight — at most `maxWaitMs`, so that under a load that never pauses
 * deliveries still go out, a step per wait.
 *
 * Counted on the raw server (`request` to the response's `close`), so the answers given before the framework
 * (fast-revalidation.ts) count as well. Written here: a counter and a list of waiters, no library needed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface Quiet {
  /** Requests being answered now. */
  inFlight(): number;
  /** Resolves when no request is in flight, or after `maxWaitMs` at most. */
  wait(): Promise<void>;
}

export function trackRequests(server: Server, options: { readonly maxWaitMs: number }): Quiet {
  let inFlight = 0;
  const waiters = new Set<() => void>();
  const release = () => {
    for (const wake of [...waiters]) wake();
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) release();
    });
  });
  return {
    inFlight: () => inFlight,
    wait() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, options.maxWaitMs);
        waiters.add(wake);
      });
    },
  };
}
