import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../config/config.js';
import type { SqliteDialect } from './dialects/sqlite.dialect.js';
import { openStorage } from './storage.js';

// SQLite reports the setting as a number: 1 = NORMAL, 2 = FULL
const synchronousOf = (dialect: unknown) => (dialect as SqliteDialect).raw.pragma('synchronous', { simple: true });

describe('SQLITE_SYNCHRONOUS reaches the database connection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-sync-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [value, expected] of [
    [undefined, 1],
    ['NORMAL', 1],
    ['full', 2],
  ] as const) {
    it(`${value ?? '(unset)'} → synchronous = ${expected}, also after a bulk load`, async () => {
      const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, `${value ?? 'unset'}.db`)}`, SQLITE_SYNCHRONOUS: value });
      const storage = await openStorage(config.database);
      try {
        assert.equal(synchronousOf(storage.dialect), expected);
        // the bench seeder turns syncs off for its load; the end of it must restore the configured setting
        await storage.dialect.beginBulkLoad();
        assert.equal(synchronousOf(storage.dialect), 0);
        await storage.dialect.endBulkLoad();
        assert.equal(synchronousOf(storage.dialect), expected);
      } finally {
        await storage.close();
      }
    });
  }
});
