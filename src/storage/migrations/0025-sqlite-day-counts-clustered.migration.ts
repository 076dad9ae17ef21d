import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * SQLite: `event_day_counts` kept in the order of its key (`WITHOUT ROWID`), so that a list's total, the sum of
 * `n` over a window's days, reads one b-tree instead of the key's index and, for every entry, the table row
 * that holds `n`. The default list's count at 10k events sums ~1,350 rows: ~130 µs against ~95 µs clustered
 * (a timing of session 21's on a copy of the benchmark's database, not kept). A count a write moves is then
 * one b-tree to change, not two on insert.
 *
 * The table is copied into its new form; the day-count triggers of `events` and `occurrences` name it, so
 * they are dropped first and made again after (SQLite checks triggers' tables when one is renamed).
 * PostgreSQL keeps its heap with room on each page (0024).
 */
export const sqliteDayCountsClustered: Migration = {
  name: '0025-sqlite-day-counts-clustered',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'sqlite') return;
    await dialect.dropDayCountTriggers(db);
    for (const op of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists occurrences_${op}_day_count`).execute(db);
    await sql`
      create table event_day_counts_clustered (
        status varchar(20) not null, hidden integer not null, start_day varchar(10) not null, end_day varchar(10) not null,
        n integer not null,
        constraint event_day_counts_pk primary key (status, hidden, start_day, end_day)
      ) without rowid`.execute(db);
    await sql`
      insert into event_day_counts_clustered (status, hidden, start_day, end_day, n)
      select status, hidden, start_day, end_day, n from event_day_counts`.execute(db);
    await sql`drop table event_day_counts`.execute(db);
    await sql`alter table event_day_counts_clustered rename to event_day_counts`.execute(db);
    await dialect.createDayCountTriggers(db);
    await dialect.createOccurrenceDayCountTriggers(db);
  },
};
