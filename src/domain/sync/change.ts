/**
 * The change log's vocabulary (issue 16, FEATURES.md §2.3): which resources it follows and what happened to
 * them. Events are followed as sync shows them: singles, series masters, and occurrences edited alone or
 * cancelled (a plain occurrence is its master's: the master's change covers it).
 */
export const RESOURCE_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const CHANGE_OPS = ['create', 'update', 'trash', 'restore', 'delete'] as const;
export type ChangeOp = (typeof CHANGE_OPS)[number];

/** One resource's last change in a range of the log. */
export interface ChangedResource {
  readonly id: number;
  /** Its last change's sequence number (the order sync pages follow). */
  readonly seq: number;
  readonly op: ChangeOp;
  /** When (UTC, stored format). */
  readonly at: string;
}

/** What links a resource's changes to the events that embed it. */
export type EmbeddedIn = 'venue' | 'organizer' | 'term';

/** Which records a sync read takes: a page by id (after `afterId`, at most `limit`), or these ids. */
export type SyncCut = { readonly afterId: number; readonly limit: number } | { readonly ids: readonly number[] };
