/** Response schemas of webhook endpoints and deliveries (FEATURES.md §4.3). */
import { type Static, Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../../domain/webhooks/webhook.js';
import { Nullable } from '../../schemas/components.schemas.js';

export const WebhookFilterSchema = Type.Object(
  {
    categories: Type.Optional(Type.Array(Type.Integer(), { description: 'Category ids: events in one of them.' })),
    venue: Type.Optional(Type.Integer({ description: 'Events at this venue.' })),
    organizer: Type.Optional(Type.Integer({ description: 'Events with this organizer.' })),
  },
  {
    additionalProperties: false,
    description: "Which events' changes are sent (as the events are when the change is fanned out: moving one in sends it). Other types pass.",
  },
);

export const EndpointSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  description: Type.String(),
  event_types: Type.Array(Type.String(), {
    description: `Types sent: \`*\`, \`prefix.*\` (\`event.*\` takes \`event.occurrence.*\`), or one of: ${EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
  }),
  filter: Type.Unsafe<Static<typeof WebhookFilterSchema> | null>({ ...WebhookFilterSchema, nullable: true }),
  payload: Type.Union([Type.Literal('thin'), Type.Literal('full')], {
    description:
      '`thin`: `data` has id, seq, status, rest_url, etag and changed; `full` adds `object`, the v1 object as the owner reads it at send time (left out when the owner may not read it then).',
  }),
  active: Type.Boolean(),
  disabled_reason: Nullable(
    Type.String({ description: '`gone` (the receiver answered 410), `failing` (5 days of failures), `disabled` (by hand).' }),
  ),
  owner: Type.Integer({ description: 'The user whose view a `full` payload shows.' }),
  created_utc: Type.String(),
  modified_utc: Type.String(),
  previous_secret_expires_utc: Nullable(Type.String({ description: 'After a rotation: until when the previous secret signs too.' })),
  rest_url: Type.String({ format: 'uri' }),
  secret: Type.Optional(
    Type.String({ description: 'The signing secret (`whsec_…`, Standard Webhooks): only in the answer of a create or a rotation, never again.' }),
  ),
});
export type EndpointBody = Static<typeof EndpointSchema>;

export const EndpointListSchema = Type.Object({ webhooks: Type.Array(EndpointSchema), total: Type.Integer() });

const ResourceSchema = Type.Object({ type: Type.String({ description: 'event, venue, organizer, category or tag.' }), id: Type.Integer() });

export const DeliverySchema = Type.Object({
  id: Type.Integer(),
  webhook_id: Type.String({ description: 'The `webhook-id` header: the same on every attempt and on a replay.' }),
  type: Type.String(),
  seq: Type.Integer({ description: "The change's sequence number in the change log (0 for `webhook.test`)." }),
  resource: Type.Unsafe<Static<typeof ResourceSchema> | null>({ ...ResourceSchema, nullable: true }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('held'), Type.Literal('succeeded'), Type.Literal('failed')], {
    description: '`pending` (to be sent or retried), `held` (the endpoint is disabled), `succeeded`, `failed` (retries exhausted, or 410).',
  }),
  attempts: Type.Integer(),
  next_attempt_utc: Nullable(Type.String()),
  last_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_utc: Type.String(),
  completed_utc: Nullable(Type.String()),
  log: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      started_utc: Type.String(),
      duration_ms: Type.Integer(),
      status: Nullable(Type.Integer({ description: "The receiver's status; null when none came (timeout, refused)." })),
      error: Nullable(Type.String()),
      response: Nullable(Type.String({ description: 'The first 1 KB of the answer.' })),
      request_headers: Type.Record(Type.String(), Type.String()),
    }),
    { description: 'Every attempt, oldest first (kept 30 days).' },
  ),
});
export type DeliveryBody = Static<typeof DeliverySchema>;

export const DeliveryListSchema = Type.Object({
  deliveries: Type.Array(DeliverySchema),
  next_page_token: Type.Optional(Type.String({ description: 'The next (older) page, when there is one.' })),
});

export const DeletedEndpointSchema = Type.Object({ deleted: Type.Boolean(), previous: EndpointSchema });

export const ReplaySchema = Type.Object({
  queued: Type.Integer({ description: 'Changes queued again (sent one at a time, in seq order).' }),
  first_seq: Nullable(Type.Integer()),
  last_seq: Nullable(Type.Integer()),
});

/** What a receiver gets (FEATURES.md §4.3): the body of every delivery. */
export const WebhookPayloadSchema = Type.Object(
  {
    type: Type.String({ enum: [...EVENT_TYPES], description: 'What happened.' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the change happened (RFC 3339, UTC).' }),
    data: Type.Object({
      id: Type.Optional(Type.Integer({ description: 'The id of the event, venue, organizer, category or tag.' })),
      seq: Type.Optional(
        Type.Integer({ description: "The change's sequence number: order by it (deliveries are unordered); sync tokens share its log." }),
      ),
      status: Type.Optional(Type.String({ description: "A post's status right after the change." })),
      rest_url: Type.Optional(Type.String({ format: 'uri', description: 'Where the object is read.' })),
      etag: Type.Optional(
        Type.String({ description: 'The ETag a read of the object answers the endpoint owner now (absent when the owner may not read it).' }),
      ),
      changed: Type.Optional(Type.Array(Type.String(), { description: 'For updates: the keys of the object the change changed.' })),
      object: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            '`full` payloads: the object as its single read answers the endpoint owner at send time; absent when the owner may not read it.',
        }),
      ),
      endpoint: Type.Optional(Type.Integer({ description: '`webhook.test`: the endpoint id.' })),
    }),
  },
  { title: 'WebhookPayload' },
);

const signedHeader = (name: string, description: string) => ({ name, in: 'header', required: true, schema: { type: 'string' }, description });

/**
 * What the service POSTs to an endpoint (FEATURES.md §4.3), as the OpenAPI 3.0 callback of the route that
 * makes endpoints: the callback URL is the `url` of that request's body.
 */
export const DELIVERY_CALLBACKS = {
  delivery: {
    '{$request.body#/url}': {
      post: {
        summary:
          'A change of an event, venue, organizer, category or tag (or a `webhook.test`), POSTed to each endpoint that asked for its type, signed as Standard Webhooks 1.0 asks. At least once, unordered: order by `data.seq`, dedupe by `webhook-id`, catch up with a sync token.',
        parameters: [
          signedHeader('webhook-id', 'The message id: the same on every retry and replay (dedupe by it).'),
          signedHeader('webhook-timestamp', 'When this attempt was sent, in Unix seconds.'),
          signedHeader(
            'webhook-signature',
            'Space-separated `v1,<base64>`: HMAC-SHA256 with the endpoint secret (base64 after `whsec_`) of `{webhook-id}.{webhook-timestamp}.{body}`; two for 24 hours after a rotation.',
          ),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookPayload' } } } },
        responses: {
          '2XX': {
            description:
              'Received. Anything else (or no answer within 15 s) is a failure, retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (`Retry-After` honoured).',
          },
          '410': { description: 'Gone: the endpoint is disabled (`disabled_reason: gone`).' },
        },
      },
    },
  },
} as const;
