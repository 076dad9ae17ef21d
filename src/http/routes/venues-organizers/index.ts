/**
 * `/venues`, `/organizers`, their `/<id>` and `/by-slug/<slug>` routes (spec §4.5, §4.6; CONTRACT.md §2.2,
 * §2.3, §4, §6.3, §6.8). One set of routes serves both kinds.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import type { LinkedInput, LinkedType, RecordOf } from '../../../domain/linked/linked.js';
import type { LinkedView } from '../../../domain/linked/linked.service.js';
import { can } from '../../../domain/policies.js';
import type { SyncSource } from '../../../domain/sync/sync.service.js';
import { serializeLinked } from '../../../serializers/linked.serializer.js';
import { collection } from '../../collection.js';
import { httpDate, jsonEtag, latestMs } from '../../conditional.js';
import { type ArgContext, type Args, arg, invalid } from '../../params.js';
import { type ItemContext, type ItemState, type RouteContext, type RouteSpec, route, UPDATE_METHODS } from '../../route.js';
import { isSync, syncList, withRemoved } from '../../sync.js';
import type { Urls } from '../../urls.js';
import { linkedListArgs, linkedWriteArgs } from './venues-organizers.args.js';
import { LINKED_SCHEMAS, linkedListSchema } from './venues-organizers.schemas.js';

export function linkedRoutes<T extends LinkedType>(type: T): RouteSpec[] {
  const plural = `${type}s` as const;
  const schema = LINKED_SCHEMAS[type];
  const serialize = (view: LinkedView<RecordOf<T>>, urls: Urls, single = false) => serializeLinked(type, view, urls, { single });

  const idArg = arg(Type.Integer({ description: `The ${type} id.` }), {
    required: true,
    check: async (id: number, { services }: ArgContext) => ((await services.linked(type).exists(id)) ? undefined : invalid()),
  });
  const slugArg = arg(Type.String({ description: `The ${type} slug.` }), {
    required: true,
    as: 'pathSlug',
    check: async (slug: string, { services }: ArgContext) => ((await services.linked(type).idForSlug(slug)) === undefined ? invalid() : undefined),
  });
  const idFromSlug = async (ctx: RouteContext<{ readonly pathSlug: string }>) => {
    const id = await ctx.services.linked(type).idForSlug(ctx.args.pathSlug);
    if (id === undefined) throw errors.invalidParam('slug');
    return id;
  };
  const single = { 200: schema };
  const modifiedMs = (view: LinkedView<RecordOf<T>>) => latestMs([view.record.modifiedUtc]);
  /** A single read's answer, with its Last-Modified. */
  const read = (view: LinkedView<RecordOf<T>>, urls: Urls) => ({
    body: serialize(view, urls, true),
    headers: { 'Last-Modified': httpDate(modifiedMs(view)) },
  });
  /** A write's answer, with the ETag the record's next single read sends this caller (when that read answers 200). */
  const written = (ctx: RouteContext, view: LinkedView<RecordOf<T>>, status = 200, headers: Record<string, string> = {}) => {
    const etag = ctx.services.linked(type).readable(ctx.actor, view.record) ? jsonEtag(serialize(view, ctx.urls, true)) : undefined;
    return { status, body: serialize(view, ctx.urls), headers: etag ? { ...headers, ETag: etag } : headers };
  };
  /** The record a write names, as its single read answers the caller now (conditional writes, RouteSpec.item). */
  const itemState = async (ctx: ItemContext, id: number | undefined): Promise<ItemState | undefined> => {
    const found = id === undefined ? undefined : await ctx.services.linked(type).item(ctx.actor, id);
    if (!found) return undefined;
    const { record, view } = found;
    return { etag: view && jsonEtag(serialize(view, ctx.urls, true)), modifiedMs: latestMs([record.modifiedUtc]), version: record.version };
  };
  const byId = (ctx: ItemContext) => itemState(ctx, Number(ctx.params.id));
  const bySlug = async (ctx: ItemContext) => itemState(ctx, await ctx.services.linked(type).idForSlug(ctx.params.slug ?? ''));
  // With the kind generic here, TypeScript cannot expand the argument types built from its descriptor; they are
  // checked for each concrete kind against the service's input (LinkedArgsMatch, venues-organizers.args.ts).
  const input = (args: object) => args as LinkedInput<T>;
  const writeArgs = linkedWriteArgs(type, false) as unknown as Args;

  return [
    route({
      methods: ['GET'],
      path: `/${plural}`,
      summary: `List ${plural}, newest first. With sync_token: a sync (full, then what changed), 410 when it must start over.`,
      errors: [404, 410],
      args: linkedListArgs(type),
      responses: { 200: linkedListSchema(plural, schema) },
      async handler(ctx) {
        const source = ctx.services.syncSources[plural] as unknown as SyncSource<LinkedView<RecordOf<T>>>;
        if (isSync(ctx)) return syncList(ctx, plural, source, (view) => serialize(view, ctx.urls, true));
        const result = await ctx.services.linked(type).list(ctx.actor, ctx.args);
        return withRemoved(
          ctx,
          collection(ctx, {
            key: plural,
            path: `/${plural}/`,
            layout: 'posts',
            page: ctx.args.page,
            perPage: ctx.args.perPage,
            result,
            serialize: (view) => serialize(view, ctx.urls),
            notFound: () => errors.linkedPageNotFound(type),
          }),
          source,
        );
      },
    }),
    route({
      methods: ['GET'],
      path: `/${plural}/:id`,
      lastModified: true,
      summary: `Read a ${type}.`,
      errors: [403],
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return read(await ctx.services.linked(type).get(ctx.actor, ctx.args.id), ctx.urls);
      },
    }),
    route({
      methods: ['DELETE'],
      path: `/${plural}/:id`,
      summary: `Move a ${type} to the trash; events lose the link.`,
      errors: [403, 410],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'delete', Number(params.id)),
      item: byId,
      args: { id: idArg },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.linked(type).remove(ctx.actor, ctx.args.id, ctx.ifVersion));
      },
    }),
    route({
      methods: UPDATE_METHODS,
      path: `/${plural}/:id`,
      summary: `Update a ${type}; fields left out are unchanged.`,
      errors: [403],
      allowed: (actor, params, services) => services.mayWritePost(actor, 'edit', Number(params.id)),
      item: byId,
      args: { id: idArg, ...writeArgs },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.linked(type).update(ctx.actor, ctx.args.id, input(ctx.args), ctx.ifVersion));
      },
    }),
    route({
      methods: ['POST'],
      path: `/${plural}`,
      summary: `Create a ${type} (or reuse the one with the same name).`,
      errors: [403],
      allowed: (actor) => can(actor, 'edit_posts'),
      args: linkedWriteArgs(type, true),
      responses: { 201: schema },
      async handler(ctx) {
        const view = await ctx.services.linked(type).create(ctx.actor, input(ctx.args));
        return written(ctx, view, 201, { Location: ctx.urls.rest(`/${plural}/${view.record.id}`) });
      },
    }),
    route({
      methods: ['GET'],
      path: `/${plural}/by-slug/:slug`,
      lastModified: true,
      summary: `Read a ${type} by its slug.`,
      errors: [403],
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return read(await ctx.services.linked(type).get(ctx.actor, await idFromSlug(ctx)), ctx.urls);
      },
    }),
    route({
      methods: ['DELETE'],
      path: `/${plural}/by-slug/:slug`,
      summary: `Move a ${type}, found by its slug, to the trash.`,
      errors: [403, 410],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'delete', await services.linked(type).idForSlug(params.slug)),
      item: bySlug,
      args: { slug: slugArg },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.linked(type).remove(ctx.actor, await idFromSlug(ctx), ctx.ifVersion));
      },
    }),
    route({
      methods: UPDATE_METHODS,
      path: `/${plural}/by-slug/:slug`,
      summary: `Update a ${type} found by its slug.`,
      errors: [403],
      allowed: async (actor, params, services) => services.mayWritePost(actor, 'edit', await services.linked(type).idForSlug(params.slug)),
      item: bySlug,
      args: { ...writeArgs, slug: slugArg },
      responses: single,
      async handler(ctx) {
        return written(ctx, await ctx.services.linked(type).update(ctx.actor, await idFromSlug(ctx), input(ctx.args), ctx.ifVersion));
      },
    }),
  ];
}
