import type { Kysely } from 'kysely';
import type { Migration } from './migrator.js';

/**
 * Site-to-site imports (issue 15, FEATURES.md §6.3). `import_map` remembers which local record each remote
 * record of a site became — categories, tags, venues, organizers, events, images, keyed by the site's API root
 * and the remote id — with what it was when imported last (the remote `modified_utc` and a hash of what was
 * written), so that a second run changes nothing and a remote edit updates the same local record. `seen_pass`
 * names the pass that last saw the record: `--prune` trashes what a complete pass did not see. `old_path` is the
 * record's permalink path on the old site, for the redirect map (the pages answer it when the path is free here).
 *
 * `import_jobs` gain a checkpoint (how far a run got: a killed or aborted run resumes from it) and a report
 * (counts per resource, warnings). Posts gain the lineage of global ids they were imported with: the API keeps
 * the remote `global_id` and appends ours to `global_id_lineage` (Event Aggregator's semantics).
 */
export const importMap: Migration = {
  name: '0011-import-map',
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('import_map')
      .addColumn('source', 'varchar(20)', (c) => c.notNull())
      // the API root of the site imported from, e.g. https://old.example/wp-json/tribe/events/v1
      .addColumn('source_key', 'varchar(500)', (c) => c.notNull())
      // category, tag, venue, organizer, event, image, series
      .addColumn('kind', 'varchar(20)', (c) => c.notNull())
      .addColumn('remote_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('local_id', 'integer', (c) => c.notNull())
      .addColumn('remote_modified', 'varchar(19)')
      // sha256 of what was written from the remote record: unchanged → nothing to do
      .addColumn('content_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('remote_global_id', 'varchar(255)')
      .addColumn('seen_pass', 'varchar(40)')
      // 1: what an anonymous importer could not see (a password-protected event): imported as a draft
      .addColumn('incomplete', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('old_path', 'varchar(1000)')
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .addPrimaryKeyConstraint('import_map_pk', ['source', 'source_key', 'kind', 'remote_id'])
      .execute();
    await db.schema.createIndex('import_map_local').on('import_map').columns(['kind', 'local_id']).execute();
    await db.schema.createIndex('import_map_old_path').on('import_map').column('old_path').execute();

    await db.schema.alterTable('import_jobs').addColumn('checkpoint', 'text').execute();
    await db.schema.alterTable('import_jobs').addColumn('report', 'text').execute();

    // JSON array: the remote global id first, then the remote's own lineage; null for what was made here
    await db.schema.alterTable('posts').addColumn('global_id_lineage', 'text').execute();
  },
};
