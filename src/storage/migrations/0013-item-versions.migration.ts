import type { Kysely } from 'kysely';
import type { Migration } from './migrator.js';

/**
 * Conditional writes (issue 16, FEATURES.md §2.3): every post (events, venues, organizers) and every term gets a
 * version that each write of its row moves on, in the UPDATE the write already issues. A write sent with
 * `If-Match` or `If-Unmodified-Since` is checked against the item as it was read at that version, and writes
 * only while the row is still at it: of two writers holding the same ETag, the second finds the version moved
 * and answers 412, on PostgreSQL too (its UPDATE waits for the first to commit, then sees the new version).
 */
export const itemVersions: Migration = {
  name: '0013-item-versions',
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('posts')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('terms')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
