/**
 * Publication statuses and the original's rules for them (CONTRACT.md §6.1): what a caller may ask for, what
 * they get, and WordPress' scheduling of posts dated in the future.
 */
import type { Actor } from '../actor.js';
import { can } from '../policies.js';
import { STATUSES, type Status } from './post.js';

export { STATUSES, type Status };

export function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

/**
 * Statuses a slug must be unique among: drafts and pending posts skip the check (as in WordPress), trashed
 * ones carry a `__trashed` suffix. A unique index over these backs the check.
 */
export const SLUG_UNIQUE_STATUSES: readonly string[] = ['publish', 'future', 'private'];

/**
 * `scale_back_post_status`: callers who may publish get what they ask (publish when they ask nothing);
 * others get `pending` instead of publish/future, and `draft` when they ask nothing.
 */
export function scaleBackStatus(actor: Actor, requested: string | undefined): string {
  if (can(actor, 'publish_posts')) return requested ?? 'publish';
  if (requested === undefined) return 'draft';
  return requested === 'publish' || requested === 'future' ? 'pending' : requested;
}

/** WordPress: published with a date more than a minute ahead is scheduled; scheduled with a past date publishes. */
export function applyScheduling(status: string, dateUtcMs: number, nowMs: number): string {
  if (status === 'publish' && dateUtcMs > nowMs + 60_000) return 'future';
  if (status === 'future' && dateUtcMs <= nowMs) return 'publish';
  return status;
}

/** Slugs are generated from the title once a post is (or becomes) one of these. */
export function needsSlug(status: string): boolean {
  return status === 'publish' || status === 'future' || status === 'private';
}

export const TRASHED_SUFFIX = '__trashed';

/** A `status` filter as the store takes it: the statuses asked for, or undefined for none or `any`. */
export function statusFilter(statuses: readonly string[] | null | undefined): readonly string[] | undefined {
  return statuses && !statuses.includes('any') ? statuses : undefined;
}

/** WordPress' empty date (`0000-00-00 00:00:00`). */
export const NO_DATE = '0000-00-00 00:00:00';

/**
 * A post's `date_utc` and `modified_utc` as the original answers them. WordPress gives a draft or pending post
 * no GMT date (its status' date "floats": post_date_gmt stays `0000-00-00 00:00:00` until it is published), and
 * a new post the modification date of its date (wp_insert_post), so until its first update that one is empty
 * too — as a TEC 6.17 site answers its drafts and pending events, venues and organizers (recorded). The stored
 * dates stay real: lists, orders and `modified_after` read those.
 */
export function answeredUtcDates(post: {
  readonly status: string;
  readonly dateUtc: string;
  readonly modifiedUtc: string;
  readonly version: number;
}): { dateUtc: string; modifiedUtc: string } {
  if (post.status !== 'draft' && post.status !== 'pending') return post;
  return { dateUtc: NO_DATE, modifiedUtc: post.version === 0 ? NO_DATE : post.modifiedUtc };
}
