/**
 * A worker thread that checkpoints a SQLite database's write-ahead log on a connection of its own.
 *
 * With SQLite's automatic checkpoints, the commit that takes the log past 1,000 pages copies the log into the
 * database file and syncs both, on the connection that committed: better-sqlite3 runs that on the event loop,
 * so every few writes one request waited ~10 ms for the disk (a series' creation measured 72 ms with them,
 * 58 ms without). Here the copying and syncing happen on another thread: PASSIVE checkpoints never block the
 * writer or readers, and SQLite starts the log over from the beginning once a checkpoint caught up with it.
 *
 * The main connection tells the worker after its commits (`wrote`); the worker checkpoints shortly after, so a
 * burst of writes costs one checkpoint. `close` closes the connection and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

export interface CheckpointerData {
  readonly path: string;
  /** Milliseconds between the first write after a checkpoint and the next checkpoint. */
  readonly delayMs: number;
}

const { path, delayMs } = workerData as CheckpointerData;
const db = new SqliteDatabase(path, { fileMustExist: true });
// the main connection may hold the write lock for a moment; a checkpoint that finds it busy just waits for the next
db.pragma('busy_timeout = 0');
let timer: NodeJS.Timeout | undefined;

function checkpoint() {
  timer = undefined;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY (a checkpoint of the main connection's own running): the next write schedules another
  }
}

parentPort?.on('message', (message: string) => {
  if (message === 'wrote') {
    timer ??= setTimeout(checkpoint, delayMs);
    return;
  }
  if (message === 'close') {
    if (timer) clearTimeout(timer);
    db.close();
    parentPort?.close();
  }
});
