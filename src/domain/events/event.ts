import type { LinkedInput, OrganizerRecord, VenueRecord } from '../linked/linked.js';
import type { PostInput, PostRecord } from '../posts/post.js';
import type { TermEntry } from '../terms/term.js';
import type { Visibility } from '../visibility.js';

/** The calendar details of an event, beside its post. */
export interface EventDetails {
  /** Wall clock in the event's own zone. */
  readonly startDate: string;
  readonly endDate: string;
  readonly startUtc: string;
  readonly endUtc: string;
  readonly timezone: string;
  readonly timezoneAbbr: string;
  readonly allDay: boolean;
  readonly cost: readonly string[];
  readonly currencySymbol: string;
  readonly currencyCode: string;
  readonly currencyPosition: string;
  /** null when never set (the permalink is shown instead). */
  readonly website: string | null;
  readonly showMap: boolean;
  readonly showMapLink: boolean;
  readonly hideFromListings: boolean;
  readonly featured: boolean;
  readonly venueId: number | null;
  /** A single event, a recurring series' master, or one occurrence of a series (FEATURES.md §1.5). */
  readonly kind: EventKind;
  /** An occurrence's series; null otherwise. */
  readonly seriesId: number | null;
  /**
   * The iCalendar UID (FEATURES.md §3.4): given once, when the event is made (or by the client, or kept from
   * the site it was imported from), and never computed again, so that subscribers see a moved event as the
   * same event. Null for occurrences: they are their series' UID with a RECURRENCE-ID.
   */
  readonly icalUid: string | null;
  /** iCalendar SEQUENCE: how many times the event's times (dates, zone, all-day, rule) changed. */
  readonly icalSequence: number;
  /** The Events Calendar Pro's "additional fields", in order (empty: none). Occurrences copy their series'. */
  readonly customFields: readonly CustomField[];
}

/**
 * One of Pro's "additional fields" as the original answers it (CONTRACT.md §2.1 `custom_fields`): the meta name
 * it is keyed by, its label and its value, strings as the site sent them (the value may hold the HTML of a link).
 */
export interface CustomField {
  readonly name: string;
  readonly label: string;
  readonly value: string;
}

export type EventKind = 'single' | 'series' | 'occurrence';

/**
 * Details written as they are sent, with their value when not sent on create (and what `null` resets them to).
 * A new plain field needs only its place here, in EventDetails and EventInput, and in the store's column map.
 */
export const PLAIN_DETAILS = {
  showMap: false,
  showMapLink: false,
  hideFromListings: false,
  featured: false,
  customFields: [],
} as const satisfies Partial<EventDetails>;

/** An event as the domain sees it: its post and its calendar details. */
export interface EventRecord extends PostRecord, EventDetails {
  readonly type: 'event';
  /**
   * The post whose categories and tags this event carries: its own id, or its series' for an occurrence that
   * follows the series' terms (it has no links of its own; an exception that overrode them has).
   */
  readonly termsFrom: number;
  /**
   * A plain occurrence (migration 0023): it has no rows of its own and reads its series' post, details and
   * links with its own dates and status, until an edit of it alone or its cancellation gives it rows.
   */
  readonly plain?: true;
  /** When a venue, organizer or term it shows last changed (stored UTC; a plain occurrence: its series'), if one did. */
  readonly linksModifiedUtc?: string;
}

/**
 * What an event create or update may carry, beside the post's fields. `undefined`: not sent (unchanged on
 * update); `null`: cleared. Dates are the raw strings; the service parses them in the event's zone.
 */
export interface EventInput extends PostInput {
  readonly timezone?: string | null;
  readonly allDay?: boolean | null;
  readonly startDate?: string | null;
  readonly endDate?: string | null;
  readonly cost?: readonly string[] | null;
  readonly website?: string | null;
  readonly showMap?: boolean | null;
  readonly showMapLink?: boolean | null;
  readonly hideFromListings?: boolean | null;
  readonly sticky?: boolean | null;
  readonly featured?: boolean | null;
  /** Term ids, slugs or names (TermEntry); `[]` clears. */
  readonly categories?: readonly TermEntry[] | null;
  readonly tags?: readonly TermEntry[] | null;
  /** A venue id, or the fields of a venue to create (or reuse); null clears. */
  readonly venue?: LinkedRef | null;
  /** Organizer ids and/or fields of organizers to create (or reuse), in order; null or [] clears. */
  readonly organizers?: readonly LinkedRef[] | null;
  /** RRULE/RDATE/EXDATE lines (FEATURES.md §1.5); `[]` or null turns a series back into a single event. */
  readonly recurrence?: readonly string[] | null;
  /** The iCalendar UID to give the event instead of a generated one (imports keep the source's); not clearable. */
  readonly icalUid?: string | null;
  /**
   * Pro's additional fields (null or [] clears them). Internal: only a site import sets them. No route takes
   * them — the original's REST API answers `custom_fields` but takes no such argument on writes (CONTRACT.md
   * §2.1: Pro fills them from its own admin screens), so neither does ours.
   */
  readonly customFields?: readonly CustomField[] | null;
}

/** A venue or organizer named in an event write: an existing id, or what to create. */
/**
 * `found`: the record of that id, as the caller has just read it in this transaction (not read again); `absent`:
 * the caller has just looked, in this transaction, for a record of that name and found none.
 */
export type LinkedRef =
  | { readonly id: number; readonly found?: VenueRecord | OrganizerRecord }
  | { readonly create: LinkedInput; readonly absent?: boolean };

/**
 * `GET /events` as the domain takes it (CONTRACT.md §3): paging, the date window (`strictDates`: exact instants
 * rather than whole days), and the filters. Ids are resolved (categories with their children).
 */
export interface EventListQuery {
  readonly page: number;
  readonly perPage: number;
  readonly startDate?: string | null;
  readonly endDate?: string | null;
  readonly startsBefore?: string | null;
  readonly startsAfter?: string | null;
  readonly endsBefore?: string | null;
  readonly endsAfter?: string | null;
  readonly strictDates: boolean;
  readonly search?: string | null;
  readonly categories?: readonly number[] | null;
  readonly tags?: readonly number[] | null;
  readonly venues?: readonly number[] | null;
  readonly organizers?: readonly number[] | null;
  readonly featured?: boolean | null;
  readonly hasGeoloc?: boolean | null;
  /** The original's name for `hasGeoloc`. */
  readonly geoloc?: boolean | null;
  readonly geolocLat?: number | null;
  readonly geolocLng?: number | null;
  readonly geolocDistance: number;
  /** Explicit statuses (`any`: every status the caller may see). */
  readonly statuses?: readonly string[] | null;
  readonly postParent?: number | null;
  /** Only these ids; the date window is dropped and the order is by publication date. */
  readonly include?: readonly number[] | null;
  readonly tickets?: boolean | null;
  readonly ticketed?: boolean | null;
  /** false: singles and series masters once each, instead of occurrences (FEATURES.md §1.5). */
  readonly expandRecurring?: boolean | null;
  /** `/events/{id}/occurrences`: cancelled occurrences too (callers who may edit events). */
  readonly showCancelled?: boolean | null;
  /** Latest start first (the pages' past events); not a parameter of the API. */
  readonly newestFirst?: boolean | null;
  /** Last modified after / before (UTC, stored format; the date window is dropped unless dates are given). */
  readonly modifiedAfter?: string | null;
  readonly modifiedBefore?: string | null;
  /** Sync mode and `include_removed` (FEATURES.md §2.3): read by the route, not the list. */
  readonly syncToken?: string | null;
  readonly pageToken?: string | null;
  readonly includeRemoved?: boolean | null;
}

/** Filters the store takes as the query gives them (a new one needs its place here and a condition in the store). */
export const PLAIN_FILTERS = ['featured', 'postParent', 'include', 'venues', 'organizers'] as const;
type PlainFilters = { readonly [K in (typeof PLAIN_FILTERS)[number]]?: NonNullable<EventListQuery[K]> };

/** What the store filters on: the query resolved to instants, words and ids. */
export interface EventListFilter extends PlainFilters {
  readonly visibility: Visibility;
  /** Explicit status filter; absent: every status but trash and auto-draft. */
  readonly statuses?: readonly string[];
  readonly startGte?: string;
  readonly endLte?: string;
  readonly startLt?: string;
  readonly startGt?: string;
  readonly endLt?: string;
  readonly endGt?: string;
  readonly search?: { readonly words: readonly string[]; readonly excluded: readonly string[] };
  /** Each inner list is OR-ed; lists are AND-ed (categories with their children, tags). */
  readonly termGroups?: readonly (readonly number[])[];
  /**
   * Per group of termGroups, the terms whose subtrees (each term and every category under it) together are exactly
   * that group, when every group has them: the store then reads the group's events from `event_terms` (migration
   * 0028).
   */
  readonly termRoots?: readonly (readonly number[])[];
  /** Events whose venue has (true) or lacks (false) coordinates. */
  readonly hasGeo?: boolean;
  /** Events whose venue lies within `km` of a point, nearest first. */
  readonly near?: { readonly lat: number; readonly lng: number; readonly km: number };
  /** Order by publication date (the original's order with `include`) instead of start date. */
  readonly orderByDate?: boolean;
  /** Singles and series masters (a master matches when one of its occurrences does) instead of occurrences. */
  readonly seriesOnce?: boolean;
  /** With postParent: the series' cancelled occurrences too. */
  readonly withCancelled?: boolean;
  /**
   * FullCalendar's window (FEATURES.md §5.3), `[from, to)`: timed events whose instants overlap it (UTC, stored
   * format), all-day events whose days overlap its wall clock (their dates float: a day is the same day in every
   * zone). A zero-length event at `from` is in it.
   */
  readonly overlap?: {
    readonly fromUtc: string;
    readonly toUtc: string;
    readonly fromWall: string;
    readonly toWall: string;
    /** A day either side of the range (stored format): every overlapping event's wall clock is within them. */
    readonly nearFrom: string;
    readonly nearTo: string;
  };
  /** Order by the start instant instead of the start's wall clock (events of several zones in one answer). */
  readonly orderByStartUtc?: boolean;
  /** Latest first. */
  readonly newestFirst?: boolean;
  /** Content and excerpt may be left empty (the caller shows neither). */
  readonly withoutText?: boolean;
  /** Last modified after / before these instants (UTC, stored format; `modified_after` / `modified_before`). */
  readonly modifiedAfter?: string;
  readonly modifiedBefore?: string;
}
