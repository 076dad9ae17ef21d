import type { Taxonomy } from '../../storage/database.js';

export type { Taxonomy };

/** A category or tag as the domain sees it; `count` is the number of published events carrying it. */
export interface Term {
  readonly id: number;
  readonly taxonomy: Taxonomy;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly parentId: number;
  readonly count: number;
  /** When its own fields were last written (`YYYY-MM-DD HH:MM:SS`, UTC): Last-Modified of its item. */
  readonly modifiedAt: string;
  /** Moved on by every write of its own fields, not its count (see PostRecord.version). */
  readonly version: number;
}

/** The two taxonomies and how they differ on the wire. */
/**
 * A term entry of an event write: an id (a number, or a string of digits), a slug or name (other strings), or
 * `{ name }`: a slug or name only, even when it is digits (an iCalendar CATEGORIES value such as `2024` names a
 * category, where the API's `categories=2024` is an id).
 */
export type TermEntry = number | string | { readonly name: string };

export interface TaxonomyInfo {
  readonly taxonomy: Taxonomy;
  /** Route segment and envelope key: `categories` / `tags`. */
  readonly route: 'categories' | 'tags';
  readonly hierarchical: boolean;
}

export const CATEGORIES: TaxonomyInfo = { taxonomy: 'tribe_events_cat', route: 'categories', hierarchical: true };
export const TAGS: TaxonomyInfo = { taxonomy: 'post_tag', route: 'tags', hierarchical: false };

export const TERM_ORDER_BY = [
  'id',
  'term_id',
  'name',
  'slug',
  'term_group',
  'count',
  'parent',
  'description',
  'term_order',
  'include',
  'none',
] as const;
export type TermOrderBy = (typeof TERM_ORDER_BY)[number];

export interface TermListQuery {
  readonly page: number;
  readonly perPage: number;
  readonly offset?: number;
  readonly search?: string;
  readonly include?: readonly number[];
  readonly exclude?: readonly number[];
  readonly order: 'asc' | 'desc';
  readonly orderby: TermOrderBy;
  readonly hideEmpty: boolean;
  readonly parent?: number;
  readonly post?: number;
  readonly slug?: string;
  /** Last modified after / before these instants (UTC, stored format). */
  readonly modifiedAfter?: string;
  readonly modifiedBefore?: string;
}

/** What a term write stores. */
export interface TermFields {
  readonly taxonomy: Taxonomy;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly parentId: number;
}

export interface TermInput {
  readonly name?: string;
  readonly description?: string | null;
  readonly slug?: string;
  readonly parent?: number | null;
}
