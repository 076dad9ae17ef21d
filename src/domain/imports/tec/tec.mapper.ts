/**
 * A remote site's records → what our services take (FEATURES.md §6.3 fidelity rules). Pure: no storage, no
 * fetches; the references to other records (venue, organizers, terms, image) stay remote ids here and are
 * resolved by the writer. Titles, names and descriptions are kept exactly as the site serves them (already
 * texturized HTML: our serializers leave them as they are), so the API answers what the old site answered.
 */
import { createHash } from 'node:crypto';
import { formatUtcMs, formatWall, getZone, parseWall, utcMsToZonedWall, wallToMs, zonedWallToUtcMs } from '../../../time/zones.js';
import { absoluteHttpUrl } from '../../content/web-address.js';
import type { CustomField } from '../../events/event.js';
import { NO_DATE } from '../../posts/status.js';
import { mapZone } from './tec.discovery.js';

export type Json = Record<string, unknown>;

export const str = (o: Json | undefined, k: string): string => (typeof o?.[k] === 'string' ? (o[k] as string) : o?.[k] == null ? '' : String(o[k]));
export const bool = (o: Json, k: string): boolean => o[k] === true || o[k] === 'true' || o[k] === 1 || o[k] === '1';
export const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Json => x !== undefined) : []);

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Json)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable((value as Json)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha256 of a value, key order aside: what an unchanged record is recognised by. */
export const hashOf = (value: unknown): string => createHash('sha256').update(stable(value)).digest('hex');

/** WordPress slugs come percent-encoded (`%e6%97%a5`); ours keep the letters. */
export function decodeSlug(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

/** `esc_html`'d text (an event's website) back to the text. */
export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#0?39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#039': "'", '#39': "'" })[e] ?? _);
}

const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** A permalink's path below the site's home, decoded, with its trailing slash: what the redirect map keys on. */
export function oldPath(url: string, home: string): string | null {
  if (url === '') return null;
  try {
    const u = new URL(url);
    const base = new URL(`${home}/`);
    if (u.origin !== base.origin || u.search !== '') return null;
    let path = u.pathname;
    if (path.startsWith(base.pathname)) path = `/${path.slice(base.pathname.length)}`;
    path = decodeSlug(path);
    return path.endsWith('/') ? path : `${path}/`;
  } catch {
    return null;
  }
}

/** TEC's iCalendar UID: the post id and the local start and end read as if they were UTC (strtotime in a UTC PHP). */
export function tecUid(remoteId: number, startDate: string, endDate: string, host: string): string {
  const seconds = (wall: string) => Math.floor(wallToMs(parseWall(wall)) / 1000);
  return `${remoteId}-${seconds(startDate)}-${seconds(endDate)}@${host}`;
}

/** A cost as our writes take it, from `cost_details` (the values and where the symbol goes), else the text shown. */
export function mapCost(remote: Json): string[] {
  const details = obj(remote.cost_details);
  const shown = unescapeHtml(str(remote, 'cost')).trim();
  if (shown === '') return [];
  const values = Array.isArray(details?.values) ? details.values.map(String) : [];
  const numeric = values.filter((v) => /^\d+(?:\.\d+)?$/.test(v));
  if (numeric.length === 0) return [shown];
  const symbol = str(details, 'currency_symbol');
  const postfix = str(details, 'currency_position') === 'postfix';
  return numeric.map((v) => (symbol === '' ? v : postfix ? `${v}${symbol}` : `${symbol}${v}`));
}

export interface Warning {
  readonly resource: string;
  readonly remoteId: string;
  readonly reason: string;
}

export interface EventDates {
  readonly timezone: string;
  readonly allDay: boolean;
  readonly startDate: string;
  readonly endDate: string;
}

/**
 * When and where an event is (FEATURES.md §6.3): the UTC instants and the zone are the truth; the local wall
 * time is recomputed in the zone and compared with the remote one (a difference is a time zone bug on the
 * remote side, reported with both values). `UTC±N` zones become `Etc/GMT∓N`; an empty zone is the site's.
 * All-day events keep their days (a cutoff-shifted end, e.g. 04:00 → 03:59:59 the next day, ends the day before).
 */
export function eventDates(remote: Json, siteZone: string, warn: (reason: string) => void): EventDates {
  const given = str(remote, 'timezone');
  let zoneName = mapZone(given);
  if (!zoneName) {
    if (given !== '') warn(`time zone "${given}" is not one we know: the site's zone ${siteZone} is used`);
    zoneName = siteZone;
  }
  const start = str(remote, 'start_date');
  const end = WALL.test(str(remote, 'end_date')) ? str(remote, 'end_date') : start;
  if (!WALL.test(start)) throw new Error(`start_date "${start}" is not a date`);
  if (remote.all_day === true) {
    const cutoff = wallToMs(parseWall(`1970-01-01 ${start.slice(11)}`));
    const lastDay = formatWall(utcMsToZonedWall(wallToMs(parseWall(end)) - cutoff, getZone('UTC'))).slice(0, 10);
    const firstDay = start.slice(0, 10);
    return { timezone: zoneName, allDay: true, startDate: `${firstDay} 00:00:00`, endDate: `${[firstDay, lastDay].sort()[1]} 23:59:59` };
  }
  const zone = getZone(zoneName);
  const utcStart = str(remote, 'utc_start_date');
  const utcEnd = str(remote, 'utc_end_date');
  if (!WALL.test(utcStart) || !WALL.test(utcEnd)) return { timezone: zoneName, allDay: false, startDate: start, endDate: end };
  const walls = [utcStart, utcEnd].map((u) => {
    const ms = wallToMs(parseWall(u));
    const wall = formatWall(utcMsToZonedWall(ms, zone));
    // a local time that occurs twice (the fall-back hour) is stored as its first instant: say so when that moves it
    if (zonedWallToUtcMs(parseWall(wall), zone) !== ms) warn(`${u} UTC is the second ${wall} in ${zoneName}: stored as the first one`);
    return wall;
  });
  if (walls[0] !== start || walls[1] !== end) {
    warn(
      `local and UTC times disagree on the remote site: ${start} → ${end} (${given || 'site zone'}) but UTC ${utcStart} → ${utcEnd} is ${walls[0]} → ${walls[1]} in ${zoneName}; the UTC times are kept`,
    );
  }
  return { timezone: zoneName, allDay: false, startDate: walls[0], endDate: walls[1] };
}

/**
 * A remote post's date in UTC: its `date_utc`, or for a draft (whose `date_utc` is `0000-00-00 00:00:00` until
 * it is published) its `date`, read in the site's zone.
 */
export function publicationUtc(remote: Json, siteZone: string): string | undefined {
  const utc = str(remote, 'date_utc');
  if (WALL.test(utc) && utc !== NO_DATE) return utc;
  const local = str(remote, 'date');
  return WALL.test(local) && local !== NO_DATE ? formatUtcMs(zonedWallToUtcMs(parseWall(local), getZone(siteZone))) : undefined;
}

/** Whether a listed event is one whose password blanked it (CONTRACT.md §2.7: its flags are null). */
export function isBlanked(remote: Json): boolean {
  return remote.all_day === null || remote.show_map === null || remote.featured === null;
}

/** The remote global id lineage a record keeps here: its global id, then its own lineage. */
export function lineageOf(remote: Json): string[] {
  const own = str(remote, 'global_id');
  const lineage = Array.isArray(remote.global_id_lineage) ? remote.global_id_lineage.map(String) : [];
  return [...new Set([own, ...lineage].filter((g) => g !== ''))];
}

/**
 * Pro's additional fields (CONTRACT.md §2.1 `custom_fields`: `{"<meta name>": {"label": …, "value": …}}`, `[]`
 * when none), in the site's order, labels and values the strings it sent. An entry that is not a label and a
 * value, both strings, is left out with a warning; an empty value is one the original lists only when a filter
 * put it there, and is left out too. Undefined when there are none (a site without Pro, another instance of
 * this service): an event without fields hashes as it did before they were imported.
 */
export function customFields(remote: Json, warn: (reason: string) => void): CustomField[] | undefined {
  const given = remote.custom_fields;
  if (given === undefined || given === null || (Array.isArray(given) && given.length === 0)) return undefined;
  const fields = obj(given);
  if (!fields) {
    warn(`custom_fields is not an object of fields (${JSON.stringify(given).slice(0, 80)}): none imported`);
    return undefined;
  }
  const out: CustomField[] = [];
  for (const [name, entry] of Object.entries(fields)) {
    const field = obj(entry);
    if (name === '' || !field || typeof field.label !== 'string' || typeof field.value !== 'string') {
      warn(`custom field "${name}" is not a label and a value, both strings: left out`);
      continue;
    }
    if (field.value !== '') out.push({ name, label: field.label, value: field.value });
  }
  return out.length > 0 ? out : undefined;
}

/** The event fields our writes take, but for the references (resolved by the writer). */
export function eventFields(remote: Json, dates: EventDates, status: string, siteZone: string, warn: (reason: string) => void) {
  const website = str(remote, 'website');
  return {
    title: str(remote, 'title'),
    description: str(remote, 'description'),
    excerpt: str(remote, 'excerpt'),
    slug: decodeSlug(str(remote, 'slug')) || undefined,
    status,
    dateUtc: publicationUtc(remote, siteZone),
    ...dates,
    cost: mapCost(remote),
    // the original answers its permalink when no website was set: then there is none here either
    website: website === str(remote, 'url') ? undefined : httpWebsite(unescapeHtml(website)) || undefined,
    showMap: bool(remote, 'show_map'),
    showMapLink: bool(remote, 'show_map_link'),
    hideFromListings: bool(remote, 'hide_from_listings'),
    featured: bool(remote, 'featured'),
    sticky: bool(remote, 'sticky'),
    customFields: customFields(remote, warn),
  };
}

/**
 * A website as the API takes one: an absolute http(s) URL, else none ('') — a site's `javascript:` or `data:`
 * link, which `POST /venues` refuses, is not stored from an import either.
 */
function httpWebsite(value: string): string {
  const trimmed = value.trim();
  return absoluteHttpUrl(trimmed) ? trimmed : '';
}

const VENUE_TEXT = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'] as const;
const ORGANIZER_TEXT = ['phone', 'website', 'email'] as const;

/** A venue's or organizer's fields (the image is the writer's). */
export function linkedFields(kind: 'venue' | 'organizer', remote: Json, status: string, siteZone: string) {
  const out: Record<string, unknown> = {
    title: str(remote, kind),
    description: str(remote, 'description'),
    excerpt: str(remote, 'excerpt'),
    slug: decodeSlug(str(remote, 'slug')) || undefined,
    status,
    dateUtc: publicationUtc(remote, siteZone),
  };
  for (const k of kind === 'venue' ? VENUE_TEXT : ORGANIZER_TEXT) out[k] = k === 'website' ? httpWebsite(str(remote, k)) : str(remote, k);
  if (kind === 'venue') {
    out.showMap = remote.show_map === undefined ? true : bool(remote, 'show_map');
    out.showMapLink = remote.show_map_link === undefined ? true : bool(remote, 'show_map_link');
    const lat = Number(remote.geo_lat);
    const lng = Number(remote.geo_lng);
    if (remote.geo_lat !== undefined && Number.isFinite(lat) && Number.isFinite(lng) && (lat !== 0 || lng !== 0)) {
      out.geoLat = lat;
      out.geoLng = lng;
    }
  }
  return out;
}

/** Whether a venue or organizer came blanked by its password (its name is `[]`, CONTRACT.md §2.7). */
export function isBlankedLinked(kind: 'venue' | 'organizer', remote: Json): boolean {
  return Array.isArray(remote[kind]);
}
