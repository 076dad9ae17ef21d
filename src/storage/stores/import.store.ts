import { type Kysely, sql } from 'kysely';
import type { Database, ImportItemsTable, ImportJobsTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { isStorableId } from './ids.js';

type ImportItemRow = Pick<ImportItemsTable, 'post_id' | 'sequence' | 'last_modified' | 'hash' | 'fields' | 'local'>;

export type ImportState = 'queued' | 'running' | 'done' | 'failed';

export interface ImportItemError {
  readonly uid: string | null;
  readonly recurrenceId: string | null;
  readonly line: number | null;
  readonly reason: string;
}

export interface ImportCounts {
  readonly created: number;
  readonly updated: number;
  readonly skipped: number;
  readonly failed: number;
}

/** An import job as the domain reads it. */
export interface ImportJob extends ImportCounts {
  readonly id: number;
  readonly source: string;
  readonly state: ImportState;
  readonly options: Readonly<Record<string, unknown>>;
  readonly payloadKind: 'text' | 'url';
  readonly payload: string;
  readonly progressDone: number;
  readonly progressTotal: number;
  readonly errors: readonly ImportItemError[];
  readonly failure: string | null;
  readonly userId: number;
  readonly attempts: number;
  readonly leaseOwner: string | null;
  readonly leaseUntil: string | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly modifiedAt: string;
}

export interface NewImportJob {
  readonly source: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly payloadKind: 'text' | 'url';
  readonly payload: string;
  readonly userId: number;
  readonly now: string;
}

/** What an item was when imported last. */
export interface ImportItem {
  readonly postId: number;
  readonly sequence: number | null;
  readonly lastModified: string | null;
  readonly hash: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly local: Readonly<Record<string, string>>;
}

export interface ImportItemKey {
  readonly source: string;
  readonly sourceKey: string;
  readonly uid: string;
  readonly recurrenceId: string;
}

type JobRow = {
  [K in keyof ImportJobsTable]: ImportJobsTable[K] extends import('kysely').ColumnType<infer S, unknown, unknown> ? S : ImportJobsTable[K];
};

const toJob = (r: JobRow): ImportJob => ({
  id: r.id,
  source: r.source,
  state: r.state as ImportState,
  options: JSON.parse(r.options) as Record<string, unknown>,
  payloadKind: r.payload_kind as 'text' | 'url',
  payload: r.payload,
  progressDone: Number(r.progress_done),
  progressTotal: Number(r.progress_total),
  created: Number(r.created),
  updated: Number(r.updated),
  skipped: Number(r.skipped),
  failed: Number(r.failed),
  errors: JSON.parse(r.errors) as ImportItemError[],
  failure: r.failure,
  userId: r.user_id,
  attempts: Number(r.attempts),
  leaseOwner: r.lease_owner,
  leaseUntil: r.lease_until,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  modifiedAt: r.modified_at,
});

/** Import jobs and the map of imported items (migration 0009). */
export class ImportStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async create(job: NewImportJob): Promise<ImportJob> {
    const row = await this.db
      .insertInto('import_jobs')
      .values({
        source: job.source,
        state: 'queued',
        options: JSON.stringify(job.options),
        payload_kind: job.payloadKind,
        payload: job.payload,
        user_id: job.userId,
        created_at: job.now,
        modified_at: job.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row as JobRow);
  }

  async find(id: number): Promise<ImportJob | undefined> {
    if (!isStorableId(id)) return undefined;
    const row = await this.db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toJob(row as JobRow) : undefined;
  }

  /** Newest first. */
  async list(limit: number, offset: number): Promise<{ jobs: ImportJob[]; total: number }> {
    const rows = await this.db.selectFrom('import_jobs').selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
    const { n } = await this.db
      .selectFrom('import_jobs')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { jobs: rows.map((r) => toJob(r as JobRow)), total: Number(n) };
  }

  /**
   * Inside a write transaction: takes the oldest job that is queued, or running under a lease that ran out
   * (its process died), for `owner` until `leaseUntil`. PostgreSQL skips rows another claimer holds, so
   * processes claiming at once take different jobs; SQLite runs one write transaction at a time.
   */
  async claim(owner: string, now: string, leaseUntil: string, only?: number): Promise<ImportJob | undefined> {
    let q = this.db
      .selectFrom('import_jobs')
      .select('id')
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)])]))
      .orderBy('id')
      .limit(1);
    if (only !== undefined) q = q.where('id', '=', only);
    if (this.dialect.skipLocked) q = q.forUpdate().skipLocked();
    const candidate = await q.executeTakeFirst();
    if (!candidate) return undefined;
    const row = await this.db
      .updateTable('import_jobs')
      .set((eb) => ({
        state: 'running',
        lease_owner: owner,
        lease_until: leaseUntil,
        attempts: eb('attempts', '+', 1),
        started_at: sql<string>`coalesce(started_at, ${now})`,
        modified_at: now,
      }))
      .where('id', '=', candidate.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row as JobRow);
  }

  /** Pushes the lease forward and records progress; false when the job is no longer this owner's. */
  async heartbeat(
    id: number,
    owner: string,
    patch: { now: string; leaseUntil: string; progressDone: number; progressTotal: number; counts: ImportCounts; errors: readonly ImportItemError[] },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('import_jobs')
      .set({
        lease_until: patch.leaseUntil,
        progress_done: patch.progressDone,
        progress_total: patch.progressTotal,
        created: patch.counts.created,
        updated: patch.counts.updated,
        skipped: patch.counts.skipped,
        failed: patch.counts.failed,
        errors: JSON.stringify(patch.errors),
        modified_at: patch.now,
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async finish(id: number, owner: string, state: 'done' | 'failed', now: string, failure: string | null): Promise<void> {
    await this.db
      .updateTable('import_jobs')
      .set({ state, failure, finished_at: now, modified_at: now, lease_owner: null, lease_until: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** The jobs a runner could claim now (for its loop: nothing to do → no write transaction). */
  async hasClaimable(now: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('import_jobs')
      .select('id')
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)])]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  // ---- items -----------------------------------------------------------------------------------------

  async findItem(key: ImportItemKey): Promise<ImportItem | undefined> {
    return (await this.findItemAndUid(key, false)).item;
  }

  /**
   * The item, and (`withUid`) the event that has the item's UID, in one statement: the two lookups of every
   * imported event, one round trip.
   */
  async findItemAndUid(key: ImportItemKey, withUid = true): Promise<{ item: ImportItem | undefined; uidHolder: number | undefined }> {
    const row = await this.db
      .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('o'))
      .leftJoin('import_items', (join) =>
        join
          .on('import_items.source', '=', key.source)
          .on('import_items.source_key', '=', key.sourceKey)
          .on('import_items.uid', '=', key.uid)
          .on('import_items.recurrence_id', '=', key.recurrenceId),
      )
      .selectAll('import_items')
      .$if(withUid, (q) =>
        q.select((eb) => eb.selectFrom('events').select('events.post_id').where('events.ical_uid', '=', key.uid).limit(1).as('uid_holder')),
      )
      .executeTakeFirstOrThrow();
    const holder = (row as { uid_holder?: number | null }).uid_holder;
    return {
      item: row.post_id === null ? undefined : this.toItem(row as ImportItemRow),
      uidHolder: holder === null || holder === undefined ? undefined : Number(holder),
    };
  }

  /**
   * The items of one source with these UIDs (every RECURRENCE-ID), and the events that have these UIDs: a batch's
   * lookups in two statements.
   */
  async findItemsAndUids(
    source: string,
    sourceKey: string,
    uids: readonly string[],
  ): Promise<{ items: { key: ImportItemKey; item: ImportItem }[]; uidHolders: Map<string, number> }> {
    const unique = [...new Set(uids)];
    if (unique.length === 0) return { items: [], uidHolders: new Map() };
    const rows = await this.db
      .selectFrom('import_items')
      .selectAll()
      .where('source', '=', source)
      .where('source_key', '=', sourceKey)
      .where('uid', 'in', unique)
      .execute();
    const holders = await this.db.selectFrom('events').select(['post_id', 'ical_uid']).where('ical_uid', 'in', unique).execute();
    return {
      items: rows.map((r) => ({ key: { source, sourceKey, uid: r.uid, recurrenceId: r.recurrence_id }, item: this.toItem(r) })),
      uidHolders: new Map(holders.map((h) => [String(h.ical_uid), Number(h.post_id)])),
    };
  }

  private toItem(row: ImportItemRow): ImportItem {
    return {
      postId: row.post_id,
      sequence: row.sequence,
      lastModified: row.last_modified,
      hash: row.hash,
      fields: JSON.parse(row.fields) as Record<string, unknown>,
      local: JSON.parse(row.local) as Record<string, string>,
    };
  }

  /** Several items' records in one statement (one row per key: the last given wins). */
  async saveItems(entries: readonly { key: ImportItemKey; item: ImportItem; jobId: number; now: string }[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map(({ key, item, jobId, now }) => ({
      source: key.source,
      source_key: key.sourceKey,
      uid: key.uid,
      recurrence_id: key.recurrenceId,
      created_at: now,
      post_id: item.postId,
      sequence: item.sequence,
      last_modified: item.lastModified,
      hash: item.hash,
      fields: JSON.stringify(item.fields),
      local: JSON.stringify(item.local),
      job_id: jobId,
      modified_at: now,
    }));
    const updated = ['post_id', 'sequence', 'last_modified', 'hash', 'fields', 'local', 'job_id', 'modified_at'] as const;
    await this.db
      .insertInto('import_items')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['source', 'source_key', 'uid', 'recurrence_id'])
          .doUpdateSet((eb) => Object.fromEntries(updated.map((c) => [c, eb.ref(`excluded.${c}`)])) as never),
      )
      .execute();
  }

  async saveItem(key: ImportItemKey, item: ImportItem, jobId: number, now: string): Promise<void> {
    const values = {
      post_id: item.postId,
      sequence: item.sequence,
      last_modified: item.lastModified,
      hash: item.hash,
      fields: JSON.stringify(item.fields),
      local: JSON.stringify(item.local),
      job_id: jobId,
      modified_at: now,
    };
    await this.db
      .insertInto('import_items')
      .values({ source: key.source, source_key: key.sourceKey, uid: key.uid, recurrence_id: key.recurrenceId, created_at: now, ...values })
      .onConflict((oc) => oc.columns(['source', 'source_key', 'uid', 'recurrence_id']).doUpdateSet(values))
      .execute();
  }
}
