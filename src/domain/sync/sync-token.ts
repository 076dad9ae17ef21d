/**
 * Sync and page tokens (FEATURES.md §2.3): opaque to clients, signed with the database's secret (every process
 * of one database accepts every other's), bound to the route, the caller and the caller's filter. A token that
 * does not verify, or that belongs to another route or caller, is a 400; one the caller can no longer continue
 * from (older than the retention, or from before a role change) is a 410: the client starts over.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ResourceType } from './change.js';

/** Where a sync stands: the change log's snapshot it covers, and who it is for. */
export interface SyncPosition {
  readonly route: ResourceType;
  /** `anon` or `u<id>`. */
  readonly principal: string;
  /** What the caller could see when it started (the role): a new one makes the copy stale. */
  readonly grant: string;
  /** The caller's own filter (`status`). */
  readonly filter: string;
  /** The change log's snapshot the copy is complete up to. */
  readonly snapshot: string;
  /** When that snapshot was taken (ms). */
  readonly at: number;
}

/** A page of a sync in progress: the range it reads (`from` null: a full sync) and how far it got. */
export interface PagePosition extends SyncPosition {
  readonly from: string | null;
  /** Full sync: the last id given; changes: the last change's seq given. */
  readonly after: number;
}

type Kind = 's' | 'p';

function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url').slice(0, 32);
}

function encode(secret: string, kind: Kind, value: object): string {
  const body = Buffer.from(JSON.stringify({ k: kind, ...value })).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

/** The token's contents when it verifies and is of this kind; undefined otherwise. */
function decode(secret: string, kind: Kind, token: string): Record<string, unknown> | undefined {
  if (token.length > 8000) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(secret, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    return value !== null && typeof value === 'object' && value.k === kind ? value : undefined;
  } catch {
    return undefined;
  }
}

const isPosition = (v: Record<string, unknown>): boolean =>
  typeof v.route === 'string' &&
  typeof v.principal === 'string' &&
  typeof v.grant === 'string' &&
  typeof v.filter === 'string' &&
  typeof v.snapshot === 'string' &&
  typeof v.at === 'number';

export const syncTokens = {
  sync: (secret: string, p: SyncPosition): string => encode(secret, 's', p),
  page: (secret: string, p: PagePosition): string => encode(secret, 'p', p),
  readSync(secret: string, token: string): SyncPosition | undefined {
    const v = decode(secret, 's', token);
    return v && isPosition(v) ? (v as unknown as SyncPosition) : undefined;
  },
  readPage(secret: string, token: string): PagePosition | undefined {
    const v = decode(secret, 'p', token);
    return v && isPosition(v) && (v.from === null || typeof v.from === 'string') && Number.isSafeInteger(v.after)
      ? (v as unknown as PagePosition)
      : undefined;
  },
};
