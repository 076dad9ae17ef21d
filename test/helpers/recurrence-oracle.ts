/**
 * FEATURES.md §1.6 cases 19 and 20: random recurring series, our expansion of them, and an independent oracle.
 *
 * The oracle is ical.js (a port of libical) expanding the rule in floating time, with the policies of FEATURES.md
 * applied here from the rule text, not from our code: DTSTART is instance #1 and counts toward COUNT (E7); COUNT
 * counts the rule's wall times (a wall time moved out of a gap counts, E2); UNTIL is compared as an instant, with
 * DTSTART kept whatever UNTIL says (E5, E7); RDATEs are added after COUNT and UNTIL; EXDATEs remove wall times
 * after COUNT (E6, E8), and an instance moved out of a gap by the wall time it moved to (E8); each wall time is placed with Temporal's `disambiguation: 'compatible'` (gap → forward by
 * the gap, overlap → the earlier instant, E2, E3); and two wall times on one instant are one instance, under the
 * wall time that exists (RFC 5545 §3.8.5.3: duplicate instances are ignored; Pacific/Apia skipped 2011-12-30).
 * Where ical.js is wrong, the oracle checks the RFC's definition of a BYxxx part itself (see icalRule).
 *
 * Shared by the property test (src/domain/events/recurrence.oracle.test.ts) and the child processes that run
 * the same sample under other process time zones (recurrence-digest.ts).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';
import { expand, type Instance, parseRecurrence, RecurrenceError, type SeriesFrame } from '../../src/domain/events/recurrence.js';
import { getZone, msToWall, parseWall, type WallTime, wallToMs } from '../../src/time/zones.js';

export const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Pacific/Apia', 'Asia/Kolkata'] as const;

/** The seed every run uses unless FAST_CHECK_SEED names another (printed by the tests, so a failure can be replayed). */
export const SEED = process.env.FAST_CHECK_SEED !== undefined ? Number(process.env.FAST_CHECK_SEED) : 20251109;

/** One random series. Wall times are ISO (`2025-03-09T02:30:00`) in the series' zone. */
export interface RecurrenceCase {
  zone: string;
  /** DTSTART; may be a wall time the zone skips or has twice. */
  start: string;
  /** The RRULE without COUNT and UNTIL (FREQ first). */
  base: string;
  count?: number;
  /** UNTIL as written in the RRULE: UTC (`…Z`, RFC 5545's form), the series' wall time, or a date (E5). */
  until?: string;
  /** For an unbounded rule: expand up to this wall time (exclusive), as the service's horizon does. */
  limit?: string;
  rdates: string[];
  exdates: string[];
}

export function recurrenceLines(c: RecurrenceCase): string[] {
  const end = c.count !== undefined ? `;COUNT=${c.count}` : c.until !== undefined ? `;UNTIL=${c.until}` : '';
  return [
    `RRULE:${c.base}${end}`,
    ...c.rdates.map((w) => `RDATE;TZID=${c.zone}:${compact(w)}`),
    ...c.exdates.map((w) => `EXDATE;TZID=${c.zone}:${compact(w)}`),
  ];
}

/** A readable one-liner, for assertion messages. */
export function describeCase(c: RecurrenceCase): string {
  return `${c.zone} DTSTART ${c.start}${c.limit ? ` (up to ${c.limit})` : ''}: ${recurrenceLines(c).join(' ')}`;
}

// ---- results ------------------------------------------------------------------------------------------

/** An instance as compared: `original wall → start wall = UTC instant`. */
const line = (original: string, start: string, utcMs: number) =>
  `${original.replace('T', ' ')} → ${start.replace('T', ' ')} = ${new Date(utcMs).toISOString().replace('.000', '')}`;

export type Outcome = { refused: string } | { instances: string[] };

const toWall = (iso: string): WallTime => parseWall(iso.replace('T', ' '));
const isoOf = (w: WallTime) => new Date(wallToMs(w)).toISOString().slice(0, 19);

/** Our reading and expansion of a case (src/domain/events/recurrence.ts), or why our parser refuses it. */
function expandCase(c: RecurrenceCase): { lines: readonly string[]; instances: Instance[] } | { refused: string } {
  const start = toWall(c.start);
  const frame: SeriesFrame = { start, end: msToWall(wallToMs(start) + 3_600_000), allDay: false, zone: getZone(c.zone) };
  try {
    const rec = parseRecurrence(recurrenceLines(c), frame);
    if (!rec) throw new Error('no recurrence');
    return { lines: rec.lines, instances: expand(rec, frame, c.limit === undefined ? undefined : toWall(c.limit)) };
  } catch (e) {
    if (e instanceof RecurrenceError) return { refused: e.message };
    throw e;
  }
}

/** Our expansion of a case as the oracle's is written, or why our parser refuses it. */
export function ours(c: RecurrenceCase): Outcome {
  const got = expandCase(c);
  if ('refused' in got) return got;
  return { instances: got.instances.map((i) => line(isoOf(i.originalWall), isoOf(i.startWall), i.startUtcMs)) };
}

const place = (w: Temporal.PlainDateTime, zone: string) => w.toZonedDateTime(zone, { disambiguation: 'compatible' });

/** Whether a wall time does not exist in the zone (it falls in a gap): placed, it reads as another wall time. */
export function inGap(iso: string, zone: string): boolean {
  const wall = Temporal.PlainDateTime.from(iso);
  return !place(wall, zone).toPlainDateTime().equals(wall);
}

/** UNTIL as an instant (ms). A date means the end of that local day: the last second before the next local day begins (E5). */
function untilMs(until: string, zone: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(until);
  if (!m) throw new Error(`bad UNTIL ${until}`);
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (m[4] === undefined) {
    return Temporal.PlainDate.from(date).add({ days: 1 }).toZonedDateTime({ timeZone: zone }).epochMilliseconds - 1000;
  }
  const iso = `${date}T${m[4]}:${m[5]}:${m[6]}`;
  return m[7] === 'Z' ? Temporal.Instant.from(`${iso}Z`).epochMilliseconds : place(Temporal.PlainDateTime.from(iso), zone).epochMilliseconds;
}

/** ical.js is walked at most this many steps: a rule that matches rarely or never is compared only as far as that. */
const ORACLE_STEPS = 20_000;

const WEEKDAY_NUMBER: Record<string, number> = { MO: 1, TU: 2, WE: 3, TH: 4, FR: 5, SA: 6, SU: 7 };

/**
 * Whether a date satisfies one BYxxx part, as RFC 5545 §3.3.10 defines the part (every instance of a rule
 * satisfies every BYxxx part, whether the part expands or limits the set). `withinYear`: a BYDAY ordinal counts
 * within the year (YEARLY without BYMONTH) rather than the month.
 */
function satisfies(d: Temporal.PlainDate, part: string, value: string, withinYear: boolean): boolean {
  const values = value.split(',');
  if (part === 'BYMONTH') return values.map(Number).includes(d.month);
  if (part === 'BYMONTHDAY') return values.map(Number).some((n) => (n > 0 ? d.day === n : d.day === d.daysInMonth + n + 1));
  if (part !== 'BYDAY') return true;
  return values.some((v) => {
    const m = /^([+-]?\d+)?([A-Z]{2})$/.exec(v) as RegExpExecArray;
    if (d.dayOfWeek !== WEEKDAY_NUMBER[m[2]]) return false;
    if (m[1] === undefined) return true;
    const n = Number(m[1]);
    const [index, length] = withinYear ? [d.dayOfYear, d.daysInYear] : [d.day, d.daysInMonth];
    return n > 0 ? Math.ceil(index / 7) === n : Math.ceil((length - index + 1) / 7) === -n;
  });
}

/**
 * What ical.js is asked to expand, and the parts the oracle checks itself. ical.js 2.2.1 mis-handles some parts
 * that RFC 5545 §3.3.10's table makes *limits* (they only remove dates), so those are taken out of its rule and
 * checked with `satisfies`; the parts ical.js keeps are checked too (which drops its invalid dates). Examples
 * (DTSTART first, then what ical.js returns):
 * - MONTHLY with BYMONTH skips the first matching month: FREQ=MONTHLY;BYMONTH=5,12 from 2006-04-02 gives
 *   2006-12-02, 2007-05-02 (no 2006-05-02); FREQ=MONTHLY;BYMONTH=8,11;BYDAY=WE from 2015-03-29 starts in November;
 *   FREQ=MONTHLY;BYMONTH=1,10;BYMONTHDAY=-21,16 from 2014-03-05 gives 2014-03-11, outside BYMONTH.
 * - DAILY with a negative BYMONTHDAY never returns (FREQ=DAILY;BYMONTHDAY=-12 from 2013-03-03 runs out of memory).
 * - MONTHLY with BYMONTHDAY and BYDAY throws after 48 months without a match ("Malformed values in BYDAY combined
 *   with BYMONTHDAY parts": FREQ=MONTHLY;BYMONTHDAY=20;BYDAY=-4MO from 2030-05-04).
 * - YEARLY with BYMONTHDAY rolls invalid dates over into the next month (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29,30
 *   from 2015-01-20 gives 2015-03-01, 2015-03-02; E4 says skip them), counts negative values with the wrong
 *   month's length (FREQ=YEARLY;BYMONTH=1,8,9;BYMONTHDAY=-29 from 2005-01-15 gives 2005-08-02, not 2005-08-03),
 *   and without BYMONTH takes only DTSTART's month (FREQ=YEARLY;BYMONTHDAY=15 from 2009-04-07 gives 15 April
 *   each year, where the table says BYMONTHDAY expands a YEARLY rule to every month, as python-dateutil, rrule.js
 *   and rrule-temporal read it). So it is given every day of the month a value can be, and the oracle picks.
 * - BYSETPOS is applied only with MONTHLY and BYDAY (FREQ=YEARLY;INTERVAL=10;BYMONTH=1,9;BYDAY=-3MO;BYSETPOS=-1
 *   from 2009-04-07 gives 2019-01-14 and 2019-09-16), and even there a negative position misses the 1st of a
 *   month (FREQ=MONTHLY;BYDAY=-5FR;BYSETPOS=-1 from 2033-09-18 skips 2034-09-01). So ical.js never sees BYSETPOS:
 *   it expands each period whole (from the start of DTSTART's period, with what the rule leaves to DTSTART
 *   written out, RFC 5545: "derived from DTSTART"), and the oracle picks the positions in each period.
 * Not worked around but kept out of the generator: ical.js reads one digit of a BYDAY ordinal (its pattern is
 * /([+-]?[0-9])?(MO|…)/, so FREQ=YEARLY;BYDAY=-24SA is read as 4SA, and 20SA as every Saturday).
 */
function icalRule(freq: string, parts: Map<string, string>): string {
  const keep = new Map(parts);
  keep.delete('BYSETPOS');
  if (freq === 'DAILY') for (const p of ['BYMONTH', 'BYMONTHDAY', 'BYDAY']) keep.delete(p);
  if (freq === 'WEEKLY' || freq === 'MONTHLY') keep.delete('BYMONTH');
  if ((freq === 'MONTHLY' || freq === 'YEARLY') && parts.has('BYMONTHDAY')) keep.delete('BYDAY');
  if (freq === 'YEARLY' && parts.has('BYMONTHDAY')) {
    // each value as the days of the month it can be (a negative one, in months of 28 to 31 days); `satisfies` keeps the right ones
    const days = (parts.get('BYMONTHDAY') as string)
      .split(',')
      .flatMap((v) => (Number(v) > 0 ? [Number(v)] : [28, 29, 30, 31].map((n) => n + Number(v) + 1)));
    keep.set('BYMONTHDAY', [...new Set(days.filter((d) => d >= 1))].sort((a, b) => a - b).join(','));
  }
  return [`FREQ=${freq}`, ...[...keep].map(([k, v]) => `${k}=${v}`)].join(';');
}

/**
 * The rule's parts with what it leaves to DTSTART written out (RFC 5545 §3.3.10: "Information, not contained in
 * the rule, necessary to determine the various recurrence instance start time and dates are derived from the
 * Start Time"): the weekday of a WEEKLY rule, the day of a MONTHLY one, the month and day of a YEARLY one. ical.js
 * starts at the beginning of DTSTART's period, not at DTSTART, and `satisfies` checks these too (ical.js rolls
 * 31 November over to 1 December: FREQ=YEARLY;BYMONTH=1,11,12 from 2009-03-31).
 */
function withDtstart(freq: string, parts: Map<string, string>, start: Temporal.PlainDateTime): Map<string, string> {
  const out = new Map(parts);
  if (freq === 'WEEKLY' && !parts.has('BYDAY')) out.set('BYDAY', Object.keys(WEEKDAY_NUMBER)[start.dayOfWeek - 1]);
  if (freq === 'MONTHLY' && !parts.has('BYDAY') && !parts.has('BYMONTHDAY')) out.set('BYMONTHDAY', String(start.day));
  if (freq === 'YEARLY' && !parts.has('BYDAY') && !parts.has('BYMONTHDAY')) {
    out.set('BYMONTH', parts.get('BYMONTH') ?? String(start.month));
    out.set('BYMONTHDAY', String(start.day));
  }
  // BYMONTHDAY expands a YEARLY rule to every month (see icalRule)
  if (freq === 'YEARLY' && parts.has('BYMONTHDAY') && !parts.has('BYMONTH')) out.set('BYMONTH', '1,2,3,4,5,6,7,8,9,10,11,12');
  return out;
}

/** The period (RFC 5545: the FREQ's interval of time) a date is in, as a key that sorts in time order. */
function periodOf(freq: string, d: Temporal.PlainDate, wkst: number): string {
  if (freq === 'DAILY') return d.toString();
  if (freq === 'WEEKLY') return d.subtract({ days: (d.dayOfWeek - wkst + 7) % 7 }).toString();
  return freq === 'MONTHLY' ? d.toString().slice(0, 7) : d.toString().slice(0, 4);
}

/** The first day of a period. */
function periodStart(freq: string, d: Temporal.PlainDate, wkst: number): Temporal.PlainDate {
  if (freq === 'DAILY' || freq === 'WEEKLY') return Temporal.PlainDate.from(periodOf(freq, d, wkst));
  return freq === 'MONTHLY' ? d.with({ day: 1 }) : d.with({ month: 1, day: 1 });
}

/** The oracle's expansion of a case (see the module comment for the rules it applies). */
export function oracle(c: RecurrenceCase): { instances: string[]; checkedBefore?: string; merged: number } {
  const PDT = Temporal.PlainDateTime;
  const start = PDT.from(c.start);
  const until = c.until === undefined ? undefined : untilMs(c.until, c.zone);
  const limit = c.limit === undefined ? undefined : PDT.from(c.limit);
  const parts = new Map(c.base.split(';').map((p) => p.split('=') as [string, string]));
  const freq = parts.get('FREQ') as string;
  parts.delete('FREQ');
  const wkst = WEEKDAY_NUMBER[parts.get('WKST') ?? 'MO'];
  const withinYear = freq === 'YEARLY' && !parts.has('BYMONTH');
  const explicit = withDtstart(freq, parts, start);
  const setpos = parts.get('BYSETPOS')?.split(',').map(Number);
  const matches = (w: Temporal.PlainDateTime) => [...explicit].every(([part, value]) => satisfies(w.toPlainDate(), part, value, withinYear));
  // ical.js runs without COUNT and UNTIL (they are applied below); a wall time more than a day after UNTIL (as UTC)
  // cannot be on or before it as an instant in any zone (offsets are within ±14 h), so the walk can stop in
  // the period after that (a period must be whole for BYSETPOS)
  const horizon =
    limit ??
    (until === undefined ? undefined : Temporal.Instant.fromEpochMilliseconds(until).toZonedDateTimeISO('UTC').toPlainDateTime().add({ days: 2 }));
  const lastPeriod = horizon && periodOf(freq, horizon.toPlainDate(), wkst);

  const walls: Temporal.PlainDateTime[] = [start];
  const full = () => c.count !== undefined && walls.length >= c.count;
  let period: Temporal.PlainDateTime[] = [];
  // one period's dates, in order: BYSETPOS picks from them (RFC 5545: positions within the FREQ's interval); those
  // before DTSTART are not instances, and DTSTART is already instance #1 (E7)
  const flush = () => {
    const n = period.length;
    const picked = setpos ? period.filter((_, i) => setpos.includes(i + 1) || setpos.includes(i - n)) : period;
    for (const w of picked) if (PDT.compare(w, start) > 0 && !full()) walls.push(w);
    period = [];
  };
  const first = periodStart(freq, start.toPlainDate(), wkst).toPlainDateTime(start.toPlainTime());
  const it = ICAL.Recur.fromString(icalRule(freq, explicit)).iterator(
    ICAL.Time.fromData({
      year: first.year,
      month: first.month,
      day: first.day,
      hour: first.hour,
      minute: first.minute,
      second: first.second,
      isDate: false,
    }),
  );
  let steps = 0;
  let walked = first;
  let ended = false;
  for (; steps < ORACLE_STEPS && !full(); steps++) {
    const t = it.next();
    if (!t) {
      ended = true;
      break;
    }
    const w = new PDT(t.year, t.month, t.day, t.hour, t.minute, t.second);
    walked = w;
    const key = periodOf(freq, w.toPlainDate(), wkst);
    if (period.length > 0 && key !== periodOf(freq, period[0].toPlainDate(), wkst)) flush();
    if (lastPeriod !== undefined && key > lastPeriod) break;
    // ical.js can return a date twice (an invalid date rolled over onto a valid one) and dates outside the rule
    if ((period.length === 0 || PDT.compare(w, period[period.length - 1]) > 0) && matches(w)) period.push(w);
  }
  // A walk that reached ORACLE_STEPS checked the rule only up to where it got (a rule that matches rarely or
  // never), its last period not whole. One ical.js ended had given up: without COUNT and UNTIL a rule has no end,
  // but ical.js stops a YEARLY rule after 28 years without an instance and a MONTHLY one after 336 months (it
  // takes 28 years for the calendar to repeat, which century years break: FREQ=YEARLY;BYMONTH=2;BYDAY=5TH from
  // 2005-01-02 ends after 2080-02-29, where 2120-02-29 is next).
  let checkedBefore: string | undefined;
  if (steps === ORACLE_STEPS) checkedBefore = (period[0] ?? walked).toString();
  else flush();
  if (ended && !full()) checkedBefore = walked.add({ seconds: 1 }).toString();

  const byWall = new Map<string, Temporal.PlainDateTime>();
  walls.forEach((w, i) => {
    // UNTIL bounds the rule's instances as instants; DTSTART stays (E7)
    if (i > 0 && until !== undefined && place(w, c.zone).epochMilliseconds > until) return;
    byWall.set(w.toString(), w);
  });
  for (const r of c.rdates) byWall.set(PDT.from(r).toString(), PDT.from(r));
  for (const x of c.exdates) byWall.delete(PDT.from(x).toString());

  const byInstant = new Map<number, { original: Temporal.PlainDateTime; at: Temporal.ZonedDateTime }>();
  // an EXDATE names an instance by its start: one moved out of a gap starts at the wall time it moved to (E8)
  const exdated = new Set(c.exdates.map((x) => PDT.from(x).toString()));
  let exdatedMoved = 0;
  for (const w of byWall.values()) {
    if (limit && PDT.compare(w, limit) >= 0) continue;
    const at = place(w, c.zone);
    if (inGap(w.toString(), c.zone) && exdated.has(at.toPlainDateTime().toString())) {
      exdatedMoved++;
      continue;
    }
    const seen = byInstant.get(at.epochMilliseconds);
    // one instance per instant, under the wall time that exists (the one not moved out of a gap)
    if (!seen || inGap(seen.original.toString(), c.zone)) byInstant.set(at.epochMilliseconds, { original: w, at });
  }
  const instances = [...byInstant.values()]
    .sort((a, b) => a.at.epochMilliseconds - b.at.epochMilliseconds)
    .map(({ original, at }) => line(original.toString(), at.toPlainDateTime().toString(), at.epochMilliseconds));
  let placed = 0;
  for (const w of byWall.values()) if (!limit || PDT.compare(w, limit) < 0) placed++;
  return { instances, checkedBefore, merged: placed - exdatedMoved - byInstant.size };
}

/** Our expansion of a case beside the oracle's. */
export interface Verdict {
  outcome: Outcome;
  /** Ours and the oracle's instances, compared (both cut at `checkedBefore` when the oracle stopped short). */
  got?: string[];
  expected?: string[];
  agree: boolean;
  /** Where the oracle stopped walking a rule that matches rarely or never; undefined when it walked it all. */
  checkedBefore?: string;
  /** What the case exercised, so that a test can tell the generator still reaches the edge cases. */
  moved?: boolean;
  ambiguous?: boolean;
  merged?: boolean;
}

/** Whether a wall time exists twice in the zone (it falls in an overlap). */
function isAmbiguous(iso: string, zone: string): boolean {
  const wall = Temporal.PlainDateTime.from(iso);
  const earlier = wall.toZonedDateTime(zone, { disambiguation: 'earlier' }).epochMilliseconds;
  return !inGap(iso, zone) && earlier !== wall.toZonedDateTime(zone, { disambiguation: 'later' }).epochMilliseconds;
}

export function check(c: RecurrenceCase): Verdict {
  const outcome = ours(c);
  if ('refused' in outcome) return { outcome, agree: true };
  const { instances, checkedBefore, merged } = oracle(c);
  const before = checkedBefore?.replace('T', ' ');
  const cut = (xs: string[]) => (before === undefined ? xs : xs.filter((x) => x.slice(0, 19) < before));
  const got = cut(outcome.instances);
  const expected = cut(instances);
  const walls = expected.map((x) => x.split(/ → | = /));
  return {
    outcome,
    got,
    expected,
    agree: JSON.stringify(got) === JSON.stringify(expected),
    checkedBefore,
    moved: walls.some(([original, start]) => original !== start),
    ambiguous: walls.some(([original]) => isAmbiguous(original.replace(' ', 'T'), c.zone)),
    merged: merged > 0,
  };
}

/**
 * Instances of a rule (not RDATEs) whose start's time of day differs from DTSTART's, though their wall time
 * exists: FEATURES.md E1 (wall clock kept) except at gaps (E2).
 */
export function timeOfDayViolations(c: RecurrenceCase, instances: string[]): string[] {
  const time = c.start.slice(11);
  const rdates = new Set(c.rdates.map((r) => r.replace('T', ' ')));
  return instances.filter((i) => {
    const [original, start] = i.split(/ → | = /);
    if (rdates.has(original)) return false;
    return start.slice(11) !== time && !inGap(original.replace(' ', 'T'), c.zone);
  });
}

// ---- generation ---------------------------------------------------------------------------------------

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
type Freq = (typeof FREQS)[number];

const compact = (iso: string) => iso.replace(/[-:]/g, '');

/** A zone's clock changes between 2005 and 2035: when, and the wall times skipped or repeated (from, how many minutes). */
interface Change {
  at: Temporal.Instant;
  from: Temporal.PlainDateTime;
  minutes: number;
}

function changesOf(zone: string): Change[] {
  const out: Change[] = [];
  let z: Temporal.ZonedDateTime | null = Temporal.Instant.from('2005-01-01T00:00:00Z').toZonedDateTimeISO(zone);
  for (;;) {
    z = z.getTimeZoneTransition('next');
    if (!z || z.year > 2035) return out;
    const at = z.toInstant();
    const before = z.subtract({ nanoseconds: 1 }).offsetNanoseconds;
    const after = z.offsetNanoseconds;
    const wall = (offsetNs: number) => at.add({ nanoseconds: offsetNs }).toZonedDateTimeISO('UTC').toPlainDateTime();
    // a gap is [wall before, wall after); an overlap is [wall after, wall before)
    out.push({ at, from: wall(Math.min(before, after)), minutes: Math.abs(after - before) / 60e9 });
  }
}

const CHANGES = new Map<string, Change[]>(ZONES.map((z) => [z, changesOf(z)]));

const weight = <T>(w: number, arbitrary: fc.Arbitrary<T>) => ({ weight: w, arbitrary });
/** A part present with probability p/10. */
const sometimes = <T>(p: number, a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof(weight(10 - p, fc.constant(undefined)), weight(p, a));

const timeOfDay = fc.record({
  minute: fc.oneof(
    weight(
      3,
      fc.integer({ min: 0, max: 95 }).map((q) => q * 15),
    ),
    weight(1, fc.integer({ min: 0, max: 1439 })),
  ),
  second: fc.oneof(weight(5, fc.constant(0)), weight(1, fc.integer({ min: 0, max: 59 }))),
});

const midnight = (d: Temporal.PlainDate) => d.toPlainDateTime({ hour: 0 });
const atTime = (d: Temporal.PlainDate, t: { minute: number; second: number }) => midnight(d).add({ minutes: t.minute, seconds: t.second });

/** A DTSTART, and the clock change it was chosen near (for an UNTIL or a horizon near it too). */
interface Start {
  start: Temporal.PlainDateTime;
  change?: Change;
}

const UNIT = { DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months', YEARLY: 'years' } as const;

/** One of a zone's clock changes; for Pacific/Apia a third of them its skipped day, 2011-12-30 (UTC−10 → UTC+14). */
function changeArb(zone: string): fc.Arbitrary<Change> {
  const changes = CHANGES.get(zone) ?? [];
  const skip = changes.find((c) => c.minutes === 24 * 60);
  return fc.oneof(
    weight(
      4,
      fc.integer({ min: 0, max: changes.length - 1 }).map((i) => changes[i]),
    ),
    ...(skip ? [weight(2, fc.constant(skip))] : []),
  );
}

/** A whole number of the rule's periods back (so that the rule, where its BYxxx parts allow, comes back to that day). */
const periodsBack = (rule: RuleShape) => fc.integer({ min: 0, max: 6 }).map((n) => ({ [UNIT[rule.freq]]: -n * rule.interval }));

/** A wall time the change skips or repeats, some of the rule's periods before the change. */
const inChangeArb = (zone: string, rule: RuleShape) =>
  fc
    .record({ change: changeArb(zone), minute: fc.nat(), back: periodsBack(rule) })
    .map(({ change, minute, back }): Start => ({ start: change.from.add({ minutes: minute % change.minutes }).add(back), change }));

/**
 * DTSTART in a zone, for a rule: mostly a wall time on the day of one of the zone's clock changes (one the change
 * skips or repeats, or any time that day), or before it by some of the rule's periods, or by days, weeks, months
 * or years; sometimes any day from 2005 to 2032.
 */
function startArb(zone: string, rule: RuleShape): fc.Arbitrary<Start> {
  const anyDay = fc
    .record({ day: fc.integer({ min: 0, max: 365 * 28 }), t: timeOfDay })
    .map(({ day, t }): Start => ({ start: atTime(Temporal.PlainDate.from('2005-01-01').add({ days: day }), t) }));
  if ((CHANGES.get(zone) ?? []).length === 0) return anyDay; // Asia/Kolkata: no changes since 1945
  const back = fc.oneof(
    weight(4, periodsBack(rule)),
    weight(
      2,
      fc.integer({ min: -3, max: 40 }).map((days) => ({ days: -days })),
    ),
    weight(
      1,
      fc.integer({ min: 1, max: 30 }).map((weeks) => ({ weeks: -weeks })),
    ),
    weight(
      1,
      fc.integer({ min: 1, max: 24 }).map((months) => ({ months: -months })),
    ),
    weight(
      1,
      fc.integer({ min: 1, max: 6 }).map((years) => ({ years: -years })),
    ),
  );
  const nearChange = fc
    .record({ change: changeArb(zone), t: timeOfDay, back })
    .map(({ change, t, back }): Start => ({ start: atTime(change.from.toPlainDate(), t).add(back), change }));
  return fc.oneof(weight(4, inChangeArb(zone, rule)), weight(2, nearChange), weight(1, anyDay));
}

const list = <T>(a: fc.Arbitrary<T>, max: number, key: (t: T) => string | number = (t) => String(t)) =>
  fc.uniqueArray(a, { minLength: 1, maxLength: max, selector: key });

function bydayArb(freq: Freq): fc.Arbitrary<string> {
  const plain = list(fc.constantFrom(...WEEKDAYS), 3).map((ds) => ds.join(','));
  if (freq === 'DAILY' || freq === 'WEEKLY') return plain; // an ordinal is refused there (E9)
  const ordinal = (max: number) =>
    list(
      fc
        .record({ n: fc.integer({ min: 1, max }), neg: fc.boolean(), d: fc.constantFrom(...WEEKDAYS) })
        .map(({ n, neg, d }) => `${neg ? '-' : ''}${n}${d}`),
      2,
    ).map((ds) => ds.join(','));
  // MONTHLY: ±1…5 within the month; YEARLY: within the year, fixed to ±1…5 below when BYMONTH is given (RFC 5545
  // allows ±53 and our parser ±52, but ical.js reads one digit: see icalRule)
  return freq === 'MONTHLY' ? fc.oneof(plain, ordinal(5)) : fc.oneof(plain, ordinal(5), ordinal(9));
}

/** A BYMONTHDAY value; negative ones count from the month's end. */
const monthDay = fc.oneof(weight(4, fc.integer({ min: 1, max: 31 })), weight(1, fc.integer({ min: -31, max: -1 })));

interface RuleShape {
  freq: Freq;
  interval: number;
  base: string;
}

const ruleArb: fc.Arbitrary<RuleShape> = fc.constantFrom(...FREQS).chain((freq) =>
  fc
    .record({
      interval: fc.oneof(weight(5, fc.constant(1)), weight(3, fc.integer({ min: 2, max: 4 })), weight(1, fc.integer({ min: 5, max: 12 }))),
      byday: sometimes(4, bydayArb(freq)),
      bymonthday: freq === 'WEEKLY' ? fc.constant(undefined) : sometimes(3, list(monthDay, 3)),
      bymonth: sometimes(freq === 'YEARLY' ? 4 : 2, list(fc.integer({ min: 1, max: 12 }), 4)),
      // a DAILY rule's set per day has one date, so positions beyond ±1 select nothing
      bysetpos: sometimes(3, list(freq === 'DAILY' ? fc.constantFrom(1, -1) : fc.constantFrom(1, -1, 1, -1, 2, -2, 3, -3), 2)),
      wkst: sometimes(1, fc.constantFrom(...WEEKDAYS)),
    })
    .map((r) => {
      const parts = [`FREQ=${freq}`];
      if (r.interval !== 1) parts.push(`INTERVAL=${r.interval}`);
      let byday = r.byday;
      // with BYMONTH a YEARLY ordinal counts within the month
      if (byday && freq === 'YEARLY' && r.bymonth) byday = byday.replace(/\d+/g, (n) => String(((Number(n) - 1) % 5) + 1));
      if (r.bymonth) parts.push(`BYMONTH=${[...r.bymonth].sort((a, b) => a - b).join(',')}`);
      if (r.bymonthday) parts.push(`BYMONTHDAY=${r.bymonthday.join(',')}`);
      if (byday) parts.push(`BYDAY=${byday}`);
      // BYSETPOS needs another BYxxx part to select from; with BYMONTH alone each period has one date, and a rule
      // that never matches is refused only after rrule-temporal's 10,000 periods (slow, and tells nothing)
      // (a WEEKLY rule's set has as many dates as BYDAY has days, at most)
      const setpos = r.bysetpos?.filter((n) => freq !== 'WEEKLY' || Math.abs(n) <= (byday ?? '').split(',').length);
      if (setpos?.length && (r.bymonthday || byday)) parts.push(`BYSETPOS=${setpos.join(',')}`);
      if (r.wkst) parts.push(`WKST=${r.wkst}`);
      return { freq, interval: r.interval, base: parts.join(';') };
    }),
);

type EndShape = typeof endArb extends fc.Arbitrary<infer T> ? T : never;
type DatesShape = typeof datesArb extends fc.Arbitrary<infer T> ? T : never;

const endArb = fc.record({
  kind: fc.oneof(weight(5, fc.constant('count' as const)), weight(4, fc.constant('until' as const)), weight(1, fc.constant('limit' as const))),
  count: fc.integer({ min: 1, max: 50 }),
  form: fc.oneof(weight(6, fc.constant('utc' as const)), weight(1, fc.constant('floating' as const)), weight(1, fc.constant('date' as const))),
  /** How many of the rule's periods (FREQ × INTERVAL) after DTSTART an UNTIL or horizon is… */
  periods: fc.integer({ min: 0, max: 40 }),
  /** …or whether it is on the day of the clock change DTSTART was chosen near, at DTSTART's time of day… */
  atChange: fc.boolean(),
  /** …at the earlier or the later instant of that wall time (for one the change repeats or skips)… */
  later: fc.boolean(),
  // …and on it, a second either side, or half an hour or an hour off (the sizes of DST changes)
  seconds: fc.constantFrom(0, 0, 0, -1, 1, -3600, 3600, -1800, 1800),
});

const datesArb = fc.record({
  exdates: sometimes(
    2,
    fc.array(fc.record({ n: fc.integer({ min: 0, max: 12 }), onRule: fc.boolean(), t: timeOfDay }), { minLength: 1, maxLength: 3 }),
  ),
  rdates: sometimes(2, fc.array(fc.record({ days: fc.integer({ min: 1, max: 400 }), t: timeOfDay }), { minLength: 1, maxLength: 2 })),
});

const iso = (w: Temporal.PlainDateTime) => w.toString({ smallestUnit: 'second' });
const utcText = (i: Temporal.Instant) => `${compact(iso(i.toZonedDateTimeISO('UTC').toPlainDateTime()))}Z`;

/** A case from its drawn parts: UNTIL or a horizon where `end` says, EXDATEs and RDATEs around DTSTART. */
function build(zone: string, rule: RuleShape, s: Start, end: EndShape, dates: DatesShape): RecurrenceCase {
  const { start, change } = s;
  const c: RecurrenceCase = { zone, start: iso(start), base: rule.base, rdates: [], exdates: [] };
  const { interval } = rule;
  const unit = UNIT[rule.freq];
  // YEARLY: at most 40 years; with plain weekdays and no BYMONTH (up to 156 days a year) a few years at most
  const years = /^FREQ=YEARLY(?!.*BYMONTH=).*BYDAY=[A-Z]/.test(rule.base) ? 6 : 40;
  const periods = rule.freq === 'YEARLY' ? Math.min(end.periods, Math.ceil(years / interval)) : end.periods;
  let wall = start.add({ [unit]: periods * interval }).add({ seconds: end.seconds });
  let instant = place(start.add({ [unit]: periods * interval }), zone)
    .toInstant()
    .add({ seconds: end.seconds });
  let day = wall.toPlainDate();
  if (change && end.atChange) {
    const onChangeDay = change.from.toPlainDate().toPlainDateTime(start.toPlainTime());
    wall = onChangeDay.add({ seconds: end.seconds });
    instant = onChangeDay
      .toZonedDateTime(zone, { disambiguation: end.later ? 'later' : 'earlier' })
      .toInstant()
      .add({ seconds: end.seconds });
    day = change.from.toPlainDate(); // Pacific/Apia: 2011-12-30, the day that did not happen
  }
  if (end.kind === 'count') c.count = end.count;
  else if (end.kind === 'limit') c.limit = iso(wall);
  else if (end.form === 'date') c.until = compact(day.toString());
  else if (end.form === 'floating') c.until = compact(iso(wall));
  else c.until = utcText(instant);
  // EXDATEs on the rule's cadence from DTSTART (often an instance, DTSTART itself for n = 0) or anywhere
  for (const x of dates.exdates ?? []) {
    const on = start.add({ [unit]: x.n });
    c.exdates.push(iso(x.onRule ? on : atTime(on.toPlainDate(), x.t)));
  }
  for (const r of dates.rdates ?? []) c.rdates.push(iso(atTime(start.toPlainDate().add({ days: r.days }), r.t)));
  return c;
}

/** Any rule in any zone. */
const anyCase = fc
  .tuple(fc.constantFrom(...ZONES), ruleArb)
  .chain(([zone, rule]) =>
    fc.record({ s: startArb(zone, rule), end: endArb, dates: datesArb }).map(({ s, end, dates }) => build(zone, rule, s, end, dates)),
  );

/** FREQ and INTERVAL only, from a wall time a clock change skips or repeats: the rule comes back to it. */
const plainRuleArb = fc
  .record({ freq: fc.constantFrom(...FREQS), interval: fc.oneof(weight(3, fc.constant(1)), weight(1, fc.integer({ min: 2, max: 4 }))) })
  .map(({ freq, interval }): RuleShape => ({ freq, interval, base: interval === 1 ? `FREQ=${freq}` : `FREQ=${freq};INTERVAL=${interval}` }));
const atChangeCase = fc
  .tuple(fc.constantFrom(...ZONES.filter((z) => (CHANGES.get(z) ?? []).length > 0)), plainRuleArb)
  .chain(([zone, rule]) =>
    fc.record({ s: inChangeArb(zone, rule), end: endArb, dates: datesArb }).map(({ s, end, dates }) => build(zone, rule, s, end, dates)),
  );

/**
 * Rules with instances on both 2011-12-30 and 2011-12-31 in Pacific/Apia: the 30th's wall time moves onto the
 * 31st's, two wall times on one instant (counted twice, one instance).
 */
const SKIP_RULES = [
  'FREQ=DAILY',
  'FREQ=DAILY;BYDAY=TH,FR,SA',
  'FREQ=WEEKLY;BYDAY=FR,SA',
  'FREQ=WEEKLY;BYDAY=TH,FR,SA,SU',
  'FREQ=MONTHLY;BYMONTHDAY=29,30,31',
  'FREQ=MONTHLY;BYDAY=-1FR,-1SA',
  'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=30,31',
];
const apiaSkipCase = fc
  .record({ base: fc.constantFrom(...SKIP_RULES), daysBack: fc.integer({ min: 0, max: 12 }), t: timeOfDay, end: endArb, dates: datesArb })
  .map(({ base, daysBack, t, end, dates }) => {
    const rule: RuleShape = { freq: base.slice(5).split(';')[0] as Freq, interval: 1, base };
    const skip = (CHANGES.get('Pacific/Apia') ?? []).find((c) => c.minutes === 24 * 60);
    const start = atTime(Temporal.PlainDate.from('2011-12-30').subtract({ days: daysBack }), t);
    return build('Pacific/Apia', rule, { start, change: skip }, end, dates);
  });

export const caseArb: fc.Arbitrary<RecurrenceCase> = fc.oneof(weight(6, anyCase), weight(3, atChangeCase), weight(1, apiaSkipCase));

// ---- the sample both processes expand (case 20) ---------------------------------------------------------

export interface Digest {
  /** The process's own zone, as the runtime sees it (to prove TZ took effect). */
  processZone: string;
  processOffsetMinutes: number;
  cases: number;
  refused: number;
  /** Cases where ours differs from the oracle (should be none). */
  mismatches: string[];
  /** sha256 of every case's outcome, in order. */
  sha256: string;
  /** The first outcomes in full, to show where two processes differ. */
  head: Outcome[];
}

export function digest(seed: number, runs: number): Digest {
  const hash = createHash('sha256');
  const head: Outcome[] = [];
  let refused = 0;
  const mismatches: string[] = [];
  for (const c of fc.sample(caseArb, { seed, numRuns: runs })) {
    // everything expand() gives (ends too), and the lines as stored
    const got = expandCase(c);
    hash.update(`${JSON.stringify(c)}\n${JSON.stringify(got)}\n`);
    if (head.length < 20) head.push(ours(c));
    if ('refused' in got) refused++;
    else if (!check(c).agree) mismatches.push(describeCase(c));
  }
  return {
    processZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    processOffsetMinutes: new Date(Date.UTC(2025, 0, 15)).getTimezoneOffset(),
    cases: runs,
    refused,
    mismatches,
    sha256: hash.digest('hex'),
    head,
  };
}
