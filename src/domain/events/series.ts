/**
 * Keeps a series' occurrences in line with its master and rule (FEATURES.md §1.5), inside the transaction of
 * the write that changed them:
 *
 * - instances are identified by their original start (UTC): an occurrence keeps its id while its instance is in
 *   the rule, whatever else changes; an instance that leaves the rule takes its id with it (410 from then on);
 *   a new one gets a new id, never one given before;
 * - occurrences are their master's but for their dates (plain: a row of `occurrences` each), until an edit of
 *   one alone or its cancellation gives it rows of its own, which then copy the master's fields but those the
 *   occurrence overrode (exceptions);
 * - bounded series exist whole, unbounded ones up to a horizon that moves forward (daily, and on demand).
 */
import type { Storage } from '../../storage/storage.js';
import type { NewOccurrence, OccurrenceDates, OccurrenceRow, OverridableField, SeriesRow } from '../../storage/stores/series.store.js';
import { formatUtcMs, formatWall, getZone, parseWall, utcMsToZonedWall, wallToMs } from '../../time/zones.js';
import { errors } from '../errors.js';
import type { EventInput, EventRecord } from './event.js';
import { expand, type Instance, occurrenceKey, parseRecurrence, type Recurrence, RecurrenceError, reframe, type SeriesFrame } from './recurrence.js';

export type LinkKind = 'categories' | 'tags' | 'organizers';

/** What occurrences copy from their master after a write: everything, nothing, or the properties that changed. */
export type FieldsToFollow = 'all' | 'none' | ReadonlySet<string>;

/** The properties of a record whose values differ between two versions of it. */
export function changedProperties<T extends object>(before: T, after: T): Set<string> {
  const out = new Set<string>();
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    const a = before[key];
    const b = after[key];
    if (a !== b && JSON.stringify(a) !== JSON.stringify(b)) out.add(key);
  }
  return out;
}

/** The frame a record's series expands in: its first instance, all-day flag and zone. */
export function frameOf(record: Pick<EventRecord, 'startDate' | 'endDate' | 'allDay' | 'timezone'>, siteZone: string): SeriesFrame {
  return { start: parseWall(record.startDate), end: parseWall(record.endDate), allDay: record.allDay, zone: getZone(record.timezone || siteZone) };
}

/** Reads `recurrence` lines for a frame: undefined for none, a 400 naming `recurrence` for what is refused. */
export function readRecurrence(lines: readonly string[], frame: SeriesFrame): Recurrence | undefined {
  try {
    return parseRecurrence(lines, frame);
  } catch (error) {
    if (error instanceof RecurrenceError) throw errors.invalidParam('recurrence', `Invalid parameter(s): recurrence (${error.message})`);
    throw error;
  }
}

/** Expands, turning "too many instances" into the same 400. */
function instancesOf(rec: Recurrence, frame: SeriesFrame, until?: string): Instance[] {
  try {
    const limit = until === undefined ? undefined : utcMsToZonedWall(wallToMs(parseWall(until)), frame.zone);
    return expand(rec, frame, limit);
  } catch (error) {
    if (error instanceof RecurrenceError) throw errors.invalidParam('recurrence', `Invalid parameter(s): recurrence (${error.message})`);
    throw error;
  }
}

export function datesOf(i: Instance, frame: SeriesFrame): OccurrenceDates {
  return {
    startDate: formatWall(i.startWall),
    endDate: formatWall(i.endWall),
    startUtc: formatUtcMs(i.startUtcMs),
    endUtc: formatUtcMs(i.endUtcMs),
    timezone: frame.zone.name,
    timezoneAbbr: frame.zone.abbreviationAt(i.startUtcMs),
    allDay: frame.allDay,
  };
}

/** Input fields that override the field of the same name when an occurrence is edited alone. */
const SAME_NAME = [
  'title',
  'description',
  'excerpt',
  'image',
  'author',
  'status',
  'sticky',
  'cost',
  'website',
  'showMap',
  'showMapLink',
  'hideFromListings',
  'featured',
  'venue',
  'categories',
  'tags',
  'organizers',
  'customFields',
] as const satisfies readonly (keyof EventInput & OverridableField)[];

/** The fields an occurrence edit overrides, by what it sent. */
export function overriddenBy(input: EventInput): OverridableField[] {
  const sent = (k: keyof EventInput) => input[k] !== undefined;
  const out: OverridableField[] = SAME_NAME.filter(sent);
  if (sent('date') || sent('dateUtc')) out.push('date');
  if (sent('startDate') || sent('endDate') || sent('timezone') || sent('allDay')) out.push('dates');
  return out;
}

/**
 * Whether an occurrence has categories and tags of its own: it overrode one of them (the other is a copy of its
 * series'); else it reads its series' (migration 0017).
 */
export const hasOwnTerms = (o: Pick<OccurrenceRow, 'overrides'>): boolean => o.overrides.includes('categories') || o.overrides.includes('tags');

export class SeriesKeeper {
  constructor(
    private readonly siteZone: string,
    private readonly horizonMonths: number,
  ) {}

  /**
   * The UTC instant up to which unbounded series exist when written at `nowMs`: the end of that UTC day, `months`
   * ahead. A whole day, so that the writes of one day find their series already reaching it and have no
   * instances to add (an edit that changes neither the rule nor the times then expands nothing: see sync).
   */
  horizon(nowMs: number, months = this.horizonMonths): string {
    const d = new Date(nowMs);
    d.setUTCHours(24, 0, 0, 0);
    d.setUTCMonth(d.getUTCMonth() + months);
    return formatUtcMs(d.getTime());
  }

  frame(record: EventRecord): SeriesFrame {
    return frameOf(record, this.siteZone);
  }

  /** The stored rule of a series, as it reads in a (maybe new) frame. */
  async storedRule(tx: Storage, id: number, before: SeriesFrame, after: SeriesFrame): Promise<Recurrence | undefined> {
    return this.reframed(await tx.series.find(id), before, after);
  }

  /** A stored series' rule, as it reads in a (maybe new) frame. */
  reframed(series: SeriesRow | undefined, before: SeriesFrame, after: SeriesFrame): Recurrence | undefined {
    if (!series) return undefined;
    const rec = readRecurrence(series.recurrence, before);
    return rec && reframe(rec, after);
  }

  /**
   * After a write of a master: stores its rule (or, with none, makes it a single event again) and brings its
   * occurrences in line. `datesChanged`: the write sent dates or a rule, so surviving occurrences get theirs
   * again; `fields`: what they copy from the master again; `relink`: links the master changed, copied again. Returns the ids of occurrences that went.
   */
  async sync(
    tx: Storage,
    masterId: number,
    rec: Recurrence | undefined,
    o: { nowMs: number; datesChanged: boolean; relink: readonly LinkKind[]; fields: FieldsToFollow; splitFrom?: number | null },
    /**
     * What the caller has just read or written in this transaction, not read again: the master as it is now, its
     * stored series row (undefined: none), its occurrences (a master just inserted has none).
     */
    known?: { master: EventRecord; stored: SeriesRow | undefined; existing?: OccurrenceRow[] },
  ): Promise<number[]> {
    const master = known ? known.master : await tx.events.find(masterId);
    if (!master) throw errors.eventNotFound(masterId);
    const existing = known?.existing ?? (await tx.series.occurrencesOf(masterId));
    if (!rec) {
      await tx.series.removeOccurrences(existing);
      await tx.series.remove(masterId);
      if (master.kind !== 'single') await tx.events.update(masterId, {}, { kind: 'single' });
      return existing.map((e) => e.id);
    }
    const frame = this.frame(master);
    const stored = known ? known.stored : await tx.series.find(masterId);
    const horizon = this.horizon(o.nowMs);
    const until = rec.bounded ? null : stored?.materializedUntil && stored.materializedUntil > horizon ? stored.materializedUntil : horizon;
    const sameRule = stored !== undefined && stored.recurrence.join('\n') === rec.lines.join('\n');
    if (sameRule && !o.datesChanged && o.splitFrom === undefined && (rec.bounded || stored.materializedUntil === until)) {
      // the same rule in the same frame, and no new horizon: the instances are the occurrences there are
      // (a whole-series edit of other fields expands nothing; ~1,800 instances for a daily series)
      await this.follow(tx, masterId, existing, o);
      return [];
    }
    const instances = instancesOf(rec, frame, until ?? undefined);
    // (a new series has nothing to keep, remove or move: its instances are not keyed)
    const wanted = new Map(existing.length === 0 ? [] : instances.map((i) => [formatUtcMs(i.originalUtcMs), i]));
    const removed = existing.filter((e) => !wanted.has(e.originalStartUtc));
    const kept = existing.filter((e) => wanted.has(e.originalStartUtc));
    await tx.series.removeOccurrences(removed);
    if (master.kind !== 'series') await tx.events.update(masterId, {}, { kind: 'series', seriesId: null });
    await tx.series.save({
      id: masterId,
      recurrence: rec.lines,
      bounded: rec.bounded,
      materializedUntil: until,
      splitFrom: o.splitFrom !== undefined ? o.splitFrom : (stored?.splitFrom ?? null),
    });
    await this.follow(tx, masterId, kept, o);
    if (o.datesChanged) {
      const moved = kept.filter((e) => !e.overrides.includes('dates'));
      await tx.series.setDates(
        moved.map((e) => ({ id: e.id, ownRows: e.ownRows, dates: datesOf(wanted.get(e.originalStartUtc) as Instance, frame) })),
      );
    }
    const had = new Set(existing.map((e) => e.originalStartUtc));
    await this.create(tx, masterId, had.size === 0 ? instances : instances.filter((i) => !had.has(formatUtcMs(i.originalUtcMs))), frame);
    return removed.map((e) => e.id);
  }

  /**
   * Occurrences that stay take their master's fields and links again: the fields that changed (all of them,
   * none), and the links it re-set, but what each overrode (an occurrence without categories and tags of its
   * own reads its master's: no links to copy).
   */
  private async follow(
    tx: Storage,
    masterId: number,
    kept: readonly OccurrenceRow[],
    o: { readonly relink: readonly LinkKind[]; readonly fields: FieldsToFollow },
  ): Promise<void> {
    if (o.fields !== 'none' && kept.length > 0) await tx.series.follow(masterId, kept, o.fields === 'all' ? undefined : o.fields);
    for (const what of o.relink) {
      // (a plain occurrence reads its master's links: nothing to copy)
      const copies = kept.filter((e) => e.ownRows && !e.overrides.includes(what) && (what === 'organizers' || hasOwnTerms(e)));
      await tx.series.copyLinks(
        masterId,
        copies.map((e) => e.id),
        what,
      );
    }
  }

  private async create(tx: Storage, masterId: number, instances: readonly Instance[], frame: SeriesFrame): Promise<void> {
    const items: NewOccurrence[] = instances.map((i) => {
      const dates = datesOf(i, frame);
      // (an instance starts where its rule put it but out of a gap: the same strings, made once)
      return {
        originalStartUtc: i.originalUtcMs === i.startUtcMs ? dates.startUtc : formatUtcMs(i.originalUtcMs),
        originalStart: i.originalWall === i.startWall ? dates.startDate : formatWall(i.originalWall),
        dates,
      };
    });
    await tx.series.insertOccurrences(masterId, items);
  }

  /**
   * Unbounded series that stop before `utc` get their occurrences up to it (the daily job, and lists whose
   * window reaches past the horizon). Returns how many series grew.
   */
  async extend(storage: Storage, utc: string): Promise<number> {
    const due = await storage.series.endingBefore(utc);
    for (const id of due) {
      await storage.transaction(async (tx) => {
        await tx.lockPost(id);
        const series = await tx.series.find(id);
        const master = await tx.events.find(id);
        if (!series || !master || series.bounded || (series.materializedUntil ?? '') >= utc) return;
        const frame = this.frame(master);
        const rec = readRecurrence(series.recurrence, frame);
        if (!rec) return;
        const known = new Set((await tx.series.occurrencesOf(id)).map((e) => e.originalStartUtc));
        const instances = instancesOf(rec, frame, utc).filter((i) => !known.has(formatUtcMs(i.originalUtcMs)));
        await this.create(tx, id, instances, frame);
        await tx.series.save({ ...series, materializedUntil: utc });
      });
    }
    return due.length;
  }

  /** What identifies an occurrence to clients, from its row. */
  static describe(row: OccurrenceRow, allDay: boolean) {
    return {
      seriesId: row.seriesId,
      key: occurrenceKey(row.seriesId, row.originalStartUtc, allDay, parseWall(row.originalStart)),
      originalStart: row.originalStart,
      originalStartUtc: row.originalStartUtc,
      isException: row.overrides.length > 0,
    };
  }
}
