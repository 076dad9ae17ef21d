/**
 * Venue and organizer objects (CONTRACT.md §2.2, §2.3): keys in the original's order; the keys the schema marks
 * optional are dropped when empty (PHP-falsy: '', '0', 0, false, []), as the original drops them. Each serializer
 * writes every key of its schema (a missing one fails to compile). `json_ld` in single contexts.
 */
import type { TObject } from '@sinclair/typebox';
import { autop, escHtml, texturize } from '../domain/content/html.js';
import type { LinkedType, OrganizerRecord, RecordOf, VenueRecord } from '../domain/linked/linked.js';
import type { LinkedView } from '../domain/linked/linked.service.js';
import { answeredUtcDates } from '../domain/posts/status.js';
import {
  type OrganizerResponse,
  OrganizerSchema,
  type VenueResponse,
  VenueSchema,
} from '../http/routes/venues-organizers/venues-organizers.schemas.js';
import type { Urls } from '../http/urls.js';
import { globalIds } from './global-id.js';
import { serializeImage } from './image.serializer.js';
import { jsonLdDescription } from './json-ld-text.js';

type Json = Record<string, unknown>;

/** Every key of a response type, present (possibly undefined): what a serializer must write. */
type Complete<T> = { [K in keyof Required<T>]: T[K] | undefined };

function empty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    value === '0' ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** Each schema's copier (see dropEmptyOptional), written at its first object. */
const copiers = new WeakMap<TObject, (full: Json) => Json>();

/**
 * The object with its empty optional keys (those not in the schema's `required`) left out, in order. The copy is
 * a function written for the schema, in the order of the keys of the first object it gets (a serializer writes
 * them always in the same order): a key at a time by name, ~0.2 µs a venue, where a loop over the keys with a
 * set of the required ones took ~1.5 µs and left an object slower to stringify (2–3 µs more). Keys are written as
 * JSON string literals (the schema's own names; `__proto__` is refused).
 */
function dropEmptyOptional<T>(schema: TObject, full: Complete<T>): T {
  let copy = copiers.get(schema);
  if (!copy) {
    const required = new Set(schema.required ?? []);
    const steps = Object.keys(full as Json).map((k) => {
      if (k === '__proto__') throw new Error('a schema key named __proto__');
      const key = JSON.stringify(k);
      return required.has(k) ? `out[${key}] = f[${key}];` : `if (!empty(f[${key}])) out[${key}] = f[${key}];`;
    });
    copy = new Function('empty', `return (f) => { const out = {}; ${steps.join(' ')} return out; };`)(empty) as (full: Json) => Json;
    copiers.set(schema, copy);
  }
  return copy(full as Json) as T;
}

function compact(entries: [string, unknown][]): Json {
  return Object.fromEntries(entries.filter(([, v]) => !empty(v)));
}

export function venueJsonLd(view: LinkedView<VenueRecord>): Json {
  const v = view.record;
  const ld: Json = { '@type': 'Place', name: v.title, description: jsonLdDescription('', v.content) };
  if (view.image) ld.image = view.image.url;
  // (recorded: the original's Place has an empty url, a venue's site being its sameAs)
  ld.url = '';
  // the address as the original's template tags give it, HTML-escaped (`West &amp; 9th St`)
  ld.address = {
    '@type': 'PostalAddress',
    ...compact([
      ['streetAddress', escHtml(v.address)],
      ['addressLocality', escHtml(v.city)],
      ['addressRegion', escHtml(v.stateprovince || v.state || v.province)],
      ['postalCode', escHtml(v.zip)],
      ['addressCountry', escHtml(v.country)],
    ]),
  };
  if (v.geoLat !== null && v.geoLng !== null) ld.geo = { '@type': 'GeoCoordinates', latitude: v.geoLat, longitude: v.geoLng };
  ld.telephone = v.phone;
  ld.sameAs = v.website;
  return ld;
}

export function organizerJsonLd(view: LinkedView<OrganizerRecord>): Json {
  const o = view.record;
  const ld: Json = { '@type': 'Person', name: o.title, description: jsonLdDescription('', o.content) };
  if (view.image) ld.image = view.image.url;
  ld.url = o.website;
  ld.telephone = o.phone;
  ld.email = o.email;
  ld.sameAs = o.website;
  return ld;
}

/*
 * The objects below are written key by key, not assembled with spreads (`{ ...head(), venue, ...body() }`): on
 * Node 20 every key written after a leading spread costs ~1 µs (an object made by a spread takes its later keys
 * the slow way), which made one venue ~40 µs to serialise against ~2 µs written out.
 */

export function serializeVenue(view: LinkedView<VenueRecord>, urls: Urls, options: { single?: boolean } = {}): VenueResponse {
  const v = view.record;
  const ids = globalIds(v, urls);
  const utc = answeredUtcDates(v);
  return dropEmptyOptional<VenueResponse>(VenueSchema, {
    id: v.id,
    author: String(v.authorId),
    status: v.status,
    date: v.date,
    date_utc: utc.dateUtc,
    modified: v.modified,
    modified_utc: utc.modifiedUtc,
    url: urls.permalink(v.type, v.slug, v.id, v.status),
    venue: texturize(v.title),
    description: autop(v.content),
    excerpt: autop(v.excerpt),
    slug: v.slug,
    image: serializeImage(view.image) || undefined,
    address: v.address,
    city: v.city,
    country: v.country,
    province: v.province,
    state: v.state,
    zip: v.zip,
    phone: v.phone,
    website: v.website,
    stateprovince: v.stateprovince,
    geo_lat: v.geoLat ?? undefined,
    geo_lng: v.geoLng ?? undefined,
    json_ld: options.single ? venueJsonLd(view) : undefined,
    show_map: v.showMap,
    show_map_link: v.showMapLink,
    global_id: ids.global_id,
    global_id_lineage: ids.global_id_lineage,
  });
}

export function serializeOrganizer(view: LinkedView<OrganizerRecord>, urls: Urls, options: { single?: boolean } = {}): OrganizerResponse {
  const o = view.record;
  const ids = globalIds(o, urls);
  const utc = answeredUtcDates(o);
  return dropEmptyOptional<OrganizerResponse>(OrganizerSchema, {
    id: o.id,
    author: String(o.authorId),
    status: o.status,
    date: o.date,
    date_utc: utc.dateUtc,
    modified: o.modified,
    modified_utc: utc.modifiedUtc,
    url: urls.permalink(o.type, o.slug, o.id, o.status),
    organizer: texturize(o.title),
    description: autop(o.content),
    excerpt: autop(o.excerpt),
    slug: o.slug,
    image: serializeImage(view.image) || undefined,
    phone: o.phone,
    website: o.website,
    email: o.email,
    json_ld: options.single ? organizerJsonLd(view) : undefined,
    global_id: ids.global_id,
    global_id_lineage: ids.global_id_lineage,
  });
}

/** The object of either kind. */
export function serializeLinked<T extends LinkedType>(
  type: T,
  view: LinkedView<RecordOf<T>>,
  urls: Urls,
  options: { single?: boolean } = {},
): VenueResponse | OrganizerResponse {
  return type === 'venue'
    ? serializeVenue(view as LinkedView<VenueRecord>, urls, options)
    : serializeOrganizer(view as LinkedView<OrganizerRecord>, urls, options);
}
