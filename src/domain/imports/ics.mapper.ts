/**
 * An .ics text → the events it describes, as our event fields (FEATURES.md §3.4). Pure: no storage; it runs in
 * a worker thread under a time limit (see ics.sandbox.ts), because ical.js can loop forever on some VTIMEZONE
 * rules (kewisch/ical.js#318).
 *
 * Times: an IANA TZID is used as it is; a Windows zone name ("W. Europe Standard Time") is mapped through the
 * CLDR windowsZones table (package `windows-iana`); a TZID that is neither (e.g. a custom VTIMEZONE) is turned
 * into an instant by ical.js from the file's VTIMEZONE, then shown in the calendar's zone. Floating times are
 * the site's zone; UTC times of single events are shown in the calendar's zone (X-WR-TIMEZONE) and a recurring
 * series in UTC keeps UTC (its rule repeats in UTC). All-day events (`VALUE=DATE`) have an exclusive DTEND,
 * our end is the last day.
 */
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { atTimeOfDay, findZone, formatWall, getZone, msToWall, type WallTime, wallToMs, zonedWallToUtcMs } from '../../time/zones.js';
import { IcsFormatError, type IcsOutline, outline } from './ics.structure.js';

type Component = InstanceType<typeof ICAL.Component>;
type Property = InstanceType<typeof ICAL.Property>;
type Time = InstanceType<typeof ICAL.Time>;

export interface MappedVenue {
  readonly title: string;
  readonly address: string;
  readonly geoLat: number | null;
  readonly geoLng: number | null;
}

export interface MappedOrganizer {
  readonly title: string;
  readonly email: string;
}

/** An event's fields as the importer writes them (what `preserve_local_changes` compares, field by field). */
export interface MappedFields {
  readonly title: string;
  readonly description: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly timezone: string;
  readonly allDay: boolean;
  readonly website: string | null;
  readonly recurrence: readonly string[] | null;
  readonly categories: readonly string[];
  readonly venue: MappedVenue | null;
  readonly organizer: MappedOrganizer | null;
  readonly image: string | null;
}

export interface MappedItem {
  readonly uid: string;
  /** '' for a single event or a series; for an override, the instance's original start in the series' zone. */
  readonly recurrenceId: string;
  readonly line: number | null;
  readonly sequence: number | null;
  readonly lastModified: string | null;
  readonly cancelled: boolean;
  readonly fields: MappedFields;
  /** sha256 of the fields and the cancelled flag: an unchanged item is skipped. */
  readonly hash: string;
}

export interface MappedError {
  readonly uid: string | null;
  readonly recurrenceId: string | null;
  readonly line: number | null;
  readonly reason: string;
}

export interface MappedCalendar {
  /** The calendar's own identity (X-WR-RELCALID, X-WR-CALNAME or PRODID), for the items' source key. */
  readonly identity: string;
  /** Masters and singles first, then overrides (which need their series). */
  readonly items: readonly MappedItem[];
  readonly errors: readonly MappedError[];
}

/** Where a DTSTART/DTEND/RECURRENCE-ID is, before it is placed in the event's zone. */
type When =
  | { readonly kind: 'date'; readonly wall: WallTime }
  | { readonly kind: 'zoned'; readonly wall: WallTime; readonly zone: string }
  | { readonly kind: 'instant'; readonly ms: number }
  | { readonly kind: 'floating'; readonly wall: WallTime };

const wallOfTime = (t: Time): WallTime => ({
  year: t.year,
  month: t.month,
  day: t.day,
  hour: t.isDate ? 0 : t.hour,
  minute: t.isDate ? 0 : t.minute,
  second: t.isDate ? 0 : t.second,
});

const DAY_MS = 86_400_000;
const compact = (w: WallTime) => formatWall(w).replace(/[-:]/g, '').replace(' ', 'T');

/**
 * An IANA zone for a TZID: the name itself, a Windows name through CLDR's windowsZones (via `windows-iana`,
 * which embeds that table), or an IANA name at the end of a vendor prefix (`/mozilla.org/20050126_1/Europe/Berlin`).
 */
export function ianaForTzid(tzid: string): string | undefined {
  const name = tzid.replace(/^"|"$/g, '').trim();
  if (name === '') return undefined;
  if (/^(utc|gmt|z)$/i.test(name)) return 'UTC';
  if (name.includes('/') && findZone(name)) return name;
  const windows = findIana(name)[0];
  if (windows && findZone(windows)) return windows;
  const tail = /([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(name)?.[1];
  if (tail && findZone(tail)) return tail;
  return undefined;
}

function whenOf(prop: Property): When {
  const t = prop.getFirstValue() as Time;
  if (!t || typeof t !== 'object' || !('year' in t)) throw new Error(`${prop.name.toUpperCase()} is not a date or date-time`);
  if (t.isDate) return { kind: 'date', wall: wallOfTime(t) };
  if (t.zone?.tzid === 'UTC' || t.zone === ICAL.Timezone.utcTimezone) return { kind: 'instant', ms: t.toUnixTime() * 1000 };
  const tzid = prop.getParameter('tzid') as string | undefined;
  if (tzid === undefined) return { kind: 'floating', wall: wallOfTime(t) };
  const iana = ianaForTzid(tzid);
  if (iana) return { kind: 'zoned', wall: wallOfTime(t), zone: iana };
  // a zone only the file defines: ical.js computes the instant from its VTIMEZONE (the step that can loop)
  if (t.zone && t.zone !== ICAL.Timezone.localTimezone && t.zone.component) return { kind: 'instant', ms: t.toUnixTime() * 1000 };
  throw new Error(`TZID "${tzid}" is neither an IANA nor a Windows zone name, and the file has no VTIMEZONE for it`);
}

/** The UTC instant of a time (floating ones in `floatingZone`). */
function instantOf(w: When, floatingZone: string): number {
  switch (w.kind) {
    case 'instant':
      return w.ms;
    case 'zoned':
      return zonedWallToUtcMs(w.wall, getZone(w.zone));
    default:
      return zonedWallToUtcMs(w.wall, getZone(floatingZone));
  }
}

/** A time as the wall clock of `zone`. */
function wallIn(w: When, zone: string, floatingZone: string): WallTime {
  if ((w.kind === 'zoned' && w.zone === zone) || w.kind === 'date') return w.wall;
  if (w.kind === 'floating' && floatingZone === zone) return w.wall;
  const ms = instantOf(w, floatingZone);
  return msToWall(ms + getZone(zone).offsetAt(ms) * 60_000);
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const httpUrl = (v: unknown): string | null => (typeof v === 'string' && /^https?:\/\/\S+$/i.test(v.trim()) ? v.trim() : null);
const text = (c: Component, name: string): string => {
  const v = c.getFirstPropertyValue(name);
  return typeof v === 'string' ? v : v == null ? '' : String(v);
};

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const hashOf = (value: unknown): string => createHash('sha256').update(stable(value)).digest('hex');

interface Context {
  readonly siteZone: string;
  /** X-WR-TIMEZONE when it is a zone, else the site's. */
  readonly calendarZone: string;
  /** A series' zone and whether it is all-day, by UID (overrides place their RECURRENCE-ID in it). */
  readonly series: Map<string, { zone: string; allDay: boolean }>;
}

function mapDates(ev: Component, ctx: Context, recurring: boolean) {
  const startProp = ev.getFirstProperty('dtstart');
  if (!startProp) throw new Error('DTSTART is missing');
  const start = whenOf(startProp);
  const allDay = start.kind === 'date';
  const zone =
    start.kind === 'zoned' ? start.zone : start.kind === 'floating' ? ctx.siteZone : start.kind === 'instant' && recurring ? 'UTC' : ctx.calendarZone;
  const startWall = wallIn(start, zone, ctx.siteZone);
  const endProp = ev.getFirstProperty('dtend');
  const duration = ev.getFirstPropertyValue('duration') as InstanceType<typeof ICAL.Duration> | null;
  let endWall: WallTime;
  if (allDay) {
    let endMs = wallToMs(startWall);
    if (endProp) {
      const end = whenOf(endProp);
      // DTEND of an all-day event is the day after the last one (RFC 5545 §3.6.1)
      endMs = Math.max(endMs, wallToMs(end.kind === 'date' ? end.wall : wallIn(end, zone, ctx.siteZone)) - DAY_MS);
    } else if (duration) {
      endMs = Math.max(endMs, endMs + Math.ceil(duration.toSeconds() / 86_400) * DAY_MS - DAY_MS);
    }
    endWall = msToWall(endMs);
  } else {
    const startMs = instantOf(start.kind === 'floating' ? { kind: 'zoned', wall: startWall, zone } : start, ctx.siteZone);
    let endMs = startMs;
    if (endProp) endMs = instantOf(whenOf(endProp), ctx.siteZone);
    else if (duration) endMs = startMs + duration.toSeconds() * 1000;
    endWall = wallIn({ kind: 'instant', ms: Math.max(endMs, startMs) }, zone, ctx.siteZone);
  }
  return { start, zone, allDay, startDate: formatWall(startWall), endDate: formatWall(endWall) };
}

/** RRULE/RDATE/EXDATE as `recurrence` lines: dates for all-day series, UTC instants otherwise. */
function mapRecurrence(ev: Component, zone: string, allDay: boolean, ctx: Context, written?: readonly string[]): string[] | null {
  const lines: string[] = [];
  const rrules = ev.getAllProperties('rrule');
  if (rrules.length > 1) throw new Error('more than one RRULE');
  // the rule as the file writes it, judged as the API judges a rule sent to it: ical.js' own rewriting drops what
  // it cannot read (INTERVAL=0, COUNT=0), which would make an invalid rule a daily series without end
  if (rrules[0]) lines.push(`RRULE:${written?.length === 1 ? written[0] : String(rrules[0].getFirstValue())}`);
  for (const name of ['rdate', 'exdate'] as const) {
    for (const prop of ev.getAllProperties(name)) {
      const tzid = prop.getParameter('tzid') as string | undefined;
      for (const value of prop.getValues() as unknown[]) {
        // an RDATE period (start/end) counts by its start
        const t = (value && typeof value === 'object' && 'start' in value ? (value as { start: Time }).start : value) as Time;
        if (!t || typeof t !== 'object' || !('year' in t)) continue;
        let w: When;
        if (t.isDate) w = { kind: 'date', wall: wallOfTime(t) };
        else if (t.zone?.tzid === 'UTC') w = { kind: 'instant', ms: t.toUnixTime() * 1000 };
        else if (tzid === undefined) w = { kind: 'zoned', wall: wallOfTime(t), zone };
        else {
          const iana = ianaForTzid(tzid);
          w = iana ? { kind: 'zoned', wall: wallOfTime(t), zone: iana } : { kind: 'instant', ms: t.toUnixTime() * 1000 };
        }
        const upper = name.toUpperCase();
        if (allDay || w.kind === 'date') lines.push(`${upper};VALUE=DATE:${compact(wallIn(w, zone, ctx.siteZone)).slice(0, 8)}`);
        else lines.push(`${upper}:${compact(msToWall(instantOf(w, zone)))}Z`);
      }
    }
  }
  return lines.length > 0 ? lines : null;
}

function mapVenue(ev: Component): MappedVenue | null {
  const location = text(ev, 'location').trim();
  const geo = ev.getFirstPropertyValue('geo') as unknown;
  let geoLat: number | null = null;
  let geoLng: number | null = null;
  if (Array.isArray(geo) && geo.length === 2 && geo.every((n) => Number.isFinite(Number(n)))) {
    [geoLat, geoLng] = [Number(geo[0]), Number(geo[1])];
  }
  if (location === '') return null;
  // Google and Outlook write "Name, street, city, …": the name, then the address
  const comma = location.indexOf(',');
  const title = (comma < 0 ? location : location.slice(0, comma)).trim();
  const address = comma < 0 ? '' : location.slice(comma + 1).trim();
  return { title, address, geoLat, geoLng };
}

function mapOrganizer(ev: Component): MappedOrganizer | null {
  const prop = ev.getFirstProperty('organizer');
  if (!prop) return null;
  const value = String(prop.getFirstValue() ?? '');
  const email = value.replace(/^mailto:/i, '').trim();
  const cn = String(prop.getParameter('cn') ?? '').trim();
  if (email === '' && cn === '') return null;
  return { title: cn || email, email: email.includes('@') ? email : '' };
}

function mapImage(ev: Component): string | null {
  for (const prop of ev.getAllProperties('image')) {
    const url = httpUrl(prop.getFirstValue());
    if (url) return url;
  }
  for (const prop of ev.getAllProperties('attach')) {
    const type = String(prop.getParameter('fmttype') ?? '');
    const url = httpUrl(prop.getFirstValue());
    if (url && (type.startsWith('image/') || /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(url))) return url;
  }
  return null;
}

function mapFields(ev: Component, ctx: Context, dates: ReturnType<typeof mapDates>, recurrence: string[] | null): MappedFields {
  const html = ev
    .getAllProperties('x-alt-desc')
    .find((p) => String(p.getParameter('fmttype') ?? '').toLowerCase() === 'text/html')
    ?.getFirstValue();
  const description = typeof html === 'string' && html.trim() !== '' ? html : escapeHtml(text(ev, 'description'));
  const categories = [
    ...new Set(
      ev
        .getAllProperties('categories')
        .flatMap((p) => p.getValues() as unknown[])
        .map((c) => String(c).trim())
        .filter((c) => c !== ''),
    ),
  ];
  void ctx;
  return {
    title: text(ev, 'summary').trim(),
    description,
    startDate: dates.startDate,
    endDate: dates.endDate,
    timezone: dates.zone,
    allDay: dates.allDay,
    website: httpUrl(ev.getFirstPropertyValue('url')),
    recurrence,
    categories,
    venue: mapVenue(ev),
    organizer: mapOrganizer(ev),
    image: mapImage(ev),
  };
}

function lastModifiedOf(ev: Component): string | null {
  const t = ev.getFirstPropertyValue('last-modified') as Time | null;
  if (!t || typeof t !== 'object' || !('year' in t)) return null;
  return formatWall(msToWall(t.toUnixTime() * 1000));
}

/**
 * ical.js parses a whole file at once and refuses it all for one value it cannot read (an RRULE whose FREQ is
 * not one of RFC 5545's, a BYDAY of no weekday, a COUNT that is no number): one bad event of a feed would fail
 * the import of every other. When the file fails, each VEVENT is parsed alone; those ical.js refuses are left
 * out (their lines blanked, so every line keeps its number) and reported as those items' errors, and the rest
 * parsed again. What is wrong outside a VEVENT (the calendar's own properties, a VTIMEZONE) still fails the file,
 * with the line ical.js' message points at.
 */
function parseLeavingOutBadEvents(
  source: string,
  shape: IcsOutline,
): { root: Component; blocks: readonly Block[]; lines: readonly string[]; errors: MappedError[] } {
  const parse = (text: string) => new ICAL.Component(ICAL.parse(upperCaseRules(text)) as unknown[]);
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  // ical.js names the offending text, not its line: the first of these lines (1-based) holding it, or 0 (in a
  // whole file, only a text of four characters or more is looked for: a shorter one names too many lines)
  const lineOf = (error: unknown, lines: readonly string[], from = 1, to = lines.length) => {
    const quoted = /"([^"]+)"/.exec(message(error))?.[1]?.slice(0, 40);
    if (quoted === undefined || (quoted.length < 4 && from === 1)) return 0;
    for (let n = from; n <= to; n++) if (lines[n - 1]?.includes(quoted)) return n;
    return 0;
  };
  const blocks = shape.veventLines.map((begin, k) => ({ begin, end: shape.veventEnds[k] }));
  let first: unknown;
  try {
    return { root: parse(source), blocks, lines: shape.lines, errors: [] };
  } catch (error) {
    first = error;
  }
  // (a copy: the VEVENTs left out are blanked in it)
  const lines = [...shape.lines];
  const errors: MappedError[] = [];
  const left = new Set<number>();
  shape.veventLines.forEach((begin, k) => {
    const end = shape.veventEnds[k];
    try {
      parse(['BEGIN:VCALENDAR', ...lines.slice(begin - 1, end), 'END:VCALENDAR'].join('\r\n'));
    } catch (error) {
      const at = lineOf(error, lines, begin, end);
      const uid = valuesWithin(lines, { begin, end }, 'UID')[0] || null;
      errors.push({ uid, recurrenceId: null, line: begin, reason: `${at ? `line ${at}: ` : ''}${message(error)}` });
      left.add(k);
      for (let n = begin; n <= end; n++) lines[n - 1] = '';
    }
  });
  if (left.size === 0) {
    throw new IcsFormatError(lineOf(first, lines) || null, message(first));
  }
  try {
    return { root: parse(lines.join('\r\n')), blocks: blocks.filter((_, k) => !left.has(k)), lines, errors };
  } catch (error) {
    throw new IcsFormatError(lineOf(error, lines) || null, message(error));
  }
}

/**
 * RRULE and EXRULE lines (with their folded continuations) in upper case: a rule's parts are names, numbers and
 * UTC date-times, case-insensitive in RFC 5545 (§2, §3.3.10), and ical.js refuses `freq=weekly`. Only what
 * ical.js reads: the rule as written (valuesWithin) is what the API judges, and it reads any case.
 */
function upperCaseRules(text: string): string {
  return text.replace(/^(?:RRULE|EXRULE)[;:][^\r\n]*(?:(?:\r\n|\n|\r)[ \t][^\r\n]*)*/gim, (rule) => rule.toUpperCase());
}

/** A VEVENT's physical lines, first and last (1-based). */
interface Block {
  readonly begin: number;
  readonly end: number;
}

/** The values of a property of the VEVENT on these lines, as written (unfolded), its own lines only (not a VALARM's). */
function valuesWithin(lines: readonly string[], block: Block, name: string): string[] {
  const values: string[] = [];
  const pattern = new RegExp(`^${name}[;:]`, 'i');
  let depth = 0;
  for (let j = block.begin; j < block.end - 1; j++) {
    const line = lines[j];
    if (/^BEGIN:/i.test(line)) depth++;
    else if (/^END:/i.test(line)) depth--;
    else if (depth === 0 && pattern.test(line)) {
      let value = line.slice(line.indexOf(':') + 1);
      for (let c = j + 1; c < block.end && /^[ \t]/.test(lines[c]); c++) value += lines[c].slice(1);
      values.push(value.trim());
    }
  }
  return values;
}

/** Parses and maps a whole calendar. Throws IcsFormatError when the file itself is malformed. */
export function mapCalendar(source: string, siteZone: string): MappedCalendar {
  const { root, blocks, lines, errors } = parseLeavingOutBadEvents(source, outline(source));
  if (root.name !== 'vcalendar') throw new IcsFormatError(1, 'the text is not a VCALENDAR');
  const declared = text(root, 'x-wr-timezone').trim();
  const ctx: Context = { siteZone, calendarZone: (declared && ianaForTzid(declared)) || siteZone, series: new Map() };
  const identity = text(root, 'x-wr-relcalid') || text(root, 'x-wr-calname') || text(root, 'prodid') || 'calendar';

  const events = root.getAllSubcomponents('vevent').map((ev, i) => ({ ev, block: blocks[i] as Block | undefined }));
  const masters = events.filter((e) => !e.ev.hasProperty('recurrence-id'));
  const overrides = events.filter((e) => e.ev.hasProperty('recurrence-id'));
  const items: MappedItem[] = [];
  const seen = new Set<string>();

  for (const { ev, block } of [...masters, ...overrides]) {
    const line = block?.begin ?? null;
    const uid = text(ev, 'uid').trim();
    let recurrenceId: string | null = null;
    try {
      if (uid === '') throw new Error('UID is missing');
      if (uid.length > 255) throw new Error('UID is longer than 255 characters');
      const ridProp = ev.getFirstProperty('recurrence-id');
      if (ridProp) {
        const series = ctx.series.get(uid);
        const rid = whenOf(ridProp);
        const zone = series?.zone ?? (rid.kind === 'zoned' ? rid.zone : ctx.calendarZone);
        const wall = series?.allDay || rid.kind === 'date' ? atTimeOfDay(wallIn(rid, zone, ctx.siteZone), 0, 0, 0) : wallIn(rid, zone, ctx.siteZone);
        recurrenceId = formatWall(wall);
      }
      const key = `${uid}\u0000${recurrenceId ?? ''}`;
      if (seen.has(key)) throw new Error('the same UID (and RECURRENCE-ID) appears twice in the file');
      seen.add(key);
      const recurring = !ridProp && ev.hasProperty('rrule');
      const dates = mapDates(ev, ctx, recurring || (!ridProp && ev.hasProperty('rdate')));
      const recurrence = ridProp ? null : mapRecurrence(ev, dates.zone, dates.allDay, ctx, block && valuesWithin(lines, block, 'RRULE'));
      if (!ridProp && recurrence) ctx.series.set(uid, { zone: dates.zone, allDay: dates.allDay });
      const fields = mapFields(ev, ctx, dates, recurrence);
      const cancelled = text(ev, 'status').trim().toUpperCase() === 'CANCELLED';
      const sequence = Number.parseInt(text(ev, 'sequence'), 10);
      items.push({
        uid,
        recurrenceId: recurrenceId ?? '',
        line,
        sequence: Number.isFinite(sequence) ? sequence : null,
        lastModified: lastModifiedOf(ev),
        cancelled,
        fields,
        hash: hashOf({ fields, cancelled }),
      });
    } catch (error) {
      errors.push({ uid: uid || null, recurrenceId, line, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { identity: identity.trim().slice(0, 400), items, errors };
}
