import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * When a venue, organizer or term an event shows last changed in a way the event's own record does not tell
 * (issue 16's Last-Modified): renamed, made a draft, trashed (the link then goes), deleted. An event's
 * Last-Modified is the latest of its own write and what it embeds; one that left it (a venue made a draft is
 * no longer shown to anonymous callers, a deleted tag no longer linked) left no record to read that time from.
 * Written by the change log's fan-out (ChangeStore.noteEventsEmbedding) onto every event row that links it; a
 * plain occurrence reads its series'. Null until then. The event's own `modified` stays the original's: what
 * the event's post says (WordPress does not touch an event when its venue changes).
 */
export const eventsLinksModified: Migration = {
  name: '0029-events-links-modified',
  async up(db: Kysely<any>, dialect: Dialect) {
    // (PostgreSQL alters no table with trigger events pending from an earlier migration of this run)
    if (dialect.name === 'postgres') await sql`set constraints all immediate`.execute(db);
    await db.schema.alterTable('events').addColumn('links_modified_utc', 'varchar(19)').execute();
  },
};
