/**
 * Webhooks (issue 18, FEATURES.md §4): endpoints administrators manage, and the machinery that tells them what
 * changed. The change log (§2) is the outbox: a write's rows commit with it, so a rolled back write never sends a
 * webhook and a crash never loses one. `fanOut()` turns new rows of the log into deliveries, one per change and
 * endpoint that wants it, moving a cursor kept in the database in the same transaction (one process at a time
 * holds it); `deliverDue()` claims what is due (each delivery in one process's hands at a time, under a lease)
 * and sends it, signed as Standard Webhooks asks, retried on its schedule, each attempt in the delivery log.
 */

import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { Storage } from '../../storage/storage.js';
import type { ChangeRow } from '../../storage/stores/change.store.js';
import type { AttemptRow, DeliveryRow, DeliveryState, EndpointRow, NewDelivery } from '../../storage/stores/webhook.store.js';
import { formatUtcMs } from '../../time/zones.js';
import { type Actor, ANONYMOUS, isAuthenticated, isRole } from '../actor.js';
import { errors } from '../errors.js';
import { FetchError, isPrivateAddress } from '../imports/fetch.js';
import { can } from '../policies.js';
import type { ResourceType } from '../sync/change.js';
import { checkWebhookUrl, retryAfterMs, type Sender, type SendResult } from './send.js';
import {
  type EventLinks,
  isTypePattern,
  newSecret,
  nextDelay,
  passesFilter,
  signatures,
  typeMatches,
  typeOfChange,
  type WebhookFilter,
} from './webhook.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The old secret signs beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = DAY;
/** An endpoint failing without a success this long is disabled. */
export const DISABLE_AFTER_MS = 5 * DAY;
/** What waits for a disabled endpoint is kept this long for its return. */
const HELD_KEEP_MS = 7 * DAY;
/** The delivery log's retention. */
const LOG_KEEP_MS = 30 * DAY;
/** A `full` payload's object larger than this is left out (the payload is thin). */
const MAX_OBJECT_BYTES = 256 * 1024;
/** Rows of the change log one fan-out takes at most. */
const FAN_OUT_BATCH = 1000;
/** How long the check on create waits for its 2xx (FEATURES.md §4.3). */
const VERIFY_TIMEOUT_MS = 10_000;
/** A replay re-sends at most this many changes. */
const MAX_REPLAY = 100_000;
/** Renders kept at most (see WebhookService.renders), and changes whose first claim here is remembered. */
const MAX_RENDERS = 1000;
const MAX_CLAIMED = 20_000;
/** A render older than this is not reused, whatever it shows: a payload says what its object is about now. */
const RENDER_REUSE_MS = 5_000;

type Rendered = Awaited<ReturnType<WebhookObjects['render']>>;

export type PayloadKind = 'thin' | 'full';

/** An endpoint as the domain hands it out (the secret only where it was just made). */
export interface Endpoint {
  readonly id: number;
  readonly url: string;
  readonly description: string;
  readonly eventTypes: readonly string[];
  readonly filter: WebhookFilter | null;
  readonly payload: PayloadKind;
  readonly active: boolean;
  readonly disabledReason: string | null;
  readonly ownerId: number;
  readonly createdMs: number;
  readonly modifiedMs: number;
  /** Until when the previous secret still signs (after a rotation). */
  readonly previousSecretUntilMs: number | null;
  readonly secret?: string;
}

export interface EndpointInput {
  readonly url?: string;
  readonly description?: string;
  readonly eventTypes?: readonly string[];
  readonly filter?: WebhookFilter | null;
  readonly payload?: PayloadKind;
  readonly active?: boolean;
  readonly owner?: number;
  /** A new endpoint's secret, when its maker gives one (checked by the route: isWebhookSecret). */
  readonly secret?: string;
}

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly startedMs: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly response: string | null;
}

export interface Delivery {
  readonly id: number;
  readonly endpointId: number;
  readonly msgId: string;
  readonly type: string;
  readonly seq: number;
  readonly resourceType: string | null;
  readonly resourceId: number | null;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptMs: number | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdMs: number;
  readonly completedMs: number | null;
  readonly log: readonly DeliveryAttempt[];
}

/** What the HTTP layer gives the machinery: objects as a user reads them, and their URLs. */
export interface WebhookObjects {
  /** The v1 object as this actor reads it now (a single read's body) and its ETag; undefined when the actor may not. */
  render(type: ResourceType, id: number, actor: Actor): Promise<{ readonly object: unknown; readonly etag: string } | undefined>;
  restUrl(type: ResourceType, id: number): string;
}

export interface WebhookOptions {
  /** http and private addresses allowed (WEBHOOKS_ALLOW_PRIVATE: tests, development). */
  readonly allowPrivate: boolean;
  /** A new endpoint, or an endpoint's new URL, must accept a `webhook.test` first (WEBHOOKS_VERIFY). */
  readonly verifyUrl: boolean;
  readonly sender: Sender;
  readonly userAgent: string;
  readonly clock?: () => number;
  readonly random?: () => number;
  /** Deliveries of one endpoint in flight at once, in one process. */
  readonly concurrency?: number;
  /** Deliveries of one endpoint a process claims at once (default: four times `concurrency`). */
  readonly claimBatch?: number;
  /** How long a claimed delivery stays this process's (longer than a send's timeout). */
  readonly leaseMs?: number;
}

/** A delivery that succeeded, waiting to be written with others (WebhookService.recordSuccess). */
interface Success {
  readonly attempt: Omit<AttemptRow, 'id'>;
  readonly owner: string;
  readonly nowMs: number;
  /** Its endpoint, when that was failing before this success. */
  readonly recovered?: number;
}

interface Cursor {
  /** The snapshot fanned out up to. */
  readonly from: string;
  /** Mid-range: the snapshot being fanned out to, and the last seq done in it. */
  readonly to?: string;
  readonly after?: number;
}

const toEndpoint = (r: EndpointRow, secret?: string): Endpoint => ({
  id: r.id,
  url: r.url,
  description: r.description,
  eventTypes: JSON.parse(r.event_types) as string[],
  filter: r.filter === null ? null : (JSON.parse(r.filter) as WebhookFilter),
  payload: r.payload as PayloadKind,
  active: r.active === 1,
  disabledReason: r.disabled_reason,
  ownerId: r.owner_id,
  createdMs: r.created_at,
  modifiedMs: r.modified_at,
  previousSecretUntilMs: r.previous_secret_until,
  ...(secret === undefined ? {} : { secret }),
});

const toAttempt = (a: AttemptRow): DeliveryAttempt => ({
  attempt: a.attempt,
  startedMs: a.started_at,
  durationMs: a.duration_ms,
  status: a.status,
  error: a.error,
  requestHeaders: JSON.parse(a.request_headers) as Record<string, string>,
  response: a.response,
});

const toDelivery = (d: DeliveryRow, log: readonly AttemptRow[]): Delivery => ({
  id: d.id,
  endpointId: d.endpoint_id,
  msgId: d.msg_id,
  type: d.type,
  seq: d.seq,
  resourceType: d.resource_type,
  resourceId: d.resource_id,
  state: d.state as DeliveryState,
  attempts: d.attempts,
  nextAttemptMs: d.state === 'pending' ? d.next_attempt_at : null,
  lastStatus: d.last_status,
  lastError: d.last_error,
  createdMs: d.created_at,
  completedMs: d.completed_at,
  log: log.map(toAttempt),
});

/** Who may manage webhooks. */
export function canManageWebhooks(actor: Actor): boolean {
  return can(actor, 'manage_webhooks');
}

/** RFC 3339 of a stored UTC time. */
function rfc3339(stored: string): string {
  return `${stored.replace(' ', 'T')}Z`;
}

export class WebhookService {
  private readonly clock: () => number;
  private readonly random: () => number;
  readonly concurrency: number;
  readonly claimBatch: number;
  readonly leaseMs: number;
  /**
   * Objects rendered for payloads, by resource, owner and the credentials version (a change of the owner's role
   * is a new key): a change sent to several endpoints of one owner is read, serialised and hashed once, not
   * once per endpoint. A render is reused for a change only when it began after a delivery of that change was
   * claimed here (`firstClaim`): the claim came after the change's commit, so the render shows the change or a
   * later state, as a render of its own would. (Keyed by the data version instead, a render was rarely shared:
   * at 100 writes a second the version moved between the endpoints' sends; bench/webhooks.ts.)
   */
  private readonly renders = new Map<string, { readonly startedAt: number; readonly rendered: Promise<Rendered> }>();
  /** When (performance.now) a delivery of each change (seq) was first claimed by this process. */
  private readonly firstClaim = new Map<number, number>();
  /**
   * The endpoint as it was read when each delivery was claimed: a batch's sends use it rather than reading it
   * once each (three reads a change at three endpoints; bench/webhooks.ts counted the statements). A delivery
   * that waited half its lease reads it again. An edit made between the claim and the send applies from the
   * next claim on: what was claimed is in flight.
   */
  private readonly endpointAtClaim = new WeakMap<DeliveryRow, EndpointRow>();
  /** Endpoint owners as actors, by id and credentials version (a change of role is a new key). */
  private readonly owners = new Map<string, Promise<Actor>>();
  /** Successes to write after the write of successes in flight (`writingSuccesses`), all in one transaction. */
  private successes: { readonly items: Success[]; readonly written: Promise<void> } | undefined;
  private writingSuccesses: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly options: WebhookOptions,
  ) {
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
    this.concurrency = options.concurrency ?? 4;
    this.claimBatch = Math.max(this.concurrency, options.claimBatch ?? this.concurrency * 4);
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  // ---- management (administrators) ----------------------------------------------------------------------

  private authorize(actor: Actor): void {
    if (!canManageWebhooks(actor)) throw errors.forbidden(isAuthenticated(actor));
  }

  private async endpointRow(id: number): Promise<EndpointRow> {
    const row = await this.storage.webhooks.findEndpoint(id);
    if (!row) throw errors.webhookNotFound(id);
    return row;
  }

  async list(actor: Actor): Promise<Endpoint[]> {
    this.authorize(actor);
    return (await this.storage.webhooks.endpoints()).map((r) => toEndpoint(r));
  }

  async get(actor: Actor, id: number): Promise<Endpoint> {
    this.authorize(actor);
    return toEndpoint(await this.endpointRow(id));
  }

  /** Makes an endpoint; its secret is in the answer, and never again. */
  async create(actor: Actor, input: EndpointInput): Promise<Endpoint> {
    this.authorize(actor);
    if (input.url === undefined) throw errors.missingParams(['url']);
    const url = await this.checkUrl(input.url);
    const eventTypes = this.checkTypes(input.eventTypes ?? ['*']);
    const filter = await this.checkFilter(input.filter ?? null);
    const ownerId = await this.checkOwner(input.owner ?? (actor.kind === 'user' ? actor.id : 0));
    const secret = input.secret ?? newSecret();
    if (this.options.verifyUrl) await this.verify(url, secret);
    const now = this.clock();
    const row = await this.storage.transaction(async (tx) => {
      // the first endpoint starts the fan-out here: what changed before it is not sent
      if ((await tx.webhooks.countEndpoints()) === 0) {
        await tx.webhooks.lockCursor();
        await tx.webhooks.setCursor(JSON.stringify({ from: await tx.changes.snapshot() } satisfies Cursor));
      }
      return tx.webhooks.insertEndpoint({
        url,
        description: input.description ?? '',
        event_types: JSON.stringify(eventTypes),
        filter: filter === null ? null : JSON.stringify(filter),
        payload: input.payload ?? 'thin',
        active: input.active === false ? 0 : 1,
        disabled_reason: input.active === false ? 'disabled' : null,
        secret,
        previous_secret: null,
        previous_secret_until: null,
        owner_id: ownerId,
        failing_since: null,
        disabled_at: input.active === false ? now : null,
        created_at: now,
        modified_at: now,
      });
    });
    return toEndpoint(row, secret);
  }

  async update(actor: Actor, id: number, input: EndpointInput): Promise<Endpoint> {
    this.authorize(actor);
    const current = await this.endpointRow(id);
    const now = this.clock();
    const patch: Partial<Omit<EndpointRow, 'id'>> = { modified_at: now };
    if (input.url !== undefined) patch.url = await this.checkUrl(input.url);
    if (input.description !== undefined) patch.description = input.description;
    if (input.eventTypes !== undefined) patch.event_types = JSON.stringify(this.checkTypes(input.eventTypes));
    if (input.filter !== undefined) {
      const filter = await this.checkFilter(input.filter);
      patch.filter = filter === null ? null : JSON.stringify(filter);
    }
    if (input.payload !== undefined) patch.payload = input.payload;
    if (input.owner !== undefined) patch.owner_id = await this.checkOwner(input.owner);
    // a new URL is checked as a new endpoint's is: otherwise one made at a URL that answers could be moved to any
    if (this.options.verifyUrl && patch.url !== undefined && patch.url !== current.url) await this.verify(patch.url, current.secret);
    await this.storage.transaction(async (tx) => {
      await tx.webhooks.updateEndpoint(id, patch);
      if (input.active === true && current.active === 0) await tx.webhooks.enable(id, now, now - HELD_KEEP_MS);
      if (input.active === false && current.active === 1) await tx.webhooks.disable(id, 'disabled', now);
    });
    return toEndpoint(await this.endpointRow(id));
  }

  async remove(actor: Actor, id: number): Promise<Endpoint> {
    this.authorize(actor);
    const current = await this.endpointRow(id);
    await this.storage.transaction((tx) => tx.webhooks.deleteEndpoint(id));
    return toEndpoint(current);
  }

  /** A new secret, in the answer once; the previous one signs beside it for 24 hours. */
  async rotateSecret(actor: Actor, id: number): Promise<Endpoint> {
    this.authorize(actor);
    const current = await this.endpointRow(id);
    const now = this.clock();
    const secret = newSecret();
    await this.storage.webhooks.updateEndpoint(id, {
      secret,
      previous_secret: current.secret,
      previous_secret_until: now + ROTATION_OVERLAP_MS,
      modified_at: now,
    });
    return toEndpoint(await this.endpointRow(id), secret);
  }

  /** Sends a `webhook.test` now and answers with its delivery (one attempt, logged; no retries). */
  async test(actor: Actor, id: number): Promise<Delivery> {
    this.authorize(actor);
    const endpoint = await this.endpointRow(id);
    const now = this.clock();
    const msgId = `msg_test_${randomUUID()}`;
    await this.storage.webhooks.insertDeliveries([
      {
        endpoint_id: id,
        msg_id: msgId,
        type: 'webhook.test',
        seq: 0,
        resource_type: null,
        resource_id: null,
        occurred_at: formatUtcMs(now),
        data: '{}',
        // sent here, not by the queue
        state: 'held',
        next_attempt_at: now,
        created_at: now,
      },
    ]);
    const deliveryId = (await this.storage.webhooks.deliveryIdsByMessage(id, [msgId])).get(msgId) as number;
    const row = (await this.storage.webhooks.findDelivery(id, deliveryId)) as DeliveryRow;
    const body = JSON.stringify(this.testPayload(endpoint.id, now));
    const headers = this.headers(endpoint, msgId, body, now);
    const result = await this.options.sender(endpoint.url, headers, body);
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    await this.storage.transaction(async (tx) => {
      await tx.webhooks.insertAttempt(this.attemptRow(row.id, 1, now, headers, result));
      await tx.webhooks.finish(row.id, {
        state: ok ? 'succeeded' : 'failed',
        status: result.status ?? null,
        error: this.errorOf(result),
        nowMs: this.clock(),
      });
    });
    return this.delivery(actor, id, deliveryId);
  }

  /** An endpoint's deliveries, newest first, in cursor pages (`beforeId`: the last id of the page before). */
  async deliveries(
    actor: Actor,
    id: number,
    options: { readonly state?: DeliveryState; readonly beforeId?: number; readonly limit: number },
  ): Promise<{ readonly items: Delivery[]; readonly nextBeforeId?: number }> {
    this.authorize(actor);
    await this.endpointRow(id);
    const rows = await this.storage.webhooks.deliveries(id, { ...options, limit: options.limit + 1 });
    const page = rows.slice(0, options.limit);
    const log = await this.storage.webhooks.attempts(page.map((d) => d.id));
    const items = page.map((d) =>
      toDelivery(
        d,
        log.filter((a) => a.delivery_id === d.id),
      ),
    );
    return rows.length > options.limit ? { items, nextBeforeId: page[page.length - 1].id } : { items };
  }

  async delivery(actor: Actor, id: number, deliveryId: number): Promise<Delivery> {
    this.authorize(actor);
    await this.endpointRow(id);
    const row = await this.storage.webhooks.findDelivery(id, deliveryId);
    if (!row) throw errors.webhookDeliveryNotFound(deliveryId);
    return toDelivery(row, await this.storage.webhooks.attempts([row.id]));
  }

  /** Sends a delivery again, from the start of the schedule, with its `webhook-id`. */
  async redeliver(actor: Actor, id: number, deliveryId: number): Promise<Delivery> {
    this.authorize(actor);
    await this.endpointRow(id);
    const row = await this.storage.webhooks.findDelivery(id, deliveryId);
    if (!row) throw errors.webhookDeliveryNotFound(deliveryId);
    // (a test is sent when asked for, outside the queue: there is nothing to send again)
    if (row.type === 'webhook.test') throw errors.webhookTestNotRedelivered(deliveryId);
    await this.storage.transaction((tx) => tx.webhooks.requeue([deliveryId], this.clock(), false));
    return this.delivery(actor, id, deliveryId);
  }

  /**
   * Re-sends every change from `sinceSeq` on that the endpoint wants, in seq order, one at a time, each with
   * the `webhook-id` it had (or would have had). Answers how many, and the range of seq.
   */
  async replay(
    actor: Actor,
    id: number,
    sinceSeq: number,
  ): Promise<{ readonly queued: number; readonly firstSeq: number | null; readonly lastSeq: number | null }> {
    this.authorize(actor);
    const endpoint = toEndpoint(await this.endpointRow(id));
    const now = this.clock();
    let queued = 0;
    let firstSeq: number | null = null;
    let lastSeq: number | null = null;
    let from = sinceSeq;
    while (queued < MAX_REPLAY) {
      const rows = await this.storage.changes.rowsSince(from, FAN_OUT_BATCH);
      if (rows.length === 0) break;
      await this.storage.transaction(async (tx) => {
        const made = await this.deliveriesFor(tx, rows, [endpoint], now, true);
        const existing = await tx.webhooks.deliveryIdsByMessage(
          id,
          made.map((d) => d.msg_id),
        );
        await tx.webhooks.insertDeliveries(made.filter((d) => !existing.has(d.msg_id)));
        await tx.webhooks.requeue([...existing.values()], now, true);
        queued += made.length;
        if (made.length > 0) {
          firstSeq ??= made[0].seq;
          lastSeq = made[made.length - 1].seq;
        }
      });
      from = rows[rows.length - 1].seq + 1;
      if (rows.length < FAN_OUT_BATCH) break;
    }
    return { queued, firstSeq, lastSeq };
  }

  // ---- checks ------------------------------------------------------------------------------------------

  /** The URL's form, and (unless private addresses are allowed) every address its name resolves to now. */
  private async checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = checkWebhookUrl(raw, this.options.allowPrivate);
    } catch (error) {
      throw errors.webhookUrlRefused(error instanceof FetchError ? error.message : 'not an absolute URL');
    }
    if (!this.options.allowPrivate) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: { address: string }[];
      try {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), 5_000);
        });
        addresses = await Promise.race([lookup(host, { all: true }), late]).finally(() => clearTimeout(timer));
      } catch {
        throw errors.webhookUrlRefused(`${host} does not resolve`);
      }
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (refused) throw errors.webhookUrlRefused(`${host} resolves to ${refused.address}, a private or reserved address`);
    }
    return url.href;
  }

  private checkTypes(types: readonly string[]): string[] {
    const bad = types.filter((t) => !isTypePattern(t));
    if (types.length === 0 || bad.length > 0) {
      throw errors.invalidParam(
        'event_types',
        `Invalid parameter(s): event_types (${bad.length > 0 ? `unknown: ${bad.join(', ')}` : 'none given'}).`,
      );
    }
    return [...new Set(types)];
  }

  private async checkFilter(filter: WebhookFilter | null): Promise<WebhookFilter | null> {
    if (filter === null) return null;
    const out: { categories?: number[]; venue?: number; organizer?: number } = {};
    if (filter.categories !== undefined && filter.categories.length > 0) {
      const missing: number[] = [];
      for (const c of filter.categories) if (!(await this.storage.terms.find('tribe_events_cat', c))) missing.push(c);
      if (missing.length > 0) throw errors.invalidParam('filter', `Invalid parameter(s): filter (no category ${missing.join(', ')}).`);
      out.categories = [...new Set(filter.categories)];
    }
    for (const key of ['venue', 'organizer'] as const) {
      const id = filter[key];
      if (id === undefined) continue;
      const rows = await this.storage.posts.findAccessMany([id]);
      if (rows[0]?.type !== key) throw errors.invalidParam('filter', `Invalid parameter(s): filter (no ${key} ${id}).`);
      out[key] = id;
    }
    return Object.keys(out).length === 0 ? null : out;
  }

  private async checkOwner(id: number): Promise<number> {
    if (!(await this.storage.users.findById(id))) throw errors.invalidParam('owner', 'Invalid parameter(s): owner (no such user).');
    return id;
  }

  /** Graph's ownership check: the URL must accept a signed `webhook.test` (2xx) within 10 s (VERIFY_TIMEOUT_MS). */
  private async verify(url: string, secret: string): Promise<void> {
    const now = this.clock();
    const msgId = `msg_verify_${randomUUID()}`;
    const body = JSON.stringify(this.testPayload(0, now));
    const ts = Math.floor(now / 1000);
    const result = await this.options.sender(
      url,
      {
        'content-type': 'application/json',
        'user-agent': this.options.userAgent,
        'webhook-id': msgId,
        'webhook-timestamp': String(ts),
        'webhook-signature': signatures(msgId, ts, body, [secret]),
      },
      body,
      VERIFY_TIMEOUT_MS,
    );
    if (result.status === undefined || result.status < 200 || result.status >= 300) {
      throw errors.webhookUnreachable(result.status === undefined ? (result.error ?? 'no answer') : `it answered ${result.status}`);
    }
  }

  // ---- fan-out: the change log → deliveries -----------------------------------------------------------

  /**
   * Makes the deliveries of what the change log gained since the last fan-out, and moves the cursor, in one
   * transaction; a process that finds the cursor held by another does nothing. Answers how many changes it took.
   */
  async fanOut(): Promise<number> {
    const raw = await this.storage.db.selectFrom('sync_state').select('value').where('name', '=', 'webhook_cursor').executeTakeFirst();
    if (!raw || raw.value === '') return 0;
    const seen = JSON.parse(raw.value) as Cursor;
    // nothing new (read without a write transaction: the usual case)
    if (seen.to === undefined && !(await this.hasChangesAfter(seen.from))) return 0;
    return this.storage.transaction(async (tx) => {
      const held = await tx.webhooks.lockCursor();
      if (held === undefined || held === '') return 0;
      const cursor = JSON.parse(held) as Cursor;
      const to = cursor.to ?? (await tx.changes.snapshot());
      const rows = await tx.changes.rows(cursor.from, to, cursor.after ?? 0, FAN_OUT_BATCH);
      const next: Cursor = rows.length < FAN_OUT_BATCH ? { from: to } : { from: cursor.from, to, after: rows[rows.length - 1].seq };
      if (rows.length > 0) {
        const endpoints = (await tx.webhooks.endpoints()).map((r) => toEndpoint(r));
        await tx.webhooks.insertDeliveries(await this.deliveriesFor(tx, rows, endpoints, this.clock(), false));
      }
      await tx.webhooks.setCursor(JSON.stringify(next));
      return rows.length;
    });
  }

  private async hasChangesAfter(snapshot: string): Promise<boolean> {
    const row = await this.storage.db
      .selectFrom('changes')
      .select('seq')
      .where(() => this.storage.dialect.changesAfter(snapshot))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The deliveries these changes make for these endpoints (types and filters as the events are now). */
  private async deliveriesFor(
    tx: Storage,
    rows: readonly ChangeRow[],
    endpoints: readonly Endpoint[],
    nowMs: number,
    ordered: boolean,
  ): Promise<NewDelivery[]> {
    if (endpoints.length === 0) return [];
    const eventIds = [...new Set(rows.filter((r) => r.type === 'event').map((r) => r.id))];
    const links = eventIds.length > 0 ? await tx.webhooks.eventLinks(eventIds) : new Map<number, EventLinks & { occurrence: boolean }>();
    const out: NewDelivery[] = [];
    for (const row of rows) {
      const link = row.type === 'event' ? links.get(row.id) : undefined;
      const type = typeOfChange(row, link?.occurrence ?? false);
      const data: Record<string, unknown> = {};
      if (row.status !== null && row.op !== 'delete') data.status = row.status;
      if (row.fields !== null && /\.(updated|published|unpublished)$/.test(type)) data.changed = row.fields;
      for (const e of endpoints) {
        if (!typeMatches(e.eventTypes, type)) continue;
        if (row.type === 'event' && !passesFilter(e.filter, link)) continue;
        out.push({
          endpoint_id: e.id,
          msg_id: `msg_${row.seq}`,
          type,
          seq: row.seq,
          resource_type: row.type,
          resource_id: row.id,
          occurred_at: row.at,
          data: JSON.stringify(data),
          state: e.active ? 'pending' : 'held',
          ordered: ordered ? 1 : 0,
          next_attempt_at: nowMs,
          created_at: nowMs,
        });
      }
    }
    return out;
  }

  // ---- delivery ------------------------------------------------------------------------------------------

  /** The endpoints with deliveries due now. */
  dueEndpoints(): Promise<number[]> {
    return this.storage.webhooks.dueEndpoints(this.clock());
  }

  /**
   * Claims up to `limit` due deliveries of an endpoint for `owner` (a process); `ordered` false leaves a
   * replay's alone.
   */
  async claim(endpointId: number, owner: string, limit: number, ordered = true): Promise<DeliveryRow[]> {
    const now = this.clock();
    // (one statement, atomic on its own: no transaction around it)
    const claimed = await this.storage.webhooks.claim(endpointId, owner, now, now + this.leaseMs, limit, ordered);
    if (claimed.length > 0) {
      const endpoint = await this.storage.webhooks.findEndpoint(endpointId);
      if (endpoint) for (const d of claimed) this.endpointAtClaim.set(d, endpoint);
    }
    const at = performance.now();
    if (this.firstClaim.size + claimed.length > MAX_CLAIMED) this.firstClaim.clear();
    for (const d of claimed) if (!this.firstClaim.has(d.seq)) this.firstClaim.set(d.seq, at);
    return claimed;
  }

  /** Gives back what `owner` claimed and will not send (a process that stops). */
  release(deliveries: readonly DeliveryRow[], owner: string): Promise<void> {
    return this.storage.webhooks.release(
      deliveries.map((d) => d.id),
      owner,
    );
  }

  /**
   * Sends a claimed delivery once and records the attempt: success (2xx), a retry on the schedule (or after the
   * receiver's `Retry-After`, whichever is later), or the end (schedule done; 410 disables the endpoint, as does
   * failing for five days).
   */
  async send(delivery: DeliveryRow, owner: string, objects: WebhookObjects): Promise<SendResult | undefined> {
    // claimed in a batch, it may have waited its turn for half its lease: the lease must outlast the send, and
    // the endpoint is read again
    const waited = delivery.lease_until !== null && delivery.lease_until - this.clock() < this.leaseMs / 2;
    const endpoint = (!waited && this.endpointAtClaim.get(delivery)) || (await this.storage.webhooks.findEndpoint(delivery.endpoint_id));
    if (!endpoint) return undefined;
    if (endpoint.active !== 1) {
      await this.storage.webhooks.settle(delivery.id, owner, { state: 'held', status: null, error: 'the endpoint is disabled', nowMs: this.clock() });
      return undefined;
    }
    if (waited && !(await this.storage.webhooks.extendLease(delivery.id, owner, this.clock() + this.leaseMs))) return undefined;
    const body = JSON.stringify(await this.payload(delivery, endpoint, objects));
    const started = this.clock();
    const headers = this.headers(endpoint, delivery.msg_id, body, started);
    const result = await this.options.sender(endpoint.url, headers, body);
    const now = this.clock();
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    if (ok) {
      await this.recordSuccess({
        attempt: this.attemptRow(delivery.id, delivery.attempts, started, headers, result),
        owner,
        nowMs: now,
        // (the endpoint was read just before sending: when it was not failing then, there is nothing to end)
        ...(endpoint.failing_since === null ? {} : { recovered: endpoint.id }),
      });
      return result;
    }
    await this.storage.transaction(async (tx) => {
      await tx.webhooks.insertAttempt(this.attemptRow(delivery.id, delivery.attempts, started, headers, result));
      const error = this.errorOf(result);
      if (result.status === 410) {
        await tx.webhooks.settle(delivery.id, owner, { state: 'failed', status: 410, error, nowMs: now });
        await tx.webhooks.disable(endpoint.id, 'gone', now);
        return;
      }
      const failingSince = await tx.webhooks.endpointFailed(endpoint.id, now);
      const wait = nextDelay(delivery.attempts, this.random);
      if (wait === undefined) {
        await tx.webhooks.settle(delivery.id, owner, { state: 'failed', status: result.status ?? null, error, nowMs: now });
      } else {
        const asked = retryAfterMs(result.retryAfter, now) ?? 0;
        await tx.webhooks.settle(delivery.id, owner, {
          state: 'pending',
          nextAttemptAt: now + Math.max(wait, asked),
          status: result.status ?? null,
          error,
          nowMs: now,
        });
      }
      if (now - failingSince >= DISABLE_AFTER_MS) await tx.webhooks.disable(endpoint.id, 'failing', now);
    });
    return result;
  }

  /**
   * Writes a success (its attempt, the delivery succeeded) with the others that come while the previous ones are
   * being written: one transaction for all of them, not one each (on PostgreSQL four round trips a delivery).
   * Resolves once it is written.
   */
  private recordSuccess(success: Success): Promise<void> {
    if (!this.successes) {
      const items: Success[] = [];
      const written = this.writingSuccesses.then(() => {
        // from here on, successes wait for the next write
        this.successes = undefined;
        const recovered = [...new Set(items.flatMap((s) => (s.recovered === undefined ? [] : [s.recovered])))];
        return this.storage.transaction((tx) => tx.webhooks.succeeded(items, recovered));
      });
      this.writingSuccesses = written.catch(() => undefined);
      this.successes = { items, written };
    }
    this.successes.items.push(success);
    return this.successes.written;
  }

  /** The delivery log's retention: finished deliveries go after 30 days, held ones after a week. */
  purge(): Promise<number> {
    const now = this.clock();
    return this.storage.webhooks.purge(now - LOG_KEEP_MS, now - HELD_KEEP_MS);
  }

  /** Standard Webhooks' headers: the message id, the time of sending, a signature per live secret. */
  private headers(endpoint: EndpointRow, msgId: string, body: string, nowMs: number): Record<string, string> {
    const ts = Math.floor(nowMs / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && endpoint.previous_secret_until !== null && nowMs < endpoint.previous_secret_until)
      secrets.push(endpoint.previous_secret);
    return {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent,
      'webhook-id': msgId,
      'webhook-timestamp': String(ts),
      'webhook-signature': signatures(msgId, ts, body, secrets),
    };
  }

  private testPayload(endpointId: number, nowMs: number) {
    return { type: 'webhook.test', timestamp: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'), data: { endpoint: endpointId } };
  }

  /**
   * The body: `{type, timestamp, data}`; data has the resource's id, the change's seq, its status then, the
   * fields it changed, the object's URL and its ETag as the endpoint's owner reads it now; `full` adds the
   * object itself — only when the owner may read it now (checked at every attempt), else the payload is thin.
   */
  private async payload(d: DeliveryRow, endpoint: EndpointRow, objects: WebhookObjects): Promise<object> {
    if (d.type === 'webhook.test') return this.testPayload(endpoint.id, this.clock());
    const type = d.resource_type as ResourceType;
    const id = d.resource_id as number;
    const recorded = JSON.parse(d.data) as { status?: string; changed?: string[] };
    const data: Record<string, unknown> = { id, seq: d.seq };
    if (recorded.status !== undefined) data.status = recorded.status;
    data.rest_url = objects.restUrl(type, id);
    if (recorded.changed) data.changed = recorded.changed;
    if (!d.type.endsWith('.deleted')) {
      const rendered = await this.render(objects, type, id, endpoint.owner_id, d.seq);
      if (rendered) {
        data.etag = rendered.etag;
        if (endpoint.payload === 'full' && Buffer.byteLength(JSON.stringify(rendered.object)) <= MAX_OBJECT_BYTES) data.object = rendered.object;
      }
    }
    return { type: d.type, timestamp: rfc3339(d.occurred_at), data };
  }

  /** The object as its owner reads it now (see `renders`), for a delivery of change `seq`. */
  private async render(objects: WebhookObjects, type: ResourceType, id: number, ownerId: number, seq: number): Promise<Rendered> {
    const { credentials } = await this.storage.versions();
    const key = `${type} ${id} ${ownerId} ${credentials}`;
    const now = performance.now();
    // (a delivery not claimed here — none is, today — gets a render of its own)
    const since = this.firstClaim.get(seq) ?? now;
    const kept = this.renders.get(key);
    if (kept && kept.startedAt >= since && now - kept.startedAt < RENDER_REUSE_MS) return kept.rendered;
    if (this.renders.size >= MAX_RENDERS) this.renders.clear();
    const rendered = this.ownerActor(ownerId, credentials).then((actor) => objects.render(type, id, actor));
    const entry = { startedAt: now, rendered };
    this.renders.set(key, entry);
    // a failed render is not kept
    rendered.catch(() => this.renders.get(key) === entry && this.renders.delete(key));
    return rendered;
  }

  /** The owner as an actor: read once per credentials version (any change to users moves it on). */
  private ownerActor(id: number, credentials: number): Promise<Actor> {
    const key = `${id} ${credentials}`;
    const known = this.owners.get(key);
    if (known) return known;
    if (this.owners.size >= MAX_RENDERS) this.owners.clear();
    const actor = this.storage.users.findById(id).then((user): Actor => {
      if (!user || !isRole(user.role)) return ANONYMOUS;
      return { kind: 'user', id: user.id, login: user.login, role: user.role };
    });
    this.owners.set(key, actor);
    // a failed read is not kept
    actor.catch(() => this.owners.get(key) === actor && this.owners.delete(key));
    return actor;
  }

  private errorOf(result: SendResult): string | null {
    if (result.error !== undefined) return result.error;
    if (result.status === undefined) return 'no answer';
    if (result.status >= 200 && result.status < 300) return null;
    if (result.status >= 300 && result.status < 400) return `redirect ${result.status} (not followed)`;
    return `status ${result.status}`;
  }

  private attemptRow(
    deliveryId: number,
    attempt: number,
    startedMs: number,
    headers: Record<string, string>,
    result: SendResult,
  ): Omit<AttemptRow, 'id'> {
    return {
      delivery_id: deliveryId,
      attempt,
      started_at: startedMs,
      duration_ms: result.durationMs,
      status: result.status ?? null,
      error: this.errorOf(result),
      request_headers: JSON.stringify(headers),
      response: result.response ?? null,
    };
  }
}
