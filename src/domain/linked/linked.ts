/**
 * Venues and organizers: "linked posts" of events in the original. They share the post fields and the rules for
 * status, slugs, trash and duplicate avoidance; each kind has its own detail fields, described once here. The
 * descriptor drives the write arguments (validation per field kind), the store (columns, search), the create
 * defaults and the types below.
 */

import type { PostInput, PostRecord } from '../posts/post.js';
import type { Visibility } from '../visibility.js';

export type LinkedType = 'venue' | 'organizer';

/** How a detail field is written and checked: plain text, a `"true"`/`"false"` string flag, a URL, coordinates. */
export type FieldKind = 'text' | 'flag' | 'url' | 'email' | 'latitude' | 'longitude';

type FieldValue<K extends FieldKind> = K extends 'flag' ? boolean : K extends 'latitude' | 'longitude' ? number | null : string;

export interface FieldSpec<K extends FieldKind = FieldKind> {
  /** Wire name, and the column that stores it. */
  readonly wire: string;
  readonly kind: K;
  readonly description: string;
  /** The value a new record gets when the field is not sent, and what `null` resets it to. */
  readonly default: FieldValue<K>;
  /** Searched by the list's `search` (CONTRACT.md §4). */
  readonly searched?: boolean;
}

const field = <const W extends string, K extends FieldKind>(
  wire: W,
  kind: K,
  description: string,
  options: { default?: FieldValue<K>; searched?: boolean } = {},
) =>
  ({
    wire,
    kind,
    description,
    default: options.default ?? ((kind === 'latitude' || kind === 'longitude' ? null : kind === 'flag' ? false : '') as FieldValue<K>),
    searched: options.searched,
  }) as FieldSpec<K> & { readonly wire: W };

type Fields = Readonly<Record<string, FieldSpec>>;

export interface LinkedKind<T extends LinkedType = LinkedType, F extends Fields = Fields, P extends Fields = Fields> {
  readonly type: T;
  readonly plural: `${T}s`;
  /** The type with its article, for messages ("12 is not an organizer."). */
  readonly named: string;
  /** The details table (one row per record, keyed by `post_id`). */
  readonly table: `${T}s`;
  /** The detail fields on the wire, in the original's argument order. */
  readonly fields: F;
  /** Detail fields the service keeps for itself: no argument, no response key. */
  readonly kept: P;
  /**
   * Fields computed from others after a write's fields are known: `sent` is the input, `current` the record
   * before (undefined for a new one), `out` the detail fields about to be written (completed in place).
   */
  readonly derive?: (
    sent: Readonly<Record<string, unknown>>,
    current: Readonly<Record<string, unknown>> | undefined,
    out: Record<string, unknown>,
  ) => void;
}

export const VENUE = {
  type: 'venue',
  plural: 'venues',
  named: 'a venue',
  table: 'venues',
  fields: {
    // a typed string in the original (CONTRACT.md §6.3): "false"/"0" are false; default true on create
    showMap: field('show_map', 'flag', 'Whether events at the venue show a map', { default: true }),
    showMapLink: field('show_map_link', 'flag', 'Whether events at the venue show a map link', { default: true }),
    address: field('address', 'text', 'Street address', { searched: true }),
    city: field('city', 'text', 'City', { searched: true }),
    country: field('country', 'text', 'Country'),
    province: field('province', 'text', 'Province', { searched: true }),
    state: field('state', 'text', 'State', { searched: true }),
    zip: field('zip', 'text', 'Postal code', { searched: true }),
    phone: field('phone', 'text', 'Phone', { searched: true }),
    stateprovince: field('stateprovince', 'text', 'State or province (derived from state/province/country until one is sent)', {
      searched: true,
    }),
    website: field('website', 'url', 'The venue website'),
    geoLat: field('geo_lat', 'latitude', 'The latitude, in decimal degrees'),
    geoLng: field('geo_lng', 'longitude', 'The longitude, in decimal degrees'),
  },
  kept: {
    stateprovinceExplicit: field('stateprovince_explicit', 'flag', 'Whether stateprovince was sent rather than derived'),
  },
  derive: deriveVenueStateProvince,
} as const satisfies LinkedKind<'venue'>;

export const ORGANIZER = {
  type: 'organizer',
  plural: 'organizers',
  named: 'an organizer',
  table: 'organizers',
  fields: {
    phone: field('phone', 'text', 'Phone', { searched: true }),
    website: field('website', 'url', 'The organizer website', { searched: true }),
    email: field('email', 'email', 'E-mail address (not format-checked, as in the original)', { searched: true }),
  },
  kept: {},
} as const satisfies LinkedKind<'organizer'>;

export const LINKED_KINDS = { venue: VENUE, organizer: ORGANIZER } as const;
export type KindOf<T extends LinkedType> = (typeof LINKED_KINDS)[T];

type ValuesOf<F extends Fields> = { readonly [K in keyof F]: FieldValue<F[K]['kind']> };
/** A kind's detail fields on the wire, typed from its descriptor. */
export type WireDetailsOf<T extends LinkedType> = ValuesOf<KindOf<T>['fields']>;
/** All of a kind's detail fields (on the wire and kept), typed from its descriptor. */
export type DetailsOf<T extends LinkedType> = WireDetailsOf<T> & ValuesOf<KindOf<T>['kept']>;

export type VenueDetails = DetailsOf<'venue'>;
export type OrganizerDetails = DetailsOf<'organizer'>;

export interface VenueRecord extends PostRecord, VenueDetails {
  readonly type: 'venue';
}
export interface OrganizerRecord extends PostRecord, OrganizerDetails {
  readonly type: 'organizer';
}
export type RecordOf<T extends LinkedType> = T extends 'venue' ? VenueRecord : OrganizerRecord;
export type DetailsRecordOf<T extends LinkedType> = T extends 'venue' ? VenueDetails : OrganizerDetails;

/** What a create or update may carry: the post's fields and the kind's details (`null` resets to the default). */
export type LinkedInput<T extends LinkedType = LinkedType> = PostInput & {
  readonly [K in keyof WireDetailsOf<T>]?: WireDetailsOf<T>[K] | null;
};

export interface LinkedListQuery {
  readonly page: number;
  readonly perPage: number;
  readonly search?: string | null;
  readonly event?: number | null;
  readonly hasEvents?: boolean | null;
  readonly onlyWithUpcoming: boolean;
  readonly statuses?: readonly string[] | null;
  /** Last modified after / before (UTC, stored format). */
  readonly modifiedAfter?: string | null;
  readonly modifiedBefore?: string | null;
  /** Sync mode and `include_removed` (FEATURES.md §2.3): read by the route, not the list. */
  readonly syncToken?: string | null;
  readonly pageToken?: string | null;
  readonly includeRemoved?: boolean | null;
}

export interface LinkedListFilter {
  readonly visibility: Visibility;
  readonly statuses?: readonly string[];
  /** Tokens that must all appear in one of the searched fields. */
  readonly searchTokens?: readonly string[];
  readonly event?: number;
  readonly hasEvents?: boolean;
  /** Only those linked to an upcoming event the caller may see (start at or after this UTC time). */
  readonly upcomingFrom?: string;
  /** Last modified after / before these instants (UTC, stored format). */
  readonly modifiedAfter?: string;
  readonly modifiedBefore?: string;
}

/**
 * Venues' `stateprovince` follows state/province/country (CONTRACT.md §6.3) until a request sets it; a value
 * sent stays through partial updates that do not send it (DECISIONS.md); `''` or null go back to deriving it.
 */
function deriveVenueStateProvince(
  sent: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>> | undefined,
  out: Record<string, unknown>,
): void {
  const sp = sent.stateprovince;
  if (typeof sp === 'string' && sp !== '') {
    out.stateprovinceExplicit = true;
    return;
  }
  const touched = sent.state !== undefined || sent.province !== undefined || sent.country !== undefined;
  if (sp === undefined && current !== undefined && (current.stateprovinceExplicit === true || !touched)) return;
  const pick = (k: 'country' | 'state' | 'province') => String((k in out ? out[k] : current?.[k]) ?? '');
  out.stateprovince = deriveStateProvince(pick('country'), pick('state'), pick('province'));
  out.stateprovinceExplicit = false;
}

/** `stateprovince` when it is not given: the state for US (or no) country, else the province. */
function deriveStateProvince(country: string, state: string, province: string): string {
  const c = country.trim().toLowerCase();
  return c === '' || c === 'us' || c === 'usa' || c === 'united states' ? state : province;
}
