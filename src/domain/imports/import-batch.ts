/**
 * What the items of one import batch share inside its transaction (see IcsImporter.run). When a failed item rolls
 * the whole batch back (`shared`), the batch remembers what its items looked up — venues by name, organizers by
 * e-mail address, terms — and writes their term counts and import records at its end: a file of 10,000 events
 * names a few hundred venues and a few dozen categories, and each lookup or record written alone is a round trip.
 * Items run in savepoints of their own (`shared` false) read and write as they go: a savepoint rolled back would
 * leave a memory of rows that no longer exist.
 */
import type { Storage } from '../../storage/storage.js';
import type { ImportItem, ImportItemKey } from '../../storage/stores/import.store.js';
import type { OrganizerRecord, VenueRecord } from '../linked/linked.js';

const keyOf = (k: ImportItemKey) => JSON.stringify([k.source, k.sourceKey, k.uid, k.recurrenceId]);

export class ImportBatch {
  private readonly records = new Map<string, { key: ImportItemKey; item: ImportItem; jobId: number; now: string }>();
  /** What the batch's new events add to their terms' counts (written at its end); undefined: counted as they go. */
  readonly termCounts: Map<number, number> | undefined;
  private readonly venues = new Map<string, VenueRecord[]>();
  private readonly organizers = new Map<string, OrganizerRecord>();

  constructor(
    readonly tx: Storage,
    readonly shared: boolean,
  ) {
    if (shared) tx.terms.remember();
    this.termCounts = shared ? new Map() : undefined;
  }

  /** UIDs looked up ahead (see prefetch), and what was found: their items by key, the events holding them. */
  private readonly ahead = new Set<string>();
  private readonly aheadItems = new Map<string, ImportItem>();
  private readonly aheadHolders = new Map<string, number>();

  /** Looks up the items of these keys, and the events with their UIDs, in two statements for the whole batch. */
  async prefetch(keys: readonly ImportItemKey[]): Promise<void> {
    if (!this.shared || keys.length === 0) return;
    const { source, sourceKey } = keys[0];
    const mine = keys.filter((k) => k.source === source && k.sourceKey === sourceKey);
    const found = await this.tx.imports.findItemsAndUids(
      source,
      sourceKey,
      mine.map((k) => k.uid),
    );
    for (const k of mine) this.ahead.add(k.uid);
    for (const { key, item } of found.items) this.aheadItems.set(keyOf(key), item);
    for (const [uid, id] of found.uidHolders) this.aheadHolders.set(uid, id);
  }

  async findItemAndUid(key: ImportItemKey): Promise<{ item: ImportItem | undefined; uidHolder: number | undefined }> {
    const written = this.records.get(keyOf(key));
    if (written) return { item: written.item, uidHolder: undefined };
    if (this.ahead.has(key.uid)) return { item: this.aheadItems.get(keyOf(key)), uidHolder: this.aheadHolders.get(key.uid) };
    return this.tx.imports.findItemAndUid(key);
  }

  async findItem(key: ImportItemKey): Promise<ImportItem | undefined> {
    const written = this.records.get(keyOf(key));
    if (written) return written.item;
    if (this.ahead.has(key.uid)) return this.aheadItems.get(keyOf(key));
    return this.tx.imports.findItem(key);
  }

  async saveItem(key: ImportItemKey, item: ImportItem, jobId: number, now: string): Promise<void> {
    // what was looked up ahead for this UID is no longer what the database holds
    this.ahead.delete(key.uid);
    if (this.shared) this.records.set(keyOf(key), { key, item, jobId, now });
    else await this.tx.imports.saveItem(key, item, jobId, now);
  }

  /** Writes the term counts and import records kept so far (before the batch commits). */
  async flush(): Promise<void> {
    if (this.termCounts && this.termCounts.size > 0) {
      await this.tx.terms.adjustCounts(this.termCounts);
      this.termCounts.clear();
    }
    if (this.records.size === 0) return;
    await this.tx.imports.saveItems([...this.records.values()]);
    this.records.clear();
  }

  /** Venues of that name (see LinkedStore.findDuplicates); a name none has is looked up again next time. */
  async venuesNamed(title: string): Promise<VenueRecord[]> {
    const known = this.venues.get(title);
    if (known) return known;
    const found = await this.tx.venues.findDuplicates(title);
    if (this.shared && found.length > 0) this.venues.set(title, found);
    return found;
  }

  async organizerByEmail(email: string): Promise<OrganizerRecord | undefined> {
    const known = this.organizers.get(email);
    if (known) return known;
    const found = await this.tx.organizers.findByEmail(email);
    if (this.shared && found) this.organizers.set(email, found);
    return found;
  }

  /**
   * An item is about to create an organizer, or to reuse one by name and rewrite its address: what was remembered
   * may no longer be what a lookup by address finds. (A venue is created only for a name no venue has, and is
   * then looked up again: names that found none are not remembered.)
   */
  forgetOrganizers(): void {
    this.organizers.clear();
  }
}
