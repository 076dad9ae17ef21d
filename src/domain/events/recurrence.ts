/**
 * Recurrence rules (FEATURES.md §1): the `recurrence` lines of a series read, checked and expanded.
 *
 * Lines use Google Calendar's syntax: one `RRULE:`, any number of `RDATE` and `EXDATE` lines; the first instance
 * is the event's own start. What the design refuses (§1.5) is refused here with a message that says why.
 *
 * Expansion runs on wall-clock time in the series' zone, never in UTC or the process's zone (E1): the rule is
 * expanded by rrule-temporal in *floating* time (local wall times written as UTC, so no zone rules apply), then
 * each local time is placed in the zone by `zonedWallToUtcMs`, whose policy is ours: a local time inside a
 * spring-forward gap moves forward by the gap and still counts, an ambiguous one takes the first instant (E2, E3;
 * Google's and our iCalendar consumers' behaviour). rrule-temporal rather than `rrule` 2.x, whose output depends
 * on the process's zone (§1.4).
 */
import { RRuleTemporal } from 'rrule-temporal';
import { toText } from 'rrule-temporal/totext';
import { Temporal } from 'temporal-polyfill';
import {
  atTimeOfDay,
  compactDate,
  compactWall,
  formatWall,
  msToWall,
  parseWall,
  type WallTime,
  wallToMs,
  type Zone,
  zonedWallToUtcMs,
} from '../../time/zones.js';

/** The most instances a bounded series may have (FEATURES.md §1.5). */
export const MAX_BOUNDED_INSTANCES = 5000;

const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
const SUB_DAILY = new Set(['HOURLY', 'MINUTELY', 'SECONDLY']);
const WEEKDAYS = new Set(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);

/** Why a recurrence is refused; the service turns it into a 400 naming `recurrence`. */
export class RecurrenceError extends Error {}

/** A recurrence as stored: its normalised lines and what expansion needs of them. */
export interface Recurrence {
  /** The lines in normal form (RRULE parts upper-case, UNTIL in UTC or as a date, dates as the series' wall time). */
  readonly lines: readonly string[];
  /** The RRULE value without `RRULE:` (normalised), or undefined for a series of RDATEs only. */
  readonly rule?: string;
  /** Whether the series ends (COUNT, UNTIL, or RDATEs only). */
  readonly bounded: boolean;
  /** Extra instances and removed ones, as wall times in the series' zone (midnight for all-day series). */
  readonly rdates: readonly WallTime[];
  readonly exdates: readonly WallTime[];
}

/** One instance of a series. */
export interface Instance {
  /** The wall time the rule gives (before any gap shift): with the series, what identifies the instance. */
  readonly originalWall: WallTime;
  readonly originalUtcMs: number;
  /** Where it is: the same instant as the original unless the wall time fell in a gap. */
  readonly startWall: WallTime;
  readonly endWall: WallTime;
  readonly startUtcMs: number;
  readonly endUtcMs: number;
}

/** The first instance and the frame a series expands in. */
export interface SeriesFrame {
  readonly start: WallTime;
  readonly end: WallTime;
  readonly allDay: boolean;
  readonly zone: Zone;
}

// ---- reading -------------------------------------------------------------------------------------------

const DATE_TIME = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;

function wallOf(y: string, mo: string, d: string, h = '0', mi = '0', s = '0'): WallTime | undefined {
  const w = { year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: +s };
  const back = msToWall(wallToMs(w));
  if (formatWall(back) !== formatWall(w) || w.hour > 23) return undefined;
  return w;
}

const midnight = (w: WallTime): WallTime => atTimeOfDay(w, 0, 0, 0);

/** The last wall time iCalendar can write: its dates have four-digit years (RFC 5545 §3.3.4). */
const LAST_WALL_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * A date placed in the series' zone or in UTC, refused when that takes it out of years 0001–9999 (20000101T… is no
 * date-time, and the rule library threw on it: a 500).
 */
function writable(w: WallTime, what: string, value: string): WallTime {
  if (w.year < 1 || w.year > 9999)
    throw new RecurrenceError(`${what} "${value}" is out of range (years 0001 to 9999) in the series' zone or in UTC.`);
  return w;
}

/**
 * A date value of RDATE/EXDATE/UNTIL as a wall time in the series' zone. UTC values (`Z`) are converted; `TZID`
 * values must name the series' zone (anything else would be ambiguous about which wall time is meant); floating
 * values are taken as the series' wall time. All-day series take dates.
 */
function readWhen(value: string, tzid: string | undefined, frame: SeriesFrame, what: string): WallTime {
  const m = DATE_TIME.exec(value);
  const wall = m && wallOf(m[1], m[2], m[3], m[4], m[5], m[6]);
  if (!m || !wall) throw new RecurrenceError(`${what} "${value}" is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z]).`);
  if (tzid !== undefined && m[7] === 'Z') throw new RecurrenceError(`${what} "${value}" has both a TZID and a UTC "Z".`);
  if (tzid !== undefined && tzid !== frame.zone.name) {
    throw new RecurrenceError(`${what} uses TZID=${tzid}; dates of this series are in its own zone, ${frame.zone.name}.`);
  }
  const local = writable(m[7] === 'Z' ? msToWall(wallToMs(wall) + frame.zone.offsetAt(wallToMs(wall)) * 60_000) : wall, what, value);
  if (frame.allDay) return midnight(local);
  // a bare date on a timed series means that day at the series' time of day
  if (m[4] === undefined) return atTimeOfDay(local, frame.start.hour, frame.start.minute, frame.start.second);
  return local;
}

/** `NAME;PARAM=V;…:VALUE` → its parts, or undefined when it is not a content line. */
function splitLine(line: string): { name: string; params: Map<string, string>; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon < 0) return undefined;
  const [name, ...params] = line.slice(0, colon).split(';');
  const map = new Map<string, string>();
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq <= 0) return undefined;
    map.set(p.slice(0, eq).toUpperCase(), p.slice(eq + 1));
  }
  return { name: name.toUpperCase(), params: map, value: line.slice(colon + 1) };
}

const intList = (v: string, min: number, max: number, part: string, allowNegative = true): number[] =>
  v.split(',').map((s) => {
    const n = /^[+-]?\d{1,3}$/.test(s) ? Number(s) : Number.NaN;
    if (!Number.isInteger(n) || n === 0 || Math.abs(n) < min || Math.abs(n) > max || (!allowNegative && n < 0)) {
      throw new RecurrenceError(`${part}=${v} is out of range.`);
    }
    return n;
  });

/**
 * The most candidates one period (week, month) of a rule can hold, when that is simple to bound; undefined
 * otherwise (YEARLY, DAILY). BYMONTH only filters periods, so it does not add candidates.
 */
function mostPerPeriod(freq: string, parts: ReadonlyMap<string, string>): number | undefined {
  const byDay = parts.get('BYDAY')?.split(',') ?? [];
  if (freq === 'WEEKLY') return byDay.length || 1;
  if (freq !== 'MONTHLY') return undefined;
  const monthDays = parts.get('BYMONTHDAY')?.split(',').length;
  if (monthDays !== undefined) return monthDays;
  if (byDay.length > 0) return byDay.reduce((n, d) => n + (/^[+-]?\d/.test(d) ? 1 : 5), 0);
  return 1;
}

/** Checks the RRULE's parts and writes them in normal form (UNTIL in UTC, or a date for all-day series). */
function readRule(value: string, frame: SeriesFrame): { rule: string; bounded: boolean; count?: number } {
  const parts = new Map<string, string>();
  for (const raw of value.split(';')) {
    const eq = raw.indexOf('=');
    const key = raw.slice(0, eq).toUpperCase();
    if (eq <= 0 || raw.slice(eq + 1) === '') throw new RecurrenceError(`RRULE part "${raw}" is not NAME=VALUE.`);
    if (parts.has(key)) throw new RecurrenceError(`RRULE has ${key} twice.`);
    parts.set(key, raw.slice(eq + 1).toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (freq === undefined) throw new RecurrenceError('RRULE needs a FREQ.');
  if (SUB_DAILY.has(freq)) throw new RecurrenceError(`FREQ=${freq} is not offered: a series repeats daily at most.`);
  if (!(FREQS as readonly string[]).includes(freq)) throw new RecurrenceError(`FREQ=${freq} is not a frequency.`);
  if (parts.has('COUNT') && parts.has('UNTIL')) throw new RecurrenceError('COUNT and UNTIL cannot both be given (RFC 5545 §3.3.10).');
  const out: string[] = [`FREQ=${freq}`];
  let count: number | undefined;
  for (const [key, v] of parts) {
    switch (key) {
      case 'FREQ':
        break;
      case 'INTERVAL': {
        const n = /^\d{1,4}$/.test(v) ? Number(v) : 0;
        if (n < 1 || n > 1000) throw new RecurrenceError('INTERVAL must be between 1 and 1000.');
        out.push(`INTERVAL=${n}`);
        break;
      }
      case 'COUNT': {
        count = /^\d{1,9}$/.test(v) ? Number(v) : 0;
        if (count < 1) throw new RecurrenceError('COUNT must be a positive integer.');
        if (count > MAX_BOUNDED_INSTANCES) throw tooMany();
        out.push(`COUNT=${count}`);
        break;
      }
      case 'UNTIL': {
        const m = DATE_TIME.exec(v);
        if (!m || !wallOf(m[1], m[2], m[3], m[4], m[5], m[6])) throw new RecurrenceError(`UNTIL=${v} is not a date or date-time.`);
        out.push(`UNTIL=${normalUntil(v, frame)}`);
        break;
      }
      case 'BYDAY': {
        const days = v.split(',');
        for (const d of days) {
          const m = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(d);
          if (!m || !WEEKDAYS.has(m[2])) throw new RecurrenceError(`BYDAY=${v} is not a list of weekdays (MO…SU, with an optional ordinal).`);
          if (m[1] !== undefined) {
            const n = Math.abs(Number(m[1]));
            if (freq !== 'MONTHLY' && freq !== 'YEARLY') {
              throw new RecurrenceError(`BYDAY with an ordinal (${d}) is only allowed with FREQ=MONTHLY or FREQ=YEARLY.`);
            }
            if (freq === 'YEARLY' && parts.has('BYWEEKNO')) throw new RecurrenceError('BYDAY with an ordinal cannot be used with BYWEEKNO.');
            // RFC 5545 allows ±53 with YEARLY; rrule-temporal 2.2.8 counts a 53rd Monday into the next year (2010-01-04
            // for 2009) instead of skipping the years that have none, so the range stops at 52, which every year has
            if (n < 1 || n > (freq === 'MONTHLY' ? 5 : 52)) throw new RecurrenceError(`BYDAY ordinal ${d} is out of range.`);
          }
        }
        out.push(`BYDAY=${days.join(',')}`);
        break;
      }
      case 'BYMONTHDAY':
        if (freq === 'WEEKLY') throw new RecurrenceError('BYMONTHDAY is not allowed with FREQ=WEEKLY (RFC 5545 §3.3.10).');
        out.push(`BYMONTHDAY=${intList(v, 1, 31, key).join(',')}`);
        break;
      case 'BYYEARDAY':
        if (freq !== 'YEARLY') throw new RecurrenceError('BYYEARDAY is only allowed with FREQ=YEARLY.');
        out.push(`BYYEARDAY=${intList(v, 1, 366, key).join(',')}`);
        break;
      case 'BYWEEKNO':
        if (freq !== 'YEARLY') throw new RecurrenceError('BYWEEKNO is only allowed with FREQ=YEARLY.');
        out.push(`BYWEEKNO=${intList(v, 1, 53, key).join(',')}`);
        break;
      case 'BYMONTH':
        out.push(`BYMONTH=${intList(v, 1, 12, key, false).join(',')}`);
        break;
      case 'BYSETPOS':
        out.push(`BYSETPOS=${intList(v, 1, 366, key).join(',')}`);
        break;
      case 'WKST':
        if (!WEEKDAYS.has(v)) throw new RecurrenceError(`WKST=${v} is not a weekday.`);
        out.push(`WKST=${v}`);
        break;
      case 'BYHOUR':
      case 'BYMINUTE':
      case 'BYSECOND':
        throw new RecurrenceError(`${key} is not offered: every instance starts at the event's own time of day.`);
      default:
        throw new RecurrenceError(`RRULE part ${key} is not known.`);
    }
  }
  if (parts.has('BYSETPOS') && ![...parts.keys()].some((k) => k.startsWith('BY') && k !== 'BYSETPOS')) {
    throw new RecurrenceError('BYSETPOS needs another BYxxx part to select from.');
  }
  // A position past the most candidates a period can hold never matches, and the expansion would look through
  // its whole safety cap first (WEEKLY;BYDAY=WE,TH;BYSETPOS=-3 took 1.4 s of the event loop): refused at once.
  const most = mostPerPeriod(freq, parts);
  if (parts.has('BYSETPOS') && most !== undefined) {
    const far = intList(parts.get('BYSETPOS') as string, 1, 366, 'BYSETPOS').find((n) => Math.abs(n) > most);
    if (far !== undefined) throw new RecurrenceError(`BYSETPOS=${far} can never match: a period of this rule has at most ${most} candidates.`);
  }
  // rrule-temporal 2.2.8 takes a YEARLY rule's days from BYYEARDAY, or from an ordinal BYDAY without BYMONTH, and
  // then does not narrow them by BYDAY or BYMONTHDAY (it returns every 100th day, Mondays or not, for
  // BYYEARDAY=100;BYDAY=MO; found with rrule-rust as an oracle): refused, not expanded wrongly.
  const ordinalDay = (parts.get('BYDAY') ?? '').split(',').some((d) => /^[+-]?\d/.test(d));
  if (freq === 'YEARLY' && parts.has('BYYEARDAY') && (parts.has('BYDAY') || parts.has('BYMONTHDAY'))) {
    throw new RecurrenceError('BYYEARDAY cannot be combined with BYDAY or BYMONTHDAY.');
  }
  if (freq === 'YEARLY' && ordinalDay && !parts.has('BYMONTH') && parts.has('BYMONTHDAY')) {
    throw new RecurrenceError('BYDAY with an ordinal and BYMONTHDAY need BYMONTH with FREQ=YEARLY.');
  }
  return { rule: out.join(';'), bounded: parts.has('COUNT') || parts.has('UNTIL'), count };
}

/**
 * UNTIL as stored: for all-day series a date; otherwise a UTC date-time. A bare date on a timed series means
 * the end of that local day (E5); a floating date-time is the series' wall time.
 */
function normalUntil(v: string, frame: SeriesFrame): string {
  const m = DATE_TIME.exec(v) as RegExpExecArray;
  if (frame.allDay) return compactDate(readWhen(v, undefined, frame, 'UNTIL'));
  if (m[4] === undefined) {
    // one second before the next local day begins: 23:59:59 placed in the zone would be a day late on a day the
    // zone skipped (Pacific/Apia's 2011-12-30, whose 23:59:59 moves forward with the gap to 31 December 23:59:59,
    // taking in that whole day; found by recurrence.oracle.test.ts)
    const nextDay = msToWall(wallToMs(wallOf(m[1], m[2], m[3]) as WallTime) + 86_400_000);
    return `${compactWall(writable(msToWall(zonedWallToUtcMs(nextDay, frame.zone) - 1000), 'UNTIL', v))}Z`;
  }
  if (m[7] === 'Z') return v;
  return `${compactWall(writable(msToWall(zonedWallToUtcMs(readWhen(v, undefined, frame, 'UNTIL'), frame.zone)), 'UNTIL', v))}Z`;
}

function tooMany(): RecurrenceError {
  return new RecurrenceError(`A bounded series may have at most ${MAX_BOUNDED_INSTANCES} occurrences.`);
}

/** How a date of the series is written back: a date (all-day), the zone's wall time (IANA zones), or UTC. */
function writeWhen(w: WallTime, frame: SeriesFrame): string {
  if (frame.allDay) return `;VALUE=DATE:${compactDate(w)}`;
  if (frame.zone.name.includes('/')) return `;TZID=${frame.zone.name}:${compactWall(w)}`;
  return `:${compactWall(msToWall(zonedWallToUtcMs(w, frame.zone)))}Z`;
}

/**
 * Reads `recurrence` lines. Returns undefined for no lines (a single event); throws RecurrenceError for what
 * FEATURES.md §1.5 refuses.
 */
export function parseRecurrence(lines: readonly string[], frame: SeriesFrame): Recurrence | undefined {
  if (lines.length === 0) return undefined;
  let rule: { rule: string; bounded: boolean; count?: number } | undefined;
  const rdates: WallTime[] = [];
  const exdates: WallTime[] = [];
  for (const line of lines) {
    if (typeof line !== 'string' || line.length > 2000 || /[\r\n\0]/.test(line))
      throw new RecurrenceError('Each line is one string of at most 2000 characters.');
    const parsed = splitLine(line.trim());
    if (!parsed) throw new RecurrenceError(`"${line.slice(0, 80)}" is not an RRULE, RDATE or EXDATE line.`);
    const { name, params, value } = parsed;
    if (name === 'RRULE') {
      if (rule) throw new RecurrenceError('Only one RRULE is allowed.');
      if (params.size > 0) throw new RecurrenceError('RRULE takes no parameters.');
      rule = readRule(value, frame);
    } else if (name === 'RDATE' || name === 'EXDATE') {
      const type = params.get('VALUE')?.toUpperCase();
      if (type !== undefined && type !== 'DATE' && type !== 'DATE-TIME') throw new RecurrenceError(`${name} VALUE=${type} is not supported.`);
      for (const key of params.keys()) if (key !== 'VALUE' && key !== 'TZID') throw new RecurrenceError(`${name} parameter ${key} is not supported.`);
      const list = name === 'RDATE' ? rdates : exdates;
      for (const v of value.split(',')) {
        if (type === 'DATE' && v.includes('T')) throw new RecurrenceError(`${name};VALUE=DATE takes dates, not "${v}".`);
        list.push(readWhen(v, params.get('TZID'), frame, name));
      }
    } else if (name === 'EXRULE') {
      throw new RecurrenceError('EXRULE is deprecated (RFC 5545) and not supported; use EXDATE.');
    } else if (name === 'DTSTART' || name === 'DTEND') {
      throw new RecurrenceError(`${name} is not allowed: the first instance is the event's start_date and end_date.`);
    } else {
      throw new RecurrenceError(`${name} is not an RRULE, RDATE or EXDATE line.`);
    }
  }
  const byString = (a: WallTime, b: WallTime) => (formatWall(a) < formatWall(b) ? -1 : 1);
  const uniq = (ws: WallTime[]) => [...new Map(ws.map((w) => [formatWall(w), w])).values()].sort(byString);
  const r = uniq(rdates);
  const x = uniq(exdates);
  const out: string[] = [];
  if (rule) out.push(`RRULE:${rule.rule}`);
  if (r.length > 0) out.push(...r.map((w) => `RDATE${writeWhen(w, frame)}`));
  if (x.length > 0) out.push(...x.map((w) => `EXDATE${writeWhen(w, frame)}`));
  const recurrence: Recurrence = { lines: out, rule: rule?.rule, bounded: rule ? rule.bounded : true, rdates: r, exdates: x };
  if (recurrence.bounded && r.length + (rule?.count ?? 0) > MAX_BOUNDED_INSTANCES) throw tooMany();
  return recurrence;
}

/**
 * The same recurrence written for another frame (the series' zone or all-day flag changed): dates keep their
 * wall times, and are written back in the new frame's form. UNTIL takes the new frame's form too (E5): a UTC
 * UNTIL becomes its local date in an all-day series (not its UTC date, a day off east of UTC), a date becomes
 * the end of that local day in UTC in a timed one (a date UNTIL with a TZID DTSTART is no RFC 5545 rule).
 */
export function reframe(rec: Recurrence, frame: SeriesFrame): Recurrence {
  const rdates = rec.rdates.map((w) => (frame.allDay ? midnight(w) : w));
  const exdates = rec.exdates.map((w) => (frame.allDay ? midnight(w) : w));
  const until = (v: string) => {
    try {
      return normalUntil(v, frame);
    } catch (error) {
      // past the years iCalendar writes in the new frame: the last there is
      if (error instanceof RecurrenceError) return frame.allDay ? '99991231' : '99991231T235959Z';
      throw error;
    }
  };
  const rule = rec.rule?.replace(/UNTIL=(\d{8}(?:T\d{6}Z)?)/, (_, v: string) => `UNTIL=${until(v)}`);
  const lines = [
    ...(rule ? [`RRULE:${rule}`] : []),
    ...rdates.map((w) => `RDATE${writeWhen(w, frame)}`),
    ...exdates.map((w) => `EXDATE${writeWhen(w, frame)}`),
  ];
  return { ...rec, lines, rule, rdates, exdates };
}

/**
 * The recurrence cut in two at an instance (this and following): the instances before it, and the rule from it
 * on. A COUNT is shared out by the instances the rule generates on each side (EXDATEs do not count, E6);
 * otherwise the first part ends 1 s before the split (UNTIL) and the second keeps the end there was.
 */
export function splitRecurrence(rec: Recurrence, frame: SeriesFrame, at: Instance): { before: Recurrence; after: Recurrence } {
  const atMs = wallToMs(at.originalWall);
  const ruleOnly: Recurrence = { ...rec, rdates: [], exdates: [] };
  const count = /COUNT=(\d+)/.exec(rec.rule ?? '');
  let beforeRule = rec.rule;
  let afterRule = rec.rule;
  if (rec.rule && count) {
    const generated = expand(ruleOnly, frame).filter((i) => wallToMs(i.originalWall) < atMs).length;
    beforeRule = rec.rule.replace(/COUNT=\d+/, `COUNT=${Math.max(1, generated)}`);
    afterRule = rec.rule.replace(/COUNT=\d+/, `COUNT=${Math.max(1, Number(count[1]) - generated)}`);
  } else if (rec.rule) {
    const end = frame.allDay
      ? compactDate(msToWall(atMs - 86_400_000))
      : `${compactWall(msToWall(zonedWallToUtcMs(at.originalWall, frame.zone) - 1000))}Z`;
    beforeRule = `${rec.rule.replace(/;UNTIL=[^;]*/, '')};UNTIL=${end}`;
  }
  assertRestartable(rec, frame, at, afterRule);
  const side = (rule: string | undefined, keep: (w: WallTime) => boolean): Recurrence => {
    const rdates = rec.rdates.filter(keep);
    const exdates = rec.exdates.filter(keep);
    return reframe({ lines: [], rule, bounded: rule ? /COUNT=|UNTIL=/.test(rule) : true, rdates, exdates }, frame);
  };
  return { before: side(beforeRule, (w) => wallToMs(w) < atMs), after: side(afterRule, (w) => wallToMs(w) >= atMs) };
}

/** The longest one period of each FREQ lasts (how far the check below looks ahead in an unbounded rule). */
const PERIOD_MS: Readonly<Record<string, number>> = { DAILY: 86_400_000, WEEKLY: 7 * 86_400_000, MONTHLY: 31 * 86_400_000, YEARLY: 366 * 86_400_000 };

/**
 * A split's new series starts where the split instance is (its start_date), and its rule restarts there. From an
 * instance the rule gives, it gives the same instances after it; from an extra date (RDATE) off the rule it may not:
 * the weekday, day of the month, time of day and INTERVAL period a rule leaves unsaid come from DTSTART, and DTSTART
 * counts towards COUNT (E7); nor from an instance moved out of a DST gap (02:30 → 03:30), whose later days would
 * all be at 03:30. Refused then, rather than moving the later occurrences (a WEEKLY split at a Wednesday RDATE gave
 * Wednesdays).
 */
function assertRestartable(rec: Recurrence, frame: SeriesFrame, at: Instance, afterRule: string | undefined): void {
  if (!rec.rule || !afterRule) return;
  const from = wallToMs(at.originalWall);
  const interval = Number(/INTERVAL=(\d+)/.exec(rec.rule)?.[1] ?? 1);
  const period = PERIOD_MS[/FREQ=(\w+)/.exec(rec.rule)?.[1] ?? ''] ?? PERIOD_MS.YEARLY;
  const limit = rec.bounded ? undefined : msToWall(Math.min(from + Math.max(3 * interval * period, PERIOD_MS.YEARLY), LAST_WALL_MS));
  const walls = (r: Recurrence, f: SeriesFrame) =>
    expand({ ...r, rdates: [], exdates: [] }, f, limit)
      .map((i) => wallToMs(i.originalWall))
      .filter((ms) => ms >= from);
  const expected = [...new Set([from, ...walls(rec, frame)])].sort((a, b) => a - b);
  const startMs = wallToMs(at.startWall);
  const restart: SeriesFrame = { ...frame, start: at.startWall, end: msToWall(startMs + wallToMs(frame.end) - wallToMs(frame.start)) };
  if (walls({ ...rec, rule: afterRule }, restart).join() !== expected.join()) {
    throw new RecurrenceError(
      'the rule cannot start again at this occurrence (an extra date off the rule, or a time moved out of a DST gap): it would give other times after it',
    );
  }
}

// ---- expansion -----------------------------------------------------------------------------------------

/** A wall time as a floating ZonedDateTime (the wall time written as UTC: no zone rules apply). */
function floating(w: WallTime): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(wallToMs(w)).toZonedDateTimeISO('UTC');
}

const fromFloating = (z: { toString(): string; epochMilliseconds?: number }): WallTime => msToWall((z as Temporal.ZonedDateTime).epochMilliseconds);

/** A timed series' UNTIL as an instant (it is stored in UTC); undefined without one, or for a date (all-day). */
function untilUtcMs(rec: Recurrence): number | undefined {
  const m = /UNTIL=(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(rec.rule ?? '');
  return m ? wallToMs(wallOf(m[1], m[2], m[3], m[4], m[5], m[6]) as WallTime) : undefined;
}

/**
 * The rule in floating time: UNTIL (UTC) becomes the series' wall time, like every other date. For expansion it
 * becomes the latest wall time that can still fall on or before it (the largest offset the zone has within a day
 * of it), and expand() drops what lands after it as an instant: near a transition one offset is not enough (a
 * 02:30 moved out of the gap to 03:30 is later than an UNTIL of 03:15 EDT; the first 01:30 of a night that has two
 * is earlier than an UNTIL of 01:15 EST). DTSTART and EXDATEs are expand()'s to apply (E6, E7); the description
 * mentions the EXDATEs.
 */
function floatingRule(rec: Recurrence, frame: SeriesFrame, purpose: 'expand' | 'describe'): RRuleTemporal | undefined {
  if (!rec.rule) return undefined;
  const rule = rec.rule.replace(/UNTIL=(\d{8})(T\d{6}Z)?/, (_, date: string, time?: string) => {
    if (!time) return `UNTIL=${date}T235959Z`;
    const utc = wallOf(date.slice(0, 4), date.slice(4, 6), date.slice(6, 8), time.slice(1, 3), time.slice(3, 5), time.slice(5, 7)) as WallTime;
    const ms = wallToMs(utc);
    const around = purpose === 'expand' ? [ms - 86_400_000, ms, ms + 86_400_000] : [ms];
    const offset = Math.max(...around.map((at) => frame.zone.offsetAt(at)));
    // (an UNTIL late on 9999-12-31 UTC is in year 10000 east of UTC: the last wall time there is, as late)
    return `UNTIL=${compactWall(msToWall(Math.min(ms + offset * 60_000, LAST_WALL_MS)))}Z`;
  });
  return new RRuleTemporal({
    rruleString: rule,
    dtstart: floating(frame.allDay ? midnight(frame.start) : frame.start),
    tzid: 'UTC',
    includeDtstart: false,
    exDate: purpose === 'describe' ? rec.exdates.map(floating) : undefined,
    cache: false,
  });
}

/** Places one original wall time: the instant (gap and overlap policy above) and the end by the first instance's length. */
function place(original: WallTime, frame: SeriesFrame): Instance {
  const lengthMs = wallToMs(frame.end) - wallToMs(frame.start);
  if (frame.allDay) {
    const startWall = midnight(original);
    const endWall = msToWall(wallToMs(startWall) + wallToMs(midnight(frame.end)) - wallToMs(midnight(frame.start)) + 86_399_000);
    const startUtcMs = zonedWallToUtcMs(startWall, frame.zone);
    return { originalWall: startWall, originalUtcMs: startUtcMs, startWall, endWall, startUtcMs, endUtcMs: zonedWallToUtcMs(endWall, frame.zone) };
  }
  const startUtcMs = zonedWallToUtcMs(original, frame.zone);
  const originalMs = wallToMs(original);
  const startWallMs = startUtcMs + frame.zone.offsetAt(startUtcMs) * 60_000;
  const startWall = startWallMs === originalMs ? original : msToWall(startWallMs);
  const endWall = msToWall(originalMs + lengthMs);
  // a start moved out of a gap keeps its length (else 02:30–03:00 on the day of the gap would last no time)
  const shifted = startWallMs !== originalMs;
  const endUtcMs = Math.max(shifted ? startUtcMs + lengthMs : startUtcMs, zonedWallToUtcMs(endWall, frame.zone));
  return {
    originalWall: original,
    originalUtcMs: startUtcMs,
    startWall,
    endWall: msToWall(endUtcMs + frame.zone.offsetAt(endUtcMs) * 60_000),
    startUtcMs,
    endUtcMs,
  };
}

/**
 * The instances of a series whose original wall time is before `until` (exclusive; a wall time in the series'
 * zone), in order of start. Bounded series need no limit; unbounded ones must give one. Throws RecurrenceError when a
 * bounded series has more than MAX_BOUNDED_INSTANCES.
 */
export function expand(rec: Recurrence, frame: SeriesFrame, until?: WallTime): Instance[] {
  if (!rec.bounded && until === undefined) throw new Error('an unbounded series expands only up to a limit');
  const rule = floatingRule(rec, frame, 'expand');
  const first = frame.allDay ? midnight(frame.start) : frame.start;
  const limitMs = until === undefined ? Number.POSITIVE_INFINITY : wallToMs(until);
  // (by the wall time as a number: one per instance, where a formatted key made seven strings)
  const walls = new Map<number, WallTime>();
  const add = (w: WallTime) => {
    const ms = wallToMs(w);
    if (ms < limitMs) walls.set(ms, w);
  };
  add(first);
  if (rule) {
    let generated: WallTime[];
    if (rec.bounded) {
      let n = 0;
      generated = generate(() => rule.all(() => ++n <= MAX_BOUNDED_INSTANCES + 1)).map(fromFloating);
    } else {
      const before = Temporal.Instant.fromEpochMilliseconds(limitMs).toZonedDateTimeISO('UTC');
      generated = generate(() => rule.between(floating(first), before, true)).map(fromFloating);
    }
    // E7: DTSTART is instance #1 and counts whether or not the rule gives it. Done here, not with rrule-temporal's
    // includeDtstart, which drops a DTSTART on the rule's weekday but not its ordinal (YEARLY;BYDAY=3SA from
    // 2030-12-21, the 51st Saturday) and then counts COUNT from the next instance.
    const synced = generated.length > 0 && formatWall(generated[0]) === formatWall(first);
    const count = Number(/COUNT=(\d+)/.exec(rec.rule ?? '')?.[1] ?? 0);
    if (!synced && count > 0) generated = generated.slice(0, count - 1);
    const untilMs = frame.allDay ? undefined : untilUtcMs(rec);
    for (const w of generated) if (untilMs === undefined || zonedWallToUtcMs(w, frame.zone) <= untilMs) add(w);
  }
  for (const w of rec.rdates) add(w);
  // E6: EXDATEs go after COUNT has been counted
  for (const x of rec.exdates) walls.delete(wallToMs(x));
  const out = frame.allDay
    ? [...walls.values()].map((w) => place(w, frame))
    : distinctInstants(
        withoutMovedExdates(
          [...walls.values()].map((w) => place(w, frame)),
          rec,
        ),
      );
  out.sort((a, b) => a.startUtcMs - b.startUtcMs || wallToMs(a.originalWall) - wallToMs(b.originalWall));
  if (rec.bounded && out.length > MAX_BOUNDED_INSTANCES) throw tooMany();
  return out;
}

/**
 * E8: an EXDATE names an instance by its start. One moved out of a spring-forward gap (02:30 → 03:30 EDT) starts at
 * the wall time it moved to: an EXDATE of that time (03:30, or 07:30Z, stored as 03:30) removes it, as it does in
 * the feed's consumers, which place the rule's 02:30 at that instant too (E2: API and feed agree). It was kept.
 */
function withoutMovedExdates(instances: Instance[], rec: Recurrence): Instance[] {
  if (rec.exdates.length === 0) return instances;
  const excluded = new Set(rec.exdates.map(wallToMs));
  return instances.filter((i) => i.startWall === i.originalWall || !excluded.has(wallToMs(i.startWall)));
}

/**
 * Two wall times can name one instant: a day a zone skipped whole (Pacific/Apia, 2011-12-30) moves each of its
 * times forward by the gap onto the next day's. Both were counted (E2); the series has the instance once
 * (RFC 5545 §3.8.5.3: duplicate instances are ignored), under the wall time that exists.
 */
function distinctInstants(instances: Instance[]): Instance[] {
  const moved = (i: Instance) => i.originalWall !== i.startWall && wallToMs(i.originalWall) !== wallToMs(i.startWall);
  const byInstant = new Map<number, Instance>();
  for (const i of instances) {
    const seen = byInstant.get(i.startUtcMs);
    if (!seen || (moved(seen) && !moved(i))) byInstant.set(i.startUtcMs, i);
  }
  return [...byInstant.values()];
}

/**
 * Runs rrule-temporal, whose safety caps (10,000 periods; that many candidate days) a rule that rarely matches
 * reaches before its COUNT or UNTIL (FREQ=DAILY;BYMONTHDAY=13;BYDAY=FR;COUNT=50 needs 30,000 days): refused, not a 500.
 */
function generate<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof Error && /^Maximum (iterations|candidate evaluations)/.test(e.message)) {
      throw new RecurrenceError('The rule matches too rarely to expand (too sparse); use a coarser FREQ or fewer limits.');
    }
    throw e;
  }
}

/** The stable, opaque key of an instance: `{series}_{YYYYMMDDTHHMMSSZ}` (all-day: `{series}_{YYYYMMDD}`). */
export function occurrenceKey(seriesId: number, originalUtc: string, allDay: boolean, originalWall?: WallTime): string {
  if (allDay && originalWall) return `${seriesId}_${compactDate(originalWall)}`;
  return `${seriesId}_${compactWall(parseWall(originalUtc))}Z`;
}

/** The recurrence in words ("every week on Monday for 10 times"), for people reading the API. */
export function describeRecurrence(rec: Recurrence, frame: SeriesFrame): string {
  const rule = floatingRule(rec, frame, 'describe');
  return rule ? countedFromEnd(toText(rule, 'en', { excludeTzAbbreviation: true }), rec.rule ?? '') : `on ${rec.rdates.length + 1} dates`;
}

/** RRULE weekday codes in English (the descriptions' and JSON-LD schedules' words). */
export const WEEKDAY_NAMES: Readonly<Record<string, string>> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};

/** 1st, 2nd, 3rd, 4th, 11th… */
function englishOrdinal(n: number): string {
  const suffix = n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** The library's way of listing: "a", "a and b", "a, b and c". */
const listed = (items: readonly string[]) => (items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/**
 * rrule-temporal's toText (2.2.8, the newest) words every negative ordinal as "last": BYDAY=-2MO reads "last
 * Monday", BYMONTHDAY=-3 "the last day of the month", BYSETPOS=-2 "the last instance". Its words are not open to a
 * caller, so the lists that hold an ordinal below -1 are written again here ("2nd to last Monday") and put in place
 * of the library's, found by the phrase around them.
 */
function countedFromEnd(text: string, rule: string): string {
  const parts = new Map(rule.split(';').map((p) => p.split('=') as [string, string]));
  const fromEnd = (n: number) => (n === -1 ? 'last' : `${englishOrdinal(-n)} to last`);
  const wrong = (n: number) => (n < 0 ? 'last' : englishOrdinal(n));
  const right = (n: number) => (n < 0 ? fromEnd(n) : englishOrdinal(n));
  let out = text;
  const fix = <T>(values: readonly T[], libraryWords: (v: T) => string, ourWords: (v: T) => string, before: string, after: string) => {
    const from = `${before}${listed(values.map(libraryWords))}${after}`;
    const to = `${before}${listed(values.map(ourWords))}${after}`;
    if (from !== to) out = out.replace(from, to);
  };
  const byDay = parts.get('BYDAY')?.split(',') ?? [];
  const day = (v: string, words: (n: number) => string) => {
    const m = /^([+-]?\d+)?([A-Z]{2})$/.exec(v);
    if (!m) return v;
    const n = m[1] ? Number(m[1]) : 0;
    return n === 0 ? WEEKDAY_NAMES[m[2]] : `${words(n)} ${WEEKDAY_NAMES[m[2]]}`;
  };
  if (byDay.length > 0)
    fix(
      byDay,
      (v) => day(v, wrong),
      (v) => day(v, right),
      ' on ',
      '',
    );
  const numbers = (name: string) => parts.get(name)?.split(',').map(Number) ?? [];
  for (const [name, after] of [
    ['BYMONTHDAY', ' day of the month'],
    ['BYYEARDAY', ' day of the year'],
    ['BYSETPOS', ' instance'],
  ] as const) {
    const values = numbers(name);
    if (values.length > 0) fix(values, wrong, right, ' on the ', after);
  }
  return out;
}
