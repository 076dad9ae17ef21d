/**
 * Webhook endpoints, their deliveries and the delivery log (migration 0016), and the fan-out's cursor. Claims
 * follow ImportStore.claim: inside a write transaction, PostgreSQL skips rows another process holds
 * (`FOR UPDATE SKIP LOCKED`), SQLite runs one write transaction at a time; either way a delivery is in the hands
 * of one process at a time, until its lease runs out.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { termsCarrier } from './event.store.js';
import { isStorableId } from './ids.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export type DeliveryState = 'pending' | 'held' | 'succeeded' | 'failed';

export interface NewDelivery {
  readonly endpoint_id: number;
  readonly msg_id: string;
  readonly type: string;
  readonly seq: number;
  readonly resource_type: string | null;
  readonly resource_id: number | null;
  readonly occurred_at: string;
  readonly data: string;
  readonly state: DeliveryState;
  readonly ordered?: 0 | 1;
  readonly next_attempt_at: number;
  readonly created_at: number;
}

const BIGINTS = ['previous_secret_until', 'failing_since', 'disabled_at', 'created_at', 'modified_at'] as const;
const DELIVERY_BIGINTS = ['id', 'seq', 'next_attempt_at', 'lease_until', 'created_at', 'completed_at'] as const;

/** PostgreSQL answers bigints as strings. */
function numbers<T extends object>(row: T, keys: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const k of keys) if (out[k] !== null && out[k] !== undefined) out[k] = Number(out[k]);
  return out as T;
}
const endpoint = (r: EndpointRow): EndpointRow => numbers({ ...r, active: Number(r.active) as 0 | 1 }, BIGINTS);
const delivery = (r: DeliveryRow): DeliveryRow => numbers({ ...r, ordered: Number(r.ordered) as 0 | 1 }, DELIVERY_BIGINTS);

export class WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  // ---- endpoints -------------------------------------------------------------------------------------------

  async insertEndpoint(row: Omit<EndpointRow, 'id'>): Promise<EndpointRow> {
    return endpoint(await this.db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow());
  }

  async findEndpoint(id: number): Promise<EndpointRow | undefined> {
    if (!isStorableId(id)) return undefined;
    const r = await this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    return r && endpoint(r);
  }

  async endpoints(): Promise<EndpointRow[]> {
    return (await this.db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute()).map(endpoint);
  }

  async countEndpoints(): Promise<number> {
    const r = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async updateEndpoint(id: number, patch: Partial<Omit<EndpointRow, 'id'>>): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set(patch).where('id', '=', id).execute();
  }

  /** Removes an endpoint with its deliveries and their log. */
  async deleteEndpoint(id: number): Promise<void> {
    await this.db
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id))
      .execute();
    await this.db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await this.db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  }

  /** A failure: when its run of failures began (this one, if it is the first). */
  async endpointFailed(id: number, nowMs: number): Promise<number> {
    await this.db.updateTable('webhook_endpoints').set({ failing_since: nowMs }).where('id', '=', id).where('failing_since', 'is', null).execute();
    const r = await this.db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', id).executeTakeFirst();
    return Number(r?.failing_since ?? nowMs);
  }

  /** Disables an endpoint: what waits for it is held (kept for a replay or its return). */
  async disable(id: number, reason: string, nowMs: number): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ active: 0, disabled_reason: reason, disabled_at: nowMs, modified_at: nowMs })
      .where('id', '=', id)
      .execute();
    await this.db.updateTable('webhook_deliveries').set({ state: 'held' }).where('endpoint_id', '=', id).where('state', '=', 'pending').execute();
  }

  /** Enables an endpoint again: what was held since `sinceMs` is sent (older is left for a replay). */
  async enable(id: number, nowMs: number, sinceMs: number): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ active: 1, disabled_reason: null, disabled_at: null, failing_since: null, modified_at: nowMs })
      .where('id', '=', id)
      .execute();
    await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', next_attempt_at: nowMs, attempts: 0, lease_owner: null, lease_until: null })
      .where('endpoint_id', '=', id)
      .where('state', '=', 'held')
      .where('created_at', '>=', sinceMs)
      .execute();
  }

  // ---- the fan-out's cursor --------------------------------------------------------------------------------

  /**
   * Inside a write transaction: the cursor, held until the transaction ends; undefined when another process
   * holds it (PostgreSQL; SQLite's transaction is already the only writer).
   */
  async lockCursor(): Promise<string | undefined> {
    let q = this.db.selectFrom('sync_state').select('value').where('name', '=', 'webhook_cursor');
    if (this.dialect.skipLocked) q = q.forUpdate().skipLocked();
    return (await q.executeTakeFirst())?.value;
  }

  async setCursor(value: string): Promise<void> {
    await this.db.updateTable('sync_state').set({ value }).where('name', '=', 'webhook_cursor').execute();
  }

  // ---- deliveries ------------------------------------------------------------------------------------------

  /** Adds deliveries; one a message already has for that endpoint is left as it is. */
  async insertDeliveries(rows: readonly NewDelivery[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) {
      await this.db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500).map((r) => ({ ...r, ordered: r.ordered ?? 0 })))
        .onConflict((oc) => oc.columns(['endpoint_id', 'msg_id']).doNothing())
        .execute();
    }
  }

  /**
   * Takes up to `limit` deliveries of an endpoint that are due (pending, their time come, no live lease), oldest
   * first, for `owner` until `leaseUntil`; each counts an attempt. `ordered` false leaves a replay's deliveries
   * alone (one of its lanes is being sent). One statement, atomic without a transaction around it: the update
   * takes its rows from the select (which, on PostgreSQL, skips and locks as it reads).
   */
  async claim(endpointId: number, owner: string, nowMs: number, leaseUntil: number, limit: number, ordered = true): Promise<DeliveryRow[]> {
    let due = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', nowMs)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]));
    if (!ordered) due = due.where('ordered', '=', 0);
    due = due.orderBy('ordered', 'desc').orderBy('next_attempt_at').orderBy('seq').limit(limit);
    if (this.dialect.skipLocked) due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ lease_owner: owner, lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.map(delivery).sort((a, b) => b.ordered - a.ordered || a.next_attempt_at - b.next_attempt_at || a.seq - b.seq);
  }

  /** Moves `owner`'s lease of a delivery on to `leaseUntil`; false when the lease was lost (another process took it over). */
  async extendLease(id: number, owner: string, leaseUntil: number): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Gives back deliveries `owner` claimed and did not send: due again at once, their claim not counted. */
  async release(ids: readonly number[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1) }))
      .where('id', 'in', ids)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** The endpoints that have deliveries due now. */
  async dueEndpoints(nowMs: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select('endpoint_id')
      .distinct()
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', nowMs)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]))
      .execute();
    return rows.map((r) => Number(r.endpoint_id));
  }

  /**
   * Records an attempt's outcome while `owner` still holds the delivery: `next` pending again at a time, or
   * finished in a state. False when the lease was lost (another process took it over).
   */
  async settle(
    id: number,
    owner: string,
    outcome: {
      readonly state: DeliveryState;
      readonly nextAttemptAt?: number;
      readonly status: number | null;
      readonly error: string | null;
      readonly nowMs: number;
    },
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({
        state: outcome.state,
        next_attempt_at: outcome.nextAttemptAt ?? sql<number>`next_attempt_at`,
        lease_owner: null,
        lease_until: null,
        last_status: outcome.status,
        last_error: outcome.error,
        completed_at: outcome.state === 'succeeded' || outcome.state === 'failed' ? outcome.nowMs : null,
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Records successes, many in one go: each attempt in the log, each delivery succeeded while its owner still
   * holds it (at its own time), and those of `endpointIds` that were failing no longer are.
   */
  async succeeded(
    items: readonly { readonly attempt: Omit<AttemptRow, 'id'>; readonly owner: string; readonly nowMs: number }[],
    endpointIds: readonly number[],
  ): Promise<void> {
    for (let i = 0; i < items.length; i += 500) {
      const chunk = items.slice(i, i + 500);
      await this.db
        .insertInto('webhook_attempts')
        .values(chunk.map((s) => s.attempt))
        .execute();
      const v = this.dialect.bulkRows(
        chunk.map((s) => [s.attempt.delivery_id, s.owner, s.attempt.status, s.nowMs]),
        [
          { name: 'id', type: 'integer' },
          { name: 'owner', type: 'text' },
          { name: 'status', type: 'integer' },
          { name: 'at', type: 'bigint' },
        ],
      );
      await sql`update webhook_deliveries
        set state = 'succeeded', lease_owner = null, lease_until = null, last_status = v.status, last_error = null, completed_at = v.at
        from ${v} where webhook_deliveries.id = v.id and webhook_deliveries.lease_owner = v.owner`.execute(this.db);
    }
    if (endpointIds.length > 0) {
      await this.db
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', 'in', endpointIds)
        .where('failing_since', 'is not', null)
        .execute();
    }
  }

  /** Ends a delivery sent outside the queue (a `webhook.test`): one attempt, this outcome. */
  async finish(
    id: number,
    outcome: { readonly state: DeliveryState; readonly status: number | null; readonly error: string | null; readonly nowMs: number },
  ): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ state: outcome.state, attempts: 1, last_status: outcome.status, last_error: outcome.error, completed_at: outcome.nowMs })
      .where('id', '=', id)
      .execute();
  }

  /**
   * What filters and types need of these events now: whether each is an occurrence, its terms (with the
   * categories above its own), venue and organizers. An event that no longer exists is absent.
   */
  async eventLinks(
    ids: readonly number[],
  ): Promise<Map<number, { occurrence: boolean; terms: Set<number>; venue: number | null; organizers: Set<number> }>> {
    const out = new Map<number, { occurrence: boolean; terms: Set<number>; venue: number | null; organizers: Set<number> }>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const events = await this.db
        .selectFrom('events')
        .select(['post_id', 'kind', 'venue_id', 'series_id', 'shared_terms'])
        .where('post_id', 'in', chunk)
        .execute();
      // an occurrence without terms of its own carries its series'
      const termsFrom = new Map<number, number[]>();
      for (const e of events) {
        out.set(e.post_id, { occurrence: e.kind === 'occurrence', terms: new Set(), venue: e.venue_id, organizers: new Set() });
        const from = termsCarrier(e.post_id, e.series_id, e.shared_terms);
        const carried = termsFrom.get(from);
        if (carried) carried.push(e.post_id);
        else termsFrom.set(from, [e.post_id]);
      }
      const terms = await this.db
        .selectFrom('term_relationships')
        .select(['post_id', 'term_id'])
        .where('post_id', 'in', [...termsFrom.keys()])
        .execute();
      for (const t of terms) for (const id of termsFrom.get(t.post_id) ?? []) out.get(id)?.terms.add(t.term_id);
      // an event in a category is in every category above it too, as the lists' category filter has it
      const linked = [...new Set(terms.map((t) => t.term_id))];
      const above = new Map<number, number[]>();
      if (linked.length > 0) {
        for (const a of await this.db.selectFrom('term_ancestors').select(['term_id', 'ancestor_id']).where('term_id', 'in', linked).execute()) {
          const list = above.get(a.term_id);
          if (list) list.push(a.ancestor_id);
          else above.set(a.term_id, [a.ancestor_id]);
        }
      }
      for (const e of out.values()) for (const term of [...e.terms]) for (const ancestor of above.get(term) ?? []) e.terms.add(ancestor);
      const organizers = await this.db.selectFrom('event_organizers').select(['event_id', 'organizer_id']).where('event_id', 'in', chunk).execute();
      for (const o of organizers) out.get(o.event_id)?.organizers.add(o.organizer_id);
    }
    return out;
  }

  async insertAttempt(row: Omit<AttemptRow, 'id'>): Promise<void> {
    await this.db.insertInto('webhook_attempts').values(row).execute();
  }

  async findDelivery(endpointId: number, id: number): Promise<DeliveryRow | undefined> {
    if (!isStorableId(endpointId) || !isStorableId(id)) return undefined;
    const r = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && delivery(r);
  }

  /** An endpoint's deliveries, newest first, after the cursor `beforeId`, in a state when given. */
  async deliveries(
    endpointId: number,
    options: { readonly state?: DeliveryState; readonly beforeId?: number; readonly limit: number },
  ): Promise<DeliveryRow[]> {
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
    if (options.state) q = q.where('state', '=', options.state);
    if (options.beforeId !== undefined) q = q.where('id', '<', options.beforeId);
    return (await q.orderBy('id', 'desc').limit(options.limit).execute()).map(delivery);
  }

  /** The log of these deliveries, oldest attempt first. */
  async attempts(deliveryIds: readonly number[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
    return rows.map((r) => numbers(r, ['id', 'delivery_id', 'started_at']));
  }

  /** Sends a delivery again from the start of the schedule (its `webhook-id` stays). */
  async requeue(ids: readonly number[], nowMs: number, ordered: boolean): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('webhook_deliveries')
      .set({
        state: 'pending',
        attempts: 0,
        next_attempt_at: nowMs,
        lease_owner: null,
        lease_until: null,
        completed_at: null,
        ordered: ordered ? 1 : 0,
      })
      .where('id', 'in', ids)
      .execute();
  }

  /** The ids of an endpoint's deliveries with these message ids. */
  async deliveryIdsByMessage(endpointId: number, msgIds: readonly string[]): Promise<Map<string, number>> {
    if (msgIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'msg_id'])
      .where('endpoint_id', '=', endpointId)
      .where('msg_id', 'in', msgIds)
      .execute();
    return new Map(rows.map((r) => [r.msg_id, Number(r.id)]));
  }

  /**
   * Removes, with their log, the deliveries made before `doneBeforeMs` that are finished, and those held for a
   * disabled endpoint made before `heldBeforeMs`.
   */
  async purge(doneBeforeMs: number, heldBeforeMs: number): Promise<number> {
    const old = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
      eb.or([
        eb.and([eb('created_at', '<', doneBeforeMs), eb('state', 'in', ['succeeded', 'failed'])]),
        eb.and([eb('created_at', '<', heldBeforeMs), eb('state', '=', 'held')]),
      ]);
    await this.db
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where(old))
      .execute();
    const r = await this.db.deleteFrom('webhook_deliveries').where(old).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
