/**
 * The worker thread that parses and maps one .ics text (ics.sandbox.ts starts it and ends it when it takes too
 * long: ical.js can loop forever on some VTIMEZONE rules, kewisch/ical.js#318, and a loop in the service's
 * own thread could not be stopped).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { mapCalendar } from './ics.mapper.js';
import { IcsFormatError } from './ics.structure.js';

const { text, siteZone } = workerData as { text: string; siteZone: string };
try {
  parentPort?.postMessage({ ok: true, calendar: mapCalendar(text, siteZone) });
} catch (error) {
  const formatError = error instanceof IcsFormatError ? error : new IcsFormatError(null, error instanceof Error ? error.message : String(error));
  parentPort?.postMessage({ ok: false, line: formatError.line, reason: formatError.reason });
}
