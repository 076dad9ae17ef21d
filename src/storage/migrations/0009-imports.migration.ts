import type { Kysely } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * Imports (issue 13, FEATURES.md §3.4; later §6.3): `import_jobs` are the jobs the service runs, whatever the
 * source (`ics` now; `tec`, a site-to-site import, later), and `import_items` remember which local post each
 * item of a source became, so that a second run updates in place instead of duplicating.
 *
 * A job is run by exactly one process: it claims the job by writing its `lease_owner` and a `lease_until` it
 * keeps pushing forward while it runs (PostgreSQL claims with `FOR UPDATE SKIP LOCKED`; SQLite's write
 * transactions are one at a time). A process that dies stops renewing, its lease runs out, and another
 * process resumes the job (items already imported are skipped by their `import_items` rows).
 */
export const imports: Migration = {
  name: '0009-imports',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('import_jobs')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('source', 'varchar(20)', (c) => c.notNull())
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      // JSON: dry_run, default_status, update_authority, … (per source)
      .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
      // `text`: the payload is the document itself (≤ 10 MB); `url`: the payload is where to fetch it
      .addColumn('payload_kind', 'varchar(10)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('progress_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
      // JSON array of { uid, recurrence_id, line, reason } per item that failed
      .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
      // why the whole job failed (a malformed file, a refused URL), null otherwise
      .addColumn('failure', 'text')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'varchar(100)')
      .addColumn('lease_until', 'varchar(19)')
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('started_at', 'varchar(19)')
      .addColumn('finished_at', 'varchar(19)')
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .execute();
    // what a runner looks for: queued jobs, and running ones whose lease ran out
    await db.schema.createIndex('import_jobs_state').on('import_jobs').columns(['state', 'lease_until', 'id']).execute();

    await db.schema
      .createTable('import_items')
      .addColumn('source', 'varchar(20)', (c) => c.notNull())
      // which feed or file: the URL, or the calendar's identity for uploaded text (see ics.source-key)
      .addColumn('source_key', 'varchar(500)', (c) => c.notNull())
      .addColumn('uid', 'varchar(255)', (c) => c.notNull())
      // '' for a series' master or a single event; the original start of the instance otherwise
      .addColumn('recurrence_id', 'varchar(40)', (c) => c.notNull().defaultTo(''))
      .addColumn('post_id', 'integer', (c) => c.notNull())
      .addColumn('sequence', 'integer')
      .addColumn('last_modified', 'varchar(19)')
      // sha256 of the mapped fields as imported last: unchanged → skipped
      .addColumn('hash', 'varchar(64)', (c) => c.notNull())
      // JSON: the mapped fields as imported last, and per-field hashes of the local event right after
      // (preserve_local_changes keeps the fields whose local value moved since)
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('local', 'text', (c) => c.notNull())
      .addColumn('job_id', 'integer')
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .addPrimaryKeyConstraint('import_items_pk', ['source', 'source_key', 'uid', 'recurrence_id'])
      .execute();
    await db.schema.createIndex('import_items_post').on('import_items').column('post_id').execute();

    // a job's progress is read through the response cache, which must see it move
    await dialect.createVersionTriggers(db, ['import_jobs']);
  },
};
