import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * Recurring events (FEATURES.md §1.5). A series is a master post (its `events` row has kind `series`) with its
 * rule in `event_series`; each instance is a post and `events` row of its own (kind `occurrence`, the master as
 * `posts.parent_id` and `events.series_id`), so that lists, windows, filters, counts and visibility treat an
 * occurrence exactly like a single event. `occurrences` keeps every id a series ever gave, keyed by the
 * instance's original start: ids survive edits and are never given again.
 *
 * The master is not an occurrence: the day counts leave it out, and the listing indexes carry `kind` so that a
 * list can leave it out from the index alone. Occurrences share their master's slug, so a slug is unique among
 * posts without a parent only.
 */
export const recurringEvents: Migration = {
  name: '0006-recurring-events',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .alterTable('events')
      .addColumn('kind', 'varchar(12)', (c) => c.notNull().defaultTo('single'))
      .execute();
    await db.schema.alterTable('events').addColumn('series_id', 'integer').execute();
    await db.schema.createIndex('events_series').on('events').columns(['series_id', 'start_date']).execute();
    for (const [name, columns] of [
      ['events_listing', ['status', 'hide_from_listings', 'start_date', 'end_date', 'post_id', 'kind']],
      ['events_venue', ['venue_id', 'status', 'hide_from_listings', 'start_date', 'end_date', 'kind']],
    ] as const) {
      await db.schema.dropIndex(name).execute();
      await db.schema
        .createIndex(name)
        .on('events')
        .columns([...columns])
        .execute();
    }

    await db.schema
      .createTable('event_series')
      .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
      .addColumn('recurrence', 'text', (c) => c.notNull())
      .addColumn('bounded', 'integer', (c) => c.notNull())
      .addColumn('materialized_until', 'varchar(19)')
      .addColumn('split_from', 'integer')
      .execute();

    await db.schema
      .createTable('occurrences')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('series_id', 'integer', (c) => c.notNull())
      .addColumn('original_start_utc', 'varchar(19)', (c) => c.notNull())
      .addColumn('original_start', 'varchar(19)', (c) => c.notNull())
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      .addColumn('overrides', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    // one live occurrence per instance; gone ones stay beside a later one with the same start
    await db.schema
      .createIndex('occurrences_instance')
      .on('occurrences')
      .columns(['series_id', 'original_start_utc'])
      .unique()
      .where(sql.ref('state'), '<>', 'gone')
      .execute();

    await db.schema.dropIndex('posts_unique_slug').execute();
    await db.schema
      .createIndex('posts_unique_slug')
      .on('posts')
      .columns(['type', 'slug'])
      .unique()
      .where(sql<boolean>`status in ('publish', 'future', 'private') and parent_id = 0`)
      .execute();

    await dialect.dropDayCountTriggers(db);
    await dialect.createDayCountTriggers(db);
    await dialect.dropVersionTriggers(db, ['event_series', 'occurrences']);
    await dialect.createVersionTriggers(db, ['event_series', 'occurrences']);
  },
};

/** Recounts the day counts from the events themselves, masters left out (after a bulk load without the triggers). */
export async function rebuildEventDayCounts(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('event_day_counts').execute();
  await sql`
    insert into event_day_counts (status, hidden, start_day, end_day, n)
    select status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*)
    from events
    where kind <> 'series'
    group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)`.execute(db);
}
