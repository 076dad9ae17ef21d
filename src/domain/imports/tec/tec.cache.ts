import type { MapRow } from '../../../storage/stores/import-map.store.js';

/**
 * The map of one site, in memory (loaded once). Rows of a batch in progress are staged: visible to the records
 * after them in the batch (a child category finds its parent), kept when the batch commits, dropped if not.
 */
export class MapCache {
  private readonly rows = new Map<string, Map<string, MapRow>>();
  private staged = new Map<string, MapRow>();
  private fake = -1;

  load(kind: string, rows: readonly MapRow[]): void {
    this.rows.set(kind, new Map(rows.map((r) => [r.remoteId, r])));
  }
  get(kind: string, remoteId: string): MapRow | undefined {
    return this.staged.get(`${kind}\u0000${remoteId}`) ?? this.rows.get(kind)?.get(remoteId);
  }
  stage(row: MapRow): void {
    this.staged.set(`${row.kind}\u0000${row.remoteId}`, row);
  }
  commit(): void {
    for (const row of this.staged.values()) {
      if (!this.rows.has(row.kind)) this.rows.set(row.kind, new Map());
      this.rows.get(row.kind)?.set(row.remoteId, row);
    }
    this.staged = new Map();
  }
  rollback(): void {
    this.staged = new Map();
  }
  all(kind: string): MapRow[] {
    const out = new Map(this.rows.get(kind) ?? []);
    for (const row of this.staged.values()) if (row.kind === kind) out.set(row.remoteId, row);
    return [...out.values()];
  }
  /** A stand-in id for what a dry run would create. */
  nextFakeId(): number {
    return this.fake--;
  }
}
