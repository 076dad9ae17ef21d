/**
 * `/venues`, `/organizers`, their `/<id>` and `/by-slug/<slug>` routes (spec §4.5, §4.6; CONTRACT.md §2.2,
 * §2.3, §4, §6.3, §6.8). One set of routes serves both.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import { can } from '../../../domain/policies.js';
import type { LinkedService, LinkedView } from '../../../domain/linked/linked.service.js';
import type { LinkedType, OrganizerRecord, VenueRecord } from '../../../domain/linked/linked.js';
import type { Services } from '../../../domain/services.js';
import { serializeOrganizer, serializeVenue } from '../../../serializers/linked.serializer.js';
import { nowUtc } from '../../../time/clock.js';
import { pageLinks, queryValue, totalHeaders, totalPages } from '../../paging.js';
import { arg, invalid } from '../../params.js';
import { UPDATE_METHODS, type RouteContext, type RouteSpec } from '../../route.js';
import { Urls, type QueryPairs } from '../../urls.js';
import { linkedListArgs, linkedWriteArgs, searchTokens, toLinkedInput } from './linked.args.js';
import { linkedListSchema, OrganizerSchema, VenueSchema } from './linked.schemas.js';

export function linkedRoutes(type: LinkedType): RouteSpec[] {
  const plural = `${type}s` as 'venues' | 'organizers';
  const service = (s: Services) => (type === 'venue' ? s.venues : s.organizers) as LinkedService<VenueRecord | OrganizerRecord>;
  const serialize = (view: LinkedView, urls: Urls, single = false) =>
    type === 'venue'
      ? serializeVenue(view as LinkedView<VenueRecord>, urls, { single })
      : serializeOrganizer(view as LinkedView<OrganizerRecord>, urls, { single });
  const schema = type === 'venue' ? VenueSchema : OrganizerSchema;

  const idArg = arg<Services>(Type.Integer({ description: `The ${type} id.` }), {
    check: async (id: number, { services }) => ((await service(services).exists(id)) ? undefined : invalid()),
  });
  const slugArg = arg<Services>(Type.String({ description: `The ${type} slug.` }), {
    check: async (slug: string, { services }) => ((await service(services).idForSlug(slug)) === undefined ? invalid() : undefined),
  });
  const idFromSlug = async (ctx: RouteContext) => {
    const id = await service(ctx.services).idForSlug(ctx.args.slug);
    if (id === undefined) throw errors.invalidParam('slug');
    return id;
  };
  const listArgs = linkedListArgs(type);

  async function list(ctx: RouteContext) {
    const a = ctx.args;
    const statuses: string[] | undefined = Array.isArray(a.status) && !a.status.includes('any') ? a.status : undefined;
    const { views, total } = await service(ctx.services).list(
      ctx.actor,
      {
        statuses,
        searchTokens: typeof a.search === 'string' ? searchTokens(a.search) : undefined,
        event: a.event ?? undefined,
        hasEvents: typeof a.has_events === 'boolean' ? a.has_events : undefined,
        upcomingFrom: a.only_with_upcoming === true ? nowUtc() : undefined,
      },
      a.page,
      a.per_page,
    );
    if (views.length === 0 && a.page > 1) throw errors.linkedPageNotFound(type);
    const pages = totalPages(total, a.per_page);
    const given = ctx.request.query as Record<string, unknown>;
    const effectiveStatus = statuses !== undefined ? statuses.join(',') : can(ctx.actor, 'edit_posts') ? undefined : 'publish';
    const carried: [string, unknown][] = [
      ['per_page', a.per_page],
      ['status', effectiveStatus],
      ['event', a.event],
      ['has_events', 'has_events' in given ? a.has_events : undefined],
      ['search', a.search],
      ['only_with_upcoming', a.only_with_upcoming === true ? true : undefined],
    ];
    const filters: QueryPairs = carried.filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, queryValue(v)] as const);
    const base = ctx.urls.rest(`/${plural}/`);
    const links = pageLinks(base, filters, a.page, pages, false);
    const body: Record<string, unknown> = {
      [plural]: views.map((v) => serialize(v, ctx.urls)),
      rest_url: Urls.withQuery(base, [['page', a.page], ...filters]),
    };
    if (links.next) body.next_rest_url = links.next;
    if (links.previous) body.previous_rest_url = links.previous;
    body.total = total;
    body.total_pages = pages;
    return { body, headers: totalHeaders(total, pages) };
  }

  const single = { 200: schema };
  return [
    {
      methods: ['GET'],
      path: `/${plural}`,
      summary: `List ${plural}, newest first.`,
      errors: [404],
      args: listArgs,
      responses: { 200: linkedListSchema(plural, schema) },
      handler: list,
    },
    {
      methods: ['GET'],
      path: `/${plural}/:id`,
      summary: `Read a ${type}.`,
      errors: [403],
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return { body: serialize(await service(ctx.services).get(ctx.actor, ctx.args.id), ctx.urls, true) };
      },
    },
    {
      methods: ['DELETE'],
      path: `/${plural}/:id`,
      summary: `Move a ${type} to the trash; events lose the link.`,
      errors: [403, 410],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'delete', Number(params.id)),
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return { body: serialize(await service(ctx.services).remove(ctx.actor, ctx.args.id), ctx.urls) };
      },
    },
    {
      methods: UPDATE_METHODS,
      path: `/${plural}/:id`,
      summary: `Update a ${type}; fields left out are unchanged.`,
      errors: [403],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'edit', Number(params.id)),
      args: { id: idArg, ...linkedWriteArgs(type, false) },
      responses: single,
      async handler(ctx) {
        const view = await service(ctx.services).update(ctx.actor, ctx.args.id, toLinkedInput(type, ctx.args));
        return { body: serialize(view, ctx.urls) };
      },
    },
    {
      methods: ['POST'],
      path: `/${plural}`,
      summary: `Create a ${type} (or reuse the one with the same name).`,
      errors: [403],
      allowed: (actor) => can(actor, 'edit_posts'),
      args: linkedWriteArgs(type, true),
      responses: { 201: schema },
      async handler(ctx) {
        const view = await service(ctx.services).create(ctx.actor, toLinkedInput(type, ctx.args));
        return { status: 201, body: serialize(view, ctx.urls), headers: { Location: ctx.urls.rest(`/${plural}/${view.record.id}`) } };
      },
    },
    {
      methods: ['GET'],
      path: `/${plural}/by-slug/:slug`,
      summary: `Read a ${type} by its slug.`,
      errors: [403],
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return { body: serialize(await service(ctx.services).get(ctx.actor, await idFromSlug(ctx)), ctx.urls, true) };
      },
    },
    {
      methods: ['DELETE'],
      path: `/${plural}/by-slug/:slug`,
      summary: `Move a ${type}, found by its slug, to the trash.`,
      errors: [403, 410],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'delete', await service(services).idForSlug(params.slug)),
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return { body: serialize(await service(ctx.services).remove(ctx.actor, await idFromSlug(ctx)), ctx.urls) };
      },
    },
    {
      methods: UPDATE_METHODS,
      path: `/${plural}/by-slug/:slug`,
      summary: `Update a ${type} found by its slug.`,
      errors: [403],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'edit', await service(services).idForSlug(params.slug)),
      args: { ...linkedWriteArgs(type, false), slug: slugArg },
      responses: single,
      async handler(ctx) {
        const view = await service(ctx.services).update(ctx.actor, await idFromSlug(ctx), toLinkedInput(type, ctx.args));
        return { body: serialize(view, ctx.urls) };
      },
    },
  ];
}
