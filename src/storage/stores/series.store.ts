/**
 * Recurring series (migrations 0006, 0023): the rule beside a master, the occurrence ids a series ever gave, and
 * the bulk writes of its occurrences (FEATURES.md §1.5).
 *
 * A plain occurrence (one that follows its series in everything but its dates) is one row of `occurrences`:
 * its dates, and its master's status and hidden flag for the listing index; everything else it reads from the
 * master (EventStore). An occurrence edited alone or cancelled has `posts` and `events` rows of its own
 * (`own_rows`), copies of its master's made when that first happens (materialize), which the master's later
 * writes keep in step but for what the occurrence overrode (follow).
 *
 * Rows are written many at once, their dates handed as parameters read back as rows (Dialect.bulkRows): a daily
 * series has ~1,800 occurrences at the default horizon; a statement per row would cost a round trip each on
 * PostgreSQL, and a `values` list of thousands of parameters costs more to build, prepare and bind than the
 * rows to write.
 */
import { type Kysely, sql } from 'kysely';
import type { EventDetails } from '../../domain/events/event.js';
import type { EventDates } from '../../domain/events/event-dates.js';
import type { Database } from '../database.js';
import type { Dialect, JsonCell, JsonColumn } from '../dialects/dialect.js';
import { jsonList } from './columns.js';
import { isStorableId } from './ids.js';
import { PLAIN_BY_ID } from './plain-occurrences.js';
import { type PlannedRead, planned, runPlanned } from './planned.js';
import { idList, Statement, statementSet } from './statement.js';

export interface SeriesRow {
  readonly id: number;
  readonly recurrence: readonly string[];
  readonly bounded: boolean;
  /** Unbounded series: the UTC instant (`YYYY-MM-DD HH:MM:SS`) up to which instances exist. */
  readonly materializedUntil: string | null;
  readonly splitFrom: number | null;
}

export type OccurrenceState = 'active' | 'cancelled' | 'gone';

export interface OccurrenceRow {
  readonly id: number;
  readonly seriesId: number;
  readonly originalStartUtc: string;
  readonly originalStart: string;
  readonly state: OccurrenceState;
  /** What an edit of this occurrence alone set (see OVERRIDABLE); empty: it follows its series. */
  readonly overrides: readonly string[];
  /** Whether it has `posts` and `events` rows of its own (else it is plain: its series' but for its dates). */
  readonly ownRows: boolean;
}

/** The per-instance values of an occurrence's event row. */
export type OccurrenceDates = EventDates & Pick<EventDetails, 'allDay'>;

/** A new occurrence (its id is given as it is written: see insertOccurrences). */
export interface NewOccurrence {
  readonly originalStartUtc: string;
  readonly originalStart: string;
  readonly dates: OccurrenceDates;
}

/**
 * What an occurrence copies from its master, by the name of the field an edit of the occurrence overrides
 * (`dates` and the links are kept apart: dates are the occurrence's own, links are rows of other tables).
 */
export const OVERRIDABLE = {
  title: { posts: ['title'] },
  description: { posts: ['content'] },
  excerpt: { posts: ['excerpt'] },
  image: { posts: ['image_id'] },
  author: { posts: ['author_id'] },
  status: { posts: ['status', 'status_before_trash'], events: ['status'] },
  sticky: { posts: ['menu_order'] },
  date: { posts: ['date', 'date_utc'] },
  cost: { events: ['cost', 'currency_symbol', 'currency_code', 'currency_position'] },
  website: { events: ['website'] },
  showMap: { events: ['show_map'] },
  showMapLink: { events: ['show_map_link'] },
  hideFromListings: { events: ['hide_from_listings'] },
  featured: { events: ['featured'] },
  venue: { events: ['venue_id'] },
  customFields: { events: ['custom_fields'] },
} as const satisfies Record<string, { posts?: readonly string[]; events?: readonly string[] }>;

export type OverridableField = keyof typeof OVERRIDABLE | 'dates' | 'categories' | 'tags' | 'organizers';

/** Post columns every occurrence follows (its master's slug, password and modification stamp). */
const ALWAYS_POSTS = ['slug', 'password', 'modified', 'modified_utc'];
const DATE_COLUMNS = ['start_date', 'end_date', 'start_utc', 'end_utc', 'timezone', 'timezone_abbr', 'all_day'] as const;

const DATE_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'integer'] as const;

/** The dates of a plain occurrence's own (its zone and all-day flag are its master's). */
const PLAIN_DATE_COLUMNS = ['start_date', 'end_date', 'start_utc', 'end_utc', 'timezone_abbr'] as const;

/** A new occurrence's row for Dialect.bulkRows, but its id (see insertOccurrences). */
const NEW_OCCURRENCE_COLUMNS: readonly JsonColumn[] = ['original_start_utc', 'original_start', ...PLAIN_DATE_COLUMNS].map((name) => ({
  name,
  type: 'text' as const,
}));

/** Occurrences' ids and dates, as rows for Dialect.bulkRows: `v.id`, then DATE_COLUMNS by name. */
const datedColumns: readonly JsonColumn[] = [{ name: 'id', type: 'integer' }, ...DATE_COLUMNS.map((name, i) => ({ name, type: DATE_TYPES[i] }))];

function datedRows(items: readonly { id: number; dates: OccurrenceDates }[]): JsonCell[][] {
  return items.map((o) => [
    o.id,
    o.dates.startDate,
    o.dates.endDate,
    o.dates.startUtc,
    o.dates.endUtc,
    o.dates.timezone,
    o.dates.timezoneAbbr,
    o.dates.allDay ? 1 : 0,
  ]);
}

const toSeries = (r: Record<string, unknown>): SeriesRow => ({
  id: Number(r.post_id),
  recurrence: jsonList.fromRow(String(r.recurrence)),
  bounded: Number(r.bounded) === 1,
  materializedUntil: (r.materialized_until as string | null) ?? null,
  splitFrom: r.split_from === null || r.split_from === undefined ? null : Number(r.split_from),
});

const toOccurrence = (r: Record<string, unknown>): OccurrenceRow => ({
  id: Number(r.id),
  seriesId: Number(r.series_id),
  originalStartUtc: String(r.original_start_utc),
  originalStart: String(r.original_start),
  state: r.state as OccurrenceState,
  overrides: jsonList.fromRow(String(r.overrides)),
  ownRows: Number(r.own_rows) === 1,
});

/** The reads of a recurring record's view (see Statement). */
const statements = statementSet((dialect: Dialect) => ({
  findMany: new Statement<Record<string, unknown>>(dialect, 'select * from event_series where post_id in :ids'),
  occurrencesByIds: new Statement<Record<string, unknown>>(dialect, 'select * from occurrences where id in :ids'),
}));

export class SeriesStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async find(id: number): Promise<SeriesRow | undefined> {
    return (await this.findMany([id])).get(id);
  }

  findMany(ids: readonly number[]): Promise<Map<number, SeriesRow>> {
    return runPlanned(this.db, this.findManyPlan(ids));
  }

  /** findMany, planned (to run with other reads: Storage.readTogether). */
  findManyPlan(ids: readonly number[]): PlannedRead<Map<number, SeriesRow>> {
    const query = ids.length === 0 ? undefined : statements(this.dialect).findMany.compile([idList(this.dialect, ids)]);
    return planned(query, (rows) => new Map(rows.map((r) => [Number(r.post_id), toSeries(r)])));
  }

  async save(s: SeriesRow): Promise<void> {
    const row = {
      recurrence: jsonList.toRow(s.recurrence),
      bounded: s.bounded ? 1 : 0,
      materialized_until: s.materializedUntil,
      split_from: s.splitFrom,
    } as const;
    await this.db
      .insertInto('event_series')
      .values({ post_id: s.id, ...row })
      .onConflict((oc) => oc.column('post_id').doUpdateSet(row))
      .execute();
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('event_series').where('post_id', '=', id).execute();
  }

  /** Unbounded series whose occurrences stop before `utc`. */
  async endingBefore(utc: string): Promise<number[]> {
    const rows = await this.db.selectFrom('event_series').select('post_id').where('bounded', '=', 0).where('materialized_until', '<', utc).execute();
    return rows.map((r) => Number(r.post_id));
  }

  async occurrence(id: number): Promise<OccurrenceRow | undefined> {
    if (!isStorableId(id)) return undefined;
    return (await this.occurrencesByIds([id])).get(id);
  }

  occurrencesByIds(ids: readonly number[]): Promise<Map<number, OccurrenceRow>> {
    return runPlanned(this.db, this.occurrencesByIdsPlan(ids));
  }

  /** occurrencesByIds, planned (to run with other reads: Storage.readTogether). */
  occurrencesByIdsPlan(ids: readonly number[]): PlannedRead<Map<number, OccurrenceRow>> {
    const query = ids.length === 0 ? undefined : statements(this.dialect).occurrencesByIds.compile([idList(this.dialect, ids)]);
    return planned(query, (rows) => new Map(rows.map((r) => [Number(r.id), toOccurrence(r)])));
  }

  /** A series' occurrences that exist (active or cancelled), by original start. */
  async occurrencesOf(seriesId: number): Promise<OccurrenceRow[]> {
    const rows = await this.db
      .selectFrom('occurrences')
      .selectAll()
      .where('series_id', '=', seriesId)
      .where('state', '<>', 'gone')
      .orderBy('original_start_utc')
      .execute();
    return rows.map(toOccurrence);
  }

  /** The occurrences of these series that differ from their rule: edited alone (exceptions) or cancelled. */
  async changedOccurrences(seriesIds: readonly number[]): Promise<OccurrenceRow[]> {
    if (seriesIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('occurrences')
      .selectAll()
      .where('series_id', 'in', this.dialect.jsonIds(seriesIds))
      .where((eb) => eb.or([eb('state', '=', 'cancelled'), eb.and([eb('state', '=', 'active'), eb('overrides', '<>', '[]')])]))
      .orderBy('series_id')
      .orderBy('original_start_utc')
      .execute();
    return rows.map(toOccurrence);
  }

  async setState(ids: readonly number[], state: OccurrenceState): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('occurrences').set({ state }).where('id', 'in', this.dialect.jsonIds(ids)).execute();
  }

  async setOverrides(id: number, overrides: readonly string[]): Promise<void> {
    await this.db
      .updateTable('occurrences')
      .set({ overrides: jsonList.toRow(overrides) })
      .where('id', '=', id)
      .execute();
  }

  /** Moves occurrences to another series (a split), keeping their ids (and the rows of those that have some). */
  async moveOccurrences(ids: readonly number[], seriesId: number): Promise<void> {
    if (ids.length === 0) return;
    const these = this.dialect.jsonIds(ids);
    await this.db.updateTable('occurrences').set({ series_id: seriesId }).where('id', 'in', these).execute();
    await this.db.updateTable('events').set({ series_id: seriesId }).where('post_id', 'in', these).execute();
    await this.db
      .updateTable('posts')
      .set((eb) => ({ parent_id: seriesId, version: eb('version', '+', 1) }))
      .where('id', 'in', these)
      .execute();
  }

  /**
   * New occurrences of a master, plain: a row of `occurrences` each, with its dates and the master's status and
   * hidden flag. Their post, details and links are the master's until an edit of one gives it its own (materialize).
   */
  insertOccurrences(masterId: number, items: readonly NewOccurrence[]): Promise<void> {
    return this.inBatches(items, (some) => this.insertSomeOccurrences(masterId, some));
  }

  /** `write` for each run of at most Dialect.rowsPerBulkStatement items, in order (nothing for none). */
  private async inBatches<T>(items: readonly T[], write: (some: readonly T[]) => Promise<void>): Promise<void> {
    const step = this.dialect.rowsPerBulkStatement;
    for (let i = 0; i < items.length; i += step) await write(items.length <= step ? items : items.slice(i, i + step));
  }

  /** The items' rows, with new post ids in the order of the items (Dialect.nextPostId, else allocatePostIds). */
  private async insertSomeOccurrences(masterId: number, items: readonly NewOccurrence[]): Promise<void> {
    const inline = this.dialect.nextPostId;
    const ids = inline ? undefined : await this.dialect.allocatePostIds(this.db, items.length);
    const rows = this.dialect.bulkRows(
      items.map((o, i) => [
        ...(ids ? [ids[i]] : []),
        o.originalStartUtc,
        o.originalStart,
        o.dates.startDate,
        o.dates.endDate,
        o.dates.startUtc,
        o.dates.endUtc,
        o.dates.timezoneAbbr,
      ]),
      ids ? [{ name: 'id', type: 'integer' }, ...NEW_OCCURRENCE_COLUMNS] : NEW_OCCURRENCE_COLUMNS,
    );
    await sql`
      insert into occurrences (id, series_id, original_start_utc, original_start, state, overrides, own_rows, status, hidden,
                               start_date, end_date, start_utc, end_utc, timezone_abbr)
      select ${inline ?? sql`v.id`}, m.post_id, v.original_start_utc, v.original_start, 'active', '[]', 0, m.status, m.hide_from_listings,
             v.start_date, v.end_date, v.start_utc, v.end_utc, v.timezone_abbr
      from events m cross join ${rows}
      where m.post_id = ${masterId}`.execute(this.db);
  }

  /**
   * Gives plain occurrences rows of their own — a post and an event row, copies of their master's with their own
   * dates, status and parent, and copies of its organizers (their categories and tags stay the master's: see
   * ownTerms) — before an edit of one alone or its cancellation writes them. The post starts at the master's
   * version, which the occurrence answered with until now (a conditional write compares it).
   */
  async materialize(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const these = this.dialect.jsonIds(ids);
    const found = await sql<{ id: number }>`select o.id from occurrences o where o.id in ${these} and ${sql.raw(PLAIN_BY_ID)}`.execute(this.db);
    if (found.rows.length === 0) return;
    const plain = this.dialect.jsonIds(found.rows.map((r) => Number(r.id)));
    await sql`
      insert into posts (id, type, status, status_before_trash, author_id, title, content, excerpt, slug, password,
                         parent_id, menu_order, image_id, date, date_utc, modified, modified_utc, version)
      select o.id, p.type, o.status, p.status_before_trash, p.author_id, p.title, p.content, p.excerpt, p.slug,
             p.password, p.id, p.menu_order, p.image_id, p.date, p.date_utc, p.modified, p.modified_utc, p.version
      from occurrences o inner join posts p on p.id = o.series_id
      where o.id in ${plain}`.execute(this.db);
    await sql`
      insert into events (post_id, status, start_date, end_date, start_utc, end_utc, timezone, timezone_abbr, all_day,
                          cost, currency_symbol, currency_code, currency_position, website, show_map, show_map_link,
                          hide_from_listings, featured, venue_id, custom_fields, kind, series_id, shared_terms)
      select o.id, o.status, o.start_date, o.end_date, o.start_utc, o.end_utc, m.timezone, o.timezone_abbr, m.all_day,
             m.cost, m.currency_symbol, m.currency_code, m.currency_position, m.website, m.show_map, m.show_map_link,
             o.hidden, m.featured, m.venue_id, m.custom_fields, 'occurrence', m.post_id, 1
      from occurrences o inner join events m on m.post_id = o.series_id
      where o.id in ${plain}`.execute(this.db);
    await sql`
      insert into event_organizers (event_id, organizer_id, position)
      select o.id, l.organizer_id, l.position from occurrences o inner join event_organizers l on l.event_id = o.series_id
      where o.id in ${plain}`.execute(this.db);
    await sql`update occurrences set own_rows = 1 where id in ${plain}`.execute(this.db);
  }

  /** Plain occurrences of these masters take their master's status again (scheduled series published when due). */
  async followStatus(masterIds: readonly number[]): Promise<void> {
    if (masterIds.length === 0) return;
    await sql`
      update occurrences set status = (select m.status from events m where m.post_id = occurrences.series_id)
      where series_id in (${this.dialect.jsonIds(masterIds)}) and own_rows = 0 and state = 'active'`.execute(this.db);
  }

  /** Occurrences whose instance left the rule: the rows of those that have some go (links with them), the ids stay, as gone. */
  async removeOccurrences(occurrences: readonly Pick<OccurrenceRow, 'id' | 'ownRows'>[]): Promise<void> {
    if (occurrences.length === 0) return;
    const owning = occurrences.filter((o) => o.ownRows).map((o) => o.id);
    if (owning.length > 0) {
      const these = this.dialect.jsonIds(owning);
      await this.db.deleteFrom('term_relationships').where('post_id', 'in', these).execute();
      await this.db.deleteFrom('event_organizers').where('event_id', 'in', these).execute();
      await this.db.deleteFrom('events').where('post_id', 'in', these).execute();
      await this.db.deleteFrom('posts').where('id', 'in', these).execute();
    }
    await this.db
      .updateTable('occurrences')
      .set({ state: 'gone', own_rows: 0 })
      .where('id', 'in', this.dialect.jsonIds(occurrences.map((o) => o.id)))
      .execute();
  }

  /** New dates for occurrences (a changed length, or instances moved by a rule change). */
  async setDates(items: readonly { id: number; ownRows: boolean; dates: OccurrenceDates }[]): Promise<void> {
    await this.inBatches(
      items.filter((o) => !o.ownRows),
      (some) => this.setSomeDates('occurrences', some),
    );
    await this.inBatches(
      items.filter((o) => o.ownRows),
      (some) => this.setSomeDates('events', some),
    );
  }

  private async setSomeDates(table: 'occurrences' | 'events', items: readonly { id: number; dates: OccurrenceDates }[]): Promise<void> {
    const dated = this.dialect.bulkRows(datedRows(items), datedColumns);
    const ids = this.dialect.jsonIds(items.map((o) => o.id));
    if (table === 'occurrences') {
      // (a plain occurrence's zone and all-day flag are its master's)
      await sql`
        update occurrences set (${sql.raw(PLAIN_DATE_COLUMNS.join(', '))}) = (select ${sql.raw(PLAIN_DATE_COLUMNS.map((c) => `v.${c}`).join(', '))} from ${dated} where v.id = occurrences.id)
        where id in (${ids})`.execute(this.db);
      return;
    }
    const cols = sql.raw(DATE_COLUMNS.join(', '));
    const picked = sql.raw(DATE_COLUMNS.map((c) => `v.${c}`).join(', '));
    await sql`
      update events set (${cols}) = (select ${picked} from ${dated} where v.id = events.post_id)
      where post_id in (${ids})`.execute(this.db);
  }

  /**
   * Copies the master's fields onto its occurrences: every field onto those with rows of their own that follow
   * it, and onto each exception what it did not override; plain occurrences take its status and hidden flag (the
   * rest they read from it). Cancelled occurrences keep their status. `changed`: the master's record properties
   * that changed (camelCase, e.g. `venueId`); only their columns are copied, so a rename rewrites titles and
   * leaves the indexed columns (and the day counts' triggers) alone. Absent: every column.
   */
  async follow(masterId: number, occurrences: readonly OccurrenceRow[], changed?: ReadonlySet<string>): Promise<void> {
    const wanted = (column: string) => !changed || changed.has(column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
    if (occurrences.some((o) => !o.ownRows) && (wanted('status') || wanted('hide_from_listings'))) {
      await sql`
        update occurrences set (status, hidden) = (select m.status, m.hide_from_listings from events m where m.post_id = ${masterId})
        where series_id = ${masterId} and own_rows = 0 and state = 'active'`.execute(this.db);
    }
    const groups = new Map<string, number[]>();
    for (const o of occurrences) {
      if (!o.ownRows) continue;
      const key =
        o.overrides.length === 0 ? (o.state === 'cancelled' ? 'cancelled' : '') : JSON.stringify([o.state === 'cancelled', [...o.overrides].sort()]);
      const group = groups.get(key);
      if (group) group.push(o.id);
      else groups.set(key, [o.id]);
    }
    for (const [key, ids] of groups) {
      // (the common keys, an occurrence that follows its series in everything, spelt short)
      const [cancelled, overrides] = key === '' ? [false, []] : key === 'cancelled' ? [true, []] : (JSON.parse(key) as [boolean, string[]]);
      const skip = new Set(overrides);
      if (cancelled) skip.add('status');
      const postCols = ALWAYS_POSTS.filter(wanted);
      const eventCols: string[] = [];
      for (const [field, cols] of Object.entries(OVERRIDABLE) as [string, { posts?: readonly string[]; events?: readonly string[] }][]) {
        if (skip.has(field)) continue;
        postCols.push(...(cols.posts ?? []).filter(wanted));
        eventCols.push(...(cols.events ?? []).filter(wanted));
      }
      if (this.dialect.name === 'postgres' && postCols.length > 0 && eventCols.length > 0) {
        // both tables in one statement, one round trip
        const these = this.dialect.jsonIds(ids);
        const [pc, ec] = [sql.raw(postCols.join(', ')), sql.raw(eventCols.join(', '))];
        await sql`
          with p as (update posts set (${pc}) = (select ${pc} from posts m where m.id = ${masterId}), version = version + 1 where id in ${these} returning id)
          update events set (${ec}) = (select ${ec} from events m where m.post_id = ${masterId})
          where post_id in ${these}`.execute(this.db);
        continue;
      }
      if (postCols.length > 0) await this.copyColumns('posts', 'id', postCols, masterId, ids);
      if (eventCols.length > 0) await this.copyColumns('events', 'post_id', eventCols, masterId, ids);
    }
  }

  private async copyColumns(table: 'posts' | 'events', key: string, columns: readonly string[], masterId: number, ids: readonly number[]) {
    const cols = sql.raw(columns.join(', '));
    // (a post's version moves on with every write of its row)
    const version = table === 'posts' ? sql`, version = version + 1` : sql``;
    await sql`
      update ${sql.table(table)} set (${cols}) = (select ${cols} from ${sql.table(table)} m where m.${sql.raw(key)} = ${masterId})${version}
      where ${sql.raw(key)} in ${this.dialect.jsonIds(ids)}`.execute(this.db);
  }

  /**
   * An occurrence that carried its series' categories and tags gets links of its own, copies of the series'
   * (before an edit of it overrides one taxonomy: the other stays a copy, kept in step by copyLinks).
   */
  async ownTerms(id: number, seriesId: number): Promise<void> {
    await sql`
      insert into term_relationships (post_id, term_id)
      select ${id}, term_id from term_relationships where post_id = ${seriesId}`.execute(this.db);
    await this.db.updateTable('events').set({ shared_terms: 0 }).where('post_id', '=', id).execute();
  }

  /**
   * Gives occurrences their master's terms or organizers again (after the master's changed). Terms: only to
   * occurrences with links of their own (the others read the master's).
   */
  async copyLinks(masterId: number, ids: readonly number[], what: 'categories' | 'tags' | 'organizers'): Promise<void> {
    if (ids.length === 0) return;
    const these = this.dialect.jsonIds(ids);
    const v = this.dialect.bulkRows(
      ids.map((id) => [id]),
      [{ name: 'id', type: 'integer' }],
    );
    if (what === 'organizers') {
      await this.db.deleteFrom('event_organizers').where('event_id', 'in', these).execute();
      await sql`
        insert into event_organizers (event_id, organizer_id, position)
        select v.id, o.organizer_id, o.position from event_organizers o cross join ${v} where o.event_id = ${masterId}`.execute(this.db);
      return;
    }
    const taxonomy = what === 'categories' ? 'tribe_events_cat' : 'post_tag';
    await sql`
      delete from term_relationships where post_id in ${these}
      and term_id in (select id from terms where taxonomy = ${taxonomy})`.execute(this.db);
    await sql`
      insert into term_relationships (post_id, term_id)
      select v.id, r.term_id from term_relationships r cross join ${v}
      where r.post_id = ${masterId} and r.term_id in (select id from terms where taxonomy = ${taxonomy})`.execute(this.db);
  }
}
