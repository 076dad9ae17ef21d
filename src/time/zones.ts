/**
 * Time zones as the original knows them: IANA names, `UTC`, and fixed offsets written `UTC+2`, `UTC-3.5`,
 * `UTC+5:45`. Offsets come from the runtime's ICU data (Intl); abbreviations come from the system's tzdata files
 * when present, because that is where PHP (and so the original) takes them from (`EST`, `CEST`, `HKT`, `+04`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * The day of `w` at the given time. (Written out, not `{ ...w, hour }`: on Node 20 each key written after a
 * leading spread costs ~1 µs, and recurrence expansion does this per occurrence.)
 */
export function atTimeOfDay(w: Pick<WallTime, 'year' | 'month' | 'day'>, hour: number, minute: number, second: number): WallTime {
  return { year: w.year, month: w.month, day: w.day, hour, minute, second };
}

const OFFSET_ZONE = /^UTC([+-])(\d{1,2})(?:(?:\.(\d+))|(?::([0-5]\d)))?$/i;

export interface Zone {
  /** The name as given (`America/New_York`, `UTC`, `UTC+2`). */
  readonly name: string;
  /** Offset from UTC in minutes at the given instant (east positive). */
  offsetAt(utcMs: number): number;
  /** The abbreviation in force at the instant (`EST`/`EDT`, `UTC`, the zone name itself for `UTC±N`). */
  abbreviationAt(utcMs: number): string;
}

class FixedZone implements Zone {
  constructor(
    readonly name: string,
    private readonly minutes: number,
  ) {}
  offsetAt(): number {
    return this.minutes;
  }
  abbreviationAt(): string {
    return this.name;
  }
}

/** A day on which a zone's offset changes: from `at` (ms, a whole second) on, `after`; before it, `before`. */
interface Transition {
  at: number;
  before: number;
  after: number;
}

class IanaZone implements Zone {
  private readonly format: Intl.DateTimeFormat;
  private abbreviations: TzAbbreviations | null | undefined;
  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
  }

  /**
   * Per UTC day: the offset when it is the same at both ends of the day; on a day it changes, the second it
   * changes and the offsets either side (null if a check of that fails: the day is then asked of Intl at each
   * instant). Intl costs ~20 µs a call, and a series' expansion asks for thousands of instants, ~12 of them on
   * each day with a transition (~2.4 ms of a daily series' 5 years, every time it was expanded); a zone never
   * changes its offset and back within one day, so a day with equal ends has one offset throughout.
   */
  private readonly days = new Map<number, number | Transition | null>();

  offsetAt(utcMs: number): number {
    const day = Math.floor(utcMs / 86_400_000);
    let known = this.days.get(day);
    if (known === undefined) {
      known = this.dayOffsets(day);
      if (this.days.size >= 50_000) this.days.clear();
      this.days.set(day, known);
    }
    if (typeof known === 'number') return known;
    if (known === null) return this.exactOffsetAt(utcMs);
    return utcMs >= known.at ? known.after : known.before; // (`at` is a whole second)
  }

  private dayOffsets(day: number): number | Transition | null {
    const start = day * 86_400_000;
    const before = this.exactOffsetAt(start);
    const after = this.exactOffsetAt(start + 86_399_000);
    if (before === after) return before;
    // the first second of the day whose offset is no longer the morning's (offsets change on whole seconds)
    let lo = 0; // a second with `before`
    let hi = 86_399; // a second without it
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (this.exactOffsetAt(start + mid * 1000) === before) lo = mid;
      else hi = mid;
    }
    const at = start + hi * 1000;
    // two changes in one day (none known) would break the search's premise: such a day is asked instant by instant
    return this.exactOffsetAt(at) === after ? { at, before, after } : null;
  }

  private exactOffsetAt(utcMs: number): number {
    const parts = this.format.formatToParts(new Date(utcMs));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    let year = get('year');
    if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
    // (wallToMs: Date.UTC would read the years 0–99 as 1900–1999, an offset of centuries)
    const asUtc = wallToMs({ year, month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') });
    const whole = Math.floor(utcMs / 1000) * 1000;
    return Math.round((asUtc - whole) / 60000);
  }

  abbreviationAt(utcMs: number): string {
    if (this.abbreviations === undefined) this.abbreviations = loadTzAbbreviations(this.name);
    const offset = this.offsetAt(utcMs);
    const fromTzdata = this.abbreviations?.at(Math.floor(utcMs / 1000), offset);
    if (fromTzdata) return fromTzdata;
    return intlAbbreviation(this.name, utcMs, offset);
  }
}

function intlAbbreviation(zone: string, utcMs: number, offset: number): string {
  for (const locale of ['en-US', 'en-GB', 'en-AU', 'en-IN']) {
    const name = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' })
      .formatToParts(new Date(utcMs))
      .find((p) => p.type === 'timeZoneName')?.value;
    if (name && !/^(GMT|UTC)[+-]/.test(name)) return name === 'GMT' && offset !== 0 ? formatNumericAbbr(offset) : name;
  }
  return formatNumericAbbr(offset);
}

function formatNumericAbbr(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const h = String(Math.floor(abs / 60)).padStart(2, '0');
  const m = abs % 60;
  return m === 0 ? `${sign}${h}` : `${sign}${h}${String(m).padStart(2, '0')}`;
}

/** The abbreviation a POSIX footer rule gives for an offset (standard, or daylight saving time). */
function fromFooter(footer: { std: string; stdOffset: number; dst?: string }, actualOffsetMinutes: number): string {
  if (footer.dst === undefined) return footer.std;
  return actualOffsetMinutes === footer.stdOffset ? footer.std : footer.dst;
}

/** Abbreviations read from a TZif file: its transitions, then its POSIX footer rule for later instants. */
class TzAbbreviations {
  constructor(
    private readonly transitions: number[],
    private readonly types: number[],
    private readonly infos: { offset: number; isDst: boolean; abbr: string }[],
    private readonly footer: { std: string; stdOffset: number; dst?: string } | undefined,
  ) {}

  at(unixSeconds: number, actualOffsetMinutes: number): string | undefined {
    const n = this.transitions.length;
    if (n > 0 && unixSeconds >= this.transitions[n - 1] && this.footer) return fromFooter(this.footer, actualOffsetMinutes);
    if (n === 0 || unixSeconds < this.transitions[0]) {
      if (this.footer && n === 0) return fromFooter(this.footer, actualOffsetMinutes);
      const first = this.infos.find((i) => !i.isDst) ?? this.infos[0];
      return first?.abbr;
    }
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.transitions[mid] <= unixSeconds) lo = mid;
      else hi = mid - 1;
    }
    return this.infos[this.types[lo]]?.abbr;
  }
}

const ZONEINFO_DIRS = ['/usr/share/zoneinfo', '/usr/lib/zoneinfo', '/usr/share/lib/zoneinfo'];

function loadTzAbbreviations(name: string): TzAbbreviations | null {
  if (!/^[A-Za-z0-9_+\-/]+$/.test(name) || name.includes('..')) return null;
  for (const dir of ZONEINFO_DIRS) {
    try {
      return parseTzif(readFileSync(join(dir, name)));
    } catch {
      // try the next directory; no tzdata at all falls back to Intl
    }
  }
  return null;
}

function parseTzif(buf: Buffer): TzAbbreviations | null {
  if (buf.toString('latin1', 0, 4) !== 'TZif') return null;
  const version = buf[4];
  const counts = (at: number) => ({
    isut: buf.readUInt32BE(at + 20),
    isstd: buf.readUInt32BE(at + 24),
    leap: buf.readUInt32BE(at + 28),
    time: buf.readUInt32BE(at + 32),
    type: buf.readUInt32BE(at + 36),
    char: buf.readUInt32BE(at + 40),
  });
  let header = 0;
  let c = counts(header);
  let timeSize = 4;
  if (version >= 0x32) {
    const v1Size = c.time * 4 + c.time + c.type * 6 + c.char + c.leap * 8 + c.isstd + c.isut;
    header = 44 + v1Size;
    c = counts(header);
    timeSize = 8;
  }
  let p = header + 44;
  const transitions: number[] = [];
  for (let i = 0; i < c.time; i++, p += timeSize) {
    transitions.push(timeSize === 8 ? Number(buf.readBigInt64BE(p)) : buf.readInt32BE(p));
  }
  const types: number[] = [];
  for (let i = 0; i < c.time; i++, p++) types.push(buf[p]);
  const raw: { offset: number; isDst: boolean; abbrIndex: number }[] = [];
  for (let i = 0; i < c.type; i++, p += 6) {
    raw.push({ offset: buf.readInt32BE(p), isDst: buf[p + 4] === 1, abbrIndex: buf[p + 5] });
  }
  const chars = buf.toString('latin1', p, p + c.char);
  p += c.char + c.leap * (timeSize + 4) + c.isstd + c.isut;
  const infos = raw.map((r) => ({
    offset: r.offset,
    isDst: r.isDst,
    abbr: chars.slice(r.abbrIndex, chars.indexOf('\0', r.abbrIndex) === -1 ? undefined : chars.indexOf('\0', r.abbrIndex)),
  }));
  let footer: { std: string; stdOffset: number; dst?: string } | undefined;
  if (timeSize === 8) {
    const text = buf.toString('latin1', p).trim();
    footer = parsePosixTz(text);
  }
  return new TzAbbreviations(transitions, types, infos, footer);
}

function parsePosixTz(tz: string): { std: string; stdOffset: number; dst?: string } | undefined {
  const m = /^(<[^>]+>|[A-Za-z]+)([+-]?\d{1,2}(?::\d{2}(?::\d{2})?)?)(<[^>]+>|[A-Za-z]+)?/.exec(tz);
  if (!m) return undefined;
  const unquote = (s: string) => s.replace(/^<|>$/g, '');
  const [h, mm = '0'] = m[2].replace(/^[+-]/, '').split(':');
  const posix = (Number(h) * 60 + Number(mm)) * (m[2].startsWith('-') ? -1 : 1);
  return { std: unquote(m[1]), stdOffset: -posix, dst: m[3] ? unquote(m[3]) : undefined };
}

const zoneCache = new Map<string, Zone | null>();

/** The zone for a name, or undefined when the name is not a zone the original accepts. */
export function findZone(name: string): Zone | undefined {
  if (zoneCache.has(name)) return zoneCache.get(name) ?? undefined;
  let zone: Zone | null = null;
  if (name === 'UTC' || name === 'utc') {
    zone = new FixedZone('UTC', 0);
  } else {
    const m = OFFSET_ZONE.exec(name);
    if (m) {
      const hours = Number(m[2]);
      let minutes = 0;
      if (m[3] !== undefined) minutes = Math.round(Number(`0.${m[3]}`) * 60);
      if (m[4] !== undefined) minutes = Number(m[4]);
      const total = (hours * 60 + minutes) * (m[1] === '-' ? -1 : 1);
      if (hours <= 14 && Math.abs(total) <= 14 * 60) zone = new FixedZone(name, total);
    } else if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) && name.length <= 64) {
      try {
        const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
        if (resolved) zone = new IanaZone(name);
      } catch {
        zone = null;
      }
    }
  }
  if (zoneCache.size < 1000) zoneCache.set(name, zone);
  return zone ?? undefined;
}

export function isValidTimeZone(name: string): boolean {
  return findZone(name) !== undefined;
}

export function getZone(name: string): Zone {
  const zone = findZone(name);
  if (!zone) throw new Error(`unknown time zone ${name}`);
  return zone;
}

export function wallToMs(w: WallTime): number {
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear does not (and costs more: series expand thousands)
  if (w.year >= 100) return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

export function msToWall(ms: number): WallTime {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/**
 * The UTC instant of a wall-clock time in a zone. Like PHP: an ambiguous time (autumn overlap) takes the earlier
 * instant, a time inside a spring-forward gap moves forward by the gap.
 */
export function zonedWallToUtcMs(w: WallTime, zone: Zone): number {
  const wallMs = wallToMs(w);
  const before = zone.offsetAt(wallMs - 86_400_000);
  const after = zone.offsetAt(wallMs + 86_400_000);
  if (before === after && zone.offsetAt(wallMs) === before) {
    // no transition near: the one offset (what the loop below finds, without its allocations)
    const utc = wallMs - before * 60_000;
    if (zone.offsetAt(utc) === before) return utc;
  }
  const candidates: number[] = [];
  for (const offset of new Set([before, after, zone.offsetAt(wallMs)])) {
    const utc = wallMs - offset * 60_000;
    if (zone.offsetAt(utc) === offset) candidates.push(utc);
  }
  if (candidates.length > 0) return Math.min(...candidates);
  return wallMs - before * 60_000;
}

export function utcMsToZonedWall(ms: number, zone: Zone): WallTime {
  return msToWall(ms + zone.offsetAt(ms) * 60_000);
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DD HH:MM:SS`, the format of every date-time on the wire and in storage. */
export function formatWall(w: WallTime): string {
  const y = w.year < 0 ? `-${String(-w.year).padStart(4, '0')}` : String(w.year).padStart(4, '0');
  return `${y}-${pad2(w.month)}-${pad2(w.day)} ${pad2(w.hour)}:${pad2(w.minute)}:${pad2(w.second)}`;
}

/** A wall time in iCalendar's basic form (RFC 5545 §3.3.5): `YYYYMMDDTHHMMSS`. */
export function compactWall(w: WallTime): string {
  return formatWall(w).replace(/[-:]/g, '').replace(' ', 'T');
}

/** A wall time's date in iCalendar's basic form (RFC 5545 §3.3.4): `YYYYMMDD`. */
export function compactDate(w: WallTime): string {
  return compactWall(w).slice(0, 8);
}

export function parseWall(s: string): WallTime {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  if (!m) throw new Error(`not a stored date-time: ${s}`);
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6]),
  };
}

export function formatUtcMs(ms: number): string {
  // years 0–9999, where toISOString writes the year as formatWall does, in two strings instead of a Date, a
  // WallTime and six: a series writes two per occurrence (and a daily one has ~1,800)
  if (ms >= ISO_FIRST_MS && ms < ISO_END_MS) {
    const iso = new Date(ms).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  return formatWall(msToWall(ms));
}

/** 0000-01-01 00:00:00 and 10000-01-01 00:00:00 UTC. */
const ISO_FIRST_MS = -62_167_219_200_000;
const ISO_END_MS = 253_402_300_800_000;

/** Whether an instant's UTC time is of years 0–9999 (what a stored `YYYY-MM-DD HH:MM:SS` can hold). */
export function isStorableUtcMs(ms: number): boolean {
  return ms >= ISO_FIRST_MS && ms < ISO_END_MS;
}

/** ISO 8601 with the zone's offset, e.g. `2017-01-05T14:23:36-05:00` (JSON-LD dates). */
export function formatIsoWithOffset(ms: number, zone: Zone): string {
  const offset = zone.offsetAt(ms);
  const w = msToWall(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${formatWall(w).replace(' ', 'T')}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}
