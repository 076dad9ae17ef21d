import type { Kysely } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import { CREDENTIAL_TABLES, CREDENTIALS_VERSION_ID, DATA_VERSION_STRIPES } from '../dialects/dialect.js';
import type { Migration } from './migrator.js';

/**
 * A second version, moved only by writes to users and application passwords: remembered credential checks
 * compare against it instead of the data version, so a client that writes events is not checked again (a
 * query and a hash) on its next request. And stripes of the data version, so that PostgreSQL's concurrent
 * writers do not take turns on one row (see DATA_VERSION_STRIPES).
 */
export const versions: Migration = {
  name: '0002-versions',
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.insertInto('data_version').values({ id: CREDENTIALS_VERSION_ID, version: 1 }).execute();
    await db
      .insertInto('data_version')
      .values(Array.from({ length: DATA_VERSION_STRIPES.count }, (_, i) => ({ id: DATA_VERSION_STRIPES.first + i, version: 0 })))
      .execute();
    await dialect.dropVersionTriggers(db, CREDENTIAL_TABLES);
    await dialect.createVersionTriggers(db, CREDENTIAL_TABLES);
  },
};
