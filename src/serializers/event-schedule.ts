/**
 * schema.org `eventSchedule` for a recurring series' JSON-LD (issue 12): the rule as a `Schedule` that search
 * engines read (https://schema.org/Schedule). Only rules a Schedule can say exactly are written — one RRULE with
 * FREQ, INTERVAL, plain BYDAY, BYMONTHDAY, BYMONTH, COUNT or UNTIL, plus EXDATEs; anything else (ordinal
 * weekdays, BYSETPOS, RDATEs) gets no schedule rather than a wrong one.
 */
import { WEEKDAY_NAMES } from '../domain/events/recurrence.js';

const PERIOD: Record<string, string> = { DAILY: 'D', WEEKLY: 'W', MONTHLY: 'M', YEARLY: 'Y' };
const SAYABLE = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'COUNT', 'UNTIL', 'WKST']);

/** `20251231T235959Z` / `20251231` → `2025-12-31`. */
function isoDate(value: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(value);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

export function eventSchedule(
  lines: readonly string[],
  e: { readonly startDate: string; readonly endDate: string; readonly timezone: string; readonly allDay: boolean },
): Record<string, unknown> | undefined {
  const rules = lines.filter((l) => l.startsWith('RRULE:'));
  if (rules.length !== 1 || lines.some((l) => l.startsWith('RDATE'))) return undefined;
  const parts = new Map(
    rules[0]
      .slice('RRULE:'.length)
      .split(';')
      .map((p) => p.split('=') as [string, string]),
  );
  if ([...parts.keys()].some((k) => !SAYABLE.has(k))) return undefined;
  const period = PERIOD[parts.get('FREQ') ?? ''];
  if (!period) return undefined;
  const days = parts.get('BYDAY')?.split(',');
  if (days?.some((d) => !WEEKDAY_NAMES[d])) return undefined;
  const schedule: Record<string, unknown> = {
    '@type': 'Schedule',
    repeatFrequency: `P${Number(parts.get('INTERVAL') ?? 1)}${period}`,
    startDate: e.startDate.slice(0, 10),
  };
  if (days) schedule.byDay = days.map((d) => `https://schema.org/${WEEKDAY_NAMES[d]}`);
  const monthDays = parts.get('BYMONTHDAY');
  if (monthDays) schedule.byMonthDay = monthDays.split(',').map(Number);
  const months = parts.get('BYMONTH');
  if (months) schedule.byMonth = months.split(',').map(Number);
  const count = parts.get('COUNT');
  if (count) schedule.repeatCount = Number(count);
  const until = parts.get('UNTIL');
  if (until) schedule.endDate = isoDate(until);
  if (!e.allDay) {
    schedule.startTime = e.startDate.slice(11, 19);
    schedule.endTime = e.endDate.slice(11, 19);
  }
  schedule.scheduleTimezone = e.timezone;
  const except = lines
    .filter((l) => l.startsWith('EXDATE'))
    .flatMap((l) => l.slice(l.indexOf(':') + 1).split(','))
    .map(isoDate)
    .filter((d): d is string => d !== undefined);
  if (except.length > 0) schedule.exceptDate = except;
  return schedule;
}
