import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * `event_month_counts`: `event_day_counts` summed by start month and end month, kept by triggers on the day
 * counts (so every writer of those — events, plain occurrences, recounts — moves them too). A list's total over
 * whole days then sums the months the window holds whole and the days of its two ragged ends only: the default
 * window (two years from yesterday) reads ~30 month rows and ~100 day rows instead of ~1,350 day rows at 10k
 * events. That sum was about half of an uncached default list on PostgreSQL and a third on SQLite (in-process,
 * the list with the count left out: bench/README.md "Session 24").
 *
 * The ragged end of a window's last month is found by the end day: a second index on the day counts.
 * PostgreSQL folds a transaction's month changes in at its commit (see PostgresDialect.createMonthCountTriggers):
 * concurrent creates in one month would otherwise queue on its row for the rest of their transactions.
 */
export const monthCounts: Migration = {
  name: '0026-month-counts',
  async up(db: Kysely<any>, dialect: Dialect) {
    const postgres = dialect.name === 'postgres';
    // (PostgreSQL: a table with trigger events queued by an earlier migration of this run cannot be altered)
    if (postgres) await sql`set constraints all immediate`.execute(db);
    // keys compare byte by byte (as the day counts' since migration 0019); PostgreSQL leaves room on each page for
    // updates in place (as 0024), SQLite keeps the rows in key order (as 0025)
    const key = (type: string) => sql.raw(postgres ? `${type} collate "C"` : type);
    await sql`
      create table event_month_counts (
        status ${key('varchar(20)')} not null, hidden integer not null,
        start_month ${key('varchar(7)')} not null, end_month ${key('varchar(7)')} not null, n integer not null,
        constraint event_month_counts_pk primary key (status, hidden, start_month, end_month)
      ) ${sql.raw(postgres ? 'with (fillfactor = 50)' : 'without rowid')}`.execute(db);
    await sql`create index event_day_counts_by_end on event_day_counts (status, hidden, end_day)`.execute(db);
    await sql`
      insert into event_month_counts (status, hidden, start_month, end_month, n)
      select status, hidden, substr(start_day, 1, 7), substr(end_day, 1, 7), sum(n) from event_day_counts
      group by status, hidden, substr(start_day, 1, 7), substr(end_day, 1, 7)`.execute(db);
    await dialect.createMonthCountTriggers(db);
  },
};
