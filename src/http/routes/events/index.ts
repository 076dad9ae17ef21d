/**
 * `/events`, `/events/<id>`, `/events/by-slug/<slug>` (spec §4.3, §4.4; CONTRACT.md §2.1, §3, §6.2, §6.8).
 */
import { Type } from '@sinclair/typebox';
import type { EventInput } from '../../../domain/events/event.js';
import { parseSearch, resolveDateWindow } from '../../../domain/events/event-query.js';
import { errors } from '../../../domain/errors.js';
import { can } from '../../../domain/policies.js';
import type { Services } from '../../../domain/services.js';
import { serializeEvent } from '../../../serializers/event.serializer.js';
import { pageLinks, queryValue, totalHeaders, totalPages } from '../../paging.js';
import { arg, invalid, type Args } from '../../params.js';
import { UPDATE_METHODS, type RouteContext, type RouteSpec } from '../../route.js';
import { Urls, type QueryPairs } from '../../urls.js';
import { eventListArgs, eventWriteArgs } from './events.args.js';
import { EventListSchema, EventSchema } from './events.schemas.js';

const idArg = arg<Services>(Type.Integer({ description: 'The event id.' }));
const slugArg = arg<Services>(Type.String({ description: 'The event slug.' }), {
  check: async (slug: string, { services }) => ((await services.events.idForSlug(slug)) === undefined ? invalid() : undefined),
});

/** Route arguments → the service's input; `undefined` for what was not sent. */
function toInput(a: Record<string, any>): EventInput {
  return {
    title: a.title ?? undefined,
    description: a.description,
    excerpt: a.excerpt,
    slug: a.slug,
    status: a.status,
    author: a.author,
    date: a.date,
    dateUtc: a.date_utc,
    timezone: a.timezone,
    allDay: a.all_day,
    startDate: a.start_date ?? undefined,
    endDate: a.end_date ?? undefined,
    image: a.image,
    cost: a.cost,
    website: a.website,
    showMap: a.show_map,
    showMapLink: a.show_map_link,
    hideFromListings: a.hide_from_listings,
    sticky: a.sticky,
    featured: a.featured,
    categories: a.categories,
    tags: a.tags,
    venue: a.venue,
    organizers: a.organizer,
  };
}

/** By-slug updates: the path names the event; a body `slug` renames it. */
function renameFromBody(ctx: RouteContext): string | undefined {
  const body = ctx.request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || !('slug' in body)) return undefined;
  const slug = body.slug;
  if (typeof slug !== 'string' || slug.trim() === '') throw errors.invalidParam('slug');
  return slug;
}

async function idFromSlug(ctx: RouteContext): Promise<number> {
  const id = await ctx.services.events.idForSlug(ctx.args.slug);
  if (id === undefined) throw errors.invalidParam('slug');
  return id;
}

const single = { 200: EventSchema };

const STABLE_WINDOW_MS = 60_000;

async function list(ctx: RouteContext) {
  const a = ctx.args;
  const given = ctx.request.query as Record<string, unknown>;
  const nowMs = Date.now();
  const windowAt = (ms: number) =>
    resolveDateWindow(
      {
        start_date: a.start_date ?? undefined,
        end_date: a.end_date ?? undefined,
        starts_before: a.starts_before ?? undefined,
        starts_after: a.starts_after ?? undefined,
        ends_before: a.ends_before ?? undefined,
        ends_after: a.ends_after ?? undefined,
      },
      { strict: a.strict_dates === true, include: Array.isArray(a.include), nowMs: ms, siteZone: ctx.services.config.siteTimezone },
    );
  const window = windowAt(nowMs);
  // The answer depends on the clock only through this window: when it is the same a minute from now (whole
  // days, the default), a cached copy stays right for that minute unless something is written.
  if (JSON.stringify(windowAt(nowMs + STABLE_WINDOW_MS)) === JSON.stringify(window)) ctx.request.cacheTtlMs = STABLE_WINDOW_MS;
  const statuses: string[] | undefined = Array.isArray(a.status) && !a.status.includes('any') ? a.status : undefined;
  const lat = typeof a.geoloc_lat === 'number' ? a.geoloc_lat : undefined;
  const lng = typeof a.geoloc_lng === 'number' ? a.geoloc_lng : undefined;
  if ((lat === undefined) !== (lng === undefined)) {
    throw errors.invalidParam(lat === undefined ? 'geoloc_lat' : 'geoloc_lng', 'geoloc_lat and geoloc_lng go together.');
  }
  const hasGeo = typeof a.has_geoloc === 'boolean' ? a.has_geoloc : typeof a.geoloc === 'boolean' ? a.geoloc : undefined;
  const termGroups: number[][] = [];
  if (Array.isArray(a.categories)) termGroups.push(a.categories);
  if (Array.isArray(a.tags)) termGroups.push(a.tags);
  const { events, total } = await ctx.services.events.list(
    ctx.actor,
    {
      statuses,
      startGte: window.startGte,
      endLte: window.endLte,
      startLt: window.startLt,
      startGt: window.startGt,
      endLt: window.endLt,
      endGt: window.endGt,
      search: typeof a.search === 'string' ? parseSearch(a.search) : undefined,
      termGroups,
      featured: typeof a.featured === 'boolean' ? a.featured : undefined,
      include: Array.isArray(a.include) ? a.include : undefined,
      postParent: typeof a.post_parent === 'number' ? a.post_parent : undefined,
      venueIds: Array.isArray(a.venue) ? a.venue : undefined,
      organizerIds: Array.isArray(a.organizer) ? a.organizer : undefined,
      hasGeo,
      near: lat !== undefined && lng !== undefined ? { lat, lng, km: a.geoloc_distance } : undefined,
      orderByDate: Array.isArray(a.include),
    },
    a.page,
    a.per_page,
  );
  if (events.length === 0 && a.page > 1) throw errors.eventPageNotFound();
  const pages = totalPages(total, a.per_page);

  // Every filter of the request, with the effective (computed) values, so the URLs can be followed.
  // callers who cannot edit events list published ones: their URLs say so, as the original's do
  const effectiveStatus = statuses !== undefined ? statuses.join(',') : can(ctx.actor, 'edit_posts') ? undefined : 'publish';
  const carried: [string, unknown][] = [
    ['per_page', a.per_page],
    ['start_date', window.effective.start_date],
    ['end_date', window.effective.end_date],
    ['search', a.search],
    ['categories', 'categories' in given ? given.categories : undefined],
    ['tags', 'tags' in given ? given.tags : undefined],
    ['venue', a.venue],
    ['organizer', a.organizer],
    ['featured', a.featured],
    ['has_geoloc', hasGeo],
    ['geoloc_lat', lat],
    ['geoloc_lng', lng],
    ['geoloc_distance', lat !== undefined ? a.geoloc_distance : undefined],
    ['status', effectiveStatus],
    ['post_parent', a.post_parent],
    ['include', a.include],
    ['starts_before', window.effective.starts_before],
    ['starts_after', window.effective.starts_after],
    ['ends_before', window.effective.ends_before],
    ['ends_after', window.effective.ends_after],
    ['strict_dates', a.strict_dates === true ? true : undefined],
  ];
  const filters: QueryPairs = carried
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => [k, queryValue(v)] as const);
  const base = ctx.urls.rest('/events/');
  const links = pageLinks(base, filters, a.page, pages, false);
  const self = Urls.withQuery(base, [['page', a.page], ...filters]);

  const body: Record<string, unknown> = {
    events: events.map((e) => serializeEvent(e, ctx.urls)),
    rest_url: self,
  };
  if (links.next) body.next_rest_url = links.next;
  if (links.previous) body.previous_rest_url = links.previous;
  body.total = total;
  body.total_pages = pages;
  return { body, headers: totalHeaders(total, pages) };
}

export function eventRoutes(): RouteSpec[] {
  const updateArgs: Args<Services> = { id: idArg, ...eventWriteArgs(false) };
  const slugUpdateArgs: Args<Services> = { ...eventWriteArgs(false), slug: slugArg };
  return [
    {
      methods: ['GET'],
      path: '/events',
      summary: 'List events: by default the published ones from yesterday to two years ahead, by start date.',
      errors: [404],
      args: eventListArgs,
      responses: { 200: EventListSchema },
      handler: list,
    },
    {
      methods: ['GET'],
      path: '/events/:id',
      summary: 'Read an event.',
      errors: [403, 404],
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return { body: serializeEvent(await ctx.services.events.get(ctx.actor, ctx.args.id), ctx.urls, { single: true }) };
      },
    },
    {
      methods: ['DELETE'],
      path: '/events/:id',
      summary: 'Move an event to the trash.',
      errors: [403, 404, 410],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'delete', Number(params.id)),
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return { body: serializeEvent(await ctx.services.events.remove(ctx.actor, ctx.args.id), ctx.urls) };
      },
    },
    {
      methods: UPDATE_METHODS,
      path: '/events/:id',
      summary: 'Update an event; fields left out are unchanged, null clears.',
      errors: [403, 404],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'edit', Number(params.id)),
      args: updateArgs,
      responses: single,
      async handler(ctx) {
        const view = await ctx.services.events.update(ctx.actor, ctx.args.id, toInput(ctx.args));
        return { body: serializeEvent(view, ctx.urls) };
      },
    },
    {
      methods: ['POST'],
      path: '/events',
      summary: 'Create an event.',
      errors: [403],
      allowed: (actor) => can(actor, 'edit_posts'),
      args: eventWriteArgs(true),
      responses: { 201: EventSchema },
      async handler(ctx) {
        const view = await ctx.services.events.create(ctx.actor, toInput(ctx.args));
        return { status: 201, body: serializeEvent(view, ctx.urls), headers: { Location: ctx.urls.rest(`/events/${view.record.id}`) } };
      },
    },
    {
      methods: ['GET'],
      path: '/events/by-slug/:slug',
      summary: 'Read an event by its slug.',
      errors: [403],
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return { body: serializeEvent(await ctx.services.events.getBySlug(ctx.actor, ctx.args.slug), ctx.urls, { single: true }) };
      },
    },
    {
      methods: ['DELETE'],
      path: '/events/by-slug/:slug',
      summary: 'Move an event, found by its slug, to the trash.',
      errors: [403, 410],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'delete', await services.events.idForSlug(params.slug)),
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return { body: serializeEvent(await ctx.services.events.remove(ctx.actor, await idFromSlug(ctx)), ctx.urls) };
      },
    },
    {
      methods: UPDATE_METHODS,
      path: '/events/by-slug/:slug',
      summary: 'Update an event found by its slug; a body slug renames it.',
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'edit', await services.events.idForSlug(params.slug)),
      bodyOnly: { slug: arg(Type.String({ description: 'A new slug for the event.' })) },
      errors: [403],
      args: slugUpdateArgs,
      responses: single,
      async handler(ctx) {
        const id = await idFromSlug(ctx);
        const input = { ...toInput(ctx.args), slug: renameFromBody(ctx) };
        return { body: serializeEvent(await ctx.services.events.update(ctx.actor, id, input), ctx.urls) };
      },
    },
  ];
}
