import { type Kysely, sql } from 'kysely';
import type { Migration } from './migrator.js';

/**
 * Whether a venue's `stateprovince` was sent (it then stays through partial updates) or follows
 * state/province/country. Existing venues whose value differs from the derived one were set by hand.
 */
export const venueStateProvince: Migration = {
  name: '0005-venue-stateprovince',
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('venues')
      .addColumn('stateprovince_explicit', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`
      update venues set stateprovince_explicit = 1
      where stateprovince <> case when lower(trim(country)) in ('', 'us', 'usa', 'united states') then state else province end
    `.execute(db);
  },
};
