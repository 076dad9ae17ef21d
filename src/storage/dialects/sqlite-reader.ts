/**
 * A read thread of a SQLite database (a piscina worker, see SqliteDialect.readApart): runs one read-only
 * statement on a connection of its own and answers its rows.
 *
 * better-sqlite3 runs a statement on the thread that calls it. On the main connection, a list that looks up
 * every event of a big category or tests every candidate's text (100–250 ms at a million events) held the
 * event loop all that time: every other request, however cheap, waited for it (bench/README.md "Lists at 1M").
 * Here it runs beside the loop. In WAL mode a second connection reads the last committed state of the file,
 * never a write transaction the main connection holds open, and never waits for it.
 */
import SqliteDatabase from 'better-sqlite3';
import { workerData } from 'piscina';
import { registerFunctions } from './sqlite-functions.js';

export interface ReaderData {
  readonly path: string;
}

export interface ReadTask {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** A statement's rows, or what SQLite said (an Error loses its `code` on the way between threads). */
export type ReadAnswer = { readonly rows: unknown[] } | { readonly error: { readonly message: string; readonly code?: string } };

const { path } = workerData as ReaderData;
const db = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 10000');
db.pragma('temp_store = MEMORY');
registerFunctions(db);

/** Prepared once per text, as on the main connection (a list's statements are few texts, run many times). */
const statements = new Map<string, SqliteDatabase.Statement>();

export default function read(task: ReadTask): ReadAnswer {
  try {
    let stmt = statements.get(task.sql);
    if (!stmt) {
      if (statements.size >= 1000) statements.clear();
      stmt = db.prepare(task.sql);
      statements.set(task.sql, stmt);
    }
    return { rows: stmt.all(...task.parameters) };
  } catch (error) {
    const e = error as { message?: unknown; code?: unknown };
    return { error: { message: String(e.message ?? error), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
}
