import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/** Every table whose writes can change a response or a credential check. */
export const VERSIONED_TABLES = [
  'users',
  'app_passwords',
  'posts',
  'events',
  'event_organizers',
  'venues',
  'organizers',
  'images',
  'terms',
  'term_relationships',
] as const;

/** The whole first schema: users and their application passwords, posts and their typed details, terms. */
export const initial: Migration = {
  name: '0001-initial',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('login', 'varchar(60)', (c) => c.notNull().unique())
      .addColumn('email', 'varchar(200)', (c) => c.notNull().defaultTo(''))
      .addColumn('display_name', 'varchar(250)', (c) => c.notNull().defaultTo(''))
      .addColumn('role', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('app_passwords')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'varchar(200)', (c) => c.notNull().defaultTo(''))
      .addColumn('kdf', 'varchar(16)', (c) => c.notNull())
      .addColumn('salt', 'varchar(64)', (c) => c.notNull())
      .addColumn('hash', 'varchar(128)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();

    await db.schema
      .createTable('posts')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('type', 'varchar(20)', (c) => c.notNull())
      .addColumn('status', 'varchar(20)', (c) => c.notNull())
      .addColumn('status_before_trash', 'varchar(20)')
      .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('slug', 'varchar(200)', (c) => c.notNull().defaultTo(''))
      .addColumn('password', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('menu_order', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('image_id', 'integer')
      .addColumn('date', 'varchar(19)', (c) => c.notNull())
      .addColumn('date_utc', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_utc', 'varchar(19)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('posts_type_status_date').on('posts').columns(['type', 'status', 'date_utc']).execute();
    await db.schema.createIndex('posts_type_slug').on('posts').columns(['type', 'slug']).execute();
    // Slugs are unique among posts that are out in the world (WordPress lets drafts and pending posts share one,
    // and trashed ones carry a __trashed suffix); the index makes concurrent writers unable to break that.
    await db.schema
      .createIndex('posts_unique_slug')
      .on('posts')
      .columns(['type', 'slug'])
      .unique()
      .where(sql.ref('status'), 'in', ['publish', 'future', 'private'])
      .execute();
    await db.schema.createIndex('posts_author').on('posts').column('author_id').execute();
    await db.schema.createIndex('posts_parent').on('posts').column('parent_id').execute();

    await db.schema
      .createTable('events')
      .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
      // the post's status, kept equal by the event store, so the listing index covers the whole filter
      .addColumn('status', 'varchar(20)', (c) => c.notNull())
      .addColumn('start_date', 'varchar(19)', (c) => c.notNull())
      .addColumn('end_date', 'varchar(19)', (c) => c.notNull())
      .addColumn('start_utc', 'varchar(19)', (c) => c.notNull())
      .addColumn('end_utc', 'varchar(19)', (c) => c.notNull())
      .addColumn('timezone', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('timezone_abbr', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('all_day', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cost', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('currency_symbol', 'varchar(32)', (c) => c.notNull().defaultTo(''))
      .addColumn('currency_code', 'varchar(8)', (c) => c.notNull().defaultTo(''))
      .addColumn('currency_position', 'varchar(8)', (c) => c.notNull().defaultTo(''))
      .addColumn('website', 'text')
      .addColumn('show_map', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('show_map_link', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('hide_from_listings', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('featured', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('venue_id', 'integer')
      .execute();
    // the default listing: one status, not hidden, a start range, ordered by start (end_date makes it covering)
    await db.schema
      .createIndex('events_listing')
      .on('events')
      .columns(['status', 'hide_from_listings', 'start_date', 'end_date', 'post_id'])
      .execute();
    await db.schema.createIndex('events_start').on('events').columns(['start_date', 'post_id']).execute();
    await db.schema.createIndex('events_end').on('events').columns(['end_date']).execute();
    await db.schema.createIndex('events_start_utc').on('events').columns(['start_utc']).execute();
    await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();

    await db.schema
      .createTable('event_organizers')
      .addColumn('event_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('organizer_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_organizers_pk', ['event_id', 'organizer_id'])
      .execute();
    await db.schema.createIndex('event_organizers_organizer').on('event_organizers').column('organizer_id').execute();

    await db.schema
      .createTable('venues')
      .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
      .addColumn('address', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('province', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('state', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('zip', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('stateprovince', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('show_map', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('show_map_link', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('geo_lat', 'double precision')
      .addColumn('geo_lng', 'double precision')
      .execute();
    await db.schema.createIndex('venues_geo').on('venues').columns(['geo_lat', 'geo_lng']).execute();

    await db.schema
      .createTable('organizers')
      .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
      .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
      .execute();

    await db.schema
      .createTable('images')
      .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('extension', 'varchar(16)', (c) => c.notNull().defaultTo(''))
      .addColumn('mime_type', 'varchar(100)', (c) => c.notNull().defaultTo(''))
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('filesize', 'integer')
      .addColumn('sizes', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.createIndex('images_url').on('images').column('url').execute();

    await db.schema
      .createTable('terms')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('taxonomy', 'varchar(32)', (c) => c.notNull())
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('slug', 'varchar(200)', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
      // published events carrying the term, kept up to date by every write (WordPress' term count)
      .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_at', 'varchar(19)', (c) => c.notNull())
      .addUniqueConstraint('terms_taxonomy_slug', ['taxonomy', 'slug'])
      .execute();
    await db.schema.createIndex('terms_taxonomy_parent').on('terms').columns(['taxonomy', 'parent_id']).execute();

    await db.schema
      .createTable('term_relationships')
      .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('term_id', 'integer', (c) => c.notNull().references('terms.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('term_relationships_pk', ['post_id', 'term_id'])
      .execute();
    await db.schema.createIndex('term_relationships_term').on('term_relationships').columns(['term_id', 'post_id']).execute();

    // One number that every committed write moves on, in the same transaction: processes compare it to know
    // whether anything they cached (responses, credentials) may be stale.
    await db.schema
      .createTable('data_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('data_version').values({ id: 1, version: 1 }).execute();
    await dialect.createVersionTriggers(db, VERSIONED_TABLES);
  },
};
