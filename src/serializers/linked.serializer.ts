/**
 * Venue and organizer objects (CONTRACT.md §2.2, §2.3): keys in the original's order, empty values dropped
 * (PHP-falsy: '', '0', 0, false, []); venues always end with show_map, show_map_link, global_id and
 * global_id_lineage. `json_ld` in single contexts.
 */
import { autop, texturize } from '../domain/content/html.js';
import type { LinkedView } from '../domain/linked/linked.service.js';
import type { LinkedRecord, OrganizerRecord, VenueRecord } from '../domain/linked/linked.js';
import type { Urls } from '../http/urls.js';
import { serializeImage } from './image.serializer.js';

type Json = Record<string, unknown>;

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

/** Copies the entries whose value is not empty, in order. */
function compact(entries: [string, unknown][]): Json {
  const out: Json = {};
  for (const [k, v] of entries) if (!empty(v)) out[k] = v;
  return out;
}

function head(view: LinkedView, urls: Urls, nameKey: 'venue' | 'organizer'): [string, unknown][] {
  const r: LinkedRecord = view.record;
  return [
    ['id', r.id],
    ['author', String(r.authorId)],
    ['status', r.status],
    ['date', r.date],
    ['date_utc', r.dateUtc],
    ['modified', r.modified],
    ['modified_utc', r.modifiedUtc],
    ['url', urls.permalink(r.type, r.slug, r.id)],
    [nameKey, texturize(r.title)],
    ['description', autop(r.content)],
    ['excerpt', autop(r.excerpt)],
    ['slug', r.slug],
    ['image', serializeImage(view.image)],
  ];
}

function plain(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
}

export function venueJsonLd(view: LinkedView<VenueRecord>, urls: Urls): Json {
  const v = view.record;
  const ld: Json = { '@type': 'Place', name: v.title, description: plain(v.content) };
  if (view.image) ld.image = view.image.url;
  ld.url = urls.permalink('venue', v.slug, v.id);
  ld.address = {
    '@type': 'PostalAddress',
    ...compact([
      ['streetAddress', v.address],
      ['addressLocality', v.city],
      ['addressRegion', v.stateprovince || v.state || v.province],
      ['postalCode', v.zip],
      ['addressCountry', v.country],
    ]),
  };
  if (v.geoLat !== null && v.geoLng !== null) ld.geo = { '@type': 'GeoCoordinates', latitude: v.geoLat, longitude: v.geoLng };
  ld.telephone = v.phone;
  ld.sameAs = v.website;
  return ld;
}

export function organizerJsonLd(view: LinkedView<OrganizerRecord>): Json {
  const o = view.record;
  const ld: Json = { '@type': 'Person', name: o.title, description: plain(o.content) };
  if (view.image) ld.image = view.image.url;
  ld.url = o.website;
  ld.telephone = o.phone;
  ld.email = o.email;
  ld.sameAs = o.website;
  return ld;
}

export function serializeVenue(view: LinkedView<VenueRecord>, urls: Urls, options: { single?: boolean } = {}): Json {
  const v = view.record;
  const globalId = urls.globalId(v.id);
  return {
    ...compact([
      ...head(view, urls, 'venue'),
      ['address', v.address],
      ['city', v.city],
      ['country', v.country],
      ['province', v.province],
      ['state', v.state],
      ['zip', v.zip],
      ['phone', v.phone],
      ['website', v.website],
      ['stateprovince', v.stateprovince],
      ['geo_lat', v.geoLat],
      ['geo_lng', v.geoLng],
      ['json_ld', options.single ? venueJsonLd(view, urls) : undefined],
    ]),
    show_map: v.showMap,
    show_map_link: v.showMapLink,
    global_id: globalId,
    global_id_lineage: [globalId],
  };
}

export function serializeOrganizer(view: LinkedView<OrganizerRecord>, urls: Urls, options: { single?: boolean } = {}): Json {
  const o = view.record;
  const globalId = urls.globalId(o.id);
  return compact([
    ...head(view, urls, 'organizer'),
    ['phone', o.phone],
    ['website', o.website],
    ['email', o.email],
    ['json_ld', options.single ? organizerJsonLd(view) : undefined],
    ['global_id', globalId],
    ['global_id_lineage', [globalId]],
  ]);
}
