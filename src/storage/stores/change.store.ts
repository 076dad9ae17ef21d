/**
 * The change log (migration 0012). Inside a transaction, what a write notes is kept and written just before
 * the commit, in one statement: the log costs a write one round trip, not one per note, and a rolled back
 * write leaves nothing. Outside a transaction a note is written at once.
 */
import { type Kysely, type SqlBool, sql } from 'kysely';
import { CHANGE_OPS, type ChangedResource, type ChangeOp, type EmbeddedIn, RESOURCE_TYPES, type ResourceType } from '../../domain/sync/change.js';
import { formatUtcMs } from '../../time/zones.js';
import type { Database } from '../database.js';
import { CHANGE_COLUMNS, type ChangeInsert, type Dialect } from '../dialects/dialect.js';

interface Note {
  readonly type: ResourceType;
  readonly id: number;
  op: ChangeOp;
  /** A post's status after the change, and before the first change of the transaction. */
  status?: string;
  priorStatus?: string;
  fields?: Set<string>;
}

/** What a note may say beside the operation (webhooks' types and `changed`, migration 0016). */
export interface ChangeDetail {
  readonly status?: string;
  readonly priorStatus?: string;
  /** Wire names of the fields changed. */
  readonly fields?: readonly string[];
}

/** A row of the log with what it says (webhooks' fan-out). */
export interface ChangeRow {
  readonly seq: number;
  readonly type: ResourceType;
  readonly id: number;
  readonly op: ChangeOp;
  readonly at: string;
  readonly status: string | null;
  readonly priorStatus: string | null;
  readonly fields: readonly string[] | null;
}

const STATUS = /^[a-z_-]{1,20}$/;

/** Occurrences sync shows on their own: edited alone, or cancelled. */
const EXCEPTION = sql<SqlBool>`(occurrences.state = 'cancelled' or (occurrences.state = 'active' and occurrences.overrides <> '[]'))`;

function toChangeRow(r: {
  seq: number | string;
  resource_type: string;
  resource_id: number;
  op: string;
  occurred_at: string;
  status: string | null;
  prior_status: string | null;
  fields: string | null;
}): ChangeRow {
  return {
    seq: Number(r.seq),
    type: r.resource_type as ResourceType,
    id: Number(r.resource_id),
    op: r.op as ChangeOp,
    at: r.occurred_at,
    status: r.status,
    priorStatus: r.prior_status,
    fields: r.fields === null ? null : r.fields.split(',').filter((f) => f !== ''),
  };
}

export class ChangeStore {
  private readonly notes = new Map<string, Note>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** Inside a transaction: notes wait for `flush()`. */
    private readonly buffered: boolean,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Notes a change. Several notes of one resource in one transaction make one change: a create stays a create
   * (whatever follows it, but a delete), otherwise the last operation wins.
   */
  async note(type: ResourceType, id: number, op: ChangeOp, detail: ChangeDetail = {}): Promise<void> {
    const key = `${type}:${id}`;
    let note = this.notes.get(key);
    if (note) {
      if (!(note.op === 'create' && op !== 'delete')) note.op = op;
    } else {
      note = { type, id, op, priorStatus: detail.priorStatus };
      this.notes.set(key, note);
    }
    if (detail.status !== undefined) note.status = detail.status;
    if (detail.fields && detail.fields.length > 0) {
      note.fields ??= new Set();
      for (const f of detail.fields) note.fields.add(f);
    }
    if (!this.buffered) await this.flush();
  }

  /**
   * Notes an update of every event (as sync shows them) that embeds this venue, organizer or term. Written at
   * once (in the transaction): a trash or a delete then takes the links away.
   */
  async noteEventsEmbedding(via: EmbeddedIn, id: number, field?: 'categories' | 'tags'): Promise<void> {
    const events = this.eventsEmbedding(via, id);
    const name = via === 'venue' ? 'venue' : via === 'organizer' ? 'organizer' : (field ?? null);
    const at = formatUtcMs(this.clock());
    await sql`insert into changes (resource_type, resource_id, op, occurred_at, status, prior_status, fields)
      select 'event', e.post_id, 'update', ${at}, p.status, p.status, ${name}
      from (${events}) e join posts p on p.id = e.post_id`.execute(this.db);
    // every event row that shows it learns when (its Last-Modified; migration 0029): occurrences with rows of their
    // own too, which sync does not show apart; a plain occurrence reads its series'
    await sql`update events set links_modified_utc = ${at} where post_id in (${this.eventRowsLinking(via, id)})`.execute(this.db);
  }

  /**
   * Every `events` row that links this venue, organizer or term, or reads a term through its series (an
   * occurrence without terms of its own carries its series').
   */
  private eventRowsLinking(via: EmbeddedIn, id: number) {
    if (via === 'venue') return sql`select post_id from events where venue_id = ${id}`;
    if (via === 'organizer') return sql`select event_id from event_organizers where organizer_id = ${id}`;
    return sql`select post_id from term_relationships where term_id = ${id}
      union
      select events.post_id from term_relationships join events on events.series_id = term_relationships.post_id
      where term_relationships.term_id = ${id} and events.shared_terms = 1`;
  }

  /**
   * Notes an update of a series' exceptions as they are now (call it before the write: what the series gives
   * them may change, and a new rule may remove them).
   */
  async noteSeriesExceptions(seriesId: number): Promise<void> {
    const rows = await this.db
      .selectFrom('occurrences')
      .select('id')
      .where('series_id', '=', seriesId)
      .where(() => EXCEPTION)
      .execute();
    for (const r of rows) await this.note('event', Number(r.id), 'update');
  }

  /**
   * Notes as deletes those of `ids` already noted in this transaction (a series' exceptions, noted before a
   * write whose new rule then removed them with their rows): their last change is that they are gone.
   */
  async noteRemoved(type: ResourceType, ids: readonly number[]): Promise<void> {
    for (const id of ids) if (this.notes.has(`${type}:${id}`)) await this.note(type, id, 'delete');
  }

  /**
   * What was noted, as the log's rows and as one `insert` without parameters (see ChangeInsert), and forgets it.
   * Every value is one this store made: a type and an operation of their fixed lists, an integer id, a stamp of
   * digits — checked again here, since the statement has them written into it.
   */
  takeInsert(): ChangeInsert | undefined {
    if (this.notes.size === 0) return undefined;
    const at = formatUtcMs(this.clock());
    const checked = (v: string | undefined, ok: RegExp) => {
      if (v === undefined || v === '') return null;
      if (!ok.test(v)) throw new Error(`a change detail that cannot be written: ${JSON.stringify(v)}`);
      return v;
    };
    const rows: ChangeInsert['rows'][number][] = [...this.notes.values()].map((n) => {
      if (!RESOURCE_TYPES.includes(n.type) || !CHANGE_OPS.includes(n.op) || !Number.isSafeInteger(n.id) || !/^[\d :-]{19}$/.test(at)) {
        throw new Error(`a change that cannot be written: ${JSON.stringify(n)} at ${at}`);
      }
      const fields = n.fields && n.op === 'update' ? [...n.fields].sort().join(',') : undefined;
      const prior = n.op === 'create' ? undefined : n.priorStatus;
      return [n.type, n.id, n.op, at, checked(n.status, STATUS), checked(prior, STATUS), checked(fields, /^[a-z0-9_,]{1,2000}$/)];
    });
    this.notes.clear();
    const literal = (v: string | number | null) => (v === null ? 'null' : typeof v === 'number' ? String(v) : `'${v}'`);
    return {
      rows,
      // (written when asked for: SQLite writes the rows)
      get sql() {
        return `insert into changes (${CHANGE_COLUMNS.join(', ')}) values ${rows.map((r) => `(${r.map(literal).join(', ')})`).join(', ')}`;
      },
    };
  }

  /** Writes what was noted now (outside a transaction, or before the end of one). */
  async flush(): Promise<void> {
    const insert = this.takeInsert();
    if (insert) await sql.raw(insert.sql).execute(this.db);
  }

  /** The events sync shows that embed a venue, organizer or term: not plain occurrences (their master does). */
  private eventsEmbedding(via: EmbeddedIn, id: number) {
    const shown = sql<SqlBool>`(events.kind <> 'occurrence' or exists (
      select 1 from occurrences where occurrences.id = events.post_id and ${EXCEPTION}))`;
    return sql`select events.post_id from events where events.post_id in (${this.eventRowsLinking(via, id)}) and ${shown}`;
  }

  // ---- reads ---------------------------------------------------------------------------------------------

  /** Where the log stands now (Dialect.changeSnapshot). */
  snapshot(): Promise<string> {
    return this.dialect.changeSnapshot(this.db);
  }

  /**
   * The resources of a type changed in `(from, to]` (from null: since the log began), each once with its last
   * change, in the order of those changes, after `afterSeq`, at most `limit`.
   */
  async changed(type: ResourceType, from: string | null, to: string, afterSeq: number, limit: number): Promise<ChangedResource[]> {
    const { rows } = await sql<{ id: number; seq: number | string; op: string; at: string }>`
      select c.resource_id as id, c.seq, c.op, c.occurred_at as at from changes c
      join (
        select changes.resource_id, max(changes.seq) as last from changes
        where changes.resource_type = ${type} and ${this.dialect.changesBetween(from, to)}
        group by changes.resource_id
        having max(changes.seq) > ${afterSeq}
        order by max(changes.seq) limit ${sql.lit(Math.trunc(limit))}
      ) l on c.seq = l.last
      order by c.seq`.execute(this.db);
    return rows.map((r) => ({ id: Number(r.id), seq: Number(r.seq), op: r.op as ChangeOp, at: r.at }));
  }

  /**
   * The rows of the log in `(from, to]` (from null: since it began) after `afterSeq`, in seq order, at most
   * `limit`: what webhooks fan out. Within a range of two snapshots every row is committed and none is added
   * later, so paging it by seq is stable.
   */
  async rows(from: string | null, to: string, afterSeq: number, limit: number): Promise<ChangeRow[]> {
    const rows = await this.db
      .selectFrom('changes')
      .select(['seq', 'resource_type', 'resource_id', 'op', 'occurred_at', 'status', 'prior_status', 'fields'])
      .where(() => this.dialect.changesBetween(from, to))
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toChangeRow);
  }

  /** The rows from `sinceSeq` on, in seq order, at most `limit` (a webhook replay). */
  async rowsSince(sinceSeq: number, limit: number): Promise<ChangeRow[]> {
    const rows = await this.db
      .selectFrom('changes')
      .select(['seq', 'resource_type', 'resource_id', 'op', 'occurred_at', 'status', 'prior_status', 'fields'])
      .where('seq', '>=', sinceSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toChangeRow);
  }

  /**
   * Which of these resources were created after the snapshot (a full sync from it leaves them to the next sync).
   * Read through the changes after the snapshot (few: those written while the client pages), not by resource.
   */
  async createdAfter(type: ResourceType, snapshot: string, ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('changes')
      .select('resource_id')
      .where('resource_type', '=', type)
      .where(() => this.dialect.changesAfter(snapshot))
      .where('op', '=', 'create')
      .execute();
    const wanted = new Set(ids);
    return new Set(rows.map((r) => Number(r.resource_id)).filter((id) => wanted.has(id)));
  }

  /**
   * The resources of a type changed after `afterUtc` (and not after `beforeUtc`), each once with its last
   * change: the tombstones of `include_removed`, the terms of `modified_after` (terms have no modified date of
   * their own on the wire).
   */
  async changedSince(type: ResourceType, afterUtc: string | undefined, beforeUtc: string | undefined): Promise<ChangedResource[]> {
    let q = this.db
      .selectFrom('changes')
      .select((eb) => ['resource_id', eb.fn.max('seq').as('last')])
      .where('resource_type', '=', type)
      .groupBy('resource_id');
    if (afterUtc !== undefined) q = q.where('occurred_at', '>', afterUtc);
    if (beforeUtc !== undefined) q = q.where('occurred_at', '<', beforeUtc);
    const last = await q.execute();
    if (last.length === 0) return [];
    const rows = await this.db
      .selectFrom('changes')
      .select(['resource_id', 'seq', 'op', 'occurred_at'])
      .where(
        'seq',
        'in',
        last.map((r) => Number(r.last)),
      )
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ id: Number(r.resource_id), seq: Number(r.seq), op: r.op as ChangeOp, at: r.occurred_at }));
  }

  /** When the newest change of this type was noted (its stored UTC stamp), if the log has one. */
  async lastAt(type: ResourceType): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('changes')
      .select('occurred_at')
      .where('resource_type', '=', type)
      .orderBy('occurred_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.occurred_at;
  }

  /** The secret that signs sync tokens (made by migration 0012, shared by every process). */
  async secret(): Promise<string> {
    const row = await this.db.selectFrom('sync_state').select('value').where('name', '=', 'secret').executeTakeFirstOrThrow();
    return row.value;
  }

  /** How far the retention removed changes, and when (ms). */
  async purged(): Promise<{ seq: number; tx: number; at: number }> {
    const rows = await this.db
      .selectFrom('sync_state')
      .select(['name', 'value'])
      .where('name', 'in', ['purged_seq', 'purged_tx', 'purged_at'])
      .execute();
    const get = (name: string) => Number(rows.find((r) => r.name === name)?.value ?? 0);
    return { seq: get('purged_seq'), tx: get('purged_tx'), at: get('purged_at') };
  }

  /** Removes the changes that happened before `beforeUtc` (inside a transaction), remembering how far it went and when. */
  async purge(beforeUtc: string, nowMs: number): Promise<number> {
    const top = await this.db
      .selectFrom('changes')
      .select((eb) => [eb.fn.max('seq').as('seq'), eb.fn.max('tx').as('tx'), eb.fn.countAll().as('n')])
      .where('occurred_at', '<', beforeUtc)
      .executeTakeFirst();
    const n = Number(top?.n ?? 0);
    if (n === 0) return 0;
    // (never the newest row: SQLite's next seq follows the highest one there is)
    const deleted = await this.db
      .deleteFrom('changes')
      .where('occurred_at', '<', beforeUtc)
      .where('seq', '<', (eb) => eb.selectFrom('changes').select((s) => s.fn.max('seq').as('top')))
      .executeTakeFirst();
    const was = await this.purged();
    const values = {
      purged_seq: Math.max(was.seq, Number(top?.seq ?? 0)),
      purged_tx: Math.max(was.tx, Number(top?.tx ?? 0)),
      purged_at: nowMs,
    };
    for (const [name, value] of Object.entries(values)) {
      await this.db
        .updateTable('sync_state')
        .set({ value: String(value) })
        .where('name', '=', name)
        .execute();
    }
    return Number(deleted.numDeletedRows);
  }
}
