import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * An occurrence that follows its series' categories and tags carries none of its own: `events.shared_terms`
 * is 1 and the series' links stand for its (read through `series_id`). Until now each occurrence had copies of
 * its master's links: a daily series' ~1,800 occurrences wrote ~5,400 `term_relationships` rows (on PostgreSQL
 * each with two foreign-key checks: 80 of its 190 ms in the database), and a change of the master's terms
 * rewrote them all. An exception that overrides its categories or its tags keeps links of its own (the ones it
 * overrode, and copies of the others), as before. Existing occurrences that do not override either lose their
 * copies here; the terms' counts never counted occurrences, so they stay.
 */
export const sharedTerms: Migration = {
  name: '0017-shared-terms',
  async up(db: Kysely<any>, dialect: Dialect) {
    // PostgreSQL makes no index on a table with pending trigger events: an earlier migration of this run may
    // have written events (0008), and the version triggers are deferred; they run now
    if (dialect.name === 'postgres') await sql`set constraints all immediate`.execute(db);
    await db.schema
      .alterTable('events')
      .addColumn('shared_terms', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // (before the rows change, for the same reason)
    // a category or tag filter finds the occurrences of the series that carry the term here (partial: singles
    // and masters add nothing to it)
    await db.schema
      .createIndex('events_shared_terms')
      .on('events')
      .columns(['series_id', 'post_id'])
      .where(sql.ref('shared_terms'), '=', 1)
      .execute();
    await sql`
      update events set shared_terms = 1
      where kind = 'occurrence' and post_id in (
        select id from occurrences where overrides not like '%"categories"%' and overrides not like '%"tags"%')`.execute(db);
    await sql`delete from term_relationships where post_id in (select post_id from events where shared_terms = 1)`.execute(db);
  },
};
