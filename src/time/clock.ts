import { formatUtcMs } from './zones.js';

/** The current UTC time as a stored date-time string. */
export function nowUtc(): string {
  return formatUtcMs(Date.now());
}
