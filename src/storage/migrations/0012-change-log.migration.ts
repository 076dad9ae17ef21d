import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * The change log (issue 16, FEATURES.md §2.3): one row per change of an event (single, series, occurrence edited
 * alone or cancelled), venue, organizer, category or tag, written in the transaction of the change (a rolled
 * back write leaves none, a committed one always has its row). `seq` orders them; `tx` is the writing
 * transaction's id on PostgreSQL (`pg_current_xact_id()`), which readers compare with a snapshot so that a change
 * committed late with a lower `seq` is never skipped (see Dialect.changeSnapshot); SQLite writes one transaction at
 * a time, in `seq` order, and leaves it 0. A deletion's row is its tombstone. Rows older than the retention go
 * (SYNC_RETENTION_DAYS); `sync_state` remembers how far they went, and the secret that signs sync tokens.
 */
export const changeLog: Migration = {
  name: '0012-change-log',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('changes')
      // SQLite: the rowid, without AUTOINCREMENT's bookkeeping (a write less per change); the retention always
      // keeps the newest row, so a number is never given twice
      .addColumn('seq', 'integer', (c) => (dialect.name === 'sqlite' ? c.primaryKey() : dialect.autoId(c)))
      .addColumn('tx', 'bigint', (c) => c.notNull().defaultTo(0))
      // event, venue, organizer, category, tag
      .addColumn('resource_type', 'varchar(12)', (c) => c.notNull())
      .addColumn('resource_id', 'integer', (c) => c.notNull())
      // create, update, trash, restore, delete
      .addColumn('op', 'varchar(8)', (c) => c.notNull())
      // UTC, stored format
      .addColumn('occurred_at', 'varchar(19)', (c) => c.notNull())
      .execute();
    if (dialect.name === 'postgres') {
      await sql`alter table changes alter column seq type bigint`.execute(db);
      await sql`alter table changes alter column tx set default (pg_current_xact_id()::text::bigint)`.execute(db);
      await db.schema.createIndex('changes_tx').on('changes').columns(['resource_type', 'tx']).execute();
    }
    // (SQLite reads ranges of seq, its rowid, without an index of their own)
    // "what changed after t" (include_removed) and the retention's deletes
    await db.schema.createIndex('changes_time').on('changes').columns(['occurred_at']).execute();

    await db.schema
      .createTable('sync_state')
      .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db
      .insertInto('sync_state')
      .values([
        { name: 'secret', value: randomBytes(32).toString('base64url') },
        // the highest seq (SQLite) and tx (PostgreSQL) the retention has removed: tokens from before them are stale
        { name: 'purged_seq', value: '0' },
        { name: 'purged_tx', value: '0' },
        // when (ms) the retention last removed some: a token taken after that has every change it removed
        { name: 'purged_at', value: '0' },
      ])
      .execute();
  },
};
