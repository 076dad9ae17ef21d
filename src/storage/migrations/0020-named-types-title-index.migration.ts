import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * The case-insensitive name index of migration 0010 holds venues and organizers only (the lookups it serves:
 * an event's inline venue reusing one of the same name, an import's matches). It held every event too, and a
 * recurring series' occurrences are posts: a daily series wrote ~1,800 entries (each a `lower()` of the title)
 * that no query reads, and rewrote them on every rename. The lookups name the types the index's condition does
 * (see LinkedStore.findDuplicates), which both databases need to use a partial index.
 */
export const NAMED_TYPES_CONDITION = "type in ('venue', 'organizer')";

export const namedTypesTitleIndex: Migration = {
  name: '0020-named-types-title-index',
  async up(db: Kysely<any>, dialect: Dialect) {
    // (PostgreSQL alters no table with trigger events pending from an earlier migration of this run)
    if (dialect.name === 'postgres') await sql`set constraints all immediate`.execute(db);
    await sql`drop index posts_type_title_lower`.execute(db);
    await sql`create index posts_type_title_lower on posts (type, lower(title)) where ${sql.raw(NAMED_TYPES_CONDITION)}`.execute(db);
  },
};
