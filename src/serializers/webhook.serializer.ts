/** Webhook endpoints and deliveries on the wire (FEATURES.md §4.3); times as the API writes UTC. */
import type { Delivery, Endpoint } from '../domain/webhooks/webhook.service.js';
import type { DeliveryBody, EndpointBody } from '../http/routes/webhooks/webhooks.schemas.js';
import type { Urls } from '../http/urls.js';
import { formatUtcMs } from '../time/zones.js';

const utc = (ms: number | null) => (ms === null ? null : formatUtcMs(ms));

export function serializeEndpoint(e: Endpoint, urls: Urls): EndpointBody {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_types: [...e.eventTypes],
    filter: e.filter === null ? null : { ...e.filter, categories: e.filter.categories ? [...e.filter.categories] : undefined },
    payload: e.payload,
    active: e.active,
    disabled_reason: e.disabledReason,
    owner: e.ownerId,
    created_utc: formatUtcMs(e.createdMs),
    modified_utc: formatUtcMs(e.modifiedMs),
    previous_secret_expires_utc:
      e.previousSecretUntilMs !== null && e.previousSecretUntilMs > Date.now() ? formatUtcMs(e.previousSecretUntilMs) : null,
    rest_url: urls.rest(`/webhooks/${e.id}`),
    ...(e.secret === undefined ? {} : { secret: e.secret }),
  };
}

export function serializeDelivery(d: Delivery): DeliveryBody {
  return {
    id: d.id,
    webhook_id: d.msgId,
    type: d.type,
    seq: d.seq,
    resource: d.resourceType === null || d.resourceId === null ? null : { type: d.resourceType, id: d.resourceId },
    status: d.state,
    attempts: d.attempts,
    next_attempt_utc: utc(d.nextAttemptMs),
    last_status: d.lastStatus,
    last_error: d.lastError,
    created_utc: formatUtcMs(d.createdMs),
    completed_utc: utc(d.completedMs),
    log: d.log.map((a) => ({
      attempt: a.attempt,
      started_utc: formatUtcMs(a.startedMs),
      duration_ms: a.durationMs,
      status: a.status,
      error: a.error,
      response: a.response,
      request_headers: { ...a.requestHeaders },
    })),
  };
}
