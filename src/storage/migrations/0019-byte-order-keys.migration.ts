import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * The columns that hold machine-written keys (dates as `YYYY-MM-DD HH:MM:SS`, statuses, kinds, post types,
 * taxonomies) compare byte by byte on PostgreSQL (`COLLATE "C"`), as every column does on SQLite. Their order
 * is the same under any collation (fixed-width digits, lower-case ASCII words), but a column under the
 * database's collation (`C.UTF-8`, `en_US.UTF-8`…) compares through `strcoll()` in every index it is a key of:
 * measured on `insert` of a daily series' 1,826 occurrences into `events` at 10k events, 77 → 62 ms (median
 * of nine, bench/README.md "Session 12"). Titles, names and slugs keep the database's collation (their order
 * is a reader's).
 *
 * A collation change rewrites no table, only the indexes over the column; a trigger whose WHEN names a column
 * blocks it, so those triggers are made again as they were.
 */
export const BYTE_ORDER_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  posts: ['type', 'status', 'status_before_trash', 'date', 'date_utc', 'modified', 'modified_utc'],
  events: ['status', 'start_date', 'end_date', 'start_utc', 'end_utc', 'kind'],
  event_day_counts: ['status', 'start_day', 'end_day'],
  occurrences: ['original_start_utc', 'original_start', 'state'],
  terms: ['taxonomy'],
  changes: ['resource_type'],
};

export const byteOrderKeys: Migration = {
  name: '0019-byte-order-keys',
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect.name !== 'postgres') return;
    // (a table with trigger events queued by an earlier migration of this run cannot be altered)
    await sql`set constraints all immediate`.execute(db);
    for (const [table, columns] of Object.entries(BYTE_ORDER_COLUMNS)) {
      const { rows: types } = await sql<{ column: string; type: string }>`
        select a.attname as "column", format_type(a.atttypid, a.atttypmod) as "type" from pg_attribute a
        where a.attrelid = ${table}::regclass and a.attname in (${sql.join(columns)})
        and a.attcollation <> (select oid from pg_collation where collname = 'C' and collnamespace = 'pg_catalog'::regnamespace)`.execute(db);
      if (types.length === 0) continue;
      const { rows: triggers } = await sql<{ name: string; definition: string }>`
        select distinct t.tgname as name, pg_get_triggerdef(t.oid) as definition from pg_depend d
        join pg_trigger t on t.oid = d.objid and d.classid = 'pg_trigger'::regclass
        join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
        where d.refobjid = ${table}::regclass and a.attname in (${sql.join(types.map((t) => t.column))})`.execute(db);
      for (const t of triggers) await sql`drop trigger ${sql.id(t.name)} on ${sql.table(table)}`.execute(db);
      const changes = types.map((t) => sql`alter column ${sql.id(t.column)} type ${sql.raw(t.type)} collate "C"`);
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
      for (const t of triggers) await sql.raw(t.definition).execute(db);
    }
  },
};
