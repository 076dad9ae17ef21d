import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import { NAMED_TYPES_CONDITION } from './0020-named-types-title-index.migration.js';
import type { Migration } from './migrator.js';

/**
 * PostgreSQL: the case-insensitive lookups of a venue's or organizer's name and of an organizer's e-mail
 * (migrations 0010, 0020) from B-tree to hash indexes. A B-tree entry holds the value, and one over ~2,700 bytes
 * is refused ("index row requires 10336 bytes, maximum size is 8191"): a venue named with 1,000 CJK characters
 * could not be stored, a 500 (found by a fuzzing audit; repetitive test names compressed below the limit). A hash
 * index holds a 4-byte hash of any length of text, and the lookups are equalities, which is all it serves. SQLite
 * has no such limit: its indexes stay.
 */
export const nameLookupsHashed: Migration = {
  name: '0030-name-lookups-hashed',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'postgres') return;
    // (PostgreSQL alters no table with trigger events pending from an earlier migration of this run)
    await sql`set constraints all immediate`.execute(db);
    await sql`drop index posts_type_title_lower`.execute(db);
    await sql`create index posts_type_title_lower on posts using hash (lower(title)) where ${sql.raw(NAMED_TYPES_CONDITION)}`.execute(db);
    await sql`drop index organizers_email_lower`.execute(db);
    await sql`create index organizers_email_lower on organizers using hash (lower(email))`.execute(db);
  },
};
