/**
 * Recurring series (migration 0006): the rule beside a master, the occurrence ids a series ever gave, and the
 * bulk writes that keep each occurrence's post and event rows a copy of its master's (FEATURES.md §1.5).
 *
 * An occurrence is written as a copy of its master made in SQL (`insert … select … from the master`), many at
 * a time: a daily series has ~1,800 occurrences at the default horizon, and a statement per row would cost a
 * round trip each on PostgreSQL.
 */
import { type Kysely, sql } from 'kysely';
import type { EventDetails } from '../../domain/events/event.js';
import type { EventDates } from '../../domain/events/event-dates.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { jsonList } from './columns.js';

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
}

/** The per-instance values of an occurrence's event row. */
export type OccurrenceDates = EventDates & Pick<EventDetails, 'allDay'>;

export interface NewOccurrence {
  readonly id: number;
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
} as const satisfies Record<string, { posts?: readonly string[]; events?: readonly string[] }>;

export type OverridableField = keyof typeof OVERRIDABLE | 'dates' | 'categories' | 'tags' | 'organizers';

/** Post columns every occurrence follows (its master's slug, password and modification stamp). */
const ALWAYS_POSTS = ['slug', 'password', 'modified', 'modified_utc'];
const DATE_COLUMNS = ['start_date', 'end_date', 'start_utc', 'end_utc', 'timezone', 'timezone_abbr', 'all_day'] as const;

const CHUNK = 400;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `(values (cast(? as integer), ?), …)` rows, typed so that PostgreSQL does not take parameters for text. */
function valuesTable(rows: readonly (readonly unknown[])[], types: readonly string[]) {
  return sql`(values ${sql.join(rows.map((r) => sql`(${sql.join(r.map((v, i) => sql`cast(${v} as ${sql.raw(types[i])})`))})`))}) as v`;
}

/** Occurrences' ids and dates as a values table: `v.column1` the id, then DATE_COLUMNS in order. */
function datedValues(items: readonly { id: number; dates: OccurrenceDates }[]) {
  return valuesTable(
    items.map((o) => [
      o.id,
      o.dates.startDate,
      o.dates.endDate,
      o.dates.startUtc,
      o.dates.endUtc,
      o.dates.timezone,
      o.dates.timezoneAbbr,
      o.dates.allDay ? 1 : 0,
    ]),
    ['integer', 'varchar(19)', 'varchar(19)', 'varchar(19)', 'varchar(19)', 'varchar(64)', 'varchar(64)', 'integer'],
  );
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
});

export class SeriesStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async find(id: number): Promise<SeriesRow | undefined> {
    return (await this.findMany([id])).get(id);
  }

  async findMany(ids: readonly number[]): Promise<Map<number, SeriesRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('event_series')
      .selectAll()
      .where('post_id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((r) => [Number(r.post_id), toSeries(r)]));
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
    return (await this.occurrencesByIds([id])).get(id);
  }

  async occurrencesByIds(ids: readonly number[]): Promise<Map<number, OccurrenceRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('occurrences')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((r) => [Number(r.id), toOccurrence(r)]));
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

  async setState(ids: readonly number[], state: OccurrenceState): Promise<void> {
    for (const part of chunks(ids)) await this.db.updateTable('occurrences').set({ state }).where('id', 'in', part).execute();
  }

  async setOverrides(id: number, overrides: readonly string[]): Promise<void> {
    await this.db
      .updateTable('occurrences')
      .set({ overrides: jsonList.toRow(overrides) })
      .where('id', '=', id)
      .execute();
  }

  /** Moves occurrences to another series (a split), keeping their ids. */
  async moveOccurrences(ids: readonly number[], seriesId: number): Promise<void> {
    for (const part of chunks(ids)) {
      await this.db.updateTable('occurrences').set({ series_id: seriesId }).where('id', 'in', part).execute();
      await this.db.updateTable('events').set({ series_id: seriesId }).where('post_id', 'in', part).execute();
      await this.db.updateTable('posts').set({ parent_id: seriesId }).where('id', 'in', part).execute();
    }
  }

  /**
   * New occurrences of a master: their ids, post and event rows (copies of the master's with their own dates),
   * terms and organizers (copies of the master's).
   */
  async insertOccurrences(masterId: number, items: readonly NewOccurrence[]): Promise<void> {
    const db = this.db;
    for (const part of chunks(items)) {
      const ids = valuesTable(
        part.map((o) => [o.id]),
        ['integer'],
      );
      await sql`
        insert into posts (id, type, status, status_before_trash, author_id, title, content, excerpt, slug, password,
                           parent_id, menu_order, image_id, date, date_utc, modified, modified_utc)
        select v.column1, p.type, p.status, p.status_before_trash, p.author_id, p.title, p.content, p.excerpt, p.slug,
               p.password, p.id, p.menu_order, p.image_id, p.date, p.date_utc, p.modified, p.modified_utc
        from posts p cross join ${ids}
        where p.id = ${masterId}`.execute(db);
      const dated = datedValues(part);
      await sql`
        insert into events (post_id, status, start_date, end_date, start_utc, end_utc, timezone, timezone_abbr, all_day,
                            cost, currency_symbol, currency_code, currency_position, website, show_map, show_map_link,
                            hide_from_listings, featured, venue_id, kind, series_id)
        select v.column1, m.status, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8,
               m.cost, m.currency_symbol, m.currency_code, m.currency_position, m.website, m.show_map, m.show_map_link,
               m.hide_from_listings, m.featured, m.venue_id, 'occurrence', m.post_id
        from events m cross join ${dated}
        where m.post_id = ${masterId}`.execute(db);
      await sql`
        insert into term_relationships (post_id, term_id)
        select v.column1, r.term_id from term_relationships r cross join ${ids} where r.post_id = ${masterId}`.execute(db);
      await sql`
        insert into event_organizers (event_id, organizer_id, position)
        select v.column1, o.organizer_id, o.position from event_organizers o cross join ${ids} where o.event_id = ${masterId}`.execute(db);
      await db
        .insertInto('occurrences')
        .values(
          part.map((o) => ({
            id: o.id,
            series_id: masterId,
            original_start_utc: o.originalStartUtc,
            original_start: o.originalStart,
            state: 'active',
            overrides: '[]',
          })),
        )
        .execute();
    }
  }

  /** Occurrences whose instance left the rule: their rows go (links with them), their ids stay, as gone. */
  async removeOccurrences(ids: readonly number[]): Promise<void> {
    for (const part of chunks(ids)) {
      await this.db.deleteFrom('term_relationships').where('post_id', 'in', part).execute();
      await this.db.deleteFrom('event_organizers').where('event_id', 'in', part).execute();
      await this.db.deleteFrom('events').where('post_id', 'in', part).execute();
      await this.db.deleteFrom('posts').where('id', 'in', part).execute();
    }
    await this.setState(ids, 'gone');
  }

  /** New dates for occurrences (a changed length, or instances moved by a rule change). */
  async setDates(items: readonly { id: number; dates: OccurrenceDates }[]): Promise<void> {
    for (const part of chunks(items)) {
      const dated = datedValues(part);
      const cols = sql.raw(DATE_COLUMNS.join(', '));
      const picked = sql.raw(DATE_COLUMNS.map((_, i) => `v.column${i + 2}`).join(', '));
      await sql`
        update events set (${cols}) = (select ${picked} from ${dated} where v.column1 = events.post_id)
        where post_id in (${sql.join(part.map((o) => o.id))})`.execute(this.db);
    }
  }

  /**
   * Copies the master's fields onto its occurrences: every field onto those that follow it, and onto each
   * exception what it did not override. Cancelled occurrences keep their status.
   */
  async follow(masterId: number, occurrences: readonly OccurrenceRow[]): Promise<void> {
    const groups = new Map<string, number[]>();
    for (const o of occurrences) {
      const key = JSON.stringify([o.state === 'cancelled', [...o.overrides].sort()]);
      groups.set(key, [...(groups.get(key) ?? []), o.id]);
    }
    for (const [key, ids] of groups) {
      const [cancelled, overrides] = JSON.parse(key) as [boolean, string[]];
      const skip = new Set(overrides);
      if (cancelled) skip.add('status');
      const postCols = [...ALWAYS_POSTS];
      const eventCols: string[] = [];
      for (const [field, cols] of Object.entries(OVERRIDABLE) as [string, { posts?: readonly string[]; events?: readonly string[] }][]) {
        if (skip.has(field)) continue;
        postCols.push(...(cols.posts ?? []));
        eventCols.push(...(cols.events ?? []));
      }
      for (const part of chunks(ids)) {
        await this.copyColumns('posts', 'id', postCols, masterId, part);
        if (eventCols.length > 0) await this.copyColumns('events', 'post_id', eventCols, masterId, part);
      }
    }
  }

  private async copyColumns(table: 'posts' | 'events', key: string, columns: readonly string[], masterId: number, ids: readonly number[]) {
    const cols = sql.raw(columns.join(', '));
    await sql`
      update ${sql.table(table)} set (${cols}) = (select ${cols} from ${sql.table(table)} m where m.${sql.raw(key)} = ${masterId})
      where ${sql.raw(key)} in (${sql.join(ids)})`.execute(this.db);
  }

  /** Gives occurrences their master's terms or organizers again (after the master's changed). */
  async copyLinks(masterId: number, ids: readonly number[], what: 'categories' | 'tags' | 'organizers'): Promise<void> {
    for (const part of chunks(ids)) {
      const v = valuesTable(
        part.map((id) => [id]),
        ['integer'],
      );
      if (what === 'organizers') {
        await this.db.deleteFrom('event_organizers').where('event_id', 'in', part).execute();
        await sql`
          insert into event_organizers (event_id, organizer_id, position)
          select v.column1, o.organizer_id, o.position from event_organizers o cross join ${v} where o.event_id = ${masterId}`.execute(this.db);
        continue;
      }
      const taxonomy = what === 'categories' ? 'tribe_events_cat' : 'post_tag';
      await sql`
        delete from term_relationships where post_id in (${sql.join(part)})
        and term_id in (select id from terms where taxonomy = ${taxonomy})`.execute(this.db);
      await sql`
        insert into term_relationships (post_id, term_id)
        select v.column1, r.term_id from term_relationships r cross join ${v}
        where r.post_id = ${masterId} and r.term_id in (select id from terms where taxonomy = ${taxonomy})`.execute(this.db);
    }
  }

  /** The post ids to give new occurrences (see Dialect.allocatePostIds). */
  allocateIds(n: number): Promise<number[]> {
    return n === 0 ? Promise.resolve([]) : this.dialect.allocatePostIds(this.db, n);
  }
}
