/**
 * An event's stored dates from what a write sent: wall-clock start and end in the event's zone, the same
 * instants in UTC, and the zone's abbreviation at the start (CONTRACT.md §6.2, §9.1, §9.2).
 */
import { type ParsedDate, parseDateInput } from '../../time/strtotime.js';
import {
  atTimeOfDay,
  findZone,
  formatUtcMs,
  formatWall,
  isStorableUtcMs,
  parseWall,
  utcMsToZonedWall,
  type WallTime,
  type Zone,
  zonedWallToUtcMs,
} from '../../time/zones.js';
import { errors } from '../errors.js';
import type { EventDetails } from './event.js';

export type EventDates = Pick<EventDetails, 'startDate' | 'endDate' | 'startUtc' | 'endUtc' | 'timezone' | 'timezoneAbbr'>;

/** The zone name as stored: `UTC` spelled one way, anything else as given. */
export function canonicalZoneName(name: string): string {
  return name.toLowerCase() === 'utc' ? 'UTC' : name;
}

/** Reads a date argument in the event's zone (relative phrases count from now there). */
export function readDate(input: string, zone: Zone, nowMs: number): ParsedDate | undefined {
  return parseDateInput(input, { nowMs, zone });
}

function compare(a: WallTime, b: WallTime): number {
  return formatWall(a) < formatWall(b) ? -1 : formatWall(a) > formatWall(b) ? 1 : 0;
}

/**
 * Start and end as stored. An end before the start becomes the start (the original does not refuse it);
 * all-day events run from the start day's 00:00:00 to the end day's 23:59:59. A wall time the zone skips (a
 * spring-forward gap) is stored as the time it becomes, as PHP's DateTime makes it on the original (recorded:
 * a 02:30 start on 2026-03-08 in New York reads back 03:30, its end of 03:30 leaving it zero-length).
 */
export function computeEventDates(start: WallTime, end: WallTime, allDay: boolean, zoneName: string): EventDates {
  const zone = findZone(zoneName);
  if (!zone) throw new Error(`unknown zone ${zoneName}`);
  let s = start;
  let e = end;
  if (allDay) {
    s = atTimeOfDay(s, 0, 0, 0);
    e = atTimeOfDay(e, 23, 59, 59);
  }
  let startMs = zonedWallToUtcMs(s, zone);
  let endMs = zonedWallToUtcMs(e, zone);
  // (a wall time late on 9999-12-31 west of UTC, or early on 0000-01-01 east of it, is in no storable UTC year)
  if (!isStorableUtcMs(startMs))
    throw errors.invalidParam('start_date', 'Invalid parameter(s): start_date (its UTC time is outside the years 0–9999).');
  if (!isStorableUtcMs(endMs)) throw errors.invalidParam('end_date', 'Invalid parameter(s): end_date (its UTC time is outside the years 0–9999).');
  if (!allDay) {
    s = utcMsToZonedWall(startMs, zone);
    e = utcMsToZonedWall(endMs, zone);
  }
  if (compare(e, s) < 0) {
    e = allDay ? atTimeOfDay(s, 23, 59, 59) : s;
    endMs = allDay ? zonedWallToUtcMs(e, zone) : startMs;
  }
  startMs = zonedWallToUtcMs(s, zone);
  return {
    startDate: formatWall(s),
    endDate: formatWall(e),
    startUtc: formatUtcMs(startMs),
    endUtc: formatUtcMs(endMs),
    timezone: zoneName,
    timezoneAbbr: zone.abbreviationAt(startMs),
  };
}

export { parseWall };
