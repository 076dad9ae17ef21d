import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * PostgreSQL's version triggers queue one deferred event per transaction instead of one per row written (see
 * PostgresDialect.createVersionTriggers): the triggers of every table that has them are made again. SQLite's
 * triggers are unchanged (they run as each row is written, a one-row update each, and queue nothing).
 */
export const versionEvents: Migration = {
  name: '0018-version-events',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'postgres') return;
    // events an earlier migration of this run queued run now (a trigger with pending events cannot be dropped)
    await sql`set constraints all immediate`.execute(db);
    const { rows } = await sql<{ table: string }>`
      select distinct c.relname as "table" from pg_trigger t
      join pg_class c on c.oid = t.tgrelid
      join pg_proc f on f.oid = t.tgfoid
      where c.relnamespace = current_schema()::regnamespace and f.proname in ('bump_data_version', 'bump_credentials_version')
      order by 1`.execute(db);
    const tables = rows.map((r) => r.table);
    await dialect.dropVersionTriggers(db, tables);
    await dialect.createVersionTriggers(db, tables);
  },
};
