import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * iCalendar identity of events (FEATURES.md §3.4): a UID given once and kept (the original computes it from the
 * post id and the dates, so a moved event is a new event to every subscriber), and a SEQUENCE that counts
 * changes of its times. Events that exist get a random UID now; occurrences have none (they are their
 * series' UID with a RECURRENCE-ID). UIDs are unique among events.
 */
export const icalUids: Migration = {
  name: '0008-ical-uids',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema.alterTable('events').addColumn('ical_uid', 'varchar(255)').execute();
    await db.schema
      .alterTable('events')
      .addColumn('ical_sequence', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // 32 random hex digits in the 8-4-4-4-12 form of a UUID
    const hex = dialect.name === 'sqlite' ? sql`lower(hex(randomblob(16)))` : sql`replace(cast(gen_random_uuid() as text), '-', '')`;
    await sql`
      update events set ical_uid = substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-' || substr(h, 21, 12)
      from (select post_id as id, ${hex} as h from events where kind <> 'occurrence') as r
      where events.post_id = r.id`.execute(db);
    await db.schema.createIndex('events_ical_uid').on('events').column('ical_uid').unique().where(sql.ref('ical_uid'), 'is not', null).execute();
  },
};
