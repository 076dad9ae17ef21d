import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SqliteDialect } from './dialects/sqlite.dialect.js';

const PAGE = 4096;
const walBytes = (path: string) => statSync(`${path}-wal`).size;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The log header's checkpoint sequence number (bytes 12–15): it moves each time SQLite starts the log over. */
function logRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  try {
    const header = Buffer.alloc(4);
    readSync(fd, header, 0, 4, 12);
    return header.readUInt32BE(0);
  } finally {
    closeSync(fd);
  }
}

/** Writes `batches` transactions of ~1 MB each through the dialect's write path, pausing between them. */
async function writeBatches(dialect: SqliteDialect, batches: number, pauseMs: number) {
  await sql`create table if not exists blobs (id integer primary key, body text not null)`.execute(dialect.db);
  const body = 'x'.repeat(PAGE);
  for (let b = 0; b < batches; b++) {
    await dialect.writeTransaction(async (trx) => {
      for (let i = 0; i < 250; i++) await sql`insert into blobs (body) values (${body})`.execute(trx);
    });
    await pause(pauseMs);
  }
}

describe('SQLite checkpoints on a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-checkpoint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the log from growing with the writes, though the main connection no longer checkpoints at 1,000 pages', async () => {
    const path = join(dir, 'worker.db');
    const dialect = new SqliteDialect({ path });
    try {
      assert.equal(dialect.raw.pragma('wal_autocheckpoint', { simple: true }), 16_384);
      // the worker thread takes a moment to start (longer on a busy machine, and the log keeps the size it
      // reached meanwhile): write until it has checkpointed once and the log started over
      await writeBatches(dialect, 1, 150);
      const first = logRestarts(path);
      for (let i = 0; i < 50 && logRestarts(path) === first; i++) await writeBatches(dialect, 1, 150);
      assert.notEqual(logRestarts(path), first, 'the worker checkpointed');
      const before = walBytes(path);
      await writeBatches(dialect, 12, 150);
      // 12 MB more written; each ~1 MB commit was checkpointed by the worker before the next, so the log started
      // over each time and did not grow (without the worker it would have grown by the whole 12 MB)
      assert.ok(logRestarts(path) - first >= 6, `the log started over ${logRestarts(path) - first} times`);
      assert.ok(walBytes(path) - before < 4 * 1024 * 1024, `log of ${before} bytes, then ${walBytes(path)}`);
    } finally {
      await dialect.close();
    }
  });

  it('without the worker (checkpointer: false) SQLite checkpoints on the main connection as by default', async () => {
    const path = join(dir, 'main.db');
    const dialect = new SqliteDialect({ path, checkpointer: false });
    try {
      assert.equal(dialect.raw.pragma('wal_autocheckpoint', { simple: true }), 1000);
      await writeBatches(dialect, 3, 0);
    } finally {
      await dialect.close();
    }
  });

  it('stops for a bulk load and starts again after it', async () => {
    const path = join(dir, 'bulk.db');
    const dialect = new SqliteDialect({ path });
    try {
      await writeBatches(dialect, 1, 0);
      await dialect.beginBulkLoad();
      await dialect.endBulkLoad();
      assert.equal(dialect.raw.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(dialect.raw.pragma('wal_autocheckpoint', { simple: true }), 16_384);
      // 12 MB written with pauses long enough for the worker on a busy machine (the log's size is its high-water
      // mark: a worker that fell behind once leaves it larger); without the worker it would hold all 12 MB
      await writeBatches(dialect, 12, 300);
      assert.ok(walBytes(path) < 6 * 1024 * 1024, `log of ${walBytes(path)} bytes`);
    } finally {
      await dialect.close();
    }
  });
});
