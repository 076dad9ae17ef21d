import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';

/** One remote record of a site and the local record it became (migration 0011). */
export interface MapRow {
  readonly kind: string;
  readonly remoteId: string;
  readonly localId: number;
  readonly remoteModified: string | null;
  readonly hash: string;
  readonly remoteGlobalId: string | null;
  readonly seenPass: string | null;
  readonly incomplete: boolean;
  readonly oldPath: string | null;
}

export interface MapScope {
  readonly source: string;
  readonly sourceKey: string;
}

const toRow = (r: Readonly<Record<string, unknown>>): MapRow => ({
  kind: String(r.kind),
  remoteId: String(r.remote_id),
  localId: Number(r.local_id),
  remoteModified: (r.remote_modified as string | null) ?? null,
  hash: String(r.content_hash),
  remoteGlobalId: (r.remote_global_id as string | null) ?? null,
  seenPass: (r.seen_pass as string | null) ?? null,
  incomplete: Number(r.incomplete) === 1,
  oldPath: (r.old_path as string | null) ?? null,
});

/** Where a site import keeps its map, its checkpoints and reports, and the few writes the services do not make. */
export class ImportMapStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every mapped record of one kind of a site (a site's worth fits in memory: one row is ~200 bytes). */
  async all(scope: MapScope, kind: string): Promise<MapRow[]> {
    const rows = await this.db
      .selectFrom('import_map')
      .selectAll()
      .where('source', '=', scope.source)
      .where('source_key', '=', scope.sourceKey)
      .where('kind', '=', kind)
      .execute();
    return rows.map((r) => toRow(r));
  }

  /** Saves many rows (inserted, or updated when the remote record is mapped already), a hundred a statement. */
  async saveMany(scope: MapScope, rows: readonly MapRow[], now: string): Promise<void> {
    // (one row per remote record: the last one of a batch wins, as it would saved one by one)
    const last = [...new Map(rows.map((r) => [`${r.kind}\u0000${r.remoteId}`, r])).values()];
    for (let i = 0; i < last.length; i += 100) {
      await this.db
        .insertInto('import_map')
        .values(
          last.slice(i, i + 100).map((row) => ({
            source: scope.source,
            source_key: scope.sourceKey,
            kind: row.kind,
            remote_id: row.remoteId,
            local_id: row.localId,
            remote_modified: row.remoteModified,
            content_hash: row.hash,
            remote_global_id: row.remoteGlobalId,
            seen_pass: row.seenPass,
            incomplete: row.incomplete ? 1 : 0,
            old_path: row.oldPath,
            created_at: now,
            modified_at: now,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['source', 'source_key', 'kind', 'remote_id']).doUpdateSet((eb) => ({
            local_id: eb.ref('excluded.local_id'),
            remote_modified: eb.ref('excluded.remote_modified'),
            content_hash: eb.ref('excluded.content_hash'),
            remote_global_id: eb.ref('excluded.remote_global_id'),
            seen_pass: eb.ref('excluded.seen_pass'),
            incomplete: eb.ref('excluded.incomplete'),
            old_path: eb.ref('excluded.old_path'),
            modified_at: eb.ref('excluded.modified_at'),
          })),
        )
        .execute();
    }
  }

  /** Sets the lineages of global ids posts were imported with, a hundred a statement. */
  async setLineages(lineages: readonly (readonly [number, readonly string[]])[]): Promise<void> {
    for (let i = 0; i < lineages.length; i += 100) {
      const chunk = lineages.slice(i, i + 100);
      const cases = sql.join(
        chunk.map(([id, l]) => sql`when ${id} then ${JSON.stringify(l)}`),
        sql` `,
      );
      await sql`update posts set global_id_lineage = case id ${cases} end, version = version + 1 where id in (${sql.join(chunk.map(([id]) => id))})`.execute(
        this.db,
      );
    }
  }

  /** Marks records as seen by a pass (what `--prune` keeps). */
  async markSeen(scope: MapScope, kind: string, remoteIds: readonly string[], pass: string): Promise<void> {
    for (let i = 0; i < remoteIds.length; i += 500) {
      await this.db
        .updateTable('import_map')
        .set({ seen_pass: pass })
        .where('source', '=', scope.source)
        .where('source_key', '=', scope.sourceKey)
        .where('kind', '=', kind)
        .where('remote_id', 'in', remoteIds.slice(i, i + 500))
        .execute();
    }
  }

  /** The local record an old permalink path names, for the pages' redirects (the newest import wins). */
  async byOldPath(path: string): Promise<{ kind: string; localId: number } | undefined> {
    const row = await this.db
      .selectFrom('import_map')
      .select(['kind', 'local_id'])
      .where('old_path', '=', path)
      .orderBy('modified_at', 'desc')
      .executeTakeFirst();
    return row ? { kind: row.kind, localId: Number(row.local_id) } : undefined;
  }

  /** The sites imported from (their API roots). */
  async sourceKeys(source: string): Promise<string[]> {
    const rows = await this.db.selectFrom('import_map').select('source_key').distinct().where('source', '=', source).execute();
    return rows.map((r) => r.source_key);
  }

  /** The metadata of a linked image as the remote site describes it (sizes keep the remote URLs). */
  async setImageMeta(
    imageId: number,
    meta: { width: number | null; height: number | null; filesize: number | null; mimeType: string; sizes: Record<string, unknown> },
  ): Promise<void> {
    await this.db
      .updateTable('images')
      .set({ width: meta.width, height: meta.height, filesize: meta.filesize, mime_type: meta.mimeType, sizes: JSON.stringify(meta.sizes) })
      .where('post_id', '=', imageId)
      .execute();
  }

  // ---- jobs ------------------------------------------------------------------------------------------

  /** Records a running job's checkpoint and report; false when the job is no longer this owner's. */
  async checkpoint(jobId: number, owner: string, checkpoint: unknown, report: unknown): Promise<boolean> {
    const result = await this.db
      .updateTable('import_jobs')
      .set({ checkpoint: JSON.stringify(checkpoint), report: JSON.stringify(report) })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async jobExtras(jobId: number): Promise<{ checkpoint: unknown; report: unknown }> {
    const row = await this.db.selectFrom('import_jobs').select(['checkpoint', 'report']).where('id', '=', jobId).executeTakeFirst();
    const parse = (s: string | null | undefined) => (s ? (JSON.parse(s) as unknown) : null);
    return { checkpoint: parse(row?.checkpoint), report: parse(row?.report) };
  }

  /** Rewrites a job's options (a finished job forgets the credentials it was given). */
  async setOptions(jobId: number, options: Readonly<Record<string, unknown>>): Promise<void> {
    await this.db
      .updateTable('import_jobs')
      .set({ options: JSON.stringify(options) })
      .where('id', '=', jobId)
      .execute();
  }

  /**
   * Earlier jobs of the same source and payload that did not finish (failed with a checkpoint, or running
   * under a lease), newest first: a new run resumes from the newest one's checkpoint.
   */
  async unfinished(source: string, payload: string, beforeId: number) {
    const rows = await this.db
      .selectFrom('import_jobs')
      .select(['id', 'state', 'lease_owner', 'lease_until', 'checkpoint', 'options'])
      .where('source', '=', source)
      .where('payload', '=', payload)
      .where('id', '<', beforeId)
      .where((eb) => eb.or([eb('state', 'in', ['queued', 'running']), eb.and([eb('state', '=', 'failed'), eb('checkpoint', 'is not', null)])]))
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      state: r.state,
      leaseOwner: r.lease_owner,
      leaseUntil: r.lease_until,
      checkpoint: r.checkpoint ? (JSON.parse(r.checkpoint) as unknown) : null,
      options: JSON.parse(r.options) as Record<string, unknown>,
    }));
  }

  /** Closes an earlier job whose checkpoint a newer one took over (it must not be resumed twice). */
  async supersede(jobId: number, byJob: number, now: string): Promise<void> {
    await this.db
      .updateTable('import_jobs')
      .set({
        state: 'failed',
        failure: sql<string>`trim(coalesce(failure, '') || ${` (resumed by import ${byJob})`})`,
        checkpoint: null,
        lease_owner: null,
        lease_until: null,
        finished_at: sql<string>`coalesce(finished_at, ${now})`,
        modified_at: now,
      })
      .where('id', '=', jobId)
      .execute();
  }
}
