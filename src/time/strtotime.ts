/**
 * Date input as clients of the original send it: the original parses with PHP's strtotime, so we accept the
 * forms people actually use with it, and nothing else:
 *
 * - unix timestamps (`1514764800`, `@1514764800`): an absolute instant;
 * - dates `2018-01-01`, `2018/01/01`, `01/31/2018` (US order), `31-01-2018`, `31.01.2018`,
 *   `January 5, 2018`, `5 Jan 2018`, `Jan 5` (this year);
 * - times `16:00`, `16:00:30`, `4pm`, `4:30 pm`, `noon`, `midnight`;
 * - ISO 8601 `2018-01-01T16:00:00`, with `Z`, `±HH:MM`, `±HHMM`, `UTC`, `GMT`: the offset pins the instant;
 * - relative phrases: `now`, `today`, `tomorrow`, `yesterday`, `+5 days`, `-2 hours`, `+1 week 2 days`,
 *   `3 days ago`, `next wednesday`, `last monday`, `this friday`, `friday`, `next week`, `last month`,
 *   combined with a time (`tomorrow 9am`, `+5 days 11am`, `next wednesday 4pm`);
 * - a month's days: `March 2030` (the 1st), `first day of next month`, `last day of february 2028`,
 *   `third friday of march 2030`, `last monday of this month` (what month views send).
 *
 * PHP semantics kept: a date, `today`, `tomorrow`, `yesterday`, `midnight` or a weekday without a time means
 * 00:00:00; relative units alone keep the current time; day and month overflow roll over (`2018-02-30` is
 * March 2nd, `+1 month` from January 31st is March 3rd).
 *
 * The result is a wall-clock time in the zone the input was read in (relative phrases count from "now" in
 * that zone), plus the absolute instant when the input pinned one (a timestamp or an explicit offset).
 */
import { msToWall, utcMsToZonedWall, type WallTime, wallToMs, type Zone } from './zones.js';

export interface ParsedDate {
  /** The wall-clock time as written or computed. For a timestamp: its UTC wall clock. */
  readonly wall: WallTime;
  /** The instant, when the input pinned one (timestamp, or a written offset). */
  readonly instantMs?: number;
  /** Whether the input was a unix timestamp. */
  readonly timestamp: boolean;
}

export interface ParseContext {
  /** "now", in milliseconds since the epoch. */
  readonly nowMs: number;
  /** The zone relative phrases count in. */
  readonly zone: Zone;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_RE =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_RE = '(sun(?:day)?|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?)';
const UNIT_RE = '(sec(?:ond)?s?|min(?:ute)?s?|hours?|days?|weeks?|fortnights?|months?|years?)';

type Unit = 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';

function unitOf(word: string): { unit: Unit; factor: number } {
  if (word.startsWith('sec')) return { unit: 'second', factor: 1 };
  if (word.startsWith('min')) return { unit: 'minute', factor: 1 };
  if (word.startsWith('hour')) return { unit: 'hour', factor: 1 };
  if (word.startsWith('day')) return { unit: 'day', factor: 1 };
  if (word.startsWith('week')) return { unit: 'day', factor: 7 };
  if (word.startsWith('fortnight')) return { unit: 'day', factor: 14 };
  if (word.startsWith('month')) return { unit: 'month', factor: 1 };
  return { unit: 'year', factor: 1 };
}

interface State {
  date?: { year: number; month: number; day: number };
  time?: { hour: number; minute: number; second: number };
  dayShift: number;
  resetTime: boolean;
  relative: Record<Unit, number>;
  weekday?: { day: number; mode: 'this' | 'next' | 'last' };
  /** `first day of` / `last day of`: that day of the month the rest names. */
  dayOf?: 'first' | 'last';
  /** `third friday of`, `last monday of` (n -1): that weekday of the month the rest names. */
  weekdayOf?: { n: number; day: number };
  /** A month named without a day (`march`): its number; the day stays. */
  month?: number;
  offsetMinutes?: number;
  now: boolean;
}

interface Rule {
  re: RegExp;
  apply(m: RegExpExecArray, s: State, ctx: ParseContext): boolean;
}

function setDate(s: State, year: number, month: number, day: number): boolean {
  if (s.date) return false;
  if (month < 1 || month > 12 || day < 0 || day > 31 || year < 0 || year > 9999) return false;
  s.date = { year, month, day };
  s.resetTime = true;
  return true;
}

/** Applies what a token said to the state; a token that matched always counts. */
function set(s: State, changes: Partial<State>): true {
  Object.assign(s, changes);
  return true;
}

function setTime(s: State, hour: number, minute: number, second: number): boolean {
  if (s.time) return false;
  if (hour > 24 || minute > 59 || second > 60) return false;
  s.time = { hour, minute, second };
  return true;
}

function twelveHour(hour: number, meridiem: string): number | undefined {
  if (hour < 1 || hour > 12) return undefined;
  const pm = meridiem.startsWith('p');
  return (hour % 12) + (pm ? 12 : 0);
}

function parseOffset(text: string): number | undefined {
  if (text === 'z' || text === 'utc' || text === 'gmt') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 14 * 60) return undefined;
  return m[1] === '-' ? -minutes : minutes;
}

const TZ_RE = '(z|utc|gmt|[+-]\\d{2}:?\\d{2}|[+-]\\d{2})';

const RULES: Rule[] = [
  {
    // ISO 8601 / SQL date-time, optional seconds, fraction and offset
    re: new RegExp(
      `^(\\d{4})-(\\d{1,2})-(\\d{1,2})(?:[t ]+(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:[.,]\\d+)?)?(?!\\s*[ap]\\.?m))?(?:\\s*${TZ_RE}(?![a-z]))?`,
    ),
    apply(m, s) {
      if (!setDate(s, Number(m[1]), Number(m[2]), Number(m[3]))) return false;
      if (m[4] !== undefined && !setTime(s, Number(m[4]), Number(m[5]), Number(m[6] ?? 0))) return false;
      if (m[7] !== undefined) {
        const offset = parseOffset(m[7]);
        if (offset === undefined) return false;
        s.offsetMinutes = offset;
      }
      return true;
    },
  },
  {
    re: /^(\d{4})\/(\d{1,2})\/(\d{1,2})/,
    apply: (m, s) => setDate(s, Number(m[1]), Number(m[2]), Number(m[3])),
  },
  {
    // US order with slashes
    re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})/,
    apply: (m, s) => setDate(s, Number(m[3]), Number(m[1]), Number(m[2])),
  },
  {
    // day first with dashes or dots
    re: /^(\d{1,2})[-.](\d{1,2})[-.](\d{4})/,
    apply: (m, s) => setDate(s, Number(m[3]), Number(m[2]), Number(m[1])),
  },
  {
    // January 5, 2018 / Jan 5th 2018 / Jan 5
    re: new RegExp(`^${MONTH_RE}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?(?![\\d:])`),
    apply: (m, s, ctx) => setDate(s, m[3] ? Number(m[3]) : nowWall(ctx).year, MONTHS.indexOf(m[1].slice(0, 3)) + 1, Number(m[2])),
  },
  {
    // 5 January 2018 / 5th Jan
    re: new RegExp(`^(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH_RE}(?:,?\\s+(\\d{4}))?(?![\\d:])`),
    apply: (m, s, ctx) => setDate(s, m[3] ? Number(m[3]) : nowWall(ctx).year, MONTHS.indexOf(m[2].slice(0, 3)) + 1, Number(m[1])),
  },
  {
    // 4pm, 4:30 pm, 4:30:15pm, 4 a.m.
    re: /^t?(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])/,
    apply(m, s) {
      const hour = twelveHour(Number(m[1]), m[4]);
      return hour !== undefined && setTime(s, hour, Number(m[2] ?? 0), Number(m[3] ?? 0));
    },
  },
  {
    // 16:00, 16:00:30, T16:00
    re: /^t?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?/,
    apply: (m, s) => setTime(s, Number(m[1]), Number(m[2]), Number(m[3] ?? 0)),
  },
  {
    // March 2030 (the 1st), March (this year's, the day kept) — after `March 5`, which needs the day
    re: new RegExp(`^${MONTH_RE}(?:\\s+(\\d{4}))?(?![a-z\\d:])`),
    apply(m, s) {
      const month = MONTHS.indexOf(m[1].slice(0, 3)) + 1;
      if (m[2] !== undefined) return setDate(s, Number(m[2]), month, 1);
      if (s.month !== undefined || s.date) return false;
      s.month = month;
      return true;
    },
  },
  {
    // first day of / last day of (next month, march 2030…)
    re: /^(first|last) day of(?![a-z])/,
    apply(m, s) {
      if (s.dayOf || s.weekdayOf) return false;
      s.dayOf = m[1] as 'first' | 'last';
      return true;
    },
  },
  {
    // third friday of (march 2030, next month…), last monday of
    re: new RegExp(`^(first|second|third|fourth|fifth|last)\\s+${WEEKDAY_RE}\\s+of(?![a-z])`),
    apply(m, s) {
      if (s.dayOf || s.weekdayOf || s.weekday) return false;
      const n = m[1] === 'last' ? -1 : ['first', 'second', 'third', 'fourth', 'fifth'].indexOf(m[1]) + 1;
      s.weekdayOf = { n, day: WEEKDAYS.indexOf(m[2].slice(0, 3)) };
      s.resetTime = true;
      return true;
    },
  },
  { re: /^now(?![a-z])/, apply: (_m, s) => set(s, { now: true }) },
  { re: /^(today|midnight)(?![a-z])/, apply: (_m, s) => set(s, { resetTime: true }) },
  { re: /^noon(?![a-z])/, apply: (_m, s) => setTime(s, 12, 0, 0) },
  { re: /^tomorrow(?![a-z])/, apply: (_m, s) => set(s, { resetTime: true, dayShift: s.dayShift + 1 }) },
  { re: /^yesterday(?![a-z])/, apply: (_m, s) => set(s, { resetTime: true, dayShift: s.dayShift - 1 }) },
  {
    // next/last/this + weekday
    re: new RegExp(`^(next|last|previous|this)\\s+${WEEKDAY_RE}(?![a-z])`),
    apply(m, s) {
      if (s.weekday) return false;
      const mode = m[1] === 'next' ? 'next' : m[1] === 'this' ? 'this' : 'last';
      s.weekday = { day: WEEKDAYS.indexOf(m[2].slice(0, 3)), mode };
      s.resetTime = true;
      return true;
    },
  },
  {
    // next/last/this + unit: next week, last month
    re: new RegExp(`^(next|last|previous|this)\\s+${UNIT_RE}(?![a-z])`),
    apply(m, s) {
      const { unit, factor } = unitOf(m[2]);
      const sign = m[1] === 'next' ? 1 : m[1] === 'this' ? 0 : -1;
      s.relative[unit] += sign * factor;
      return true;
    },
  },
  {
    // +5 days, -2 hours, 3 weeks (ago)
    re: new RegExp(`^([+-]?)\\s*(\\d{1,9})\\s*${UNIT_RE}(?:\\s+(ago))?(?![a-z])`),
    apply(m, s) {
      const { unit, factor } = unitOf(m[3]);
      let n = Number(m[2]) * factor * (m[1] === '-' ? -1 : 1);
      if (m[4]) n = -n;
      s.relative[unit] += n;
      return true;
    },
  },
  // a bare offset comes after the relative units, so `+10 days` is ten days, not UTC+10
  {
    re: new RegExp(`^${TZ_RE}(?![a-z\\d])`),
    apply(m, s) {
      if (s.offsetMinutes !== undefined) return false;
      const offset = parseOffset(m[1]);
      if (offset === undefined) return false;
      s.offsetMinutes = offset;
      return true;
    },
  },
  {
    re: new RegExp(`^${WEEKDAY_RE}(?![a-z])`),
    apply(m, s) {
      if (s.weekday) return false;
      s.weekday = { day: WEEKDAYS.indexOf(m[1].slice(0, 3)), mode: 'this' };
      s.resetTime = true;
      return true;
    },
  },
  // filler words people write between parts
  { re: /^(at|on|,)(?![a-z])/, apply: () => true },
];

function nowWall(ctx: ParseContext): WallTime {
  return utcMsToZonedWall(ctx.nowMs, ctx.zone);
}

/** Parses date input; undefined when it is not something the original would accept. */
export function parseDateInput(input: string, ctx: ParseContext): ParsedDate | undefined {
  if (typeof input !== 'string') return undefined;
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '' || text.length > 100) return undefined;

  const ts = /^@?(-?\d+)$/.exec(text);
  if (ts) {
    const seconds = Number(ts[1]);
    if (!Number.isSafeInteger(seconds) || Math.abs(seconds) > 253402300799) return undefined;
    const ms = seconds * 1000;
    const wall = msToWall(ms);
    // (years 0–9999, as for every other form: the stored dates are `YYYY-MM-DD HH:MM:SS`)
    if (wall.year < 0 || wall.year > 9999) return undefined;
    return { wall, instantMs: ms, timestamp: true };
  }

  const s: State = {
    dayShift: 0,
    resetTime: false,
    relative: { second: 0, minute: 0, hour: 0, day: 0, month: 0, year: 0 },
    now: false,
  };
  let rest = text;
  while (rest.length > 0) {
    let matched = false;
    for (const rule of RULES) {
      const m = rule.re.exec(rest);
      if (!m || m[0].length === 0) continue;
      if (!rule.apply(m, s, ctx)) return undefined;
      rest = rest.slice(m[0].length).replace(/^[\s,]+/, '');
      matched = true;
      break;
    }
    if (!matched) return undefined;
  }

  const base = nowWall(ctx);
  const date = s.date ?? { year: base.year, month: s.month ?? base.month, day: base.day };
  const time = s.time ?? (s.resetTime ? { hour: 0, minute: 0, second: 0 } : { hour: base.hour, minute: base.minute, second: base.second });
  const r = s.relative;
  if (s.dayOf || s.weekdayOf) {
    // the day within the month the rest names, its months counted first (PHP: no overflow from the 31st)
    const first = new Date(Date.UTC(2000, 0, 1));
    first.setUTCFullYear(date.year + r.year, date.month - 1 + r.month, 1);
    const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
    let day: number;
    if (s.dayOf) day = s.dayOf === 'first' ? 1 : lastDay;
    else {
      const { n, day: target } = s.weekdayOf as { n: number; day: number };
      if (n > 0) day = 1 + ((target - first.getUTCDay() + 7) % 7) + (n - 1) * 7;
      else {
        const lastDow = (first.getUTCDay() + lastDay - 1) % 7;
        day = lastDay - ((lastDow - target + 7) % 7);
      }
    }
    Object.assign(date, { year: first.getUTCFullYear(), month: first.getUTCMonth() + 1, day });
    r.year = 0;
    r.month = 0;
  }
  // overflowing days, months and hours roll over exactly as PHP's do
  const d = new Date(0);
  d.setUTCFullYear(date.year + r.year, date.month - 1 + r.month, date.day + s.dayShift + r.day);
  d.setUTCHours(time.hour + r.hour, time.minute + r.minute, time.second + r.second, 0);
  let ms = d.getTime();
  if (s.weekday) {
    const dow = new Date(ms).getUTCDay();
    const target = s.weekday.day;
    let delta: number;
    if (s.weekday.mode === 'this') delta = (target - dow + 7) % 7;
    else if (s.weekday.mode === 'next') delta = (target - dow + 7) % 7 || 7;
    else delta = -((dow - target + 7) % 7 || 7);
    ms += delta * 86_400_000;
  }
  if (!Number.isFinite(ms)) return undefined;
  const wall = msToWall(ms);
  if (wall.year < 0 || wall.year > 9999) return undefined;
  if (s.offsetMinutes !== undefined) {
    return { wall, instantMs: wallToMs(wall) - s.offsetMinutes * 60_000, timestamp: false };
  }
  return { wall, timestamp: false };
}
