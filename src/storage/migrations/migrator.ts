/**
 * Schema migrations: an ordered list, each applied once inside a transaction that holds a cross-process lock,
 * recorded in `schema_migrations`. The same list runs on both databases. Landed migrations are never edited.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import { initial } from './0001-initial.migration.js';
import { versions } from './0002-versions.migration.js';
import { eventDayCounts } from './0003-event-day-counts.migration.js';
import { eventsByVenue } from './0004-events-by-venue.migration.js';
import { venueStateProvince } from './0005-venue-stateprovince.migration.js';
import { recurringEvents } from './0006-recurring-events.migration.js';
import { seriesWrites } from './0007-series-writes.migration.js';
import { icalUids } from './0008-ical-uids.migration.js';
import { imports } from './0009-imports.migration.js';
import { nameLookups } from './0010-name-lookups.migration.js';
import { importMap } from './0011-import-map.migration.js';
import { changeLog } from './0012-change-log.migration.js';
import { itemVersions } from './0013-item-versions.migration.js';
import { media } from './0014-media.migration.js';
import { eventCustomFields } from './0015-event-custom-fields.migration.js';
import { webhooks } from './0016-webhooks.migration.js';
import { sharedTerms } from './0017-shared-terms.migration.js';
import { versionEvents } from './0018-version-events.migration.js';
import { byteOrderKeys } from './0019-byte-order-keys.migration.js';
import { namedTypesTitleIndex } from './0020-named-types-title-index.migration.js';
import { eventsFillfactor } from './0021-events-fillfactor.migration.js';
import { sqliteEventDateIndexes } from './0022-sqlite-event-date-indexes.migration.js';
import { plainOccurrences } from './0023-plain-occurrences.migration.js';
import { dayCountsFillfactor } from './0024-day-counts-fillfactor.migration.js';
import { sqliteDayCountsClustered } from './0025-sqlite-day-counts-clustered.migration.js';
import { monthCounts } from './0026-month-counts.migration.js';
import { sqliteDayCountsByEndCovering } from './0027-sqlite-day-counts-by-end-covering.migration.js';
import { eventTerms } from './0028-event-terms.migration.js';
import { eventsLinksModified } from './0029-events-links-modified.migration.js';
import { nameLookupsHashed } from './0030-name-lookups-hashed.migration.js';

export interface Migration {
  readonly name: string;
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  initial,
  versions,
  eventDayCounts,
  eventsByVenue,
  venueStateProvince,
  recurringEvents,
  seriesWrites,
  icalUids,
  imports,
  nameLookups,
  importMap,
  changeLog,
  itemVersions,
  media,
  eventCustomFields,
  webhooks,
  sharedTerms,
  versionEvents,
  byteOrderKeys,
  namedTypesTitleIndex,
  eventsFillfactor,
  sqliteEventDateIndexes,
  plainOccurrences,
  dayCountsFillfactor,
  sqliteDayCountsClustered,
  monthCounts,
  sqliteDayCountsByEndCovering,
  eventTerms,
  eventsLinksModified,
  nameLookupsHashed,
];

/** Applies the pending migrations; returns the names applied. */
export async function migrate(dialect: Dialect): Promise<string[]> {
  await dialect.db.schema
    .createTable('schema_migrations')
    .ifNotExists()
    .addColumn('name', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('applied_at', 'varchar(19)', (c) => c.notNull())
    .execute()
    .catch(async (error) => {
      // two processes creating it at once: the loser sees it exists
      const exists = await sql`select 1 from schema_migrations`.execute(dialect.db).then(
        () => true,
        () => false,
      );
      if (!exists) throw error;
    });

  return dialect.migrationLock(async (trx) => {
    const done = new Set((await trx.selectFrom('schema_migrations').select('name').execute()).map((r) => r.name));
    const applied: string[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.name)) continue;
      await migration.up(trx, dialect);
      await trx
        .insertInto('schema_migrations')
        .values({ name: migration.name, applied_at: new Date().toISOString().slice(0, 19).replace('T', ' ') })
        .execute();
      applied.push(migration.name);
    }
    return applied;
  });
}
