import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * Events counted per status, hidden flag, start day and end day, kept by triggers on `events`. A list's
 * total over whole days (the default window is two years of them) is then a sum over a few thousand rows
 * instead of a count over every event in the window: at a million events that count cost ~40 ms, paid
 * again after every write.
 */
export const eventDayCounts: Migration = {
  name: '0003-event-day-counts',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('event_day_counts')
      .addColumn('status', 'varchar(20)', (c) => c.notNull())
      .addColumn('hidden', 'integer', (c) => c.notNull())
      .addColumn('start_day', 'varchar(10)', (c) => c.notNull())
      .addColumn('end_day', 'varchar(10)', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_day_counts_pk', ['status', 'hidden', 'start_day', 'end_day'])
      .execute();
    await rebuildEventDayCounts(db);
    await dialect.createDayCountTriggers(db, false);
  },
};

/** Counts the events there are when the table is made (later recounts: 0006's rebuildEventDayCounts). */
async function rebuildEventDayCounts(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('event_day_counts').execute();
  await sql`
    insert into event_day_counts (status, hidden, start_day, end_day, n)
    select status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*)
    from events
    group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)`.execute(db);
}
