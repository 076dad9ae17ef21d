/**
 * What differs between SQLite and PostgreSQL lives behind this interface: connecting, the DDL for ids,
 * case-insensitive text, write transactions with the right locking, and turning driver errors into
 * `StorageError`s. Stores never ask which database they run on.
 */
import type { ColumnDefinitionBuilder, CompiledQuery, Expression, Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import type { Database } from '../database.js';
import type { Row } from '../stores/planned.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Two numbers of the `data_version` table that committed writes move on, in any process: `data` with every
 * write (cached responses compare against it), `credentials` only with writes to users and their application
 * passwords (remembered credential checks compare against it, so writing events does not make every client's
 * password be checked again).
 */
export interface Versions {
  readonly data: number;
  readonly credentials: number;
}

/**
 * The `data_version` rows. The data version is the sum of every row but the credentials one: SQLite (one
 * writer at a time) moves row 1; PostgreSQL moves one of the stripe rows, chosen by connection, so that
 * concurrent transactions do not all queue on one row lock while each commits (and syncs) in turn.
 */
export const DATA_VERSION_ID = 1;
export const CREDENTIALS_VERSION_ID = 2;
export const DATA_VERSION_STRIPES = { first: 11, count: 16 } as const;
/** Tables whose writes move the credentials version too. */
export const CREDENTIAL_TABLES: readonly string[] = ['users', 'app_passwords'];

export type JsonCell = string | number | null;
export interface JsonColumn {
  readonly name: string;
  readonly type: 'integer' | 'bigint' | 'text';
}

/** Called after every query with its SQL, duration and parameters (tests count and plan queries with it). */
export type OnQuery = (sql: string, ms: number, parameters: readonly unknown[]) => void;

/** Columns of the change log a write fills, in the order of ChangeInsert's rows. */
export const CHANGE_COLUMNS = ['resource_type', 'resource_id', 'op', 'occurred_at', 'status', 'prior_status', 'fields'] as const;

/** The change log's rows of a write (ChangeStore.takeInsert), two ways: values, and the same as one statement. */
export interface ChangeInsert {
  /** Values in CHANGE_COLUMNS' order. */
  readonly rows: readonly (readonly [string, number, string, string, string | null, string | null, string | null])[];
  /** The rows as one `insert` without parameters, of literals the store checked (PostgreSQL sends it with the COMMIT). */
  readonly sql: string;
}

export interface Dialect {
  readonly name: DialectName;
  readonly db: Kysely<Database>;
  /** Column builder for an auto-generated integer primary key. */
  autoId(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** The column type of binary data (SQLite `blob`, PostgreSQL `bytea`); both drivers read and bind Buffers. */
  readonly bytesType: 'blob' | 'bytea';
  /**
   * Whether `select … for update skip locked` exists (PostgreSQL): claims of queued jobs by several processes
   * then pass each other by. SQLite has no row locks and needs none (one write transaction at a time).
   */
  readonly skipLocked: boolean;
  /**
   * Whether each statement is a round trip to a server (PostgreSQL): there, reading more in one statement wins
   * (readTogether; a read written as subqueries of ids not known yet). SQLite's statements are calls into the
   * library: there the simplest statements win, even a few more of them (an event's images read as one subquery
   * per source took 0.17 ms more a request than reading them by id after the venues and organizers).
   */
  readonly statementsAreRoundTrips: boolean;
  /** Unicode-aware lower-casing of a text expression (for case-insensitive search and ordering). */
  lower(expr: Expression<string>): RawBuilder<string>;
  /**
   * The database's own `lower()`, which indexes can hold (migration 0010). PostgreSQL's folds every script;
   * SQLite's only ASCII, so there it narrows a lookup that `lower()` then decides (see caseInsensitiveEquals).
   */
  readonly foldsEveryScript: boolean;
  /**
   * Inside a write transaction: `n` new post ids, in increasing order, never given before (a series' occurrences
   * are inserted many at a time with their ids known up front), where `nextPostId` is null.
   */
  allocatePostIds(trx: Kysely<Database>, n: number): Promise<number[]>;
  /**
   * An expression that takes the next post id inside a statement, row by row (PostgreSQL's sequence: a series'
   * ~1,800 ids without a round trip of their own); null where ids are allocated beforehand (allocatePostIds).
   */
  readonly nextPostId: RawBuilder<number> | null;
  /**
   * Rows handed to a statement as parameters, read back in order as a table `v` with these columns, to use in a
   * FROM clause (a series' ~1,800 occurrences in one statement: no statement text that grows with the rows, so it
   * is prepared once, and no parameter list to bind or to build as query nodes). SQLite: one JSON parameter;
   * PostgreSQL: a typed array a column, unnested side by side.
   */
  bulkRows(rows: readonly (readonly JsonCell[])[], columns: readonly JsonColumn[]): RawBuilder<unknown>;
  /**
   * The most rows a statement that copies many (a series' occurrences) should write. SQLite keeps the original of
   * every page a statement changes until the statement ends, in memory (its statement journal, which a statement
   * needs as soon as it calls a function, as `->>` and the triggers' `substr` do): a daily series' 1,800
   * occurrences in one statement kept 39 MB of pages on a 1.4 GB database (their date indexes' leaves), the
   * serving process' peak. PostgreSQL keeps no such copy, and every statement costs it a round trip.
   */
  readonly rowsPerBulkStatement: number;
  /** Integers handed as one JSON parameter, as a subquery for `in (…)`. */
  jsonIds(ids: readonly number[]): RawBuilder<number>;
  /** The name of the SQL function `lower()` uses, for fixed statements (see Statement). */
  readonly lowerFunction: string;
  /** Great-circle distance in km between two points given as SQL expressions and numbers. */
  distanceKm(lat: Expression<number | null>, lng: Expression<number | null>, toLat: number, toLng: number): RawBuilder<number>;
  /**
   * Runs `fn` in a write transaction that takes the write lock up front (no lock-upgrade deadlocks). `last`
   * gives the change log's rows (which every write has) to write after `fn`, before the commit: on PostgreSQL as
   * their statement without parameters, with the COMMIT in one round trip; on SQLite through inserts prepared
   * once, of up to 16 rows each (no round trips there, and a text of literals would be parsed anew each time).
   */
  writeTransaction<T>(fn: (trx: Kysely<Database>) => Promise<T>, last?: () => ChangeInsert | undefined): Promise<T>;
  /**
   * Inside a write transaction: waits until no other transaction holds the named lock, and holds it until this
   * one ends (PostgreSQL advisory locks; SQLite's write transactions are already one at a time).
   */
  lock(trx: Kysely<Database>, key: string): Promise<void>;
  /**
   * Inside a write transaction: waits until no other transaction writes this post (or, for an occurrence, its
   * series), and holds their other writers off until this one ends (PostgreSQL: their rows `for update`; SQLite's
   * write transactions are already one at a time). What is read after it is as the last writer committed it.
   */
  lockPost(trx: Kysely<Database>, id: number): Promise<void>;
  /** Serialises schema migrations across processes. */
  migrationLock<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Driver error → StorageError (or the error itself when unknown). */
  translateError(error: unknown): unknown;
  /**
   * Triggers that move the data version on every write to these tables, and also the credentials version for
   * the tables of CREDENTIAL_TABLES.
   */
  createVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void>;
  /** Triggers on `events` that keep `event_day_counts` (see migration 0003). */
  /** `seriesAware`: leave series masters out (migration 0006 on); false only for migration 0003, before `kind`. */
  createDayCountTriggers(db: Kysely<any>, seriesAware?: boolean): Promise<void>;
  dropDayCountTriggers(db: Kysely<any>): Promise<void>;
  /** Triggers on `occurrences` that count plain occurrences in `event_day_counts` (see migration 0023). */
  createOccurrenceDayCountTriggers(db: Kysely<any>): Promise<void>;
  /** Triggers on `terms`, `term_relationships` and `events` that keep `term_ancestors` and `event_terms` (see migration 0028). */
  createEventTermTriggers(db: Kysely<any>): Promise<void>;
  dropEventTermTriggers(db: Kysely<any>): Promise<void>;
  /** Triggers on `event_day_counts` that keep `event_month_counts` (see migration 0026). */
  createMonthCountTriggers(db: Kysely<any>): Promise<void>;
  /** Removes them again (bulk loads, which bump the version once at the end instead). */
  dropVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void>;
  /** Settings for a bulk load on this connection (more cache, fewer syncs); undone by `endBulkLoad`. */
  beginBulkLoad(): Promise<void>;
  endBulkLoad(): Promise<void>;
  /**
   * Where the change log stands for a reader now, as an opaque string: every change it covers is committed,
   * and every change committed later is outside it. SQLite (one writer at a time, committing in `seq` order):
   * the last `seq` given. PostgreSQL: the snapshot (`xmin:xmax:xip…`), since a transaction that took a lower
   * `seq` may commit after one with a higher — comparing with the snapshot, not the number, skips none.
   */
  changeSnapshot(db: Kysely<Database>): Promise<string>;
  /** Whether a string is a snapshot `changeSnapshot` could have given (it comes back inside tokens). */
  isChangeSnapshot(snapshot: string): boolean;
  /** The changes committed in `to` and not in `from` (null: from the beginning), as a condition on `changes`. */
  changesBetween(from: string | null, to: string): RawBuilder<SqlBool>;
  /** The changes committed after the snapshot (or not committed yet), as a condition on `changes`. */
  changesAfter(snapshot: string): RawBuilder<SqlBool>;
  /** Whether every change up to these purged ones (`seq`, `tx`) is inside the snapshot (else a reader from it missed some). */
  snapshotCovers(snapshot: string, purged: { readonly seq: number; readonly tx: number }): boolean;
  /** The current versions (as cheap as the database allows: they are read on every request). */
  versions(): Promise<Versions>;
  /**
   * The rows of several reads, in their order (stores/planned.ts). PostgreSQL: one statement, each read's rows
   * gathered by `json_agg` — one round trip where each read took its own; SQLite: one after the other (a read
   * there is a call into the library, not a round trip).
   */
  readTogether(db: Kysely<Database>, queries: readonly CompiledQuery[]): Promise<Row[][]>;
  /**
   * The rows of a read that may take long (a list's count or page that looks up every candidate of a term or
   * tests every candidate's text). SQLite, a file, outside a transaction: on a read thread of its own
   * (sqlite-reader.ts), so that the event loop goes on answering meanwhile; elsewhere (PostgreSQL, whose
   * statements never hold the loop; a transaction; SQLite in memory) as any read, on `db`.
   */
  readApart(db: Kysely<Database>, query: CompiledQuery): Promise<Row[]>;
  /** Refreshes query-planner statistics (SQLite; PostgreSQL's autovacuum does it). */
  optimize(): Promise<void>;
  /** Cheap liveness check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type StorageErrorKind = 'unique' | 'foreign_key' | 'busy' | 'unavailable' | 'invalid_data';

export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export type Trx = Transaction<Database> | Kysely<Database>;
