/**
 * Webhooks' vocabulary (issue 18, FEATURES.md §4.3): the event types, how an endpoint's patterns and filter
 * select them, how a change of the log becomes a type, and Standard Webhooks' signature.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { ChangeRow } from '../../storage/stores/change.store.js';
import type { ResourceType } from '../sync/change.js';

/** Resources whose changes are posts (they have statuses, a trash, publication). */
const POSTS: readonly ResourceType[] = ['event', 'venue', 'organizer'];

const POST_VERBS = ['created', 'updated', 'published', 'unpublished', 'trashed', 'restored', 'deleted'] as const;
const TERM_VERBS = ['created', 'updated', 'deleted'] as const;

/** Every type an endpoint can ask for, in the order `/doc` lists them. */
export const EVENT_TYPES: readonly string[] = [
  ...POSTS.flatMap((r) => POST_VERBS.map((v) => `${r}.${v}`)),
  'event.occurrence.updated',
  'event.occurrence.cancelled',
  ...(['category', 'tag'] as const).flatMap((r) => TERM_VERBS.map((v) => `${r}.${v}`)),
  'webhook.test',
];

/** The prefixes a `prefix.*` pattern may name. */
const PREFIXES = new Set(['event', 'event.occurrence', 'venue', 'organizer', 'category', 'tag', 'webhook']);

/** Whether a pattern is one an endpoint may hold: `*`, a type, or `prefix.*`. */
export function isTypePattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return PREFIXES.has(pattern.slice(0, -2));
  return EVENT_TYPES.includes(pattern);
}

/** Whether a type is selected by one of the patterns (`event.*` takes `event.occurrence.cancelled` too). */
export function typeMatches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/**
 * The type of a change: its operation, and for an update of a post whether it crossed publication. Changes of
 * an occurrence edited alone are `event.occurrence.updated`, and its cancellation (a trash) `…cancelled`.
 */
export function typeOfChange(change: ChangeRow, isOccurrence: boolean): string {
  const r = change.type;
  if (change.op === 'delete') return `${r}.deleted`;
  if (change.op === 'create') return `${r}.created`;
  if (isOccurrence) return change.op === 'trash' ? 'event.occurrence.cancelled' : 'event.occurrence.updated';
  if (change.op === 'trash') return `${r}.trashed`;
  if (change.op === 'restore') return `${r}.restored`;
  if (POSTS.includes(r) && change.status !== null && change.priorStatus !== null && change.status !== change.priorStatus) {
    if (change.status === 'publish') return `${r}.published`;
    if (change.priorStatus === 'publish' && change.status !== 'trash') return `${r}.unpublished`;
  }
  return `${r}.updated`;
}

/** What an endpoint's filter may hold (events only: other types pass). */
export interface WebhookFilter {
  /** Category ids: the event is in one of them. */
  readonly categories?: readonly number[];
  readonly venue?: number;
  readonly organizer?: number;
}

/** What an event is linked to now, for filters. */
export interface EventLinks {
  readonly terms: ReadonlySet<number>;
  readonly venue: number | null;
  readonly organizers: ReadonlySet<number>;
}

/** Whether an event's links pass a filter (an event that no longer exists passes: its deletion is news). */
export function passesFilter(filter: WebhookFilter | null, links: EventLinks | undefined): boolean {
  if (!filter || !links) return true;
  if (filter.categories && filter.categories.length > 0 && !filter.categories.some((c) => links.terms.has(c))) return false;
  if (filter.venue !== undefined && links.venue !== filter.venue) return false;
  if (filter.organizer !== undefined && !links.organizers.has(filter.organizer)) return false;
  return true;
}

// ---- Standard Webhooks 1.0 (https://www.standardwebhooks.com): `whsec_` secrets, `v1,` HMAC-SHA256 signatures

/** A secret a user made: `whsec_` and 24 to 64 bytes in base64 (what Standard Webhooks' libraries accept and make). */
export function isWebhookSecret(value: string): boolean {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!m || m[1].length % 4 !== 0) return false;
  const bytes = Buffer.from(m[1], 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** A new secret: 32 random bytes, as Standard Webhooks writes them. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `webhook-signature`: one `v1,<base64>` per secret, space-separated, over `{id}.{timestamp}.{body}`. */
export function signatures(msgId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  const content = `${msgId}.${timestampSeconds}.${body}`;
  return secrets
    .map(
      (s) =>
        `v1,${createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64'))
          .update(content)
          .digest('base64')}`,
    )
    .join(' ');
}

/**
 * The retry schedule of Standard Webhooks (FEATURES.md §4.1): the wait before attempt n+1 after n failed;
 * after the last, the delivery has failed.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];

/** The wait after `attempts` failed attempts (undefined: no more), with up to 10 % jitter. */
export function nextDelay(attempts: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_SCHEDULE_MS[attempts];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + 0.1 * random()));
}
