import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * An occurrence that follows its series in everything ("plain": not edited alone, not cancelled) is one row of
 * `occurrences` holding its own dates, and reads its post, details and links from its series' master. Until
 * now each occurrence was also a `posts` row and an `events` row, copies of the master's with their own dates:
 * a daily series without an end wrote ~5,500 rows in ~16 indexes, and a whole-series edit rewrote ~3,600 of
 * them. An occurrence edited alone or cancelled gets rows of its own when that first happens (`own_rows`), as
 * every occurrence had before.
 *
 * - `status` and `hidden` are the master's, copied for the listing index and the day counts (a write of the
 *   master's status or hidden flag copies them again, as it did onto the occurrences' `events` rows).
 * - The dates are the instance's; its zone and all-day flag are the master's.
 * - `occurrences_listing` walks plain occurrences in a list's order, (start, id), whatever their status (the
 *   statuses and hidden flag read in the index: public lists and administrators' alike); `occurrences_series_start`
 *   finds a series' occurrences in a window (lists of one series, filters that name what a series has: its
 *   terms, venue…).
 * - The day counts count plain occurrences through triggers of their own (Dialect.createOccurrenceDayCountTriggers).
 *
 * Existing occurrences that are plain lose their rows here; the day counts are counted again at the end.
 */
export const plainOccurrences: Migration = {
  name: '0023-plain-occurrences',
  async up(db: Kysely<any>, dialect: Dialect) {
    // (PostgreSQL: the version triggers' events fire as each statement ends, not at the commit: a table with
    // trigger events pending cannot take an index)
    if (dialect.name === 'postgres') await sql`set constraints all immediate`.execute(db);
    // (PostgreSQL: keys compare byte by byte, as events' do since migration 0019)
    const key = (type: string) => (dialect.name === 'postgres' ? sql.raw(`${type} collate "C"`) : sql.raw(type));
    await db.schema
      .alterTable('occurrences')
      .addColumn('own_rows', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    for (const [name, type] of [
      ['status', 'varchar(20)'],
      ['start_date', 'varchar(19)'],
      ['end_date', 'varchar(19)'],
      ['start_utc', 'varchar(19)'],
      ['end_utc', 'varchar(19)'],
    ] as const) {
      await db.schema
        .alterTable('occurrences')
        .addColumn(name, key(type), (c) => c.notNull().defaultTo(''))
        .execute();
    }
    await db.schema
      .alterTable('occurrences')
      .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('occurrences')
      .addColumn('timezone_abbr', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute();

    // the occurrences that follow their series take their dates along and leave their rows
    await sql`
      update occurrences set (own_rows, status, hidden, start_date, end_date, start_utc, end_utc, timezone_abbr) = (
        select 0, e.status, e.hide_from_listings, e.start_date, e.end_date, e.start_utc, e.end_utc, e.timezone_abbr
        from events e where e.post_id = occurrences.id)
      where state = 'active' and overrides = '[]' and exists (select 1 from events e where e.post_id = occurrences.id)`.execute(db);
    await sql`update occurrences set own_rows = 0 where state = 'gone'`.execute(db);
    const plain = sql`(select id from occurrences where own_rows = 0 and state = 'active')`;
    await sql`delete from term_relationships where post_id in ${plain}`.execute(db);
    await sql`delete from event_organizers where event_id in ${plain}`.execute(db);
    await sql`delete from events where post_id in ${plain}`.execute(db);
    await sql`delete from posts where id in ${plain}`.execute(db);

    const where = sql`own_rows = 0 and state = 'active'`;
    await sql`create index occurrences_listing on occurrences (start_date, id, status, hidden, end_date) where ${where}`.execute(db);
    await sql`create index occurrences_series_start on occurrences (series_id, start_date, id) where ${where}`.execute(db);
    await dialect.createOccurrenceDayCountTriggers(db);
    await rebuildDayCounts(db);
  },
};

/** Recounts the day counts: events but series masters, and plain occurrences. */
export async function rebuildDayCounts(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('event_day_counts').execute();
  await sql`
    insert into event_day_counts (status, hidden, start_day, end_day, n)
    select status, hidden, start_day, end_day, sum(n) from (
      select status, hide_from_listings as hidden, substr(start_date, 1, 10) as start_day, substr(end_date, 1, 10) as end_day, count(*) as n
      from events where kind <> 'series'
      group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)
      union all
      select status, hidden, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*)
      from occurrences where own_rows = 0 and state = 'active'
      group by status, hidden, substr(start_date, 1, 10), substr(end_date, 1, 10)
    ) c
    group by status, hidden, start_day, end_day`.execute(db);
}
