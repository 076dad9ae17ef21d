import type { Kysely } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * The day counts' triggers again (see Dialect.createDayCountTriggers): on PostgreSQL, inserts and deletes now
 * count per statement, so a series' ~1,800 new occurrences are one grouped upsert (its events insert measured
 * 55 → 28 ms). SQLite's triggers are per row only; they are made again unchanged.
 */
export const seriesWrites: Migration = {
  name: '0007-series-writes',
  async up(db: Kysely<any>, dialect: Dialect) {
    await dialect.dropDayCountTriggers(db);
    await dialect.createDayCountTriggers(db);
  },
};
