/**
 * Writes mapped calendar items as events, through the event service (so every rule of a write holds: policy,
 * HTML filtering, slugs, term counts, series and their occurrences). Each item is one transaction: a bad item
 * leaves nothing behind and the others go on. Idempotent by (source, source key, UID, RECURRENCE-ID): an item
 * whose mapped fields did not change since the last import is skipped; a changed one updates the same local
 * event. Update authority (TEC Event Aggregator's names): `overwrite`, `retain` (an event that exists is never
 * touched), `preserve_local_changes` (fields edited here since the last import keep the local value).
 */
import { sql } from 'kysely';
import type { Storage } from '../../storage/storage.js';
import type { ImportCounts, ImportItem, ImportItemError } from '../../storage/stores/import.store.js';
import type { OccurrenceRow } from '../../storage/stores/series.store.js';
import { formatUtcMs, getZone, parseWall, zonedWallToUtcMs } from '../../time/zones.js';
import type { Actor } from '../actor.js';
import type { EventInput, LinkedRef } from '../events/event.js';
import type { EventService, EventView } from '../events/event.service.js';
import { hashOf, type MappedCalendar, type MappedFields, type MappedItem } from './ics.mapper.js';
import { ImportBatch } from './import-batch.js';
import { reasonOf } from './item-reason.js';

export type UpdateAuthority = 'overwrite' | 'retain' | 'preserve_local_changes';

export interface ImportOptions {
  readonly dryRun: boolean;
  readonly defaultStatus: string;
  readonly updateAuthority: UpdateAuthority;
}

export interface ImportProgress {
  readonly done: number;
  readonly total: number;
  readonly counts: ImportCounts;
  readonly errors: readonly ImportItemError[];
}

type Outcome = 'created' | 'updated' | 'skipped';

/** Items in one transaction at most, and how long one batch may hold the database (see run()). */
const BATCH_ITEMS = 100;
const BATCH_MS = 250;

/** The fields of an event a local edit is detected on, by the input fields each stands for. */

const GROUPS = {
  title: ['title'],
  description: ['description'],
  dates: ['startDate', 'endDate', 'timezone', 'allDay'],
  website: ['website'],
  recurrence: ['recurrence'],
  categories: ['categories'],
  venue: ['venue'],
  organizers: ['organizers'],
  image: ['image'],
} as const satisfies Record<string, readonly (keyof EventInput)[]>;

/** Per field group, a hash of the local event's value (what preserve_local_changes compares with later). */
function localHashes(view: EventView): Record<string, string> {
  const r = view.record;
  const values: Record<keyof typeof GROUPS, unknown> = {
    title: r.title,
    description: r.content,
    dates: [r.startDate, r.endDate, r.timezone, r.allDay],
    website: r.website,
    recurrence: view.series?.kind === 'series' ? view.series.recurrence : null,
    categories: view.categories.map((c) => c.id).sort(),
    venue: r.venueId,
    organizers: view.organizers.map((o) => o.record.id),
    image: r.imageId,
  };
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, hashOf(v).slice(0, 16)]));
}

const normal = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s,.;]+/g, ' ')
    .trim();

export class IcsImporter {
  constructor(
    private readonly storage: Storage,
    /** The event service working inside a transaction (every write of one item commits or rolls back together). */
    private readonly eventsIn: (tx: Storage) => EventService,
    private readonly clock: () => number = Date.now,
  ) {}

  async run(
    actor: Actor,
    calendar: MappedCalendar,
    sourceKey: string,
    jobId: number,
    options: ImportOptions,
    onProgress: (p: ImportProgress) => Promise<void>,
  ): Promise<ImportProgress> {
    const counts = { created: 0, updated: 0, skipped: 0, failed: 0 };
    const errors: ImportItemError[] = calendar.errors.map((e) => ({ ...e }));
    counts.failed = errors.length;
    const total = calendar.items.length + calendar.errors.length;
    // in a dry run, series that would be created: their overrides count as what they would do
    const wouldCreate = new Set<string>();
    const masters = new Map(calendar.items.filter((i) => i.recurrenceId === '').map((i) => [i.uid, i]));
    let done = calendar.errors.length;
    let lastReport = 0;
    const record = (item: MappedItem, outcome: Outcome | { error: unknown }) => {
      if (typeof outcome === 'string') {
        counts[outcome]++;
      } else {
        counts.failed++;
        errors.push({ uid: item.uid, recurrenceId: item.recurrenceId || null, line: item.line, reason: reasonOf(outcome.error) });
      }
      done++;
    };
    const one = async (tx: Storage, item: MappedItem, batch: ImportBatch | undefined): Promise<Outcome | { error: unknown }> => {
      try {
        if (options.dryRun && item.recurrenceId !== '' && wouldCreate.has(item.uid)) return 'created';
        const outcome = await this.apply(tx, batch, actor, item, masters.get(item.uid), sourceKey, jobId, options);
        if (options.dryRun && outcome === 'created' && item.recurrenceId === '') wouldCreate.add(item.uid);
        return outcome;
      } catch (error) {
        return { error };
      }
    };
    // Items are written in batches, one transaction each: a commit per item cost PostgreSQL a disk sync each, 54 s
    // for 10,000 events. A batch ends after BATCH_ITEMS items or BATCH_MS, so other writers wait no longer than
    // that for the database. A failed item must leave nothing behind while the others stand, but failures are
    // rare and a savepoint around every item costs two round trips each: a batch runs without them, and the
    // first item that fails rolls the batch back, which then runs again with a savepoint around each item (a
    // dry run always has them: each item is rolled back).
    let next = 0;
    let alone = options.dryRun;
    while (next < calendar.items.length) {
      const from = next;
      const results: (Outcome | { error: unknown })[] = [];
      let itemFailed = false;
      try {
        await this.storage.transaction(async (tx) => {
          const started = Date.now();
          const batch = alone ? undefined : new ImportBatch(tx, true);
          await batch?.prefetch(calendar.items.slice(next, next + BATCH_ITEMS).map((item) => this.key(sourceKey, item)));
          while (next < calendar.items.length && results.length < BATCH_ITEMS && Date.now() - started < BATCH_MS) {
            const result = await one(tx, calendar.items[next], batch);
            if (batch && typeof result !== 'string') {
              itemFailed = true;
              throw new Error('an item of the batch failed');
            }
            results.push(result);
            next++;
          }
          // (the import records the batch kept: should they fail, the batch runs again, each item alone)
          await batch?.flush().catch((error: unknown) => {
            itemFailed = true;
            throw error;
          });
        });
      } catch {
        if (itemFailed) {
          next = from;
          alone = true;
          continue;
        }
        // the batch's commit failed (the database went away, a conflict): each item it held again, alone
        const upto = Math.max(next, from + 1);
        results.length = 0;
        for (next = from; next < upto; next++) results.push(await one(this.storage, calendar.items[next], undefined));
      }
      alone = options.dryRun;
      for (const [k, r] of results.entries()) record(calendar.items[from + k], r);
      if (Date.now() - lastReport > 500) {
        lastReport = Date.now();
        await onProgress({ done, total, counts: { ...counts }, errors });
      }
    }
    const result = { done, total, counts: { ...counts }, errors };
    await onProgress(result);
    return result;
  }

  /**
   * One item, inside the batch's transaction (or its own): as part of `batch`, or alone, in a savepoint (rolled
   * back alone when it fails, or in a dry run).
   */
  private async apply(
    tx: Storage,
    batch: ImportBatch | undefined,
    actor: Actor,
    item: MappedItem,
    master: MappedItem | undefined,
    sourceKey: string,
    jobId: number,
    options: ImportOptions,
  ): Promise<Outcome> {
    return tx.transaction(async (inner) => {
      const b = batch ?? new ImportBatch(inner, false);
      const write = () =>
        item.recurrenceId === ''
          ? this.applyEvent(b, actor, item, sourceKey, jobId, options)
          : this.applyOverride(b, actor, item, master, sourceKey, jobId, options);
      if (batch) return write();
      await sql`savepoint import_item`.execute(inner.db);
      let outcome: Outcome;
      try {
        outcome = await write();
      } catch (error) {
        await sql`rollback to savepoint import_item`.execute(inner.db);
        await sql`release savepoint import_item`.execute(inner.db);
        throw error;
      }
      if (options.dryRun) await sql`rollback to savepoint import_item`.execute(inner.db);
      await sql`release savepoint import_item`.execute(inner.db);
      return outcome;
    });
  }

  private key(sourceKey: string, item: MappedItem) {
    return { source: 'ics', sourceKey, uid: item.uid, recurrenceId: item.recurrenceId };
  }

  private async save(b: ImportBatch, sourceKey: string, item: MappedItem, view: EventView, jobId: number): Promise<void> {
    const now = new Date(this.clock()).toISOString().slice(0, 19).replace('T', ' ');
    const saved: ImportItem = {
      postId: view.record.id,
      sequence: item.sequence,
      lastModified: item.lastModified,
      hash: item.hash,
      fields: item.fields as unknown as Record<string, unknown>,
      local: localHashes(view),
    };
    await b.saveItem(this.key(sourceKey, item), saved, jobId, now);
  }

  /** A single event or a series' master. */
  private async applyEvent(
    b: ImportBatch,
    actor: Actor,
    item: MappedItem,
    sourceKey: string,
    jobId: number,
    options: ImportOptions,
  ): Promise<Outcome> {
    const tx = b.tx;
    const events = this.eventsIn(tx);
    const { item: known, uidHolder } = await b.findItemAndUid(this.key(sourceKey, item));
    // an event with this UID that another source (or an export of ours) made: the same event
    const id = known?.postId ?? uidHolder;
    const record = id === undefined ? undefined : await tx.events.find(id);
    if (!record) {
      if (item.cancelled) return 'skipped';
      const view = await events.create(
        actor,
        { ...(await this.input(b, item.fields, undefined)), status: options.defaultStatus, icalUid: item.uid },
        // without a known item, the UID was just looked up above and no event has it
        { icalUidFree: known === undefined, countsInto: b.termCounts },
      );
      await this.save(b, sourceKey, item, view, jobId);
      return 'created';
    }
    if (record.status === 'trash') return 'skipped';
    if (options.updateAuthority === 'retain' || (known && known.hash === item.hash)) {
      if (!known) await this.save(b, sourceKey, item, (await events.views([record], actor))[0], jobId);
      return 'skipped';
    }
    if (item.cancelled) {
      await events.remove(actor, record.id);
      return 'updated';
    }
    let input = await this.input(b, item.fields, known?.fields as MappedFields | undefined);
    if (options.updateAuthority === 'preserve_local_changes' && known) {
      const now = localHashes((await events.views([record], actor))[0]);
      const edited = Object.entries(GROUPS).filter(([group]) => known.local[group] !== undefined && known.local[group] !== now[group]);
      const drop = new Set<string>(edited.flatMap(([, fields]) => fields));
      input = Object.fromEntries(Object.entries(input).filter(([k]) => !drop.has(k))) as EventInput;
    }
    const view = await events.update(actor, record.id, input);
    await this.save(b, sourceKey, item, view, jobId);
    return 'updated';
  }

  /** A RECURRENCE-ID VEVENT: the series' occurrence with that original start becomes an exception, or is cancelled. */
  private async applyOverride(
    b: ImportBatch,
    actor: Actor,
    item: MappedItem,
    master: MappedItem | undefined,
    sourceKey: string,
    jobId: number,
    options: ImportOptions,
  ): Promise<Outcome> {
    const tx = b.tx;
    const events = this.eventsIn(tx);
    const seriesItem = await b.findItem({ ...this.key(sourceKey, item), recurrenceId: '' });
    const seriesId = seriesItem?.postId ?? (await tx.events.idByIcalUid(item.uid));
    if (seriesId === undefined) throw new Error(`its series (UID ${item.uid}) was not imported`);
    const known = await b.findItem(this.key(sourceKey, item));
    const occurrences = await tx.series.occurrencesOf(seriesId);
    const occurrence = known ? occurrences.find((o) => o.id === known.postId) : await this.occurrenceAt(tx, seriesId, item.recurrenceId, occurrences);
    if (!occurrence) throw new Error(`the series has no occurrence starting at ${item.recurrenceId} (RECURRENCE-ID)`);
    if (known && (options.updateAuthority === 'retain' || known.hash === item.hash)) return 'skipped';
    const outcome: Outcome = known ? 'updated' : 'created';
    if (item.cancelled) {
      if (occurrence.state !== 'cancelled') await events.remove(actor, occurrence.id);
      const record = await tx.events.find(occurrence.id);
      if (record) await this.save(b, sourceKey, item, (await events.views([record], actor))[0], jobId);
      return outcome;
    }
    // only what differs from the series is the exception's own (the rest keeps following the series)
    const base = master?.fields ?? (seriesItem?.fields as MappedFields | undefined);
    const full = await this.input(b, item.fields, undefined);
    const own = await this.input(b, item.fields, base);
    const input: EventInput = {
      ...own,
      recurrence: undefined,
      startDate: full.startDate,
      endDate: full.endDate,
      timezone: full.timezone,
      allDay: undefined,
    };
    const view = await events.update(actor, occurrence.id, input);
    await this.save(b, sourceKey, item, view, jobId);
    return outcome;
  }

  /**
   * The occurrence a RECURRENCE-ID names, by its original start as an instant, the key of an occurrence (E12): one
   * whose rule time fell in a DST gap (02:30, starting 03:30 EDT) is named by either wall time, or in UTC (07:30Z);
   * by its wall time it was not found at 03:30, and the override was refused. All-day series: by date. The wall
   * time names nearly every one as it is: the series is read for its zone only when it does not.
   */
  private async occurrenceAt(tx: Storage, seriesId: number, recurrenceId: string, occurrences: readonly OccurrenceRow[]) {
    const byWall = occurrences.find((o) => o.originalStart === recurrenceId);
    if (byWall) return byWall;
    const series = await tx.events.find(seriesId);
    if (!series || series.allDay || !series.timezone) return undefined;
    const at = formatUtcMs(zonedWallToUtcMs(parseWall(recurrenceId), getZone(series.timezone)));
    return occurrences.find((o) => o.originalStartUtc === at);
  }

  /** The event input for mapped fields; with `before` (what was imported last), only the fields that changed. */
  private async input(b: ImportBatch, f: MappedFields, before: MappedFields | undefined): Promise<EventInput> {
    const changed = (k: keyof MappedFields) => before === undefined || hashOf(before[k]) !== hashOf(f[k]);
    const out: Record<string, unknown> = {};
    if (changed('title')) out.title = f.title;
    if (changed('description')) out.description = f.description;
    if (changed('startDate') || changed('endDate') || changed('timezone') || changed('allDay')) {
      Object.assign(out, { startDate: f.startDate, endDate: f.endDate, timezone: f.timezone, allDay: f.allDay });
    }
    if (changed('website')) out.website = f.website ?? (before ? null : undefined);
    if (changed('recurrence') && (f.recurrence || before)) out.recurrence = f.recurrence ?? [];
    // names (FEATURES.md §3.4: matched by name, else created), never ids: `CATEGORIES:2024` is a category 2024
    if (changed('categories')) out.categories = f.categories.map((name) => ({ name }));
    if (changed('venue')) out.venue = f.venue ? await this.venueRef(b, f.venue) : before ? null : undefined;
    if (changed('organizer')) out.organizers = f.organizer ? [await this.organizerRef(b, f.organizer)] : before ? [] : undefined;
    if (changed('image')) out.image = f.image ?? (before ? null : undefined);
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as EventInput;
  }

  /**
   * A venue with the same name and address (normalised: case, spacing, punctuation), else one with the same name
   * (linked as it is: an import does not rewrite a venue made here), else a new one.
   */
  private async venueRef(b: ImportBatch, v: MappedFields['venue'] & object): Promise<LinkedRef> {
    const named = await b.venuesNamed(v.title);
    const same = named.find((n) => normal([n.address, n.city, n.zip, n.country].filter((s) => s !== '').join(' ')) === normal(v.address));
    const pick = same ?? named[0];
    if (pick) return { id: pick.id, found: pick };
    // (none of that name: the event's write need not look for one again before it creates it)
    return {
      create: { title: v.title, address: v.address, ...(v.geoLat !== null ? { geoLat: v.geoLat, geoLng: v.geoLng } : {}) },
      absent: true,
    } as LinkedRef;
  }

  /** The organizer with that e-mail address, else a new one. */
  private async organizerRef(b: ImportBatch, o: MappedFields['organizer'] & object): Promise<LinkedRef> {
    const found = o.email ? await b.organizerByEmail(o.email) : undefined;
    if (found) return { id: found.id, found };
    b.forgetOrganizers();
    return { create: { title: o.title, email: o.email } } as LinkedRef;
  }
}
