import type { Kysely } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * Image files this service keeps and serves itself (issue 15: a site import with `--images download`). The bytes
 * live in the database, not on a disk beside it: every process of a PostgreSQL deployment reads the same ones,
 * a SQLite file carries them, and a backup of the database has them.
 *
 * `media_blobs` holds each distinct file once, keyed by the sha256 of its bytes (what `/media/<sha256>.<ext>`
 * names and its strong ETag is): identical bytes from several remote URLs are one row. Only images whose type
 * was read from their bytes are stored, so the type, width and height are never unknown.
 *
 * `media_sources` remembers, per remote URL (keyed by the sha256 of the URL: URLs can be longer than an index
 * key may be), the blob it gave and the validators it came with (`ETag`, `Last-Modified`), so a later run asks
 * with `If-None-Match` / `If-Modified-Since` and a 304 downloads nothing; `checked_pass` names the import pass
 * that last asked, so a resumed pass does not ask again.
 */
export const media: Migration = {
  name: '0014-media',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('media_blobs')
      .addColumn('sha256', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('mime_type', 'varchar(40)', (c) => c.notNull())
      .addColumn('extension', 'varchar(8)', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('bytes', dialect.bytesType, (c) => c.notNull())
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      // (a blob never changes: its bytes are its key)
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('media_sources')
      .addColumn('url_sha256', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('blob_sha256', 'varchar(64)', (c) => c.notNull().references('media_blobs.sha256'))
      .addColumn('etag', 'varchar(500)')
      .addColumn('last_modified', 'varchar(100)')
      .addColumn('checked_pass', 'varchar(40)')
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('media_sources_blob').on('media_sources').column('blob_sha256').execute();
  },
};
