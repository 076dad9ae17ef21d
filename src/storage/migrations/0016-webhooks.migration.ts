import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * Webhooks (issue 18, FEATURES.md §4): endpoints, the deliveries fanned out to them from the change log, and
 * each delivery's attempts (the delivery log). The change log gains what a webhook's type and payload need from
 * the moment of the change: a post's status after it and before it (published / unpublished), and the names of
 * the fields it changed. `sync_state` gains the fan-out's cursor: how far into the change log deliveries have
 * been made (a snapshot range, as sync tokens hold them, so that a change committed late is never skipped).
 *
 * Times the delivery machinery schedules by are milliseconds since the epoch (bigint): retries are seconds
 * apart, and the clock is injectable in tests.
 */
export const webhooks: Migration = {
  name: '0016-webhooks',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema.alterTable('changes').addColumn('status', 'varchar(20)').execute();
    await db.schema.alterTable('changes').addColumn('prior_status', 'varchar(20)').execute();
    // comma-separated wire names (`title,start_date`); null: not known (creates, deletes, terms' links)
    await db.schema.alterTable('changes').addColumn('fields', 'text').execute();

    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      // JSON array of patterns: `event.*`, `venue.updated`, `*`
      .addColumn('event_types', 'text', (c) => c.notNull())
      // JSON `{categories?: number[], venue?: number, organizer?: number}` or null
      .addColumn('filter', 'text')
      .addColumn('payload', 'varchar(8)', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('disabled_reason', 'varchar(40)')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_until', 'bigint')
      // whose view a `full` payload shows (re-checked at every delivery)
      .addColumn('owner_id', 'integer', (c) => c.notNull())
      // the first failure since the last success (ms): 5 days of failures disable the endpoint
      .addColumn('failing_since', 'bigint')
      .addColumn('disabled_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('modified_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('endpoint_id', 'integer', (c) => c.notNull())
      // `webhook-id`: the same on every attempt and on a replay
      .addColumn('msg_id', 'varchar(80)', (c) => c.notNull())
      .addColumn('type', 'varchar(40)', (c) => c.notNull())
      // the change's sequence number (0 for `webhook.test`)
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('resource_type', 'varchar(12)')
      .addColumn('resource_id', 'integer')
      // the change's time (RFC 3339 in the payload)
      .addColumn('occurred_at', 'varchar(19)', (c) => c.notNull())
      // JSON: status, changed (what the change log says of it)
      .addColumn('data', 'text', (c) => c.notNull())
      // pending, held (the endpoint is disabled), succeeded, failed
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      // replays are sent one at a time, in seq order
      .addColumn('ordered', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'varchar(80)')
      .addColumn('lease_until', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    if (dialect.name === 'postgres') {
      await sql`alter table webhook_deliveries alter column id type bigint`.execute(db);
    }
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
    await db.schema.createIndex('webhook_deliveries_msg').on('webhook_deliveries').columns(['endpoint_id', 'msg_id']).unique().execute();
    await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', 'integer', (c) => dialect.autoId(c))
      .addColumn('delivery_id', 'bigint', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      // the receiver's status; null when none came (timeout, refused, connection error)
      .addColumn('status', 'integer')
      .addColumn('error', 'text')
      // JSON of the headers sent
      .addColumn('request_headers', 'text', (c) => c.notNull())
      // the first 1 KB of the answer
      .addColumn('response', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempt']).execute();

    // the fan-out's cursor: '' until the first endpoint is made (history before it is never sent)
    await db.insertInto('sync_state').values({ name: 'webhook_cursor', value: '' }).execute();
  },
};
