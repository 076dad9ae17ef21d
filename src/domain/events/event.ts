/** An event as the domain sees it: its post and its calendar details. */
export interface EventRecord {
  readonly id: number;
  readonly authorId: number;
  readonly status: string;
  readonly statusBeforeTrash: string | null;
  readonly title: string;
  readonly content: string;
  readonly excerpt: string;
  readonly slug: string;
  readonly password: string;
  readonly parentId: number;
  readonly menuOrder: number;
  readonly imageId: number | null;
  /** Publication date, site-local and UTC. */
  readonly date: string;
  readonly dateUtc: string;
  readonly modified: string;
  readonly modifiedUtc: string;
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
}

/**
 * What a create or update may carry. `undefined`: not sent (unchanged on update); `null`: cleared.
 * Dates are the raw strings; the service parses them in the event's zone.
 */
export interface EventInput {
  readonly title?: string;
  readonly description?: string | null;
  readonly excerpt?: string | null;
  readonly slug?: string | null;
  readonly status?: string | null;
  readonly author?: number | null;
  readonly date?: string | null;
  readonly dateUtc?: string | null;
  readonly timezone?: string | null;
  readonly allDay?: boolean | null;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly image?: number | string | null;
  readonly cost?: readonly string[] | null;
  readonly website?: string | null;
  readonly showMap?: boolean | null;
  readonly showMapLink?: boolean | null;
  readonly hideFromListings?: boolean | null;
  readonly sticky?: boolean | null;
  readonly featured?: boolean | null;
  /** Term ids, slugs or names; `[]` clears. */
  readonly categories?: readonly (number | string)[] | null;
  readonly tags?: readonly (number | string)[] | null;
  /** A venue id, or the fields of a venue to create (or reuse); null clears. */
  readonly venue?: LinkedRef | null;
  /** Organizer ids and/or fields of organizers to create (or reuse), in order; null or [] clears. */
  readonly organizers?: readonly LinkedRef[] | null;
}

/** A venue or organizer named in an event write: an existing id, or what to create. */
export type LinkedRef = { readonly id: number } | { readonly create: import('../linked/linked.js').LinkedInput };

import type { Visibility } from '../policies.js';

export type { Visibility };

export interface EventListFilter {
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
  readonly featured?: boolean;
  readonly include?: readonly number[];
  readonly postParent?: number;
  /** Events at one of these venues / with one of these organizers. */
  readonly venueIds?: readonly number[];
  readonly organizerIds?: readonly number[];
  /** Events whose venue has (true) or lacks (false) coordinates. */
  readonly hasGeo?: boolean;
  /** Events whose venue lies within `km` of a point, nearest first. */
  readonly near?: { readonly lat: number; readonly lng: number; readonly km: number };
  /** Order by publication date (the original's order with `include`) instead of start date. */
  readonly orderByDate?: boolean;
}
