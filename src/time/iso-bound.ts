/**
 * The bounds of a FullCalendar request (FEATURES.md §5.3): ISO 8601 dates or date-times, with an offset (`Z`,
 * `+01:00`, `-0500`) or without one (then they are read in the calendar's time zone). Strict on purpose: these
 * come from a program, not a person, so anything else is refused rather than guessed (strtotime would take
 * `next monday`).
 */
import { type WallTime, wallToMs } from './zones.js';

export interface IsoBound {
  /** The wall clock as written. */
  readonly wall: WallTime;
  /** Minutes east of UTC when the string gave an offset. */
  readonly offsetMinutes?: number;
  /** Only a date was given (midnight). */
  readonly dateOnly: boolean;
}

// a space stands for `+` in the offset: an unencoded `+01:00` in a query string arrives as ` 01:00`
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|z|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

export function parseIsoBound(input: string): IsoBound | undefined {
  const m = ISO.exec(input.trim());
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const wall = { year, month, day, hour, minute, second };
  // 2027-02-30 is not a day (Date.UTC would roll it into March)
  if (new Date(wallToMs(wall)).getUTCDate() !== day) return undefined;
  const dateOnly = m[4] === undefined;
  const zone = m[7];
  if (zone === undefined) return { wall, dateOnly };
  if (zone === 'Z' || zone === 'z') return { wall, offsetMinutes: 0, dateOnly };
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 14 || minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined;
  return { wall, offsetMinutes: (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes), dateOnly };
}
