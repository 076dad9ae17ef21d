/**
 * How the pages write dates and times: the original's English forms ("November 3, 2025", "9:00 am"), from the
 * wall-clock strings the events store (`YYYY-MM-DD HH:MM:SS` in the event's zone), so a time is shown in the
 * event's own zone whatever the server's. Zone labels are the abbreviations the API prints.
 */
import { findZone, getZone, parseWall, type WallTime, wallToMs, zonedWallToUtcMs } from '../time/zones.js';

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** `9:00 am`, `12:30 pm`. */
export function timeOf(w: WallTime): string {
  const h = w.hour % 12 === 0 ? 12 : w.hour % 12;
  return `${h}:${String(w.minute).padStart(2, '0')} ${w.hour < 12 ? 'am' : 'pm'}`;
}

/** `November 3, 2025`. */
export function longDate(w: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  return `${MONTHS[w.month - 1]} ${w.day}, ${w.year}`;
}

/** `November 3` (the year only when it is not `currentYear`). */
export function shortDate(w: Pick<WallTime, 'year' | 'month' | 'day'>, currentYear: number): string {
  return w.year === currentYear ? `${MONTHS[w.month - 1]} ${w.day}` : longDate(w);
}

/** 0 = Monday … 6 = Sunday, as the grid's columns run. */
export function weekdayIndex(w: Pick<WallTime, 'year' | 'month' | 'day'>): number {
  return (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7;
}

/** `YYYY-MM-DD` of a wall time. */
export function dayKey(w: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** The day `days` after `YYYY-MM-DD`. */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

export function dayParts(day: string): { year: number; month: number; day: number } {
  const [year, month, d] = day.split('-').map(Number);
  return { year, month, day: d };
}

/** The zone's abbreviation at that instant (`EST`, `EDT`, `CET`, `+09`), as the original prints it. */
export function zoneLabel(zone: string, utcMs: number): string {
  return (findZone(zone) ?? getZone('UTC')).abbreviationAt(utcMs);
}

/** What an event's times look like on a page. */
export interface ShownTimes {
  /** `YYYY-MM-DD` of the first and last day the event covers, in its zone (an end at midnight ends the day before). */
  readonly firstDay: string;
  readonly lastDay: string;
  readonly allDay: boolean;
  /** `9:00 am` (timed events). */
  readonly startTime: string;
  readonly endTime: string;
  /** ISO instants for `<time datetime>` and the visitor's-zone switch. */
  readonly startIso: string;
  readonly endIso: string;
  /** `EST`. */
  readonly zoneLabel: string;
  /** `November 3, 2025 @ 9:00 am – 10:00 am EST`, `November 1, 2025` (all day), `Jan 30 – Feb 2`… */
  readonly range: string;
}

/** The times of an event as the pages write them; `currentYear` drops the year of dates in it. */
export function shownTimes(
  e: { startDate: string; endDate: string; startUtc: string; endUtc: string; allDay: boolean; timezone: string },
  currentYear: number,
): ShownTimes {
  const start = parseWall(e.startDate);
  const end = parseWall(e.endDate);
  const startMs = wallToMs(parseWall(e.startUtc));
  const endMs = wallToMs(parseWall(e.endUtc));
  const firstDay = dayKey(start);
  let lastDay = dayKey(end);
  // an event that ends at midnight does not take the next day
  if (!e.allDay && lastDay > firstDay && end.hour === 0 && end.minute === 0 && end.second === 0) lastDay = addDays(lastDay, -1);
  if (lastDay < firstDay) lastDay = firstDay;
  const label = e.allDay ? '' : zoneLabel(e.timezone, startMs);
  const startTime = timeOf(start);
  const endTime = timeOf(end);
  let range: string;
  if (e.allDay) {
    range = firstDay === lastDay ? longDate(start) : `${shortDate(start, currentYear)} – ${longDate(dayParts(lastDay))}`;
  } else if (firstDay === dayKey(end) || firstDay === lastDay) {
    range = `${shortDate(start, currentYear)} @ ${startTime} – ${endTime} ${label}`;
  } else {
    range = `${shortDate(start, currentYear)} @ ${startTime} – ${shortDate(end, currentYear)} @ ${endTime} ${label}`;
  }
  return {
    firstDay,
    lastDay,
    allDay: e.allDay,
    startTime,
    endTime,
    startIso: new Date(startMs).toISOString(),
    endIso: new Date(endMs).toISOString(),
    zoneLabel: label,
    range,
  };
}

/** Midnight starting `YYYY-MM-DD` in a zone, as UTC ms (a day that starts in a gap starts when the gap ends). */
export function dayStartMs(day: string, zone: string): number {
  const { year, month, day: d } = dayParts(day);
  return zonedWallToUtcMs({ year, month, day: d, hour: 0, minute: 0, second: 0 }, getZone(zone));
}
