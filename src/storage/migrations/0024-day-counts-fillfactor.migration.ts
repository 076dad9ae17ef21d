import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * PostgreSQL leaves half of each page of `event_day_counts` free (`fillfactor` 50), so that a count moved by a
 * write stays on its page and skips the primary key (a HOT update). A daily series moves the count of each of its
 * ~1,800 days in one statement (the day-count trigger's upsert), and a calendar's days are few and updated over and
 * over: on full pages every such update wrote a new entry into the key, and the table and its key swelled between
 * vacuums (14 MB for 4,469 rows after 40 series on a 10k schema). In-process on a 10k schema, 30–40 creations of a
 * daily series without an end, four alternating pairs: p50 69–76 ms against 81–88 (log
 * bench/measured/2026-11-27-session16-day-counts-fillfactor.log). The table holds a row per status, flag and pair of
 * days, a few thousand to a few hundred thousand: it is rewritten here (CLUSTER, in the migration's transaction) so
 * that the room is there at once.
 *
 * SQLite has no such setting and rewrites a changed row in place.
 */
export const dayCountsFillfactor: Migration = {
  name: '0024-day-counts-fillfactor',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'postgres') return;
    // (PostgreSQL alters no table with trigger events pending from an earlier migration of this run)
    await sql`set constraints all immediate`.execute(db);
    await sql`alter table event_day_counts set (fillfactor = 50)`.execute(db);
    await sql`cluster event_day_counts using event_day_counts_pk`.execute(db);
  },
};
