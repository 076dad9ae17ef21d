/**
 * A fresh database per test file: SQLite in memory, or a new schema on the PostgreSQL of TEST_POSTGRES_URL.
 * Which one comes from TEST_DIALECT (set by scripts/test.mjs, which runs every suite on each database).
 */
import { randomBytes } from 'node:crypto';
import type { DatabaseConfig } from '../../src/config/config.js';
import type { OnQuery } from '../../src/storage/dialects/dialect.js';
import { PostgresDialect } from '../../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../../src/storage/storage.js';

export const DIALECT = (process.env.TEST_DIALECT ?? 'sqlite') as 'sqlite' | 'postgres';
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';

export interface TestDatabase {
  storage: Storage;
  /** The configuration another process (or a second app) would use to reach the same database. */
  config: DatabaseConfig;
  drop(): Promise<void>;
}

export async function createTestDatabase(
  options: { sqlitePath?: string; onQuery?: OnQuery; sqliteReadThreads?: number } = {},
): Promise<TestDatabase> {
  if (DIALECT === 'postgres') {
    const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const dialect = new PostgresDialect({ url: POSTGRES_URL, schema, max: 4, onQuery: options.onQuery });
    await dialect.prepare();
    const storage = new Storage(dialect);
    await storage.migrate();
    return {
      storage,
      config: { dialect: 'postgres', url: POSTGRES_URL, schema },
      async drop() {
        await dialect.dropSchema();
        await storage.close();
      },
    };
  }
  const path = options.sqlitePath ?? ':memory:';
  const storage = new Storage(new SqliteDialect({ path, onQuery: options.onQuery, readThreads: options.sqliteReadThreads }));
  await storage.migrate();
  return {
    storage,
    config: { dialect: 'sqlite', path },
    async drop() {
      await storage.close();
    },
  };
}
