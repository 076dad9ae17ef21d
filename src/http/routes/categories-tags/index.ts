/**
 * `/categories`, `/categories/<id>`, `/tags`, `/tags/<id>` (spec §4.7, CONTRACT.md §2.5, §5, §6.6).
 * One set of routes serves both taxonomies; tags simply have no `parent`.
 */
import { Type } from '@sinclair/typebox';
import { plainText, sanitizeHtml } from '../../../domain/content/html.js';
import type { Services } from '../../../domain/services.js';
import { type TaxonomyInfo, TERM_ORDER_BY, type Term, type TermListQuery, type TermOrderBy } from '../../../domain/terms/term.js';
import type { TermService } from '../../../domain/terms/term.service.js';
import { serializeTerm } from '../../../serializers/term.serializer.js';
import { collection, pageArg, perPageArg } from '../../collection.js';
import { httpDate, jsonEtag, latestMs } from '../../conditional.js';
import { type ArgContext, accept, arg, invalid, nonEmptyString, required } from '../../params.js';
import { type ItemContext, type ItemState, type RouteContext, type RouteSpec, route, UPDATE_METHODS } from '../../route.js';
import { isSync, syncArgs, syncList, withRemoved } from '../../sync.js';
import { readablePostId } from '../post-args.js';
import { CategorySchema, TagSchema, termListSchema } from './categories-tags.schemas.js';

const service = (services: Services, info: TaxonomyInfo): TermService => (info.hierarchical ? services.categories : services.tags);

export function termRoutes(info: TaxonomyInfo): RouteSpec[] {
  const noun = info.hierarchical ? 'category' : 'tag';
  const itemSchema = info.hierarchical ? CategorySchema : TagSchema;

  const existingTermId = (what: string) =>
    arg(Type.Integer({ description: `The ${what} id.` }), {
      required: true,
      check: async (id: number, { services }: ArgContext) => ((await service(services, info).exists(id)) ? undefined : invalid()),
    });
  const existingTermIds = (description: string) =>
    arg(Type.Array(Type.Integer(), { description }), {
      check: async (ids: number[], { services }: ArgContext) => {
        const found = await service(services, info).existingIds(ids);
        return ids.every((id) => found.has(id)) ? undefined : invalid();
      },
    });
  const parentArg = arg(Type.Integer({ description: 'Parent category id (0 for none).' }), {
    check: async (id: number, { services }: ArgContext) => (id === 0 || (await service(services, info).exists(id)) ? undefined : invalid()),
  });

  const listArgs = {
    page: pageArg,
    per_page: perPageArg,
    search: arg(Type.String({ description: `Limit to ${noun}s whose name or slug contains the string.` }), { check: nonEmptyString }),
    exclude: existingTermIds(`Leave out these ${noun} ids.`),
    include: existingTermIds(`Limit to these ${noun} ids.`),
    order: arg(Type.String({ description: 'Sort direction: asc or desc.' }), {
      default: 'asc',
      carry: 'raw',
      check: (v: string) => nonEmptyString(v) ?? accept<'asc' | 'desc'>(v.toLowerCase() === 'desc' ? 'desc' : 'asc'),
    }),
    orderby: arg(Type.String({ description: `Sort by a term attribute: ${TERM_ORDER_BY.join(', ')} (others sort by name).` }), {
      default: 'name',
      carry: 'raw',
      check: (v: string) =>
        nonEmptyString(v) ??
        accept<TermOrderBy>((TERM_ORDER_BY as readonly string[]).includes(v.toLowerCase()) ? (v.toLowerCase() as TermOrderBy) : 'name'),
    }),
    hide_empty: arg(Type.Boolean({ description: 'Hide terms no published event carries.' }), { as: 'hideEmpty', default: true }),
    ...(info.hierarchical ? { parent: parentArg } : {}),
    post: readablePostId('event', `Limit to ${noun}s of this event.`),
    event: readablePostId('event', 'Alias of post; wins when both are given.'),
    slug: arg(Type.String({ description: `Limit to the ${noun} with this slug.` }), { check: nonEmptyString }),
    ...(info.hierarchical ? {} : { offset: arg(Type.Integer({ minimum: 0, description: 'Skip this many tags.' })) }),
    ...syncArgs,
  };

  const writeArgs = {
    // as WordPress saves them: a name is plain text (sanitize_text_field), a description goes through kses
    name: arg(Type.String({ maxLength: 200, description: `The ${noun} name (plain text: tags are removed).` }), {
      check: (v: string) => nonEmptyString(v) ?? nonEmptyString(plainText(v)) ?? accept(plainText(v)),
    }),
    description: arg(Type.String({ description: `The ${noun} description (HTML of a safe subset).` }), {
      check: (v: string) => nonEmptyString(v) ?? accept(sanitizeHtml(v)),
    }),
    slug: arg(Type.String({ maxLength: 200, description: `The ${noun} slug.` }), { check: nonEmptyString }),
    ...(info.hierarchical ? { parent: parentArg } : {}),
  };

  /** What a single read of the term sends (a category's links name its ancestors: the tree is read after the term). */
  const body = async (services: Services, urls: RouteContext['urls'], term: Term) => {
    const tree = info.hierarchical ? await service(services, info).tree() : undefined;
    return serializeTerm(term, info, urls, tree);
  };
  /**
   * A term as it is answered: a single read with its Last-Modified; a write (it answers what a read answers) with
   * the ETag of the term's next read — none after a delete, whose term is gone.
   */
  const respond = async (ctx: RouteContext, status: number, term: Term, as: 'read' | 'written' | 'deleted') => {
    const sent = await body(ctx.services, ctx.urls, term);
    const headers: Record<string, string> =
      as === 'read' ? { 'Last-Modified': httpDate(latestMs([term.modifiedAt])) } : as === 'written' ? { ETag: jsonEtag(sent) } : {};
    return { status, body: sent, headers };
  };
  /** The term a write names, as its single read answers now (conditional writes, RouteSpec.item). */
  const item = async (ctx: ItemContext): Promise<ItemState | undefined> => {
    const term = await service(ctx.services, info).item(ctx.actor, Number(ctx.params.id));
    if (!term) return undefined;
    return { etag: jsonEtag(await body(ctx.services, ctx.urls, term)), modifiedMs: latestMs([term.modifiedAt]), version: term.version };
  };
  /**
   * The parent to hand the service: categories take the validated argument; tags declare no `parent`, but one
   * sent anyway must reach the service, which answers WordPress' own 400 after its permission check.
   */
  const parentOf = (ctx: RouteContext<{ readonly parent?: number | null }>): number | null | undefined => {
    if (info.hierarchical) return ctx.args.parent;
    return 'parent' in ctx.sent ? null : undefined;
  };

  return [
    route({
      methods: ['GET'],
      path: `/${info.route}`,
      summary: `List ${info.route}. With sync_token: a sync (full, then what changed), 410 when it must start over.`,
      errors: [410],
      args: listArgs,
      responses: { 200: termListSchema(info.route, itemSchema) },
      async handler(ctx) {
        const svc = service(ctx.services, info);
        const source = ctx.services.syncSources[info.route];
        if (isSync(ctx)) {
          const tree = info.hierarchical ? await svc.tree() : undefined;
          return syncList(ctx, info.route, source, (term) => serializeTerm(term, info, ctx.urls, tree));
        }
        const a = ctx.args as typeof ctx.args & { readonly parent?: number | null; readonly offset?: number | null };
        const query: TermListQuery = {
          page: a.page,
          perPage: a.perPage,
          offset: a.offset ?? undefined,
          search: a.search ?? undefined,
          include: a.include ?? undefined,
          exclude: a.exclude ?? undefined,
          order: a.order,
          orderby: a.orderby,
          hideEmpty: a.hideEmpty,
          parent: a.parent ?? undefined,
          post: a.event ?? a.post ?? undefined,
          slug: a.slug ?? undefined,
          modifiedAfter: a.modifiedAfter ?? undefined,
          modifiedBefore: a.modifiedBefore ?? undefined,
        };
        const { terms, total } = await svc.list(ctx.actor, query);
        const tree = info.hierarchical ? await svc.tree() : undefined;
        return withRemoved(
          ctx,
          collection(ctx, {
            key: info.route,
            path: `/${info.route}/`,
            layout: 'terms',
            carryDefault: 'given',
            page: query.page,
            perPage: query.perPage,
            result: { items: terms, total },
            serialize: (term) => serializeTerm(term, info, ctx.urls, tree),
          }),
          source,
        );
      },
    }),
    route({
      methods: ['POST'],
      path: `/${info.route}`,
      summary: `Create a ${noun}.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      args: { ...writeArgs, name: required(writeArgs.name) },
      responses: { 201: itemSchema },
      async handler(ctx) {
        const a = ctx.args;
        const term = await service(ctx.services, info).create(ctx.actor, {
          name: a.name,
          description: a.description,
          slug: a.slug ?? undefined,
          parent: parentOf(ctx),
        });
        const res = await respond(ctx, 201, term, 'written');
        return { ...res, headers: { ...res.headers, Location: ctx.urls.rest(`/${info.route}/${term.id}`) } };
      },
    }),
    route({
      methods: ['GET'],
      path: `/${info.route}/:id`,
      lastModified: true,
      summary: `Read a ${noun}.`,
      args: { id: existingTermId(noun) },
      responses: { 200: itemSchema },
      async handler(ctx) {
        return respond(ctx, 200, await service(ctx.services, info).get(ctx.actor, ctx.args.id), 'read');
      },
    }),
    route({
      methods: UPDATE_METHODS,
      path: `/${info.route}/:id`,
      summary: `Update a ${noun}; fields left out are unchanged.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      item,
      args: { id: existingTermId(noun), ...writeArgs },
      responses: { 200: itemSchema },
      async handler(ctx) {
        const a = ctx.args;
        const input = { name: a.name ?? undefined, description: a.description, slug: a.slug ?? undefined, parent: parentOf(ctx) };
        return respond(ctx, 200, await service(ctx.services, info).update(ctx.actor, a.id, input, ctx.ifVersion), 'written');
      },
    }),
    route({
      methods: ['DELETE'],
      path: `/${info.route}/:id`,
      summary: `Delete a ${noun} for good; its children move up to its parent.`,
      errors: [403],
      allowed: (actor, _params, services) => service(services, info).mayManage(actor),
      item,
      args: { id: existingTermId(noun) },
      responses: { 200: itemSchema },
      async handler(ctx) {
        return respond(ctx, 200, await service(ctx.services, info).remove(ctx.actor, ctx.args.id, ctx.ifVersion), 'deleted');
      },
    }),
  ];
}
