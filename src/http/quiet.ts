/**
 * Whether the API is answering requests right now, for background work that shares its event loop (issue 18:
 * "delivery never slows the API"). On SQLite the webhook runner works on the API's loop (webhook-worker.ts says
 * why), and a write that arrived while it rendered, signed or recorded a burst of deliveries waited for the
 * burst: bench/webhooks.ts measured the write p99 at twice the one without webhooks. The runner now waits before
 * each step until no request is in flight — at most `maxWaitMs`, so that under a load that never pauses
 * deliveries still go out, a step per wait.
 *
 * Steps also take turns, one per turn of the event loop: the deliveries' continuations (answers arriving
 * together, each going on to its next send) otherwise ran back to back in one phase of the loop, bursts of 10–19 ms
 * during which a write that had arrived was not even read (a CPU profile of the bench's service showed them), so
 * "no request in flight" was true while one waited at the socket. Between two turns the loop polls its sockets
 * (setImmediate), so a request that arrived meanwhile is counted before the next step starts.
 *
 * Counted on the raw server (`request` to the response's `close`), but for the 304s answered before the framework
 * (fast-revalidation.ts marks them). Written here: a counter and a queue of waiters, no library needed.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Marks a request answered before the framework (`markAnsweredBeforeTheFramework`). */
const ANSWERED_BEFORE_THE_FRAMEWORK = Symbol('answered before the framework');
type Marked = IncomingMessage & { [ANSWERED_BEFORE_THE_FRAMEWORK]?: true };

/**
 * Called by a listener that runs before `trackRequests`' and answers the request itself in microseconds (a current
 * copy's 304, fast-revalidation.ts): the request is not counted — background work need not wait for it, and a
 * poll load of them is spared the count's cost. (Should it hand the request on to the framework after all, that
 * one goes uncounted.)
 */
export function markAnsweredBeforeTheFramework(req: IncomingMessage): void {
  (req as Marked)[ANSWERED_BEFORE_THE_FRAMEWORK] = true;
}

export interface Quiet {
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * Resolves at this caller's turn: when no request is in flight, one waiter per turn of the event loop, first
   * come first served; or when it has waited `maxWaitMs` (then with every other waiter whose time is up).
   */
  wait(): Promise<void>;
}

export function trackRequests(
  server: Server,
  options: {
    readonly maxWaitMs: number;
    /** Where another thread reads the count (`waitForQuiet`): kept up to date, and notified when it falls to 0. */
    readonly publish?: Int32Array;
  },
): Quiet {
  let inFlight = 0;
  const publish = options.publish;
  const queue: { readonly resolve: () => void; readonly since: number }[] = [];
  let turn: NodeJS.Immediate | undefined;
  let deadline: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (turn === undefined && queue.length > 0) turn = setImmediate(grant);
  };
  // one waiter per turn of the loop: the sockets are polled between two grants
  const grant = () => {
    turn = undefined;
    const first = queue[0];
    if (first === undefined) return;
    if (inFlight > 0 && performance.now() - first.since < options.maxWaitMs) {
      // the last request's end schedules the next turn; the oldest waiter's deadline, at the latest
      deadline ??= setTimeout(
        () => {
          deadline = undefined;
          schedule();
        },
        Math.max(0, first.since + options.maxWaitMs - performance.now()),
      );
      return;
    }
    if (deadline !== undefined) {
      clearTimeout(deadline);
      deadline = undefined;
    }
    if (inFlight > 0) {
      // a load that does not pause: every waiter whose time is up goes now (one a turn would fall behind it)
      const now = performance.now();
      while (queue.length > 0 && now - queue[0].since >= options.maxWaitMs) queue.shift()?.resolve();
    } else queue.shift()?.resolve();
    schedule();
  };

  // (one function for every response, not a closure each: it is on the path of every request)
  const answered = () => {
    inFlight--;
    if (publish) Atomics.store(publish, 0, inFlight);
    if (inFlight === 0) {
      if (publish) Atomics.notify(publish, 0);
      schedule();
    }
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if ((req as Marked)[ANSWERED_BEFORE_THE_FRAMEWORK]) return;
    inFlight++;
    if (publish) Atomics.store(publish, 0, inFlight);
    res.on('close', answered);
  });
  return {
    inFlight: () => inFlight,
    wait() {
      return new Promise<void>((resolve) => {
        queue.push({ resolve, since: performance.now() });
        schedule();
      });
    },
  };
}

/** `Atomics.waitAsync` (ES2024; Node has it since 16), which this project's ES2023 library does not declare. */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };

/**
 * The same wait from another thread (the webhook thread on PostgreSQL, webhook-worker.ts): resolves when the count
 * the API's thread publishes (`trackRequests`' `publish`) is 0, or after `maxWaitMs` at most. There the runner
 * has the API's cores to share, and the database server's: its statements and sends wait for a moment when no
 * request is being answered, as on SQLite.
 */
export function waitForQuiet(shared: Int32Array, maxWaitMs: number): () => Promise<void> {
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  return async () => {
    const deadline = performance.now() + maxWaitMs;
    for (;;) {
      const count = Atomics.load(shared, 0);
      const left = deadline - performance.now();
      if (count === 0 || left <= 0) return;
      const waited = waitAsync(shared, 0, count, left);
      if (!waited.async) continue;
      // a pending waitAsync keeps no event loop alive, its own timeout included (a thread with nothing else to
      // do would end mid-wait): a timer of ours ends the wait at the deadline
      let timer: NodeJS.Timeout | undefined;
      const deadlineReached = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      try {
        await Promise.race([waited.value, deadlineReached]);
      } finally {
        clearTimeout(timer);
      }
    }
  };
}
