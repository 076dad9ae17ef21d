/**
 * Runs import jobs in the service, off the request path: every few seconds this process claims what is queued
 * (or was left running by a process that died: its lease ran out) and runs it. Several processes may poll the
 * same database; ImportStore.claim gives each job to one of them.
 */
import type { ImportService } from './import.service.js';

export interface Runner {
  /** Stops polling and waits for the job in hand, if any, to finish its current step. */
  stop(): Promise<void>;
}

export function startImportRunner(imports: ImportService, onError: (error: unknown) => void, intervalMs = 2000): Runner {
  let current: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    current = imports
      .runPending()
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
