/**
 * What every post shares (events, venues, organizers and stored images are posts, in one id space — DECISIONS.md):
 * the record the domain reads, the fields a write stores, and what a create or update request may carry.
 */
export type PostType = 'event' | 'venue' | 'organizer' | 'image';

/** Every status WordPress registers; anything else is a 400. */
export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'auto-draft', 'inherit'] as const;
export type Status = (typeof STATUSES)[number];

export interface PostRecord {
  readonly id: number;
  readonly type: PostType;
  readonly authorId: number;
  readonly status: string;
  /** For trashed posts: the status they had (what restoring gives back, and what permissions judge by). */
  readonly statusBeforeTrash: string | null;
  readonly title: string;
  readonly content: string;
  readonly excerpt: string;
  readonly slug: string;
  readonly password: string;
  readonly parentId: number;
  /** -1: sticky (events). */
  readonly menuOrder: number;
  readonly imageId: number | null;
  /** Publication date, site-local and UTC. */
  readonly date: string;
  readonly dateUtc: string;
  readonly modified: string;
  readonly modifiedUtc: string;
  /**
   * For a post imported from another site (FEATURES.md §6.3): the remote global id, then the remote's own
   * lineage. The API keeps the remote `global_id` and appends ours to `global_id_lineage`. Absent otherwise.
   */
  readonly globalIdLineage?: readonly string[] | null;
  /**
   * Moved on by every write of the post's row (never written as a field): a conditional write names the version
   * it checked and writes only while the post is still at it (FEATURES.md §2.3).
   */
  readonly version: number;
}

/** The stored fields of a post (its row without the id, the type and the version). */
export type PostFields = Omit<PostRecord, 'id' | 'type' | 'version'>;
export type PostPatch = Partial<PostFields>;

/**
 * What a create or update of any post may carry. `undefined`: not sent (unchanged on update); `null`: cleared
 * (or, for what cannot be cleared, unchanged). Dates are the raw strings the service parses.
 */
export interface PostInput {
  readonly title?: string | null;
  readonly description?: string | null;
  readonly excerpt?: string | null;
  readonly slug?: string | null;
  readonly status?: string | null;
  readonly author?: number | null;
  /** Publication date, read in the site's time zone; `dateUtc` read as UTC wins over it. */
  readonly date?: string | null;
  readonly dateUtc?: string | null;
  /** A stored image id, an image URL, or null / `''` to remove it. */
  readonly image?: number | string | null;
}
