/**
 * Venues and organizers: "linked posts" of events in the original. They share the post fields, the rules for
 * status, slugs, trash and duplicate avoidance; each has its own fields.
 */
export type LinkedType = 'venue' | 'organizer';

export interface LinkedRecord {
  readonly id: number;
  readonly type: LinkedType;
  readonly authorId: number;
  readonly status: string;
  readonly statusBeforeTrash: string | null;
  readonly title: string;
  readonly content: string;
  readonly excerpt: string;
  readonly slug: string;
  readonly imageId: number | null;
  readonly date: string;
  readonly dateUtc: string;
  readonly modified: string;
  readonly modifiedUtc: string;
}

export interface VenueRecord extends LinkedRecord {
  readonly type: 'venue';
  readonly address: string;
  readonly city: string;
  readonly country: string;
  readonly province: string;
  readonly state: string;
  readonly zip: string;
  readonly phone: string;
  readonly website: string;
  readonly stateprovince: string;
  readonly showMap: boolean;
  readonly showMapLink: boolean;
  readonly geoLat: number | null;
  readonly geoLng: number | null;
}

export interface OrganizerRecord extends LinkedRecord {
  readonly type: 'organizer';
  readonly phone: string;
  readonly website: string;
  readonly email: string;
}

/** The detail columns a write may set, by column name; `null` clears. */
export type LinkedMeta = Readonly<Record<string, string | number | null>>;

export interface LinkedInput {
  /** The name (`venue` / `organizer` on the wire). */
  readonly name?: string;
  readonly description?: string | null;
  readonly status?: string | null;
  readonly author?: number | null;
  readonly date?: string | null;
  readonly dateUtc?: string | null;
  readonly image?: number | string | null;
  readonly meta: LinkedMeta;
}

export interface LinkedListFilter {
  readonly visibility: import('../events/event.js').Visibility;
  readonly statuses?: readonly string[];
  /** Tokens that must all appear in one of the searched fields. */
  readonly searchTokens?: readonly string[];
  readonly event?: number;
  readonly hasEvents?: boolean;
  /** Only those linked to an upcoming event the caller may see (start at or after this UTC time). */
  readonly upcomingFrom?: string;
}
