import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * SQLite: fewer indexes over the dates of `events`, where a series' occurrences land one per day across the
 * whole index. A daily series' ~1,800 occurrences touched ~1,800 leaf pages of each such index, and every page
 * a transaction changes is written to the WAL at commit: ~3,800 pages (15 MB) per create on the benchmark's
 * 10k database once 30 series were in it, half of it in these three indexes (bench/measured/2026-11-25-session15-sqlite-date-indexes.log).
 *
 * - `events_end` (end_date) and `events_start_utc` (start_utc) go. No plan of 46 representative requests read the first;
 *   the second only in "venues/organizers with upcoming events", where scanning every upcoming event by
 *   start_utc took 1.4–3.8 s at 1.6M events and the plan without it 0.2–0.5 s (the same log). The listing
 *   index (status, hidden, start_date, end_date…) answers the date windows; `events_start` stays for lists
 *   across statuses (an administrator's default list: 2 ms with it, 0.5 s without).
 * - `events_venue` keeps only events with a venue. Every query that reads it names a venue (`venue_id in (…)`,
 *   `= lp.id`, `is not null`), which SQLite proves implies the index's condition; occurrences of a series
 *   without a venue no longer add an entry at the top of it.
 *
 * PostgreSQL keeps all three: its planner reads `events_end` for counts of events ending before a date
 * (17 → 137 ms without it) and the whole `events_venue` as a narrow index for other counts (78 → 313 ms for
 * `expand_recurring=false`), measured on the same 1.6M-event dataset.
 */
export const sqliteEventDateIndexes: Migration = {
  name: '0022-sqlite-event-date-indexes',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'sqlite') return;
    await db.schema.dropIndex('events_end').ifExists().execute();
    await db.schema.dropIndex('events_start_utc').ifExists().execute();
    await db.schema.dropIndex('events_venue').execute();
    await db.schema
      .createIndex('events_venue')
      .on('events')
      .columns(['venue_id', 'status', 'hide_from_listings', 'start_date', 'end_date', 'kind'])
      .where(sql.ref('venue_id'), 'is not', null)
      .execute();
  },
};
