import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * PostgreSQL leaves 30 % of each new page of `events` free (`fillfactor` 70), so that an update of columns no index
 * reads (`featured`, `cost`, `website`, a map flag…) can keep the row on its page and skip every index (a HOT
 * update). A series' edit copies such a field onto its ~1,800 occurrences, which were inserted together onto pages
 * left full: every one of those updates added an entry to each of the table's nine indexes (measured with
 * `explain analyze` on a 10k schema: the copy took 58–89 ms, 10 ms with the indexes dropped; the whole edit 117 ms
 * at p50 against 72–76 ms with this, and 44–47 ms at `fillfactor` 50, which would double the table's pages; log
 * bench/measured/2026-11-25-pg-events-fillfactor.log). Pages already written keep their rows as they are (no
 * rewrite of the table here): the space is left on the pages written from now on.
 *
 * SQLite has no such setting and rewrites a changed row in place.
 */
export const eventsFillfactor: Migration = {
  name: '0021-events-fillfactor',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'postgres') return;
    // (PostgreSQL alters no table with trigger events pending from an earlier migration of this run)
    await sql`set constraints all immediate`.execute(db);
    await sql`alter table events set (fillfactor = 70)`.execute(db);
  },
};
