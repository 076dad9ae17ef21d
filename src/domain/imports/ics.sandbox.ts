/** Parsing under a time limit, off the service's thread (see ics.worker.ts). */
import { Worker } from 'node:worker_threads';
import type { MappedCalendar } from './ics.mapper.js';
import { IcsFormatError } from './ics.structure.js';

/** How long one file may take to parse and map (10 MB of plain events take about a second). */
export const PARSE_TIME_LIMIT_MS = 20_000;

export function parseInWorker(text: string, siteZone: string, timeLimitMs = PARSE_TIME_LIMIT_MS): Promise<MappedCalendar> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./ics.worker.js', import.meta.url), {
      workerData: { text, siteZone },
      // a file that makes ical.js build ever more state must not take the service's memory
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new IcsFormatError(
              null,
              `parsing took longer than ${Math.round(timeLimitMs / 1000)} s and was stopped (a VTIMEZONE whose rules never end? see kewisch/ical.js#318)`,
            ),
          ),
        ),
      timeLimitMs,
    );
    worker.once('message', (m: { ok: true; calendar: MappedCalendar } | { ok: false; line: number | null; reason: string }) =>
      settle(() => (m.ok ? resolve(m.calendar) : reject(new IcsFormatError(m.line, m.reason)))),
    );
    worker.once('error', (error) => settle(() => reject(new IcsFormatError(null, `the parser failed: ${error.message}`))));
    worker.once('exit', (code) => settle(() => reject(new IcsFormatError(null, `the parser stopped (exit code ${code})`))));
  });
}
