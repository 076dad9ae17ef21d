import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import {
  type ColumnDefinitionBuilder,
  type CompiledQuery,
  type Expression,
  Kysely,
  SqliteDialect as KyselySqlite,
  type LimitNode,
  type LogEvent,
  type SqlBool,
  SqliteQueryCompiler,
  sql,
  ValueNode,
} from 'kysely';
import type { Piscina } from 'piscina';
import type { SqliteSynchronous } from '../../config/config.js';
import type { Database } from '../database.js';
import { literalKey } from '../stores/columns.js';
import type { Row } from '../stores/planned.js';
import {
  CHANGE_COLUMNS,
  type ChangeInsert,
  CREDENTIAL_TABLES,
  CREDENTIALS_VERSION_ID,
  DATA_VERSION_ID,
  type Dialect,
  type JsonCell,
  type JsonColumn,
  type OnQuery,
  StorageError,
  type Versions,
} from './dialect.js';
import { addAncestors, addEventTerms, eventsLinkedThrough, eventsUnderTerm, moveAncestors, refillEventTerms } from './event-terms-sql.js';
import type { CheckpointerData } from './sqlite-checkpointer.js';
import { registerFunctions } from './sqlite-functions.js';
import type { ReadAnswer, ReaderData, ReadTask } from './sqlite-reader.js';

export { haversineKm } from './sqlite-functions.js';

export interface SqliteOptions {
  /** File path, or `:memory:`. */
  path: string;
  onQuery?: OnQuery;
  /** `synchronous` in WAL mode (see SqliteSynchronous); NORMAL when absent. */
  synchronous?: SqliteSynchronous;
  /** Checkpoints on a worker thread (see sqlite-checkpointer.ts); on for files unless false. */
  checkpointer?: boolean;
  /**
   * Threads that run long reads beside the event loop (readApart, sqlite-reader.ts), files only; absent:
   * DEFAULT_READ_THREADS; 0: none, every read on the main connection.
   */
  readThreads?: number;
}

/** The triggers that keep `event_terms` (migration 0028): row triggers, each the statements of event-terms-sql.ts on its row. */
const EVENT_TERM_TRIGGERS: Readonly<Record<string, string>> = {
  terms_insert_ancestors: `after insert on terms begin ${addAncestors('new.id', 'new.parent_id', 'new.taxonomy')} end`,
  terms_move_ancestors: `after update of parent_id on terms when old.parent_id is not new.parent_id begin
    ${moveAncestors('new.id', 'new.parent_id', 'new.taxonomy')}
    ${refillEventTerms((c) => `${c} in (${eventsUnderTerm('new.id')})`)} end`,
  terms_delete_ancestors: `after delete on terms begin
    delete from term_ancestors where term_id = old.id or ancestor_id = old.id;
    delete from event_terms where term_id = old.id; end`,
  term_relationships_insert_event_terms: `after insert on term_relationships begin
    ${addEventTerms('e.post_id = new.post_id', 'e.series_id = new.post_id', 'r.term_id = new.term_id')} end`,
  term_relationships_delete_event_terms: `after delete on term_relationships begin
    ${refillEventTerms((c) => `${c} in (${eventsLinkedThrough('old.post_id')})`)} end`,
  events_insert_event_terms: `after insert on events begin ${addEventTerms('e.post_id = new.post_id', 'e.post_id = new.post_id')} end`,
  events_update_event_terms: `after update of status, hide_from_listings, start_date, end_date on events begin
    update event_terms set status = new.status, hidden = new.hide_from_listings, start_date = new.start_date, end_date = new.end_date
    where post_id = new.post_id; end`,
  events_refile_event_terms: `after update of kind, shared_terms, series_id on events begin
    ${refillEventTerms((c) => `${c} = new.post_id`)} end`,
  events_delete_event_terms: 'after delete on events begin delete from event_terms where post_id = old.post_id; end',
};

/** One thread per core the event loop leaves, at least one, at most four. */
export const DEFAULT_READ_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));
/** Tasks a read thread is handed at once (see readersNow). */
const READ_TASKS_PER_THREAD = 8;

/**
 * Pages the log may reach before the main connection checkpoints by itself: the worker keeps it far below
 * that; this is the fallback should the worker fall behind or be gone.
 */
const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;
const CHECKPOINT_DELAY_MS = 20;

export function openSqlite(options: SqliteOptions): SqliteDialect {
  return new SqliteDialect(options);
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running most of ours. This
 * hands it the same prepared statement for the same SQL (better-sqlite3 runs them synchronously, so a
 * statement is never in use twice at once), and reads rows as arrays that become objects in JavaScript (see
 * rowsAsObjects).
 */
function cachedStatements(raw: SqliteDatabase.Database) {
  const statements = new Map<string, DriverStatement>();
  return {
    prepare(sql: string): DriverStatement {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= 1000) statements.clear();
        const prepared = raw.prepare(sql);
        stmt = prepared.reader ? rowsAsObjects(prepared) : prepared;
        statements.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      statements.clear();
      return raw.close();
    },
  };
}

/**
 * A page's LIMIT as a number in the text, not a parameter. SQLite (3.53, better-sqlite3's) reads a bound LIMIT's
 * value when it plans, so it marks the statement to be prepared again whenever that parameter is bound — and
 * better-sqlite3 binds every parameter on every run: each page of a list was parsed and planned anew (the default
 * list's ids, 7 µs to run, took 20 µs with the preparing). A number in the text is planned the same way and once;
 * the texts are one per page size (OFFSET stays a parameter: SQLite does not plan with it).
 */
export class SqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const limit = node.limit;
    if (ValueNode.is(limit) && typeof limit.value === 'number' && Number.isSafeInteger(limit.value)) this.append(`limit ${limit.value}`);
    else super.visitLimit(node);
  }
}

class CalendarSqlite extends KyselySqlite {
  override createQueryCompiler(): SqliteCompiler {
    return new SqliteCompiler();
  }
}

/** What Kysely's SQLite driver uses of a statement. */
type DriverStatement = Pick<SqliteDatabase.Statement, 'reader' | 'all' | 'run' | 'iterate'>;

/**
 * A reading statement whose rows are read as arrays and made objects by a function written for its columns.
 * better-sqlite3 builds an object row through V8's C++ API one property at a time: for our rows (40-odd
 * columns: a post and its event) that cost ~10 µs a row, about as much as SQLite's reading of it, and left
 * objects that are slow to read; an object literal of the same keys in the same order costs a tenth of that.
 * The answer is the same: keys in column order, and where two columns share a name the last one's value in the
 * first one's place (as an object literal with a repeated key). One difference, on purpose: a column named
 * `__proto__` is a key like any other (better-sqlite3's own objects drop it, or take a blob's value as their
 * prototype). The function is written again if the statement's columns change (SQLite prepares a statement
 * again when a migration changes the schema under it).
 */
function rowsAsObjects(stmt: SqliteDatabase.Statement): DriverStatement {
  stmt.raw(true);
  let width = -1;
  let row: (values: unknown[]) => Record<string, unknown> = () => ({});
  /** The row function for the statement's columns now (SQLite prepares a statement again when the schema changes). */
  const rowFor = (values: unknown[]) => {
    if (values.length !== width) {
      const columns = stmt.columns();
      width = columns.length;
      row = new Function('r', `return { ${columns.map((c, i) => `${literalKey(c.name)}: r[${i}]`).join(', ')} };`) as typeof row;
    }
    return row;
  };
  return {
    reader: true,
    all: (...params: unknown[]) => {
      const rows = stmt.all(...params) as unknown[][];
      if (rows.length > 0) {
        const make = rowFor(rows[0]);
        for (let i = 0; i < rows.length; i++) (rows as unknown[])[i] = make(rows[i]);
      }
      return rows;
    },
    run: (...params: unknown[]) => stmt.run(...params),
    *iterate(...params: unknown[]) {
      for (const values of stmt.iterate(...params) as IterableIterator<unknown[]>) yield rowFor(values)(values);
    },
  } as DriverStatement;
}

/** Rows of the change log one prepared insert takes at most (see SqliteDialect.insertChanges). */
const CHANGE_ROWS_PER_INSERT = 16;

/** At most this many write transactions share one commit (they hold up this process' reads meanwhile). */
const MAX_GROUP = 32;

interface PendingWrite {
  fn: (trx: Kysely<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class SqliteDialect implements Dialect {
  readonly name = 'sqlite' as const;
  readonly rowsPerBulkStatement = 256;
  readonly skipLocked = false;
  readonly statementsAreRoundTrips = false;
  readonly foldsEveryScript = false;
  readonly bytesType = 'blob' as const;
  readonly lowerFunction = 'ulower';
  readonly db: Kysely<Database>;
  readonly raw: SqliteDatabase.Database;
  private readonly synchronous: SqliteSynchronous;
  private readonly onQuery: OnQuery | undefined;
  private readonly path: string;
  private checkpointer: Worker | undefined;
  /** How many read threads to start at the first long read; 0 once they failed, or in bulk load. */
  private readThreads: number;
  private readers: Piscina<ReadTask, ReadAnswer> | undefined;
  /** Reads readApart sent to the read threads (tests look). */
  readsApart = 0;
  /**
   * The versions committed when the open write round began (see readVersionsNow): the round's own
   * uncommitted writes have moved the table's rows already.
   */
  private committedVersions: Versions | undefined;

  constructor(options: SqliteOptions) {
    this.synchronous = options.synchronous ?? 'NORMAL';
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    this.raw = new SqliteDatabase(options.path);
    this.raw.pragma('journal_mode = WAL');
    this.raw.pragma('busy_timeout = 10000');
    this.path = options.path;
    if (options.path !== ':memory:' && options.checkpointer !== false) this.startCheckpointer();
    this.readThreads = options.path === ':memory:' ? 0 : (options.readThreads ?? DEFAULT_READ_THREADS);
    this.raw.pragma(`synchronous = ${this.synchronous}`);
    this.raw.pragma('foreign_keys = ON');
    // savepoints (see writeTransaction) keep their undo pages here; on disk they made every insert slower
    this.raw.pragma('temp_store = MEMORY');
    registerFunctions(this.raw);
    const onQuery = options.onQuery;
    this.onQuery = onQuery;
    this.db = new Kysely<Database>({
      dialect: new CalendarSqlite({ database: cachedStatements(this.raw) as unknown as SqliteDatabase.Database }),
      ...(onQuery
        ? {
            log: (event: LogEvent) => {
              if (event.level === 'query') onQuery(event.query.sql, event.queryDurationMillis, event.query.parameters);
            },
          }
        : {}),
    });
  }

  private startCheckpointer(): void {
    const worker = new Worker(new URL('./sqlite-checkpointer.js', import.meta.url), {
      workerData: { path: this.path, delayMs: CHECKPOINT_DELAY_MS } satisfies CheckpointerData,
    });
    worker.unref();
    // a worker that failed leaves the checkpoints to the main connection, as SQLite does by default
    worker.on('error', () => this.stopCheckpointing(worker));
    worker.on('exit', () => this.stopCheckpointing(worker));
    this.checkpointer = worker;
    this.raw.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  }

  /**
   * The read threads, each with its connection, started at the first long read (a command that makes none
   * starts none, nor loads piscina: ~40 ms of a start; piscina starts a thread again should one end). A
   * connection of another thread cannot see a database in memory, nor open one in bulk load (no WAL).
   */
  private async readersNow(): Promise<Piscina<ReadTask, ReadAnswer> | undefined> {
    if (this.readers || this.readThreads === 0) return this.readers;
    const { Piscina } = await import('piscina');
    // (another read may have started them meanwhile, or bulk load stopped them)
    if (this.readers || this.readThreads === 0) return this.readers;
    this.readers = new Piscina<ReadTask, ReadAnswer>({
      filename: new URL('./sqlite-reader.js', import.meta.url).href,
      workerData: { path: this.path } satisfies ReaderData,
      minThreads: this.readThreads,
      maxThreads: this.readThreads,
      idleTimeout: Number.POSITIVE_INFINITY,
      // first come, first read: by default a task that finds the threads busy goes back to the end of the queue,
      // and under 64 concurrent filtered lists some requests waited seconds (p99 2.2 s, against 0.27 s on the
      // main connection; bench/README.md "Session 25")
      stricterFIFO: true,
      // tasks handed to a thread before its last answer is back: it reads the ones waiting in its port at one
      // wake-up, in order. One at a time (the default) a task cost the two threads ~60-75 us of CPU beside its
      // statement, 20 tasks in flight; 25 with several handed over (a trivial task through piscina, timed alone;
      // a category page is three tasks). The least busy thread is given the next task, as before.
      concurrentTasksPerWorker: READ_TASKS_PER_THREAD,
      recordTiming: false,
    });
    return this.readers;
  }

  private async stopReaders(): Promise<void> {
    const readers = this.readers;
    this.readers = undefined;
    await readers?.destroy();
  }

  async readApart(db: Kysely<Database>, query: CompiledQuery): Promise<Row[]> {
    // a transaction reads its own writes, on its connection
    const readers = db === this.db ? await this.readersNow() : undefined;
    if (!readers) return (await db.executeQuery(query)).rows as Row[];
    const started = performance.now();
    let answer: ReadAnswer;
    try {
      answer = await readers.run({ sql: query.sql, parameters: query.parameters });
    } catch {
      // the threads failed (could not start, or were stopped): the main connection reads, from now on
      if (this.readers === readers) {
        this.readThreads = 0;
        void this.stopReaders();
      }
      return (await db.executeQuery(query)).rows as Row[];
    }
    this.readsApart++;
    this.onQuery?.(query.sql, performance.now() - started, query.parameters);
    if ('error' in answer) throw Object.assign(new Error(answer.error.message), { name: 'SqliteError', code: answer.error.code });
    return answer.rows as Row[];
  }

  private stopCheckpointing(worker: Worker): void {
    if (this.checkpointer !== worker) return;
    this.checkpointer = undefined;
    if (this.raw.open) this.raw.pragma('wal_autocheckpoint = 1000');
  }

  /** Closes the worker's connection and waits for its thread to end. */
  private async closeCheckpointer(): Promise<void> {
    const worker = this.checkpointer;
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // an unreferenced worker would let the process end before it did
    worker.postMessage('close');
    await ended;
  }

  autoId(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
    return col.primaryKey().autoIncrement();
  }

  /**
   * AUTOINCREMENT's counter, moved on past the ids given: the transaction holds the write lock, and plain
   * occurrences (migration 0023) take ids without a `posts` row, so inserting them does not move it.
   */
  async allocatePostIds(trx: Kysely<Database>, n: number): Promise<number[]> {
    const { rows } = await sql<{ last: number | null }>`
      select max(coalesce((select seq from sqlite_sequence where name = 'posts'), 0), coalesce((select max(id) from posts), 0)) as last`.execute(trx);
    const last = Number(rows[0]?.last ?? 0);
    const moved = await sql`update sqlite_sequence set seq = ${last + n} where name = 'posts'`.execute(trx);
    if (Number(moved.numAffectedRows ?? 0) === 0) await sql`insert into sqlite_sequence (name, seq) values ('posts', ${last + n})`.execute(trx);
    return Array.from({ length: n }, (_, i) => last + 1 + i);
  }

  readonly nextPostId = null;

  bulkRows(rows: readonly (readonly JsonCell[])[], columns: readonly JsonColumn[]) {
    const picked = columns.map((c, i) => `value ->> ${i} as ${c.name}`).join(', ');
    return sql`(select ${sql.raw(picked)} from json_each(${JSON.stringify(rows)})) as v`;
  }

  jsonIds(ids: readonly number[]) {
    return sql<number>`(select value from json_each(${JSON.stringify(ids)}))`;
  }

  lower(expr: Expression<string>) {
    return sql<string>`ulower(${expr})`;
  }

  distanceKm(lat: Expression<number | null>, lng: Expression<number | null>, toLat: number, toLng: number) {
    return sql<number>`geo_distance_km(${lat}, ${lng}, ${toLat}, ${toLng})`;
  }

  /** The change log's inserts of 1 to CHANGE_ROWS_PER_INSERT rows (see insertChanges). */
  private readonly changeInserts: SqliteDatabase.Statement[] = [];

  /**
   * Writes the change log's rows of a transaction, from inside it: up to CHANGE_ROWS_PER_INSERT rows by one
   * statement prepared once for that many (a write's rows are a few; a series' edit may note hundreds).
   * The text of literals PostgreSQL sends would be parsed anew every time here (~19 µs for three rows against
   * ~6 prepared), and would crowd the statement cache out, one text per write.
   */
  private insertChanges(insert: ChangeInsert): void {
    const row = `(${CHANGE_COLUMNS.map(() => '?').join(', ')})`;
    for (let at = 0; at < insert.rows.length; at += CHANGE_ROWS_PER_INSERT) {
      const rows = insert.rows.slice(at, at + CHANGE_ROWS_PER_INSERT);
      this.changeInserts[rows.length] ??= this.raw.prepare(
        `insert into changes (${CHANGE_COLUMNS.join(', ')}) values ${rows.map(() => row).join(', ')}`,
      );
      const statement = this.changeInserts[rows.length];
      const values = rows.flat();
      const started = this.onQuery ? performance.now() : 0;
      statement.run(values);
      this.onQuery?.(statement.source, performance.now() - started, values);
    }
  }

  /** Write transactions waiting for the connection; run together, each in its own savepoint (see below). */
  private readonly pendingWrites: PendingWrite[] = [];
  private writing = false;

  /**
   * Group commit. Transactions that arrive while one runs are queued; the next round runs up to
   * MAX_GROUP of them inside one `BEGIN IMMEDIATE … COMMIT`, each in a savepoint of its own, so one that fails
   * is rolled back alone and the others are unaffected. A commit writes every page the transaction touched to
   * the WAL, and concurrent creates touch many of the same pages (the tables' last leaves, term counts, the data
   * version), so one commit for several of them writes far less than one each. Nobody hears of success before
   * the commit that holds their writes has returned.
   */
  writeTransaction<T>(fn: (trx: Kysely<Database>) => Promise<T>, last?: () => ChangeInsert | undefined): Promise<T> {
    // (SQLite's statements cost no round trip: `last` simply runs after `fn`, on the connection this transaction
    // holds, through prepared statements)
    const job = async (trx: Kysely<Database>) => {
      const result = await fn(trx);
      const tail = last?.();
      if (tail) this.insertChanges(tail);
      return result;
    };
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ fn: job as PendingWrite['fn'], resolve: resolve as PendingWrite['resolve'], reject });
      if (!this.writing) void this.writeRounds();
    });
  }

  private async writeRounds(): Promise<void> {
    this.writing = true;
    try {
      while (this.pendingWrites.length > 0) {
        // Kysely's SQLite driver has one connection behind a mutex: holding it keeps this process' other
        // queries out, and BEGIN IMMEDIATE takes the file's write lock now (waiting for other processes).
        // (the committed versions of a round are given out only while its transaction is open: readVersionsNow)
        await this.db.connection().execute(async (conn) => {
          try {
            await this.writeRound(conn);
          } finally {
            this.committedVersions = undefined;
          }
        });
      }
    } finally {
      this.writing = false;
    }
  }

  private async writeRound(conn: Kysely<Database>): Promise<void> {
    try {
      await sql`begin immediate`.execute(conn);
    } catch (error) {
      for (const job of this.pendingWrites.splice(0)) job.reject(error);
      return;
    }
    this.noteCommittedVersions();
    const done: { job: PendingWrite; result: unknown }[] = [];
    let waited = false;
    for (;;) {
      if (this.pendingWrites.length === 0) {
        // Once per round, let the event loop run before committing: requests that arrived meanwhile reach
        // their transaction and join this commit.
        if (waited || done.length === 0) break;
        waited = true;
        await new Promise((resolve) => setImmediate(resolve));
        if (this.pendingWrites.length === 0) break;
      }
      if (done.length >= MAX_GROUP) break;
      const job = this.pendingWrites.shift();
      if (!job) break;
      // A savepoint protects what earlier jobs of this round wrote; the first job needs none (its failure rolls
      // back the whole transaction, which holds nothing else). A savepoint keeps the original of every page it
      // changes in memory until it ends (tens of MB for a series' ~1,800 occurrences in a large database).
      const protect = done.length > 0;
      try {
        if (protect) await sql`savepoint write`.execute(conn);
        const result = await job.fn(conn);
        if (protect) await sql`release write`.execute(conn);
        done.push({ job, result });
      } catch (error) {
        job.reject(error);
        if (!this.raw.inTransaction) {
          // SQLite rolled the whole transaction back (I/O error, disk full): the others run again
          this.pendingWrites.unshift(...done.map((d) => d.job));
          return;
        }
        if (protect) {
          await sql`rollback to write`.execute(conn);
          await sql`release write`.execute(conn);
        } else {
          await sql`rollback`.execute(conn);
          try {
            await sql`begin immediate`.execute(conn);
          } catch (again) {
            for (const next of this.pendingWrites.splice(0)) next.reject(again);
            return;
          }
          this.noteCommittedVersions();
        }
      }
    }
    try {
      await sql`commit`.execute(conn);
    } catch (error) {
      if (this.raw.inTransaction) await sql`rollback`.execute(conn);
      for (const { job } of done) job.reject(error);
      return;
    }
    this.checkpointer?.postMessage('wrote');
    for (const { job, result } of done) job.resolve(result);
  }

  /** The last `seq` given (the retention always keeps the newest row, so none is given twice). */
  async changeSnapshot(db: Kysely<Database>): Promise<string> {
    const { rows } = await sql<{ seq: number | null }>`select max(seq) as seq from changes`.execute(db);
    return String(Number(rows[0]?.seq ?? 0));
  }

  isChangeSnapshot(snapshot: string): boolean {
    return /^\d{1,15}$/.test(snapshot);
  }

  changesBetween(from: string | null, to: string) {
    return from === null ? sql<SqlBool>`changes.seq <= ${Number(to)}` : sql<SqlBool>`changes.seq > ${Number(from)} and changes.seq <= ${Number(to)}`;
  }

  changesAfter(snapshot: string) {
    return sql<SqlBool>`changes.seq > ${Number(snapshot)}`;
  }

  snapshotCovers(snapshot: string, purged: { readonly seq: number }): boolean {
    return purged.seq <= Number(snapshot);
  }

  async lock(): Promise<void> {
    // BEGIN IMMEDIATE already makes this transaction the only writer
  }

  async lockPost(): Promise<void> {
    // BEGIN IMMEDIATE already makes this transaction the only writer
  }

  migrationLock<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.writeTransaction(fn);
  }

  translateError(error: unknown): unknown {
    const code = (error as { code?: unknown })?.code;
    if (typeof code !== 'string') return error;
    const message = (error as Error).message;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      return new StorageError('unique', message, error);
    }
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new StorageError('foreign_key', message, error);
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return new StorageError('busy', message, error);
    }
    return error;
  }

  async createVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void> {
    for (const table of tables) {
      const ids = CREDENTIAL_TABLES.includes(table) ? [DATA_VERSION_ID, CREDENTIALS_VERSION_ID] : [DATA_VERSION_ID];
      for (const op of ['insert', 'update', 'delete']) {
        await sql
          .raw(
            `create trigger ${table}_${op}_version after ${op} on ${table} begin update data_version set version = version + 1 where id in (${ids.join(', ')}); end`,
          )
          .execute(db);
      }
    }
  }

  /** (A series' master is not an occurrence and is not counted; see migration 0006.) */
  async createDayCountTriggers(db: Kysely<any>, seriesAware = true): Promise<void> {
    const counted = (row: string) => (seriesAware ? `${row}.kind <> 'series'` : '1 = 1');
    const add = (row: 'new') =>
      `insert into event_day_counts (status, hidden, start_day, end_day, n)
       select ${row}.status, ${row}.hide_from_listings, substr(${row}.start_date, 1, 10), substr(${row}.end_date, 1, 10), 1
       where ${counted(row)}
       on conflict (status, hidden, start_day, end_day) do update set n = n + 1;`;
    const remove = (row: 'old') =>
      `update event_day_counts set n = n - 1
       where ${counted(row)} and status = ${row}.status and hidden = ${row}.hide_from_listings
         and start_day = substr(${row}.start_date, 1, 10) and end_day = substr(${row}.end_date, 1, 10);`;
    await sql.raw(`create trigger events_insert_day_count after insert on events begin ${add('new')} end`).execute(db);
    await sql.raw(`create trigger events_delete_day_count after delete on events begin ${remove('old')} end`).execute(db);
    await sql
      .raw(
        `create trigger events_update_day_count after update of status, hide_from_listings, start_date, end_date${seriesAware ? ', kind' : ''} on events
         begin ${remove('old')} ${add('new')} end`,
      )
      .execute(db);
  }

  async createOccurrenceDayCountTriggers(db: Kysely<any>): Promise<void> {
    const plain = (row: string) => `${row}.own_rows = 0 and ${row}.state = 'active'`;
    const add = `insert into event_day_counts (status, hidden, start_day, end_day, n)
       select new.status, new.hidden, substr(new.start_date, 1, 10), substr(new.end_date, 1, 10), 1
       where ${plain('new')}
       on conflict (status, hidden, start_day, end_day) do update set n = n + 1;`;
    const remove = `update event_day_counts set n = n - 1
       where ${plain('old')} and status = old.status and hidden = old.hidden
         and start_day = substr(old.start_date, 1, 10) and end_day = substr(old.end_date, 1, 10);`;
    await sql.raw(`create trigger occurrences_insert_day_count after insert on occurrences begin ${add} end`).execute(db);
    await sql.raw(`create trigger occurrences_delete_day_count after delete on occurrences begin ${remove} end`).execute(db);
    await sql
      .raw(
        `create trigger occurrences_update_day_count after update of status, hidden, start_date, end_date, state, own_rows on occurrences
         begin ${remove} ${add} end`,
      )
      .execute(db);
  }

  /** Row triggers (one writer at a time: no transaction waits on another's month row). */
  async createMonthCountTriggers(db: Kysely<any>): Promise<void> {
    const add = `insert into event_month_counts (status, hidden, start_month, end_month, n)
       values (new.status, new.hidden, substr(new.start_day, 1, 7), substr(new.end_day, 1, 7), new.n)
       on conflict (status, hidden, start_month, end_month) do update set n = n + excluded.n;`;
    const remove = `update event_month_counts set n = n - old.n
       where status = old.status and hidden = old.hidden and start_month = substr(old.start_day, 1, 7) and end_month = substr(old.end_day, 1, 7);`;
    await sql.raw(`create trigger event_day_counts_insert_month after insert on event_day_counts begin ${add} end`).execute(db);
    await sql.raw(`create trigger event_day_counts_delete_month after delete on event_day_counts begin ${remove} end`).execute(db);
    await sql.raw(`create trigger event_day_counts_update_month after update on event_day_counts begin ${remove} ${add} end`).execute(db);
  }

  async dropDayCountTriggers(db: Kysely<any>): Promise<void> {
    for (const op of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists events_${op}_day_count`).execute(db);
  }

  async createEventTermTriggers(db: Kysely<any>): Promise<void> {
    for (const [name, body] of Object.entries(EVENT_TERM_TRIGGERS)) await sql.raw(`create trigger ${name} ${body}`).execute(db);
  }

  async dropEventTermTriggers(db: Kysely<any>): Promise<void> {
    for (const name of Object.keys(EVENT_TERM_TRIGGERS)) await sql.raw(`drop trigger if exists ${name}`).execute(db);
  }

  async dropVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void> {
    for (const table of tables) {
      for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${table}_${op}_version`).execute(db);
    }
  }

  private droppedIndexes: string[] = [];

  /**
   * No journal, no syncs, and the secondary indexes dropped (built again, sorted, at the end): only for
   * loading a database nothing else uses yet (benchmarks).
   */
  async beginBulkLoad(): Promise<void> {
    // leaving WAL mode needs the only connection to the file
    await this.closeCheckpointer();
    this.threadsAfterBulkLoad = this.readThreads;
    this.readThreads = 0;
    await this.stopReaders();
    this.raw.pragma('wal_checkpoint(TRUNCATE)');
    this.raw.pragma('journal_mode = OFF');
    this.raw.pragma('synchronous = OFF');
    this.raw.pragma('cache_size = -1048576');
    const indexes = this.raw.prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null`).all() as {
      name: string;
      sql: string;
    }[];
    for (const index of indexes) this.raw.exec(`drop index "${index.name}"`);
    this.droppedIndexes = indexes.map((i) => i.sql);
  }

  async endBulkLoad(): Promise<void> {
    for (const statement of this.droppedIndexes) this.raw.exec(statement);
    this.droppedIndexes = [];
    this.raw.pragma('cache_size = -2000');
    this.raw.pragma(`synchronous = ${this.synchronous}`);
    this.raw.pragma('journal_mode = WAL');
    if (this.path !== ':memory:') this.startCheckpointer();
    this.readThreads = this.threadsAfterBulkLoad;
  }

  private threadsAfterBulkLoad = 0;

  private versionStatement: SqliteDatabase.Statement | undefined;

  private versionRead: Promise<Versions> | undefined;

  /**
   * Read on every cached answer and every revalidation, so shared: the requests that arrive before the next turn
   * of the event loop share one read, made after they arrived (it sees every write committed before any of
   * them came). A read of its own costs a request ~5 µs (SQLite starts a read transaction for it), a third of
   * what a 304 from the cache costs otherwise.
   */
  async readTogether(db: Kysely<Database>, queries: readonly CompiledQuery[]): Promise<Row[][]> {
    const out: Row[][] = [];
    for (const query of queries) out.push((await db.executeQuery(query)).rows as Row[]);
    return out;
  }

  versions(): Promise<Versions> {
    this.versionRead ??= new Promise((resolve, reject) =>
      setImmediate(() => {
        this.versionRead = undefined;
        try {
          resolve(this.readVersionsNow());
        } catch (error) {
          reject(error);
        }
      }),
    );
    return this.versionRead;
  }

  /**
   * Just after BEGIN IMMEDIATE, before any of the round's writes: what is committed (the round holds the
   * file's write lock, so nobody commits more until it ends).
   */
  private noteCommittedVersions(): void {
    this.committedVersions = undefined;
    try {
      this.committedVersions = this.readVersionsNow();
    } catch {
      // no versions yet (the migrations that make them run in such rounds): nothing to give but the table
    }
  }

  private readVersionsNow(): Versions {
    // While a write round is open, this connection would see its uncommitted writes, and the version they
    // moved would be paired with answers read from the committed state (the read threads', or after a job's
    // rollback): an answer kept under a version that does not hold it. The versions committed are given
    // instead; the round's commit moves them, and what was kept under the old ones is read again.
    if (this.committedVersions && this.raw.inTransaction) return this.committedVersions;
    // a prepared statement on the connection itself, no Kysely round; two lookups by key, not a row per stripe
    // (SQLite's triggers move row DATA_VERSION_ID alone: the stripes are PostgreSQL's)
    this.versionStatement ??= this.raw
      .prepare(
        `select (select version from data_version where id = ${DATA_VERSION_ID}),
                (select version from data_version where id = ${CREDENTIALS_VERSION_ID})`,
      )
      .raw();
    const [data, credentials] = this.versionStatement.get() as [number, number];
    return { data: Number(data), credentials: Number(credentials) };
  }

  /** Refreshes the planner's statistics where they are missing or old (cheap; SQLite's advice at start-up). */
  async optimize(): Promise<void> {
    this.raw.pragma('analysis_limit = 1000');
    this.raw.pragma('optimize = 0x10002');
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.closeCheckpointer();
    this.readThreads = 0;
    await this.stopReaders();
    await this.db.destroy();
  }
}
