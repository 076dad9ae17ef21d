/**
 * Writing a page of records: one transaction per page (a commit per record cost PostgreSQL a disk sync each),
 * each record in a savepoint of its own so a failed one is rolled back alone and the others go on. What a
 * record changes in the in-memory map and in the report counts is kept only when it commits. Writers take
 * turns (one batch at a time, whatever the number of pages fetched at once).
 */
import { sql } from 'kysely';
import type { Storage } from '../../../storage/storage.js';
import type { MapRow } from '../../../storage/stores/import-map.store.js';
import { postStamp } from '../../posts/post-writes.js';
import { reasonOf } from '../item-reason.js';
import type { Json } from './tec.mapper.js';
import { count, type TecReport, warn } from './tec.report.js';
import type { TecWriter } from './tec.writer.js';

/** One at a time. */
export class Turns {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export interface BatchItem {
  readonly kind: string;
  readonly remoteId: string;
  readonly write: (tx: Storage) => Promise<unknown>;
  /** The remote record it writes (its images are fetched before the page's transaction, with `download`). */
  readonly remote?: Json;
}

type Snapshot = { resources: TecReport['resources']; warnings: number };

export class BatchWriter {
  private readonly turns = new Turns();

  constructor(
    private readonly storage: Storage,
    private readonly writer: TecWriter,
    private readonly report: TecReport,
    private readonly dryRun: boolean,
    private readonly scope: { source: string; sourceKey: string },
    private readonly pass: string,
  ) {}

  private snapshot(): Snapshot {
    return { resources: structuredClone(this.report.resources), warnings: this.report.warnings.length };
  }

  private restore(s: Snapshot): void {
    this.report.resources = s.resources;
    this.report.warnings.length = s.warnings;
  }

  /** Writes the items (their images fetched first, outside the turn); answers how many failed. */
  async write(items: readonly BatchItem[]): Promise<number> {
    if (items.length === 0) return 0;
    await this.writer.prepare(items);
    return this.turns.run(async () => {
      // (what the fetches reported is the report's whatever becomes of the page)
      this.writer.media?.flush(this.report);
      const before = this.snapshot();
      try {
        return await this.once(items, !this.dryRun);
      } catch {
        // the batch's commit failed (a conflict, the database went away): each item again, alone
        this.restore(before);
        let failed = 0;
        for (const item of items) failed += await this.once([item], !this.dryRun);
        return failed;
      }
    });
  }

  private async once(items: readonly BatchItem[], transactional: boolean): Promise<number> {
    const seen: { kind: string; remoteId: string }[] = [];
    const rows: MapRow[] = [];
    const lineages: [number, readonly string[]][] = [];
    let failed = 0;
    const body = async (tx: Storage) => {
      for (const item of items) {
        const s = this.snapshot();
        if (transactional) await sql`savepoint tec_item`.execute(tx.db);
        try {
          await item.write(tx);
          const p = this.writer.takePending();
          for (const row of p.rows) this.writer.cache.stage(row);
          seen.push(...p.unchanged);
          rows.push(...p.writes.rows);
          lineages.push(...p.writes.lineages);
          if (transactional) await sql`release savepoint tec_item`.execute(tx.db);
        } catch (error) {
          this.writer.takePending();
          if (transactional) {
            await sql`rollback to savepoint tec_item`.execute(tx.db);
            await sql`release savepoint tec_item`.execute(tx.db);
          }
          this.restore(s);
          count(this.report, item.kind, 'failed');
          warn(this.report, item.kind, item.remoteId, reasonOf(error));
          failed++;
        }
      }
      if (!this.dryRun) {
        // the map rows and lineages of the whole batch, a statement per hundred rows rather than one each
        await tx.importMap.saveMany(this.scope, rows, postStamp(Date.now(), 'UTC').utc);
        // (an occurrence with a lineage of its own is no longer its series' in all but its dates: it gets rows)
        await tx.series.materialize(lineages.map(([id]) => id));
        await tx.importMap.setLineages(lineages);
        const byKind = new Map<string, string[]>();
        for (const u of seen) byKind.set(u.kind, [...(byKind.get(u.kind) ?? []), u.remoteId]);
        for (const [kind, ids] of byKind) await tx.importMap.markSeen(this.scope, kind, ids, this.pass);
      }
    };
    try {
      if (transactional) await this.storage.transaction(body);
      else await body(this.storage);
    } catch (error) {
      this.writer.cache.rollback();
      throw error;
    }
    this.writer.cache.commit();
    return failed;
  }
}
