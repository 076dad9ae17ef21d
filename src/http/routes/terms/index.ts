/**
 * `/categories`, `/categories/<id>`, `/tags`, `/tags/<id>` (spec §4.7, CONTRACT.md §2.5, §5, §6.6).
 * One set of routes serves both taxonomies; tags simply have no `parent`.
 */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../domain/services.js';
import { TERM_ORDER_BY, type TaxonomyInfo, type TermListQuery, type TermOrderBy } from '../../../domain/terms/term.js';
import type { TermService } from '../../../domain/terms/term.service.js';
import { serializeTerm } from '../../../serializers/term.serializer.js';
import { pageArg, pageLinks, perPageArg, queryValue, totalHeaders, totalPages } from '../../paging.js';
import { arg, invalid, nonEmptyString, type Args } from '../../params.js';
import { UPDATE_METHODS, type RouteContext, type RouteSpec } from '../../route.js';
import type { QueryPairs } from '../../urls.js';
import { CategorySchema, TagSchema, termListSchema } from './terms.schemas.js';

const service = (services: Services, info: TaxonomyInfo): TermService =>
  info.hierarchical ? services.categories : services.tags;


export function termRoutes(info: TaxonomyInfo): RouteSpec[] {
  const noun = info.hierarchical ? 'category' : 'tag';
  const itemSchema = info.hierarchical ? CategorySchema : TagSchema;

  const existingTermId = (what: string) =>
    arg<Services>(Type.Integer({ description: `The ${what} id.` }), {
      check: async (id: number, { services }) => ((await service(services, info).exists(id)) ? undefined : invalid()),
    });
  const existingTermIds = (description: string) =>
    arg<Services>(Type.Array(Type.Integer(), { description }), {
      check: async (ids: number[], { services }) => {
        const found = await service(services, info).existingIds(ids);
        return ids.every((id) => found.has(id)) ? undefined : invalid();
      },
    });
  const eventId = (description: string) =>
    arg<Services>(Type.Integer({ description }), {
      check: async (id: number, { services, actor }) => ((await services.readablePosts(actor, [id], 'event')).has(id) ? undefined : invalid()),
    });
  const parentArg = arg<Services>(Type.Integer({ description: 'Parent category id (0 for none).' }), {
    check: async (id: number, { services }) =>
      id === 0 || (await service(services, info).exists(id)) ? undefined : invalid(),
  });

  const listArgs: Args<Services> = {
    page: pageArg,
    per_page: perPageArg,
    search: arg(Type.String({ description: `Limit to ${noun}s whose name or slug contains the string.` }), {
      check: nonEmptyString,
    }),
    exclude: existingTermIds(`Leave out these ${noun} ids.`),
    include: existingTermIds(`Limit to these ${noun} ids.`),
    order: arg(Type.String({ default: 'asc', description: 'Sort direction: asc or desc.' }), { check: nonEmptyString }),
    orderby: arg(
      Type.String({
        default: 'name',
        description: `Sort by a term attribute: ${TERM_ORDER_BY.join(', ')} (others sort by name).`,
      }),
      { check: nonEmptyString },
    ),
    hide_empty: arg(Type.Boolean({ default: true, description: 'Hide terms no published event carries.' })),
    ...(info.hierarchical ? { parent: parentArg } : {}),
    post: eventId(`Limit to ${noun}s of this event.`),
    event: eventId('Alias of post; wins when both are given.'),
    slug: arg(Type.String({ description: `Limit to the ${noun} with this slug.` }), { check: nonEmptyString }),
    ...(info.hierarchical ? {} : { offset: arg(Type.Integer({ minimum: 0, description: 'Skip this many tags.' })) }),
  };

  const writeArgs = (create: boolean): Args<Services> => ({
    name: arg(Type.String({ maxLength: 200, description: `The ${noun} name.` }), { required: create, check: nonEmptyString }),
    description: arg(Type.String({ description: `The ${noun} description.` }), { check: nonEmptyString }),
    slug: arg(Type.String({ maxLength: 200, description: `The ${noun} slug.` }), { check: nonEmptyString }),
    ...(info.hierarchical ? { parent: parentArg } : {}),
  });

  const base = (ctx: RouteContext) => ctx.urls.rest(`/${info.route}/`);
  const respond = async (ctx: RouteContext, status: number, term: Awaited<ReturnType<TermService['get']>>) => {
    const tree = info.hierarchical ? await ctx.services.storage.terms.tree(info.taxonomy) : undefined;
    return { status, body: serializeTerm(term, info, ctx.urls, tree) };
  };
  /**
   * The parent to hand the service: categories take the validated argument; tags declare no `parent`, but one
   * sent anyway must reach the service, which answers WordPress' own 400 after its permission check.
   */
  const parentOf = (ctx: RouteContext): number | null | undefined => {
    if (info.hierarchical) return ctx.args.parent;
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const query = ctx.request.query as Record<string, unknown>;
    const sent = (body !== null && typeof body === 'object' && 'parent' in body) || 'parent' in query;
    return sent ? null : undefined;
  };

  return [
    {
      methods: ['GET'],
      path: `/${info.route}`,
      summary: `List ${info.route}.`,
      args: listArgs,
      responses: { 200: termListSchema(info.route, itemSchema) },
      async handler(ctx) {
        const a = ctx.args;
        const orderby = (TERM_ORDER_BY as readonly string[]).includes(String(a.orderby).toLowerCase())
          ? (String(a.orderby).toLowerCase() as TermOrderBy)
          : 'name';
        const query: TermListQuery = {
          page: a.page,
          perPage: a.per_page,
          offset: a.offset ?? undefined,
          search: a.search ?? undefined,
          include: a.include ?? undefined,
          exclude: a.exclude ?? undefined,
          order: String(a.order).toLowerCase() === 'desc' ? 'desc' : 'asc',
          orderby,
          hideEmpty: a.hide_empty ?? true,
          parent: a.parent ?? undefined,
          post: a.event ?? a.post ?? undefined,
          slug: a.slug ?? undefined,
        };
        const { terms, total } = await service(ctx.services, info).list(ctx.actor, query);
        const pages = totalPages(total, query.perPage);
        const tree = info.hierarchical ? await ctx.services.storage.terms.tree(info.taxonomy) : undefined;
        const given = ctx.request.query as Record<string, unknown>;
        const filters: QueryPairs = Object.keys(listArgs)
          .filter((name) => name !== 'page' && name in given && a[name] !== undefined && a[name] !== null)
          .map((name) => [name, queryValue(a[name])] as const);
        const links = pageLinks(base(ctx), filters, query.page, pages, 'page' in given);
        const body: Record<string, unknown> = {
          rest_url: links.self,
          total,
          total_pages: pages,
          [info.route]: terms.map((t) => serializeTerm(t, info, ctx.urls, tree)),
        };
        if (links.next) body.next_rest_url = links.next;
        if (links.previous) body.previous_rest_url = links.previous;
        return { body, headers: totalHeaders(total, pages) };
      },
    },
    {
      methods: ['POST'],
      path: `/${info.route}`,
      summary: `Create a ${noun}.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      args: writeArgs(true),
      responses: { 201: itemSchema },
      async handler(ctx) {
        const a = ctx.args;
        const term = await service(ctx.services, info).create(ctx.actor, {
          name: a.name,
          description: a.description,
          slug: a.slug ?? undefined,
          parent: parentOf(ctx),
        });
        const res = await respond(ctx, 201, term);
        return { ...res, headers: { Location: ctx.urls.rest(`/${info.route}/${term.id}`) } };
      },
    },
    {
      methods: ['GET'],
      path: `/${info.route}/:id`,
      summary: `Read a ${noun}.`,
      args: { id: existingTermId(noun) },
      responses: { 200: itemSchema },
      async handler(ctx) {
        return respond(ctx, 200, await service(ctx.services, info).get(ctx.actor, ctx.args.id));
      },
    },
    {
      methods: UPDATE_METHODS,
      path: `/${info.route}/:id`,
      summary: `Update a ${noun}; fields left out are unchanged.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      args: { id: existingTermId(noun), ...writeArgs(false) },
      responses: { 200: itemSchema },
      async handler(ctx) {
        const a = ctx.args;
        const input = { name: a.name ?? undefined, description: a.description, slug: a.slug ?? undefined, parent: parentOf(ctx) };
        const svc = service(ctx.services, info);
        return respond(ctx, 200, await svc.update(ctx.actor, a.id, input));
      },
    },
    {
      methods: ['DELETE'],
      path: `/${info.route}/:id`,
      summary: `Delete a ${noun} for good; its children move up to its parent.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      args: { id: existingTermId(noun) },
      responses: { 200: itemSchema },
      async handler(ctx) {
        return respond(ctx, 200, await service(ctx.services, info).remove(ctx.actor, ctx.args.id));
      },
    },
  ];

}
