/**
 * Background threads below the API's (issue 18: "delivery never slows the API"). On PostgreSQL the webhook runner
 * has a thread of its own (webhook-worker.ts), which still competes with the API's thread for the machine's
 * cores: bench/webhooks.ts measured the write p99 beside deliveries at 3–4 times the one without, the cores then
 * 83 % busy. Linux keeps a nice value per thread (setpriority(2), "BUGS": the calling thread when `who` is 0), so
 * a thread can lower its own priority and no other: under contention the API's thread runs first, and with the
 * cores free the deliveries go out as fast as before. Elsewhere the call would lower the whole process, so it is
 * made on Linux only.
 */
import { getPriority, setPriority } from 'node:os';

/** The nice value of a background thread: below the API's 0, above the idle class. */
export const BACKGROUND_NICE = 10;

/** Lowers the calling thread's priority on Linux; answers the nice value it runs at (undefined where it could not). */
export function lowerThisThread(nice = BACKGROUND_NICE): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    // (never raised: a process started nicer stays so)
    if (getPriority() < nice) setPriority(nice);
    return getPriority();
  } catch {
    // not permitted: it runs at the process's priority
    return undefined;
  }
}
