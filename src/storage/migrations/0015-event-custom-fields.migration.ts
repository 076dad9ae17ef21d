import type { Kysely } from 'kysely';
import type { Migration } from './migrator.js';

/**
 * The "additional fields" of The Events Calendar Pro (CONTRACT.md §2.1 `custom_fields`), brought by a site import
 * (FEATURES.md §6.3): a JSON array of `{name, label, value}` in the site's order; null when the event has none
 * (every event until now), so that existing rows need no rewrite.
 */
export const eventCustomFields: Migration = {
  name: '0015-event-custom-fields',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('events').addColumn('custom_fields', 'text').execute();
  },
};
