/**
 * `/events`, `/events/<id>`, `/events/by-slug/<slug>` (spec §4.3, §4.4; CONTRACT.md §2.1, §3, §6.2, §6.8).
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import type { EventListQuery } from '../../../domain/events/event.js';
import type { EventPage, EventView } from '../../../domain/events/event.service.js';
import { can } from '../../../domain/policies.js';
import { listVisibility } from '../../../domain/visibility.js';
import { serializeEvent } from '../../../serializers/event.serializer.js';
import { type CollectionOptions, collection, type ListPage } from '../../collection.js';
import { httpDate, jsonEtag, storedUtcMs, strongEtag } from '../../conditional.js';
import { RawJson } from '../../fragments.js';
import { type ArgContext, arg, invalid } from '../../params.js';
import { type ItemContext, type ItemState, type RouteContext, type RouteSpec, requestVersion, route, UPDATE_METHODS } from '../../route.js';
import { isSync, syncList, withRemoved } from '../../sync.js';
import type { Urls } from '../../urls.js';
import { eventCreateArgs, eventListArgs, eventUpdateArgs, occurrenceListArgs } from './events.args.js';
import { EventListSchema, EventSchema } from './events.schemas.js';

const idArg = arg(Type.Integer({ description: 'The event id.' }), { required: true });
/** The slug in the path: named apart from the body's `slug` (a rename), so one cannot pass for the other. */
const slugArg = arg(Type.String({ description: 'The event slug.' }), {
  required: true,
  as: 'pathSlug',
  check: async (slug: string, { services }: ArgContext) => ((await services.events.idForSlug(slug)) === undefined ? invalid() : undefined),
});

/** The event a by-slug route names (it may have gone since the arguments were checked). */
async function idFromSlug(ctx: RouteContext<{ readonly pathSlug: string }>): Promise<number> {
  const id = await ctx.services.events.idForSlug(ctx.args.pathSlug);
  if (id === undefined) throw errors.invalidParam('slug');
  return id;
}

/** By-slug updates: the path names the event; a body `slug` renames it. */
function renameFromBody(ctx: RouteContext): string | undefined {
  if (!ctx.bodyHas('slug')) return undefined;
  const slug = ctx.sent.slug;
  if (typeof slug !== 'string' || slug.trim() === '') throw errors.invalidParam('slug');
  return slug;
}

const single = { 200: EventSchema };

/** What a single read of the event sends (`GET /events/{id}`, by slug). */
const singleBody = (view: EventView, urls: Urls) =>
  serializeEvent(Object.assign({}, view, { removedOccurrences: undefined }), urls, { single: true });

/**
 * An event's Last-Modified: its own last write, or that of a venue, organizer, category or tag it embeds, whichever
 * is later (a venue renamed changes the event's body).
 */
export function lastModifiedMs(view: EventView): number {
  return storedUtcMs(lastModifiedStamp(view));
}

/**
 * The same as a stored UTC stamp (`YYYY-MM-DD HH:MM:SS`, which sorts as it reads): the latest of several is found
 * by comparing them, and parsed once (a feed of thousands of events).
 */
export function lastModifiedStamp(view: EventView): string {
  let latest = view.record.modifiedUtc;
  const consider = (stamp: string | undefined) => {
    if (stamp !== undefined && stamp > latest) latest = stamp;
  };
  // (what it showed and shows no more: a venue made a draft, an organizer trashed, a tag deleted)
  consider(view.record.linksModifiedUtc);
  consider(view.venue?.record.modifiedUtc);
  for (const o of view.organizers) consider(o.record.modifiedUtc);
  for (const t of view.categories) consider(t.modifiedAt);
  for (const t of view.tags) consider(t.modifiedAt);
  return latest;
}

/** A single read's answer: the event, with its Last-Modified. */
function read(view: EventView, urls: Urls) {
  return { body: singleBody(view, urls), headers: { 'Last-Modified': httpDate(lastModifiedMs(view)) } };
}

/**
 * `GET /events/{id}` from the event's JSON kept for this kind of caller (http/fragments.ts), with its Last-Modified:
 * the record is read as always (whether it exists and this caller may read it), what it embeds only when no
 * current fragment is kept.
 */
async function readKept(ctx: RouteContext, id: number) {
  const { fragments, services, actor } = ctx;
  if (!fragments.enabled) return read(await services.events.get(actor, id), ctx.urls);
  const version = await requestVersion(ctx.request, ctx.services);
  const key = `event ${id} single ${listVisibility(actor).key}`;
  // A current fragment is the answer: it was made at this data version for a caller of this key, so the event
  // then existed and such a caller could read it, and every write since would have moved the version on (the
  // key decides readability: callers with one key read the same posts, domain/visibility.ts). Only without one
  // is the event read, checked (404, 403, 410) and its view made.
  let kept = fragments.kept(key, version);
  if (kept === undefined) {
    const record = await services.events.getRecord(actor, id);
    const [view] = await services.events.views([record], actor);
    const json = JSON.stringify(singleBody(view, ctx.urls));
    // (with it, its Last-Modified and its ETag: the hash of these bytes, made once)
    kept = { json, validators: { lastModified: httpDate(lastModifiedMs(view)), etag: strongEtag(json) } };
    fragments.set(key, version, kept.json, kept.validators);
  }
  // (a single read's key holds validators: the lists' keys are others)
  const headers: Record<string, string> = kept.validators ? { 'Last-Modified': kept.validators.lastModified } : {};
  return { body: new RawJson(kept.json, kept.validators?.etag), headers };
}

/** A write's answer: its body, with the ETag the event's next single read sends this caller (when that read answers 200). */
function written(ctx: RouteContext, view: EventView, status = 200, headers: Record<string, string> = {}) {
  const etag = ctx.services.events.readable(ctx.actor, view.record) ? jsonEtag(singleBody(view, ctx.urls)) : undefined;
  return { status, body: serializeEvent(view, ctx.urls), headers: etag ? { ...headers, ETag: etag } : headers };
}

/** The event a write names, as its single read answers the caller now (conditional writes, RouteSpec.item). */
async function itemState(ctx: ItemContext, id: number | undefined): Promise<ItemState | undefined> {
  const found = id === undefined ? undefined : await ctx.services.events.item(ctx.actor, id);
  if (!found) return undefined;
  const { record, view } = found;
  return {
    etag: view && jsonEtag(singleBody(view, ctx.urls)),
    modifiedMs: view ? lastModifiedMs(view) : storedUtcMs(record.modifiedUtc),
    version: record.version,
  };
}
const byId = (ctx: ItemContext) => itemState(ctx, Number(ctx.params.id));
const bySlug = async (ctx: ItemContext) => itemState(ctx, await ctx.services.events.idForSlug(ctx.params.slug ?? ''));

type PageContext = RouteContext<{ readonly page: number; readonly perPage: number }>;

/**
 * A page of events as the original's list answers it (envelope, headers, URLs carrying the filters): its views
 * serialised here, or its events' JSON given (listedEvents).
 */
function eventPage<T>(ctx: PageContext, result: ListPage<T>, path: string, items: Pick<CollectionOptions<T>, 'serialize' | 'serialized'>) {
  return collection(ctx, {
    key: 'events',
    path,
    layout: 'posts',
    page: ctx.args.page,
    perPage: ctx.args.perPage,
    result,
    ...items,
    notFound: errors.eventPageNotFound,
  });
}

/** A page of views, serialised as a list shows them. */
const viewPage = (ctx: PageContext, result: EventPage, path: string) =>
  eventPage(ctx, result, path, { serialize: (view: EventView) => serializeEvent(view, ctx.urls) });

/**
 * `GET /events` assembled from the events' JSON kept per kind of caller (http/fragments.ts): the page as its
 * events' ids, then only the events without a current fragment have their records read (an event gone since is
 * left out), with their venue, organizers, terms and images, and are serialised. The data version is read before
 * the ids (the response cache or the check of a caller's credentials may have read it already, before anything
 * else).
 */
async function listedEvents(ctx: PageContext, query: EventListQuery, path: string) {
  const { fragments, services, actor } = ctx;
  const version = fragments.enabled ? await requestVersion(ctx.request, ctx.services) : undefined;
  const page = await services.events.listIds(actor, query);
  const who = listVisibility(actor).key;
  const serialized = await fragments.serialize(
    page.ids,
    (id) => `event ${id} ${who}`,
    version,
    (ids) => services.events.viewsOf(ids, actor),
    (view) => serializeEvent(view, ctx.urls),
  );
  const result = { items: serialized, total: page.total, effective: page.effective, stableForMs: page.stableForMs };
  return eventPage(ctx, result, path, { serialized });
}

export function eventRoutes(): RouteSpec[] {
  return [
    route({
      methods: ['GET'],
      path: '/events',
      summary:
        'List events: by default the published ones from yesterday to two years ahead, by start date. With sync_token: a sync (full, then what changed), 410 when it must start over.',
      errors: [404, 410],
      args: eventListArgs,
      responses: { 200: EventListSchema },
      async handler(ctx) {
        const source = ctx.services.syncSources.events;
        if (isSync(ctx)) {
          if (ctx.sent.expand_recurring !== undefined) throw errors.notWithSyncToken('expand_recurring');
          return syncList(ctx, 'events', source, (view) => singleBody(view, ctx.urls));
        }
        // (with removed items the body grows a key after them: made as an object)
        if (ctx.args.includeRemoved) return withRemoved(ctx, viewPage(ctx, await ctx.services.events.list(ctx.actor, ctx.args), '/events/'), source);
        return listedEvents(ctx, ctx.args, '/events/');
      },
    }),
    route({
      methods: ['GET'],
      path: '/events/:id',
      lastModified: true,
      summary: 'Read an event.',
      errors: [403, 404, 410],
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return readKept(ctx, ctx.args.id);
      },
    }),
    route({
      methods: ['DELETE'],
      path: '/events/:id',
      summary: 'Move an event to the trash.',
      errors: [403, 404, 410],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'delete', Number(params.id)),
      item: byId,
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.events.remove(ctx.actor, ctx.args.id, ctx.ifVersion));
      },
    }),
    route({
      methods: UPDATE_METHODS,
      path: '/events/:id',
      summary: 'Update an event; fields left out are unchanged, null clears.',
      errors: [403, 404, 410],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'edit', Number(params.id)),
      item: byId,
      args: { id: idArg, ...eventUpdateArgs },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.events.update(ctx.actor, ctx.args.id, ctx.args, ctx.ifVersion));
      },
    }),
    route({
      methods: ['POST'],
      path: '/events',
      summary: 'Create an event.',
      errors: [403],
      allowed: (actor) => can(actor, 'edit_posts'),
      args: eventCreateArgs,
      responses: { 201: EventSchema },
      async handler(ctx) {
        const view = await ctx.services.events.create(ctx.actor, ctx.args);
        return written(ctx, view, 201, { Location: ctx.urls.rest(`/events/${view.record.id}`) });
      },
    }),
    route({
      methods: ['GET'],
      path: '/events/by-slug/:slug',
      lastModified: true,
      summary: 'Read an event by its slug.',
      errors: [403],
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return read(await ctx.services.events.getBySlug(ctx.actor, ctx.args.pathSlug), ctx.urls);
      },
    }),
    route({
      methods: ['DELETE'],
      path: '/events/by-slug/:slug',
      summary: 'Move an event, found by its slug, to the trash.',
      errors: [403, 410],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'delete', await services.events.idForSlug(params.slug)),
      item: bySlug,
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.events.remove(ctx.actor, await idFromSlug(ctx), ctx.ifVersion));
      },
    }),
    route({
      methods: UPDATE_METHODS,
      path: '/events/by-slug/:slug',
      summary: 'Update an event found by its slug; a body slug renames it.',
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'edit', await services.events.idForSlug(params.slug)),
      item: bySlug,
      bodyOnly: { slug: arg(Type.String({ description: 'A new slug for the event.' })) },
      errors: [403],
      args: { ...eventUpdateArgs, slug: slugArg },
      responses: single,
      async handler(ctx) {
        const input = { ...ctx.args, slug: renameFromBody(ctx) };
        return written(ctx, await ctx.services.events.update(ctx.actor, await idFromSlug(ctx), input, ctx.ifVersion));
      },
    }),
    // routes of features the original lacks come after its own (FEATURES.md §0 C3)
    route({
      methods: ['GET'],
      path: '/events/:id/occurrences',
      summary: "A recurring series' occurrences in a window (by default the list's), by start date.",
      errors: [400, 403, 404],
      args: { id: idArg, ...occurrenceListArgs },
      responses: { 200: EventListSchema },
      async handler(ctx) {
        const result = await ctx.services.events.occurrences(ctx.actor, ctx.args.id, { ...ctx.args, geolocDistance: 50 });
        return viewPage(ctx, result, `/events/${ctx.args.id}/occurrences/`);
      },
    }),
    route({
      methods: ['POST'],
      path: '/events/:id/split',
      summary:
        "This and following: the series of this occurrence ends before it, and a new series with the changes sent starts there, keeping the later occurrences' ids (201). At the first occurrence: the whole series is updated (200).",
      errors: [400, 403, 404, 410],
      allowed: (actor) => can(actor, 'edit_posts'),
      // conditional on the occurrence named (its ETag is its single read's)
      item: byId,
      args: { id: idArg, ...eventUpdateArgs },
      responses: { 200: EventSchema, 201: EventSchema },
      async handler(ctx) {
        const { view, created } = await ctx.services.events.split(ctx.actor, ctx.args.id, ctx.args, ctx.ifVersion);
        return created ? written(ctx, view, 201, { Location: ctx.urls.rest(`/events/${view.record.id}`) }) : written(ctx, view);
      },
    }),
  ];
}
