/**
 * `/webhooks` (FEATURES.md §4.3, issue 18): administrators (capability `manage_webhooks`) list, make, read,
 * change and remove endpoints; send a `webhook.test`; rotate an endpoint's secret; list its deliveries with
 * their log, send one again, or replay everything since a sequence number of the change log.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import { isWebhookSecret, type WebhookFilter } from '../../../domain/webhooks/webhook.js';
import type { EndpointInput } from '../../../domain/webhooks/webhook.service.js';
import { canManageWebhooks } from '../../../domain/webhooks/webhook.service.js';
import { serializeDelivery, serializeEndpoint } from '../../../serializers/webhook.serializer.js';
import type { DeliveryState } from '../../../storage/stores/webhook.store.js';
import { arg, invalid } from '../../params.js';
import { type RouteContext, type RouteSpec, route } from '../../route.js';
import {
  DELIVERY_CALLBACKS,
  DeletedEndpointSchema,
  DeliveryListSchema,
  DeliverySchema,
  EndpointListSchema,
  EndpointSchema,
  ReplaySchema,
  WebhookFilterSchema,
} from './webhooks.schemas.js';

export const WEBHOOKS_PATH = '/webhooks';

const PAGE_TOKEN = /^d(\d{1,15})$/;

/** A filter as sent: an object of known keys, ids as integers. */
function checkFilter(value: unknown): ReturnType<typeof invalid> | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return invalid('filter must be an object.');
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'categories') {
      if (!Array.isArray(v) || v.length > 100 || !v.every((c) => Number.isSafeInteger(c) && (c as number) > 0)) {
        return invalid('filter.categories must be an array of category ids.');
      }
    } else if (key === 'venue' || key === 'organizer') {
      if (!Number.isSafeInteger(v) || (v as number) <= 0) return invalid(`filter.${key} must be a ${key} id.`);
    } else return invalid(`filter has no key ${key} (categories, venue, organizer).`);
  }
  return undefined;
}

const endpointArgs = {
  url: arg(
    Type.String({ maxLength: 2000, description: 'Where deliveries go: https (http and private addresses only with WEBHOOKS_ALLOW_PRIVATE).' }),
  ),
  description: arg(Type.String({ maxLength: 1000, description: 'What the endpoint is for.' })),
  event_types: arg(Type.Array(Type.String(), { maxItems: 100, description: 'Types to send (`*`, `event.*`, `venue.updated`…); default `*`.' }), {
    as: 'eventTypes',
  }),
  filter: arg(Type.Unsafe<WebhookFilter>({ ...WebhookFilterSchema, nullable: true }), { check: checkFilter }),
  payload: arg(Type.String({ enum: ['thin', 'full'], description: '`thin` (default) or `full`.' })),
  active: arg(Type.Boolean({ description: 'false disables the endpoint (what it would get is held a week); true (or null) sends what was held.' })),
  owner: arg(
    Type.Integer({
      minimum: 1,
      description: 'The user whose view a `full` payload shows (default, and with null: who makes or updates the endpoint).',
    }),
  ),
};

function input(
  args: {
    readonly url?: string | null;
    readonly description?: string | null;
    readonly eventTypes?: readonly string[] | null;
    readonly filter?: WebhookFilter | null;
    readonly payload?: string | null;
    readonly active?: boolean | null;
    readonly owner?: number | null;
  },
  sent: Readonly<Record<string, unknown>>,
  /** Who writes: `owner: null` makes it the owner, as on a create without one. */
  callerId: number | undefined,
): EndpointInput {
  // JSON null clears an optional field, back to its default (DECISIONS.md); the URL has none
  if ('url' in sent && args.url === null) throw errors.invalidParam('url');
  const cleared = <T>(name: string, value: T | null | undefined, byDefault: T): T | undefined =>
    value === null && name in sent ? byDefault : (value ?? undefined);
  return {
    url: args.url ?? undefined,
    description: cleared('description', args.description, ''),
    eventTypes: cleared('event_types', args.eventTypes, ['*']),
    filter: 'filter' in sent ? (args.filter ?? null) : undefined,
    payload: cleared('payload', args.payload, 'thin') as EndpointInput['payload'],
    active: cleared('active', args.active, true),
    owner: cleared('owner', args.owner, callerId),
  };
}

const callerOf = (ctx: Pick<RouteContext, 'actor'>) => (ctx.actor.kind === 'user' ? ctx.actor.id : undefined);

export function webhookRoutes(): RouteSpec[] {
  const idArg = arg(Type.Integer({ description: 'The webhook endpoint id.' }), { required: true });
  const deliveryArg = arg(Type.Integer({ minimum: 1, description: 'The delivery id.' }), { required: true });
  // every route is for administrators (manage_webhooks), and Allow says so
  const admin = { permission: canManageWebhooks, allowed: canManageWebhooks };
  const endpoint = (ctx: Pick<RouteContext, 'urls'>, e: Parameters<typeof serializeEndpoint>[0]) => serializeEndpoint(e, ctx.urls);
  return [
    route({
      methods: ['GET'],
      path: WEBHOOKS_PATH,
      summary: 'List webhook endpoints (secrets are never shown again).',
      errors: [403],
      ...admin,
      args: {},
      responses: { 200: EndpointListSchema },
      async handler(ctx) {
        const list = await ctx.services.webhooks.list(ctx.actor);
        return { body: { webhooks: list.map((e) => endpoint(ctx, e)), total: list.length }, headers: { 'Cache-Control': 'private, no-store' } };
      },
    }),
    route({
      methods: ['POST'],
      path: WEBHOOKS_PATH,
      summary:
        'Make a webhook endpoint; answered 201 with its secret, shown this once (one of yours with `secret`, so that a receiver holding it already answers the check on create).',
      errors: [403],
      ...admin,
      args: {
        ...endpointArgs,
        url: { ...endpointArgs.url, required: true as const },
        secret: arg(
          Type.String({
            maxLength: 120,
            description: 'The signing secret, when you make it yourself: `whsec_` and 24 to 64 random bytes in base64. Default: one is made.',
          }),
          { check: (v: string) => (isWebhookSecret(v) ? undefined : invalid('A secret is whsec_ followed by 24 to 64 bytes in base64.')) },
        ),
      },
      responses: { 201: EndpointSchema },
      callbacks: DELIVERY_CALLBACKS,
      async handler(ctx) {
        const made = await ctx.services.webhooks.create(ctx.actor, {
          ...input(ctx.args, ctx.sent, callerOf(ctx)),
          secret: ctx.args.secret ?? undefined,
        });
        return {
          status: 201,
          body: endpoint(ctx, made),
          headers: { Location: ctx.urls.rest(`${WEBHOOKS_PATH}/${made.id}`), 'Cache-Control': 'private, no-store' },
        };
      },
    }),
    route({
      methods: ['GET'],
      path: `${WEBHOOKS_PATH}/:id`,
      summary: 'Read a webhook endpoint.',
      errors: [403, 404],
      ...admin,
      args: { id: idArg },
      responses: { 200: EndpointSchema },
      async handler(ctx) {
        return { body: endpoint(ctx, await ctx.services.webhooks.get(ctx.actor, ctx.args.id)), headers: { 'Cache-Control': 'private, no-store' } };
      },
    }),
    route({
      methods: ['POST', 'PUT', 'PATCH'],
      path: `${WEBHOOKS_PATH}/:id`,
      summary: 'Change a webhook endpoint (what is sent is changed; `active: true` brings a disabled one back).',
      errors: [403, 404],
      ...admin,
      args: { id: idArg, ...endpointArgs },
      responses: { 200: EndpointSchema },
      async handler(ctx) {
        return { body: endpoint(ctx, await ctx.services.webhooks.update(ctx.actor, ctx.args.id, input(ctx.args, ctx.sent, callerOf(ctx)))) };
      },
    }),
    route({
      methods: ['DELETE'],
      path: `${WEBHOOKS_PATH}/:id`,
      summary: 'Remove a webhook endpoint, its deliveries and their log.',
      errors: [403, 404],
      ...admin,
      args: { id: idArg },
      responses: { 200: DeletedEndpointSchema },
      async handler(ctx) {
        return { body: { deleted: true, previous: endpoint(ctx, await ctx.services.webhooks.remove(ctx.actor, ctx.args.id)) } };
      },
    }),
    route({
      methods: ['POST'],
      path: `${WEBHOOKS_PATH}/:id/test`,
      summary: 'Send a `webhook.test` now; answered with its delivery and the attempt (not retried).',
      errors: [403, 404],
      ...admin,
      args: { id: idArg },
      responses: { 200: DeliverySchema },
      async handler(ctx) {
        return { body: serializeDelivery(await ctx.services.webhooks.test(ctx.actor, ctx.args.id)) };
      },
    }),
    route({
      methods: ['POST'],
      path: `${WEBHOOKS_PATH}/:id/rotate-secret`,
      summary: 'Give the endpoint a new secret (in the answer, once); the old one signs beside it for 24 hours.',
      errors: [403, 404],
      ...admin,
      args: { id: idArg },
      responses: { 200: EndpointSchema },
      async handler(ctx) {
        return {
          body: endpoint(ctx, await ctx.services.webhooks.rotateSecret(ctx.actor, ctx.args.id)),
          headers: { 'Cache-Control': 'private, no-store' },
        };
      },
    }),
    route({
      methods: ['GET'],
      path: `${WEBHOOKS_PATH}/:id/deliveries`,
      summary: "List an endpoint's deliveries with their attempts, newest first, in cursor pages.",
      errors: [403, 404],
      ...admin,
      args: {
        id: idArg,
        status: arg(Type.String({ enum: ['pending', 'held', 'succeeded', 'failed'], description: 'Only deliveries in this state.' })),
        page_token: arg(Type.String({ maxLength: 40, description: 'The `next_page_token` of the page before.' }), {
          as: 'pageToken',
          check: (v: string) => (PAGE_TOKEN.test(v) ? undefined : invalid('Not a page token of this list.')),
        }),
        per_page: arg(Type.Integer({ minimum: 1, maximum: 100, description: 'Deliveries per page.' }), { default: 20, as: 'perPage' }),
      },
      responses: { 200: DeliveryListSchema },
      async handler(ctx) {
        const token = ctx.args.pageToken ? PAGE_TOKEN.exec(ctx.args.pageToken) : null;
        const page = await ctx.services.webhooks.deliveries(ctx.actor, ctx.args.id, {
          state: (ctx.args.status ?? undefined) as DeliveryState | undefined,
          beforeId: token ? Number(token[1]) : undefined,
          limit: ctx.args.perPage,
        });
        const body: Record<string, unknown> = { deliveries: page.items.map(serializeDelivery) };
        if (page.nextBeforeId !== undefined) body.next_page_token = `d${page.nextBeforeId}`;
        return { body, headers: { 'Cache-Control': 'private, no-store' } };
      },
    }),
    route({
      methods: ['GET'],
      path: `${WEBHOOKS_PATH}/:id/deliveries/:delivery`,
      summary: 'Read one delivery with its attempts.',
      errors: [403, 404],
      ...admin,
      args: { id: idArg, delivery: deliveryArg },
      responses: { 200: DeliverySchema },
      async handler(ctx) {
        return { body: serializeDelivery(await ctx.services.webhooks.delivery(ctx.actor, ctx.args.id, ctx.args.delivery)) };
      },
    }),
    route({
      methods: ['POST'],
      path: `${WEBHOOKS_PATH}/:id/deliveries/:delivery/redeliver`,
      summary: 'Send a delivery again, from the start of the retry schedule, with the same `webhook-id` (not a test: 400).',
      errors: [400, 403, 404],
      ...admin,
      args: { id: idArg, delivery: deliveryArg },
      responses: { 200: DeliverySchema },
      async handler(ctx) {
        return { body: serializeDelivery(await ctx.services.webhooks.redeliver(ctx.actor, ctx.args.id, ctx.args.delivery)) };
      },
    }),
    route({
      methods: ['POST'],
      path: `${WEBHOOKS_PATH}/:id/replay`,
      summary:
        'Send again every change from `since_seq` on that the endpoint wants (within the change log’s retention), in seq order, one at a time, with their original `webhook-id`s.',
      errors: [403, 404],
      ...admin,
      args: {
        id: idArg,
        since_seq: arg(Type.Integer({ minimum: 1, description: 'The first sequence number to send (a `data.seq` of a payload).' }), {
          required: true,
          as: 'sinceSeq',
        }),
      },
      responses: { 202: ReplaySchema },
      async handler(ctx) {
        const r = await ctx.services.webhooks.replay(ctx.actor, ctx.args.id, ctx.args.sinceSeq);
        return { status: 202, body: { queued: r.queued, first_seq: r.firstSeq, last_seq: r.lastSeq } };
      },
    }),
  ];
}
