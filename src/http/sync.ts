/**
 * Sync and polling on the five list routes (issue 16, FEATURES.md §2.3), opt-in: `sync_token` (`start`, then
 * the last page's `next_sync_token`) and `page_token` turn a list into a sync — cursor pages of full objects and
 * tombstones, whatever the dates — and `modified_after` / `modified_before` (with `include_removed`) narrow a
 * plain list. Without them a list is what it always was: no new keys, no new headers.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../domain/errors.js';
import type { SyncItem, SyncSource } from '../domain/sync/sync.service.js';
import { SYNC_DEFAULT_PER_PAGE, SYNC_MAX_PER_PAGE } from '../domain/sync/sync.service.js';
import { parseDateInput } from '../time/strtotime.js';
import { formatUtcMs, getZone, zonedWallToUtcMs } from '../time/zones.js';
import { jsonEtag } from './conditional.js';
import { type ArgContext, accept, arg, invalid } from './params.js';
import type { RouteContext, RouteResponse } from './route.js';

/** A modification bound: ISO 8601 (an offset or `Z` is exact; without one, site time) or any v1 date string. */
const modifiedArg = <const N extends string>(description: string, as: N) =>
  arg(
    Type.String({ description: `${description} ISO 8601 or any date the other date arguments take; without an offset, in the site's time zone.` }),
    {
      as,
      carry: 'raw',
      check: (value: string, { services }: ArgContext) => {
        const zone = getZone(services.siteTimezone);
        const parsed = value.trim() === '' ? undefined : parseDateInput(value, { nowMs: Date.now(), zone });
        if (!parsed) return invalid();
        return accept(formatUtcMs(parsed.instantMs ?? zonedWallToUtcMs(parsed.wall, zone)));
      },
    },
  );

/** The arguments every list route adds: sync and polling. */
export const syncArgs = {
  sync_token: arg(
    Type.String({
      description:
        'Sync mode: `start` for a full sync, then the `next_sync_token` of the last one for exactly what changed since (objects and tombstones). Only per_page, status and page_token go with it; 410 means start again.',
    }),
    { as: 'syncToken', carry: false },
  ),
  page_token: arg(Type.String({ description: 'The `next_page_token` of the previous page of a sync.' }), { as: 'pageToken', carry: false }),
  modified_after: modifiedArg('Only what was last modified after this instant (every date, unless date arguments are given).', 'modifiedAfter'),
  modified_before: modifiedArg('Only what was last modified before this instant.', 'modifiedBefore'),
  include_removed: arg(
    Type.Boolean({
      description:
        'With modified_after: also `removed`, the tombstones of what was deleted or left the caller’s view since then (within the change log’s retention).',
    }),
    { as: 'includeRemoved', carry: 'given' },
  ),
} as const;

/** What may go with a sync token (besides WordPress' global parameters, which are not route arguments). */
const WITH_SYNC = new Set(['sync_token', 'page_token', 'per_page', 'status']);
/** Refused beside a sync token even where the list does not take them (a sync has one order, and cursors). */
const NEVER_WITH_SYNC = ['page', 'offset', 'orderby', 'order', 'include', 'exclude'];

export function isSync(ctx: RouteContext): boolean {
  return ctx.sent.sync_token !== undefined || ctx.sent.page_token !== undefined;
}

/** A tombstone on the wire (Graph's shape, FEATURES.md §2.3). */
function tombstone(r: { readonly id: number; readonly reason: string; readonly at: string }) {
  return { id: r.id, removed: { reason: r.reason }, modified_utc: r.at };
}

/**
 * A page of a sync: the route's own key with the objects (as the list serialises them, plus `etag`: the ETag a
 * single read of the object answers this caller, for a conditional write without reading it first — FEATURES.md
 * §2.3) and tombstones, then `next_page_token` or, on the last page, `next_sync_token` (also in `X-Sync-Token`).
 */
export async function syncList<V>(
  ctx: RouteContext,
  key: string,
  source: SyncSource<V>,
  /**
   * The body a single read of the object answers: its ETag is the hash of those bytes, and the list's object is
   * the same without `json_ld` (what the serializers add for single reads): one serialisation, not two.
   */
  singleBody: (view: V) => object,
): Promise<RouteResponse> {
  for (const wire of Object.keys(ctx.sent)) {
    if ((Object.hasOwn(ctx.spec.args, wire) && !WITH_SYNC.has(wire)) || NEVER_WITH_SYNC.includes(wire)) throw errors.notWithSyncToken(wire);
  }
  const sentPerPage = ctx.sent.per_page;
  let perPage = SYNC_DEFAULT_PER_PAGE;
  if (sentPerPage !== undefined) {
    const n =
      typeof sentPerPage === 'number'
        ? sentPerPage
        : typeof sentPerPage === 'string' && /^\s*\d{1,6}\s*$/.test(sentPerPage)
          ? Number(sentPerPage)
          : NaN;
    if (!Number.isInteger(n) || n < 1 || n > SYNC_MAX_PER_PAGE) {
      throw errors.invalidParam('per_page', `Invalid parameter(s): per_page (in sync mode, from 1 to ${SYNC_MAX_PER_PAGE}).`);
    }
    perPage = n;
  }
  const args = ctx.args as { readonly syncToken?: string | null; readonly pageToken?: string | null; readonly statuses?: readonly string[] | null };
  const page = await ctx.services.sync.sync(ctx.actor, source, {
    syncToken: args.syncToken ?? undefined,
    pageToken: args.pageToken ?? undefined,
    perPage,
    statuses: args.statuses ?? undefined,
  });
  const items = page.items.map((item: SyncItem<V>) => {
    if (!('view' in item)) return tombstone(item.removed);
    const single = singleBody(item.view) as { json_ld?: unknown };
    const { json_ld: _jsonLd, ...listed } = single;
    return { ...listed, etag: jsonEtag(single) };
  });
  const body: Record<string, unknown> = { [key]: items };
  const headers: Record<string, string> = { 'Cache-Control': 'private, no-store' };
  if (page.nextPageToken !== undefined) body.next_page_token = page.nextPageToken;
  if (page.nextSyncToken !== undefined) {
    body.next_sync_token = page.nextSyncToken;
    headers['X-Sync-Token'] = page.nextSyncToken;
  }
  return { body, headers };
}

/**
 * `include_removed=true`: the list's answer gains `removed`, the tombstones of what changed after
 * `modified_after` (and before `modified_before`) and is not there for this caller any more.
 */
export async function withRemoved<V>(ctx: RouteContext, response: RouteResponse, source: SyncSource<V>): Promise<RouteResponse> {
  const args = ctx.args as {
    readonly includeRemoved?: boolean | null;
    readonly modifiedAfter?: string | null;
    readonly modifiedBefore?: string | null;
  };
  if (!args.includeRemoved) return response;
  if (args.modifiedAfter == null) {
    throw errors.invalidParam('include_removed', 'Invalid parameter(s): include_removed (it goes with modified_after).');
  }
  const removed = await ctx.services.sync.removed(ctx.actor, source, args.modifiedAfter, args.modifiedBefore ?? undefined);
  return { ...response, body: { ...(response.body as Record<string, unknown>), removed: removed.map(tombstone) } };
}
