/**
 * Validators of answers and the conditions requests put on them (RFC 9110 §8.8, §13): a strong ETag of the exact
 * bytes a caller gets, Last-Modified dates, If-None-Match and If-Modified-Since (a current copy → 304), If-Match
 * and If-Unmodified-Since (a write on a changed item → 412).
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A strong validator of these bytes. */
export function strongEtag(body: string | Buffer): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 32)}"`;
}

/** The SHA-256 of a text (its UTF-8 bytes), for validators made of parts (partsEtag). */
export function digestOf(text: string): string {
  return hash('sha256', text, 'base64url');
}

/**
 * A strong validator of a body made of parts whose digests are known (a list assembled from kept items): the
 * hash of the parts' digests, in order, with the text around them. A body is a function of these, so any other
 * body has another tag; the same body made again has the same one. Hashing ~40 bytes an item instead of the
 * item's JSON (a default list's ~13 kB was ~7 % of its uncached answer's time, issue 17).
 */
export function partsEtag(texts: readonly string[], digests: readonly string[]): string {
  return strongEtag(`${texts.join('\u0000')}\u0000${digests.join(',')}`);
}

/** The ETag of a JSON answer: the bytes the route sends for this body (Fastify's serializer is JSON.stringify). */
export function jsonEtag(body: unknown): string {
  return strongEtag(JSON.stringify(body));
}

/** The entity tags a list header names (`*` stays `*`); several fields of one name count as one list. */
function entityTags(header: string | string[]): string[] {
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Whether an If-None-Match header names this tag, or `*` (weak comparison, as §13.1.2 asks for GET). */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  // (a poller sends back the one tag it holds: no list to split)
  if (header === etag) return true;
  const tags = entityTags(header).map((t) => t.replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/**
 * Whether an If-Match header holds (§13.1.1, strong comparison): `*` when the item exists; else one of its tags
 * is the item's current ETag, character for character — a weak tag (`W/"…"`) never is.
 */
export function ifMatchHolds(header: string, etag: string | undefined, exists: boolean): boolean {
  const tags = entityTags(header);
  if (tags.includes('*')) return exists;
  return etag !== undefined && tags.includes(etag);
}

/**
 * Whether a write's If-None-Match fails on an existing item (§13.1.2, weak comparison): `*`, or one of its tags is
 * the item's ETag (undefined: the caller gets no 200 for it; only `*` then names it).
 */
export function noneMatchFails(header: string, etag: string | undefined): boolean {
  const tags = entityTags(header).map((t) => t.replace(/^W\//, ''));
  return tags.includes('*') || (etag !== undefined && tags.includes(etag));
}

/** `Tue, 24 Nov 2026 09:15:40 GMT` for an instant in ms. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** A stored UTC stamp (`YYYY-MM-DD HH:MM:SS`) in ms. */
export function storedUtcMs(stored: string): number {
  return Date.parse(`${stored.replace(' ', 'T')}Z`);
}

/** The latest of these stored UTC stamps, as an HTTP date's ms (whole seconds, as stored). */
export function latestMs(stamps: readonly string[]): number {
  return Math.max(...stamps.map(storedUtcMs));
}

/** The three forms, each with its day of the month captured. */
const HTTP_DATES = [
  /^[A-Z][a-z]{2}, (\d{2}) [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, // IMF-fixdate
  /^[A-Z][a-z]+, (\d{2})-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/, // obsolete RFC 850
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} ([ \d]\d) \d{2}:\d{2}:\d{2} \d{4}$/, // obsolete asctime (in GMT)
];

/** An HTTP date (RFC 9110 §5.6.7) in ms; undefined when the value is not one (§13.1.3–4: such a header is ignored). */
export function parseHttpDate(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const form = HTTP_DATES.findIndex((re) => re.test(text));
  if (form < 0) return undefined;
  const ms = Date.parse(form === 2 ? `${text} GMT` : text);
  // (Date.parse rolls a day the month lacks over: `30 Feb` would be March 2nd, a date no one sent)
  const day = Number(HTTP_DATES[form].exec(text)?.[1]);
  return Number.isNaN(ms) || new Date(ms).getUTCDate() !== day ? undefined : ms;
}

/**
 * The conditions a write carries (RFC 9110 §13.2.2: If-Unmodified-Since only counts without If-Match;
 * If-None-Match after either: `*`, or the item's tag, fails while the item exists — "do not overwrite").
 */
export interface WriteConditions {
  readonly ifMatch?: string;
  readonly ifUnmodifiedSince?: number;
  readonly ifNoneMatch?: string;
}

export function writeConditions(headers: IncomingHttpHeaders): WriteConditions | undefined {
  const given = (value: string | undefined) => (value !== undefined && value.trim() !== '' ? value : undefined);
  const ifMatch = given(headers['if-match']);
  const conditions: WriteConditions = {
    ifMatch,
    ifUnmodifiedSince: ifMatch === undefined ? parseHttpDate(headers['if-unmodified-since']) : undefined,
    ifNoneMatch: given(headers['if-none-match']),
  };
  return Object.values(conditions).some((v) => v !== undefined) ? conditions : undefined;
}

/**
 * Whether a read is answered 304: If-None-Match names its tag; or, without If-None-Match (§13.2.2), it was not
 * modified after If-Modified-Since.
 */
export function notModified(headers: IncomingHttpHeaders, etag: string, lastModified: unknown): boolean {
  const none = headers['if-none-match'];
  if (none !== undefined) return matchesEtag(none, etag);
  const since = parseHttpDate(headers['if-modified-since']);
  const modified = parseHttpDate(lastModified);
  return since !== undefined && modified !== undefined && modified <= since;
}
