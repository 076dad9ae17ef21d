/**
 * Events as an iCalendar stream (FEATURES.md §3.4): one VEVENT per single event; a series as one VEVENT with its
 * RRULE/RDATE/EXDATE (cancelled occurrences are EXDATEs) and one VEVENT per exception with RECURRENCE-ID in the
 * form of DTSTART; one VTIMEZONE per zone used. What a VEVENT shows is what the event's JSON shows the same caller
 * (venue and organizers only when readable); a password-protected event shows its title and times only.
 */
import sanitizeHtml from 'sanitize-html';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { termText } from '../../domain/content/html.js';
import type { CalendarEntry, EventView } from '../../domain/events/event.service.js';
import { parseRecurrence, type Recurrence } from '../../domain/events/recurrence.js';
import { frameOf } from '../../domain/events/series.js';
import type { Urls } from '../../http/urls.js';
import { compactDate, compactWall, getZone, msToWall, parseWall, type WallTime, wallToMs, zonedWallToUtcMs } from '../../time/zones.js';
import { eventPermalink } from '../event.serializer.js';
import { escapeText, IcalWriter } from './ical-writer.js';

export interface IcalCalendarInfo {
  readonly name: string;
  readonly description: string;
  readonly siteZone: string;
  readonly version: string;
  /** Feeds: how often subscribers should poll; absent for one event. */
  readonly refresh?: string;
}

const compactUtc = (ms: number) => `${compactWall(msToWall(ms))}Z`;
const storedUtc = (value: string) => `${compactWall(parseWall(value))}Z`;

const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Z', 'Etc/Universal', 'Universal', 'Zulu']);
const vtimezones = new Map<string, { tzid: string; block: string } | null>();

/**
 * The VTIMEZONE of a zone (Outlook-style: the current rules as yearly RRULEs from 1970) and the TZID it names,
 * or null for UTC, `UTC±N` and zones the library does not know: their times are written in UTC instead.
 */
function vtimezone(zone: string): { tzid: string; block: string } | null {
  // (`UTC±N` is no zone name the library knows: asked, it writes "Given time zone not valid." to the console)
  if (UTC_NAMES.has(zone) || /^UTC[+-]/.test(zone)) return null;
  let found = vtimezones.get(zone);
  if (found === undefined) {
    found = null;
    try {
      const result = tzlib_get_ical_block(zone);
      const block = Array.isArray(result) ? result[0] : undefined;
      const tzid = block ? /^TZID:(.+)$/m.exec(block)?.[1]?.trim() : undefined;
      if (block?.startsWith('BEGIN:VTIMEZONE') && tzid) found = { tzid, block };
    } catch {
      // unknown to the library: UTC times
    }
    vtimezones.set(zone, found);
  }
  return found;
}

/** HTML → plain text for DESCRIPTION: block ends become line breaks, tags go, entities are decoded. */
export function htmlToText(html: string): string {
  const broken = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|tr|blockquote|pre)>/gi, '\n');
  const text = sanitizeHtml(broken, { allowedTags: [], allowedAttributes: {} })
    // sanitize-html decodes every entity and writes these four back
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** How one event's times are written: in its zone (with the TZID) or, without a usable VTIMEZONE, in UTC. */
interface TimeForm {
  readonly tzid: string | undefined;
  readonly zoneName: string;
  readonly allDay: boolean;
}

function formOf(view: EventView, siteZone: string): TimeForm {
  const zoneName = view.record.timezone || siteZone;
  return { tzid: view.record.allDay ? undefined : vtimezone(zoneName)?.tzid, zoneName, allDay: view.record.allDay };
}

/** A date-time property of a wall time in the event's zone, in the event's form. */
function when(w: IcalWriter, name: string, wall: WallTime, form: TimeForm): void {
  if (form.allDay) w.raw(name, compactDate(wall), { VALUE: 'DATE' });
  else if (form.tzid) w.raw(name, compactWall(wall), { TZID: form.tzid });
  else w.raw(name, compactUtc(zonedWallToUtcMs(wall, getZone(form.zoneName))));
}

/** RDATE/EXDATE lines for wall times, in the event's form. */
function dateList(w: IcalWriter, name: string, walls: readonly WallTime[], form: TimeForm): void {
  if (walls.length === 0) return;
  if (form.allDay) w.raw(name, walls.map(compactDate).join(','), { VALUE: 'DATE' });
  else if (form.tzid) w.raw(name, walls.map(compactWall).join(','), { TZID: form.tzid });
  else w.raw(name, walls.map((x) => compactUtc(zonedWallToUtcMs(x, getZone(form.zoneName)))).join(','));
}

/**
 * A URI value (RFC 5545 §3.3.13 is RFC 3986's URI): a stored URL may hold what no URI may (an external image's
 * spaces, quotes, non-ASCII characters), percent-encoded here as a browser would send them.
 */
function uri(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** A FLOAT (RFC 5545 §3.3.7: digits, never an exponent, which String(1e-7) writes) to GEO's six decimal places (§3.8.1.6). */
const icalFloat = (n: number) =>
  n
    .toFixed(6)
    .replace(/\.?0+$/, '')
    .replace(/^-0$/, '0');

function venueLine(view: EventView): string | undefined {
  const venue = view.venue?.record;
  if (!venue) return undefined;
  const place = [venue.zip, venue.city].filter((s) => s).join(' ');
  return [venue.title, venue.address, place, venue.stateprovince, venue.country].filter((s) => s && s.trim() !== '').join(', ');
}

function writeEvent(
  w: IcalWriter,
  view: EventView,
  urls: Urls,
  info: IcalCalendarInfo,
  uid: string,
  extra: (w: IcalWriter) => void,
  /** A later change of what the VEVENT shows than the event's own (a master's EXDATE from a cancelled occurrence). */
  laterUtc?: string,
): void {
  const e = view.record;
  const form = formOf(view, info.siteZone);
  const modified = laterUtc !== undefined && laterUtc > e.modifiedUtc ? laterUtc : e.modifiedUtc;
  w.begin('VEVENT');
  w.text('UID', uid);
  w.raw('SEQUENCE', String(e.icalSequence));
  w.raw('DTSTAMP', storedUtc(modified));
  w.raw('CREATED', storedUtc(e.dateUtc));
  w.raw('LAST-MODIFIED', storedUtc(modified));
  when(w, 'DTSTART', parseWall(e.startDate), form);
  // all-day: DTEND is the day after the last one (exclusive, RFC 5545 §3.6.1)
  if (form.allDay) when(w, 'DTEND', msToWall(wallToMs(parseWall(e.endDate.slice(0, 10).concat(' 00:00:00'))) + 86_400_000), form);
  // one that ends when it starts has none: DTEND must be later than DTSTART (§3.8.2.2), and none means that (§3.6.1)
  else if (e.endDate !== e.startDate) when(w, 'DTEND', parseWall(e.endDate), form);
  extra(w);
  w.text('SUMMARY', e.title);
  const locked = e.password !== '';
  w.text('DESCRIPTION', locked ? 'Content is protected.' : htmlToText(e.content));
  w.value('URL', uri(eventPermalink(view, urls)), { VALUE: 'URI' });
  if (!locked) {
    w.text('LOCATION', venueLine(view));
    const venue = view.venue?.record;
    if (venue && venue.geoLat !== null && venue.geoLng !== null && venue.geoLat !== undefined && venue.geoLng !== undefined) {
      w.raw('GEO', `${icalFloat(Number(venue.geoLat))};${icalFloat(Number(venue.geoLng))}`);
    }
    if (view.categories.length > 0) w.raw('CATEGORIES', view.categories.map((t) => escapeText(termText(t.name))).join(','));
    const organizer = view.organizers.find((o) => o.record.email);
    if (organizer) w.value('ORGANIZER', `mailto:${organizer.record.email}`, { CN: organizer.record.title || undefined });
    if (view.image) {
      w.value('IMAGE', uri(view.image.url), { VALUE: 'URI', DISPLAY: 'BADGE' });
      w.value('ATTACH', uri(view.image.url), { FMTTYPE: view.image.mimeType || undefined });
    }
  }
  w.raw('STATUS', e.status === 'publish' || e.status === 'private' ? 'CONFIRMED' : 'TENTATIVE');
  w.raw('CLASS', e.status === 'private' ? 'PRIVATE' : 'PUBLIC');
  w.raw('TRANSP', 'OPAQUE');
  w.end('VEVENT');
}

function fallbackUid(view: EventView, urls: Urls): string {
  return `${view.record.id}@${new URL(urls.home).hostname}`;
}

/** A series' master VEVENT lines: its rule, extra dates and removed ones (its own EXDATEs and cancelled occurrences). */
function seriesLines(entry: CalendarEntry, info: IcalCalendarInfo): (w: IcalWriter) => void {
  const view = entry.view;
  const series = view.series;
  if (series?.kind !== 'series') return () => undefined;
  const form = formOf(view, info.siteZone);
  let rec: Recurrence | undefined;
  try {
    rec = parseRecurrence(series.recurrence, frameOf(view.record, info.siteZone));
  } catch {
    rec = undefined;
  }
  return (w) => {
    if (!rec) return;
    if (rec.rule) w.raw('RRULE', rec.rule);
    dateList(w, 'RDATE', rec.rdates, form);
    const removed = [...rec.exdates, ...(entry.cancelled ?? []).map(parseWall)];
    const seen = new Set<number>();
    dateList(
      w,
      'EXDATE',
      removed.filter((x) => {
        const ms = wallToMs(x);
        if (seen.has(ms)) return false;
        seen.add(ms);
        return true;
      }),
      form,
    );
  };
}

/** The VCALENDAR of these entries. */
export function serializeCalendar(entries: readonly CalendarEntry[], urls: Urls, info: IcalCalendarInfo): string {
  const w = new IcalWriter();
  w.begin('VCALENDAR');
  w.raw('VERSION', '2.0');
  w.text('PRODID', `-//${info.name}//events-api ${info.version}//EN`);
  w.raw('CALSCALE', 'GREGORIAN');
  w.raw('METHOD', 'PUBLISH');
  w.text('NAME', info.name);
  w.text('X-WR-CALNAME', info.name);
  w.text('X-WR-CALDESC', info.description);
  w.value('X-WR-TIMEZONE', info.siteZone);
  if (info.refresh) {
    w.raw('REFRESH-INTERVAL', info.refresh, { VALUE: 'DURATION' });
    w.raw('X-PUBLISHED-TTL', info.refresh);
  }
  const zones = new Set<string>();
  const all = entries.flatMap((e) => [e.view, ...(e.exceptions ?? [])]);
  for (const view of all) {
    const tz = view.record.allDay ? undefined : vtimezone(view.record.timezone || info.siteZone);
    if (tz && !zones.has(tz.tzid)) {
      zones.add(tz.tzid);
      w.block(tz.block);
    }
  }
  for (const entry of entries) {
    const uid = entry.view.record.icalUid ?? fallbackUid(entry.view, urls);
    writeEvent(w, entry.view, urls, info, uid, seriesLines(entry, info), entry.cancelledModifiedUtc);
    const form = formOf(entry.view, info.siteZone);
    for (const exception of entry.exceptions ?? []) {
      const s = exception.series;
      if (s?.kind !== 'occurrence') continue;
      writeEvent(w, exception, urls, info, uid, (x) => when(x, 'RECURRENCE-ID', parseWall(s.originalStart), form));
    }
  }
  w.end('VCALENDAR');
  return w.toString();
}
