import { createHash } from 'node:crypto';
import {
  type ColumnDefinitionBuilder,
  CompiledQuery,
  type Expression,
  Kysely,
  PostgresDialect as KyselyPostgres,
  type LogEvent,
  type SqlBool,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Database } from '../database.js';
import type { Row } from '../stores/planned.js';
import {
  type ChangeInsert,
  CREDENTIAL_TABLES,
  CREDENTIALS_VERSION_ID,
  DATA_VERSION_STRIPES,
  type Dialect,
  type JsonCell,
  type JsonColumn,
  type OnQuery,
  StorageError,
  type Versions,
} from './dialect.js';
import { addAncestors, addEventTerms, eventsLinkedThrough, eventsUnderTerm, moveAncestors, refillEventTerms } from './event-terms-sql.js';

// count(*) and bigint ids come back as strings by default; every integer we store fits in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface PostgresOptions {
  url: string;
  /** Schema to work in (tests use a fresh one per file); created when missing. */
  schema?: string;
  max?: number;
  onQuery?: OnQuery;
}

const MIGRATION_LOCK_KEY = 724_151_903;
const NAMED_PER_CONNECTION = 400;
/** Reads of the versions out at once (see versions()): two, so one turn's read need not wait for the last one's answer. */
const MAX_VERSION_READS = 2;

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it each time (half a millisecond for
 * ours). Naming data statements makes each connection prepare them once; a connection names at most a few
 * hundred, and everything else goes as before.
 *
 * A prepared statement whose result columns a migration changed (by another process, or a collation change)
 * fails once with "cached plan must not change result type": its text is prepared again under a new name, and
 * the statement retried at once unless it ran inside a transaction (which the failure has aborted).
 */
/** What a statement's text says, worked out once per text: hashing it and testing three patterns cost ~5 µs a query. */
interface TextFacts {
  /** It opens a transaction. */
  readonly begins: boolean;
  /** It ends one (a COMMIT may end a list of statements: see writeTransaction). */
  readonly ends: boolean;
  /** A data statement (select, insert, update, delete, with) with parameters: the only kind prepared. */
  readonly data: boolean;
  /** Its name as a prepared statement. */
  readonly name: string;
}

const textFacts = new Map<string, TextFacts>();
/** The statement readTogether sends for a combination of texts (see there), with their parameters' counts. */
const togetherTexts = new Map<string, string>();
/** Combinations remembered at most (each holds its texts twice: a few kB; lists by many ids' counts make new ones). */
const MAX_TOGETHER_TEXTS = 500;
/** Texts remembered at most (one-off texts, such as bulk inserts of a given size, start it afresh when full). */
const MAX_TEXT_FACTS = 4000;

/** The facts of a text without parameters (never prepared, so never named). */
function factsOfOnce(text: string): TextFacts {
  return {
    begins: /^\s*(begin|start transaction)\b/i.test(text),
    ends: /(^|;)\s*(commit|rollback|end)\s*;?\s*$/i.test(text),
    data: false,
    name: '',
  };
}

function factsOf(text: string): TextFacts {
  let facts = textFacts.get(text);
  if (!facts) {
    if (textFacts.size >= MAX_TEXT_FACTS) textFacts.clear();
    facts = {
      ...factsOfOnce(text),
      data: /^\s*(select|insert|update|delete|with)\b/i.test(text),
      name: `k${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`,
    };
    textFacts.set(text, facts);
  }
  return facts;
}

function prepareStatements(client: pg.PoolClient): void {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = new Set<string>();
  /** Texts whose first name went stale, and the name they go by now (a new one each time one goes stale). */
  const renamed = new Map<string, string>();
  let renames = 0;
  let inTransaction = false;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config !== 'string') return original(config, values, callback);
    // (texts without parameters are often one-offs — the change log's rows with the COMMIT — and not remembered)
    const facts = Array.isArray(values) && values.length > 0 ? factsOf(config) : factsOfOnce(config);
    if (facts.begins) inTransaction = true;
    else if (facts.ends) inTransaction = false;
    // (statements without parameters are left alone: they may be several in one message — the change log's
    // rows with the COMMIT — which the simple query protocol takes and a prepared statement does not)
    if (facts.data && Array.isArray(values) && values.length > 0) {
      const first = facts.name;
      const name = renamed.get(first) ?? first;
      if (named.has(name) || named.size < NAMED_PER_CONNECTION) {
        named.add(name);
        if (callback !== undefined) return original({ name, text: config, values }, callback);
        const inTransactionNow = inTransaction;
        return (original({ name, text: config, values }) as Promise<unknown>).catch((error: { code?: string; message?: string }) => {
          if (error?.code !== '0A000' || !error.message?.includes('cached plan must not change result type')) throw error;
          const fresh = `${first}_${++renames}`;
          renamed.set(first, fresh);
          named.add(fresh);
          if (inTransactionNow) throw error;
          return original({ name: fresh, text: config, values });
        });
      }
    }
    return original(config, values, callback);
  };
}

export class PostgresDialect implements Dialect {
  readonly name = 'postgres' as const;
  readonly rowsPerBulkStatement = Number.POSITIVE_INFINITY;
  readonly skipLocked = true;
  readonly statementsAreRoundTrips = true;
  readonly foldsEveryScript = true;
  readonly bytesType = 'bytea' as const;
  readonly lowerFunction = 'lower';
  readonly db: Kysely<Database>;
  private readonly pool: pg.Pool;

  constructor(private readonly options: PostgresOptions) {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 20,
      // JIT off: it compiles a query whose estimated cost passes jit_above_cost (a list's count over a few hundred
      // thousand events) for 20–30 ms, on queries that then run for less (auto_explain, 165k events: a 40 ms count,
      // 24 ms of it JIT; the month window of bench/recurrence.ts 18–21 → 13 ms without)
      options: `-c jit=off${schema ? ` -c search_path=${schema}` : ''}`,
      connectionTimeoutMillis: 10_000,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => prepareStatements(client));
    const onQuery = options.onQuery;
    this.db = new Kysely<Database>({
      dialect: new KyselyPostgres({ pool: this.pool }),
      ...(onQuery
        ? {
            log: (event: LogEvent) => {
              if (event.level === 'query') onQuery(event.query.sql, event.queryDurationMillis, event.query.parameters);
            },
          }
        : {}),
    });
  }

  /** Creates the configured schema if it does not exist. */
  async prepare(): Promise<void> {
    if (!this.options.schema) return;
    const client = new pg.Client({ connectionString: this.options.url });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${this.options.schema}"`);
    } finally {
      await client.end();
    }
  }

  async dropSchema(): Promise<void> {
    if (!this.options.schema) return;
    await sql`drop schema if exists ${sql.id(this.options.schema)} cascade`.execute(this.db);
  }

  autoId(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
    return col.primaryKey().generatedByDefaultAsIdentity();
  }

  /** From the identity's sequence (other writers may take ids in between: these stay increasing and unique). */
  async allocatePostIds(trx: Kysely<Database>, n: number): Promise<number[]> {
    const { rows } = await sql<{ id: string }>`
      select nextval(pg_get_serial_sequence('posts', 'id')) as id from generate_series(1, ${n})`.execute(trx);
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  readonly nextPostId = sql<number>`nextval(pg_get_serial_sequence('posts', 'id'))`;

  bulkRows(rows: readonly (readonly JsonCell[])[], columns: readonly JsonColumn[]) {
    // a typed array a column: PostgreSQL reads its own arrays faster than JSON's text (a daily series' 1,823 new
    // occurrences with their dates, pkey only: 13.4 ms from one JSON parameter, 6.9 ms from arrays)
    const arrays = columns.map((c, i) => sql`cast(${rows.map((r) => r[i])} as ${sql.raw(c.type)}[])`);
    return sql`unnest(${sql.join(arrays)}) as v(${sql.raw(columns.map((c) => c.name).join(', '))})`;
  }

  jsonIds(ids: readonly number[]) {
    // an integer[] literal, not a JSON array: the planner counts an unnest of a known array (json_array_elements
    // it takes for 100 rows), so a read of one id is an index lookup, not a hash join over the table (6 ms
    // against 0.1 ms per single read of an event on 10,000, measured with pg_stat_statements in bench/webhooks.ts)
    return sql<number>`(select unnest(cast(${`{${ids.map((id) => Math.trunc(id)).join(',')}}`} as integer[])))`;
  }

  lower(expr: Expression<string>) {
    return sql<string>`lower(${expr})`;
  }

  distanceKm(lat: Expression<number | null>, lng: Expression<number | null>, toLat: number, toLng: number) {
    const lat0 = sql`cast(${toLat} as double precision)`;
    const lng0 = sql`cast(${toLng} as double precision)`;
    return sql<number>`(2 * 6371.0088 * asin(least(1, sqrt(power(sin(radians(${lat} - ${lat0}) / 2), 2) + cos(radians(${lat0})) * cos(radians(${lat})) * power(sin(radians(${lng} - ${lng0}) / 2), 2)))))`;
  }

  /**
   * BEGIN … COMMIT on one connection, as Kysely's transactions do, but with `last` sent in the COMMIT's round
   * trip: a statement list without parameters goes by the simple query protocol, in one message; an error in
   * it skips the COMMIT, and the transaction is rolled back.
   */
  writeTransaction<T>(fn: (trx: Kysely<Database>) => Promise<T>, last?: () => ChangeInsert | undefined): Promise<T> {
    return this.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const result = await fn(conn);
        const tail = last?.();
        await sql.raw(tail ? `${tail.sql}; commit` : 'commit').execute(conn);
        return result;
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * The snapshot (`xmin:xmax:xip,…`): the changes of transactions it sees as committed. `seq` cannot stand for
   * it: a transaction that took seq 10 may commit after one that took seq 11, and a reader that had seen 11
   * would skip 10 for ever.
   */
  async changeSnapshot(db: Kysely<Database>): Promise<string> {
    const { rows } = await sql<{ s: string }>`select pg_current_snapshot()::text as s`.execute(db);
    return rows[0].s;
  }

  isChangeSnapshot(snapshot: string): boolean {
    const m = /^(\d{1,19}):(\d{1,19}):((?:\d{1,19},)*\d{1,19})?$/.exec(snapshot);
    return m !== null && snapshot.length <= 4000 && BigInt(m[1]) <= BigInt(m[2]);
  }

  changesBetween(from: string | null, to: string) {
    // the bounds on `tx` are what the index reads; the visibility tests decide
    const [, toXmax] = snapshotBounds(to);
    const upper = sql<SqlBool>`changes.tx < ${toXmax} and pg_visible_in_snapshot(changes.tx::text::xid8, ${to}::pg_snapshot)`;
    if (from === null) return upper;
    const [fromXmin] = snapshotBounds(from);
    return sql<SqlBool>`changes.tx >= ${fromXmin} and ${upper} and not pg_visible_in_snapshot(changes.tx::text::xid8, ${from}::pg_snapshot)`;
  }

  changesAfter(snapshot: string) {
    // (every transaction below xmin had ended when the snapshot was taken: its changes are in it)
    const [xmin] = snapshotBounds(snapshot);
    return sql<SqlBool>`changes.tx >= ${xmin} and not pg_visible_in_snapshot(changes.tx::text::xid8, ${snapshot}::pg_snapshot)`;
  }

  snapshotCovers(snapshot: string, purged: { readonly tx: number }): boolean {
    return BigInt(purged.tx) < BigInt(snapshotBounds(snapshot)[0]);
  }

  async lock(trx: Kysely<Database>, key: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
  }

  async lockPost(trx: Kysely<Database>, id: number): Promise<void> {
    // an occurrence's series too (an occurrence edited alone gets rows of its own, which a change of the series'
    // rule, a split or the series' trash must see), the series first, as its own writers take them (a split's new
    // series has a larger id than the occurrences it adopted)
    await sql`select id from posts where id = ${id} or id = (select series_id from occurrences where id = ${id}) order by id = ${id} for update`.execute(
      trx,
    );
  }

  migrationLock<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      return fn(trx);
    });
  }

  translateError(error: unknown): unknown {
    const code = (error as { code?: unknown })?.code;
    if (typeof code !== 'string') return error;
    const message = (error as Error).message;
    if (code === '23505') return new StorageError('unique', message, error);
    if (code === '23503') return new StorageError('foreign_key', message, error);
    if (code === '40001' || code === '40P01' || code === '55P03') return new StorageError('busy', message, error);
    // data exceptions (a value the column cannot hold): bad input that validation let through
    if (code.startsWith('22')) return new StorageError('invalid_data', message, error);
    if (code.startsWith('08') || code === '57P01' || code === 'ECONNREFUSED') {
      return new StorageError('unavailable', message, error);
    }
    return error;
  }

  /**
   * Deferred to commit time and done once per transaction: writers hold the version row's lock only while
   * they commit, so they do not queue behind each other for their whole transaction (nor wait, holding it, for
   * what another holds); and each connection moves its own stripe of the data version, so concurrent commits do
   * not queue on one row either. One event per transaction is queued, not one per row: the WHEN condition runs as
   * the row is written (not deferred) and lets only the transaction's first row through, so a series' ~5,500 rows
   * in posts, events and occurrences no longer queue ~5,500 calls for the commit (~10 ms of its create; migration
   * 0018). Its flag is transaction-local: a savepoint rolled back takes both its queued event and its flag.
   */
  async createVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void> {
    const stripe = `${DATA_VERSION_STRIPES.first} + pg_backend_pid() % ${DATA_VERSION_STRIPES.count}`;
    await sql
      .raw(
        `create or replace function calendar_first_in_transaction(flag text) returns boolean language sql volatile as $$
           select case when current_setting(flag, true) = 'on' then false else set_config(flag, 'on', true) = 'on' end
         $$`,
      )
      .execute(db);
    for (const [fn, flag, id] of [
      ['bump_data_version', 'calendar.version_bumped', stripe],
      ['bump_credentials_version', 'calendar.credentials_bumped', String(CREDENTIALS_VERSION_ID)],
    ] as const) {
      await sql
        .raw(
          `create or replace function ${fn}() returns trigger language plpgsql as $$
           begin
             if coalesce(current_setting('${flag}', true), '') <> 'on' then
               perform set_config('${flag}', 'on', true);
               update data_version set version = version + 1 where id = ${id};
             end if;
             return null;
           end $$`,
        )
        .execute(db);
    }
    const trigger = (table: string, name: string, fn: string, queued: string) =>
      sql
        .raw(
          `create constraint trigger ${name} after insert or update or delete on ${table} deferrable initially deferred
           for each row when (calendar_first_in_transaction('${queued}')) execute function ${fn}()`,
        )
        .execute(db);
    for (const table of tables) {
      await trigger(table, `${table}_version`, 'bump_data_version', 'calendar.version_queued');
      if (CREDENTIAL_TABLES.includes(table)) {
        await trigger(table, `${table}_credentials_version`, 'bump_credentials_version', 'calendar.credentials_queued');
      }
    }
  }

  /**
   * Inserts and deletes count per statement, from transition tables: a series' ~1,800 occurrences are one
   * grouped upsert instead of 1,800 calls of a row trigger (30 ms of a series' creation). Updates stay per row
   * (PostgreSQL gives no transition tables to a trigger on some columns), and only for rows whose counted
   * columns changed.
   */
  async createDayCountTriggers(db: Kysely<any>, seriesAware = true): Promise<void> {
    const counted = (row: string) => (seriesAware ? `${row}.kind <> 'series'` : 'true');
    const key = (row: string) => `${row}.status, ${row}.hide_from_listings, substr(${row}.start_date, 1, 10), substr(${row}.end_date, 1, 10)`;
    await sql
      .raw(
        `create or replace function add_event_day_counts() returns trigger language plpgsql as $$
         begin
           insert into event_day_counts (status, hidden, start_day, end_day, n)
           select ${key('r')}, count(*) from new_rows r where ${counted('r')}
           group by ${key('r')} order by ${key('r')}
           on conflict (status, hidden, start_day, end_day) do update set n = event_day_counts.n + excluded.n;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create or replace function remove_event_day_counts() returns trigger language plpgsql as $$
         begin
           update event_day_counts d set n = d.n - o.n
           from (select ${key('r')}, count(*) as n from old_rows r where ${counted('r')} group by ${key('r')}) as o (status, hidden, start_day, end_day, n)
           where d.status = o.status and d.hidden = o.hidden and d.start_day = o.start_day and d.end_day = o.end_day;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create or replace function keep_event_day_counts() returns trigger language plpgsql as $$
         begin
           if ${counted('old')} then
             update event_day_counts set n = n - 1
             where status = old.status and hidden = old.hide_from_listings
               and start_day = substr(old.start_date, 1, 10) and end_day = substr(old.end_date, 1, 10);
           end if;
           if ${counted('new')} then
             insert into event_day_counts (status, hidden, start_day, end_day, n)
             values (new.status, new.hide_from_listings, substr(new.start_date, 1, 10), substr(new.end_date, 1, 10), 1)
             on conflict (status, hidden, start_day, end_day) do update set n = event_day_counts.n + 1;
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        'create trigger events_day_counts_insert after insert on events referencing new table as new_rows for each statement execute function add_event_day_counts()',
      )
      .execute(db);
    await sql
      .raw(
        'create trigger events_day_counts_delete after delete on events referencing old table as old_rows for each statement execute function remove_event_day_counts()',
      )
      .execute(db);
    const columns = ['status', 'hide_from_listings', 'start_date', 'end_date', ...(seriesAware ? ['kind'] : [])];
    await sql
      .raw(
        `create trigger events_day_counts after update of ${columns.join(', ')} on events for each row
         when (${columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ')})
         execute function keep_event_day_counts()`,
      )
      .execute(db);
  }

  /**
   * The day counts of plain occurrences (migration 0023). Per statement for every operation: their writes come a
   * series at a time (~1,800 rows for a daily one: its creation, a new status or new times for all of them).
   */
  async createOccurrenceDayCountTriggers(db: Kysely<any>): Promise<void> {
    const key = (row: string) => `${row}.status, ${row}.hidden, substr(${row}.start_date, 1, 10), substr(${row}.end_date, 1, 10)`;
    const plain = (row: string) => `${row}.own_rows = 0 and ${row}.state = 'active'`;
    const add = (table: string) => `
      insert into event_day_counts (status, hidden, start_day, end_day, n)
      select ${key('r')}, count(*) from ${table} r where ${plain('r')}
      group by ${key('r')} order by ${key('r')}
      on conflict (status, hidden, start_day, end_day) do update set n = event_day_counts.n + excluded.n;`;
    const remove = (table: string) => `
      update event_day_counts d set n = d.n - o.n
      from (select ${key('r')}, count(*) as n from ${table} r where ${plain('r')} group by ${key('r')}) as o (status, hidden, start_day, end_day, n)
      where d.status = o.status and d.hidden = o.hidden and d.start_day = o.start_day and d.end_day = o.end_day;`;
    const fn = (name: string, body: string) =>
      sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`).execute(db);
    await fn('add_occurrence_day_counts', add('new_rows'));
    await fn('remove_occurrence_day_counts', remove('old_rows'));
    await fn('keep_occurrence_day_counts', remove('old_rows') + add('new_rows'));
    const trigger = (name: string, op: string, tables: string, fnName: string) =>
      sql.raw(`create trigger ${name} after ${op} on occurrences referencing ${tables} for each statement execute function ${fnName}()`).execute(db);
    await trigger('occurrences_day_counts_insert', 'insert', 'new table as new_rows', 'add_occurrence_day_counts');
    await trigger('occurrences_day_counts_delete', 'delete', 'old table as old_rows', 'remove_occurrence_day_counts');
    await trigger('occurrences_day_counts_update', 'update', 'old table as old_rows new table as new_rows', 'keep_occurrence_day_counts');
  }

  /**
   * The month counts move at commit, not as the day counts do: a create's day row is its own (two creates share
   * one only on the same day), but its month row is shared with every create in that month, and an update
   * there would hold the row until the transaction ends — concurrent creates of one month would queue behind
   * each other for the rest of their transactions. So each statement that changes day counts notes its month
   * changes, grouped (statement triggers with transition tables: a series' ~1,800 day rows are one note), in
   * a transaction-local setting; a deferred trigger, queued once per transaction as the version's is, adds
   * them up at commit, in key order (no two commits wait on each other in a cycle), holding the rows only
   * while it commits. A savepoint rolled back takes its notes with it (settings are restored). A transaction
   * that notes more than a few kilobytes (recounts, imports) adds them at once instead, and starts again; so
   * does one whose constraints were made immediate (migrations), its fold having run before the note.
   */
  async createMonthCountTriggers(db: Kysely<any>): Promise<void> {
    const month = (column: string) => `substr(${column}, 1, 7)`;
    const group = (rows: string, sign: string) =>
      `select r.status, r.hidden, ${month('r.start_day')} as start_month, ${month('r.end_day')} as end_month, ${sign}r.n as n from ${rows} r`;
    const note = (changes: string) =>
      `perform calendar_note_month_counts((
         select string_agg(json_build_array(c.status, c.hidden, c.start_month, c.end_month, c.n)::text, ',')
         from (select status, hidden, start_month, end_month, sum(n) as n from (${changes}) d
               group by status, hidden, start_month, end_month having sum(n) <> 0) c));`;
    const statements = [
      // the notes (a JSON array's elements, comma-separated) added to event_month_counts (PL/pgSQL, not SQL:
      // it keeps the statement's plan for the session, where a SQL function plans it at every call — a third
      // of what the month counts added to a create, pgbench on the day counts' upsert)
      `create or replace function calendar_add_month_counts(notes text) returns void language plpgsql as $$
       begin
         insert into event_month_counts (status, hidden, start_month, end_month, n)
         select d ->> 0, (d ->> 1)::integer, d ->> 2, d ->> 3, sum((d ->> 4)::integer) from json_array_elements(('[' || notes || ']')::json) d
         group by 1, 2, 3, 4 order by 1, 2, 3, 4
         on conflict (status, hidden, start_month, end_month) do update set n = event_month_counts.n + excluded.n;
       end $$`,
      `create or replace function calendar_note_month_counts(changes text) returns void language plpgsql as $$
       declare
         noted text := coalesce(current_setting('calendar.month_counts', true), '');
       begin
         if changes is null then return; end if;
         noted := case when noted = '' then changes else noted || ',' || changes end;
         -- no fold queued: the constraints are immediate (SET CONSTRAINTS), and this statement's fold has run
         -- already (row triggers fire before statement triggers): nothing later would add these
         if length(noted) > 8192 or current_setting('calendar.month_counts_queued', true) is distinct from 'on' then
           perform calendar_add_month_counts(noted);
           noted := '';
         end if;
         perform set_config('calendar.month_counts', noted, true);
       end $$`,
      `create or replace function fold_month_counts() returns trigger language plpgsql as $$
       declare
         noted text := coalesce(current_setting('calendar.month_counts', true), '');
       begin
         -- a later change of this transaction (after SET CONSTRAINTS … IMMEDIATE) queues a fold of its own
         perform set_config('calendar.month_counts', '', true);
         perform set_config('calendar.month_counts_queued', '', true);
         if noted <> '' then perform calendar_add_month_counts(noted); end if;
         return null;
       end $$`,
      `create or replace function note_month_counts_added() returns trigger language plpgsql as $$
       begin ${note(group('new_rows', ''))} return null; end $$`,
      `create or replace function note_month_counts_removed() returns trigger language plpgsql as $$
       begin ${note(group('old_rows', '-'))} return null; end $$`,
      `create or replace function note_month_counts_changed() returns trigger language plpgsql as $$
       begin ${note(`${group('new_rows', '')} union all ${group('old_rows', '-')}`)} return null; end $$`,
      `create trigger event_day_counts_month_insert after insert on event_day_counts
       referencing new table as new_rows for each statement execute function note_month_counts_added()`,
      `create trigger event_day_counts_month_delete after delete on event_day_counts
       referencing old table as old_rows for each statement execute function note_month_counts_removed()`,
      `create trigger event_day_counts_month_update after update on event_day_counts
       referencing old table as old_rows new table as new_rows for each statement execute function note_month_counts_changed()`,
      `create constraint trigger event_day_counts_month_fold after insert or update or delete on event_day_counts
       deferrable initially deferred for each row when (calendar_first_in_transaction('calendar.month_counts_queued'))
       execute function fold_month_counts()`,
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  }

  /**
   * `event_terms` and `term_ancestors` (migration 0028): inserts and deletes of events and links per statement (a
   * series' ~1,800 occurrences are one insert; an event's links one too), an event's update per row when a column
   * the rows hold changed, terms per row.
   */
  async createEventTermTriggers(db: Kysely<any>): Promise<void> {
    const refile = (ids: string) => `perform refill_event_terms(array(${ids}));`;
    /** A trigger function of these statements. */
    const fn = (body: string) => `() returns trigger language plpgsql as $$ begin ${body} return null; end $$`;
    const functions: Record<string, string> = {
      refill_event_terms: `(ids integer[]) returns void language plpgsql as $$
        begin ${refillEventTerms((c) => `${c} = any(ids)`)} end $$`,
      keep_term_ancestors: fn(`
        if tg_op = 'INSERT' then ${addAncestors('new.id', 'new.parent_id', 'new.taxonomy')}
        elsif tg_op = 'UPDATE' then
          ${moveAncestors('new.id', 'new.parent_id', 'new.taxonomy')}
          ${refile(eventsUnderTerm('new.id'))}
        else
          delete from term_ancestors where term_id = old.id or ancestor_id = old.id;
          delete from event_terms where term_id = old.id;
        end if;`),
      add_link_event_terms: fn(addEventTerms('e.post_id in (select post_id from new_rows)', 'e.series_id in (select post_id from new_rows)')),
      remove_link_event_terms: fn(refile(eventsLinkedThrough('select post_id from old_rows'))),
      add_event_event_terms: fn(addEventTerms('e.post_id in (select post_id from new_rows)', 'e.post_id in (select post_id from new_rows)')),
      remove_event_event_terms: fn('delete from event_terms where post_id in (select post_id from old_rows);'),
      keep_event_event_terms: fn(`
        if (old.kind, old.shared_terms, old.series_id) is distinct from (new.kind, new.shared_terms, new.series_id) then
          ${refile('select new.post_id')}
        else
          update event_terms set status = new.status, hidden = new.hide_from_listings, start_date = new.start_date, end_date = new.end_date
          where post_id = new.post_id;
        end if;`),
    };
    for (const [name, rest] of Object.entries(functions)) await sql.raw(`create or replace function ${name}${rest}`).execute(db);
    const moved = ['status', 'hide_from_listings', 'start_date', 'end_date', 'kind', 'shared_terms', 'series_id'];
    const triggers = [
      'create trigger terms_ancestors after insert or delete on terms for each row execute function keep_term_ancestors()',
      `create trigger terms_move_ancestors after update of parent_id on terms for each row
       when (old.parent_id is distinct from new.parent_id) execute function keep_term_ancestors()`,
      `create trigger term_relationships_add_event_terms after insert on term_relationships referencing new table as new_rows
       for each statement execute function add_link_event_terms()`,
      `create trigger term_relationships_remove_event_terms after delete on term_relationships referencing old table as old_rows
       for each statement execute function remove_link_event_terms()`,
      `create trigger events_add_event_terms after insert on events referencing new table as new_rows
       for each statement execute function add_event_event_terms()`,
      `create trigger events_remove_event_terms after delete on events referencing old table as old_rows
       for each statement execute function remove_event_event_terms()`,
      `create trigger events_keep_event_terms after update of ${moved.join(', ')} on events for each row
       when (${moved.map((c) => `old.${c} is distinct from new.${c}`).join(' or ')}) execute function keep_event_event_terms()`,
    ];
    for (const statement of triggers) await sql.raw(statement).execute(db);
  }

  async dropEventTermTriggers(db: Kysely<any>): Promise<void> {
    const triggers = {
      terms: ['terms_ancestors', 'terms_move_ancestors'],
      term_relationships: ['term_relationships_add_event_terms', 'term_relationships_remove_event_terms'],
      events: ['events_add_event_terms', 'events_remove_event_terms', 'events_keep_event_terms'],
    };
    for (const [table, names] of Object.entries(triggers)) {
      for (const name of names) await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    }
  }

  async dropDayCountTriggers(db: Kysely<any>): Promise<void> {
    for (const name of ['events_day_counts', 'events_day_counts_insert', 'events_day_counts_delete']) {
      await sql.raw(`drop trigger if exists ${name} on events`).execute(db);
    }
  }

  async dropVersionTriggers(db: Kysely<any>, tables: readonly string[]): Promise<void> {
    for (const table of tables) {
      await sql.raw(`drop trigger if exists ${table}_version on ${table}`).execute(db);
      await sql.raw(`drop trigger if exists ${table}_credentials_version on ${table}`).execute(db);
    }
  }

  private droppedIndexes: string[] = [];

  /** Secondary indexes dropped during a bulk load and built again at the end (benchmarks). */
  async beginBulkLoad(): Promise<void> {
    const { rows } = await sql<{ indexname: string; indexdef: string }>`
      select i.indexname, i.indexdef from pg_indexes i
      where i.schemaname = current_schema()
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(this.db);
    for (const r of rows) await sql`drop index ${sql.id(r.indexname)}`.execute(this.db);
    this.droppedIndexes = rows.map((r) => r.indexdef);
  }

  async endBulkLoad(): Promise<void> {
    for (const statement of this.droppedIndexes) await sql.raw(statement).execute(this.db);
    this.droppedIndexes = [];
    // VACUUM as well as ANALYZE: what autovacuum does some time after a load, done before the benchmark reads.
    // Until the visibility map is set, a count that an index alone could answer reads the table too (70,000
    // events near a point in 1M: 287 ms with 33,000 table pages read, 26 ms after VACUUM).
    const { rows } = await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = current_schema()`.execute(this.db);
    for (const { tablename } of rows) await sql`vacuum (analyze) ${sql.id(tablename)}`.execute(this.db);
  }

  /** The next read of the versions, not sent yet: every request that asks before it is sent joins it. */
  private gathering: { promise: Promise<Versions>; resolve: (v: Versions) => void; reject: (e: unknown) => void; atTurnEnd: boolean } | undefined;
  /** Reads sent and not answered yet. */
  private versionReadsOut = 0;
  private versionReadsSent = 0;
  /** Reads of the versions sent since the start (what a test or a profile counts). */
  get versionReads(): number {
    return this.versionReadsSent;
  }

  /**
   * Reads of the versions are coalesced: a request joins the next read to be sent, so it sees every write
   * committed before it arrived, and under load one round trip serves every request of a turn of the event loop.
   * The read is sent at the end of the turn (setImmediate: after the turn's sockets were read), without waiting
   * for the previous turn's read, so a request waits one round trip, not the rest of another's as well; when
   * {@link MAX_VERSION_READS} are out, the next goes when one comes back (a slow database is not sent a read per turn).
   */
  versions(): Promise<Versions> {
    if (this.gathering) return this.gathering.promise;
    let resolve!: (v: Versions) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<Versions>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    const atTurnEnd = this.versionReadsOut < MAX_VERSION_READS;
    this.gathering = { promise, resolve, reject, atTurnEnd };
    if (atTurnEnd) setImmediate(() => this.sendVersionRead());
    return promise;
  }

  private sendVersionRead(): void {
    const round = this.gathering;
    if (!round) return;
    this.gathering = undefined;
    this.versionReadsOut++;
    this.versionReadsSent++;
    this.pool
      // one row of two sums (not a row per stripe): under a poll load there are thousands of reads a second
      .query({
        name: 'versions-summed',
        text: `select coalesce(sum(version) filter (where id <> ${CREDENTIALS_VERSION_ID}), 0)::text,
                      coalesce(sum(version) filter (where id = ${CREDENTIALS_VERSION_ID}), 0)::text from data_version`,
        rowMode: 'array',
      })
      .then((r) => {
        const [data, credentials] = (r.rows as [string, string][])[0];
        return { data: Number(data), credentials: Number(credentials) };
      })
      .then(round.resolve, round.reject)
      .finally(() => {
        this.versionReadsOut--;
        // a read that gathered while MAX_VERSION_READS were out goes now (one due at the turn's end waits for it)
        if (this.gathering && !this.gathering.atTurnEnd && this.versionReadsOut < MAX_VERSION_READS) this.sendVersionRead();
      });
  }

  /** Statements never hold the event loop here (each is a round trip): as any read. */
  async readApart(db: Kysely<Database>, query: CompiledQuery): Promise<Row[]> {
    return (await db.executeQuery(query)).rows as Row[];
  }

  /**
   * One statement for all the reads: `select (select coalesce(json_agg(r0), '[]') from (<read 0>) r0) as p0, …`,
   * each read's parameters renumbered after the ones before. A read's rows come back as its own statement gives
   * them (the driver reads every integer and numeric as a number, and these tables hold no dates, only text), in its
   * order: a subquery with ORDER BY is not merged into the one around it, and `json_agg` has no parallel form.
   */
  async readTogether(db: Kysely<Database>, queries: readonly CompiledQuery[]): Promise<Row[][]> {
    if (queries.length === 0) return [];
    if (queries.length === 1) return [(await db.executeQuery(queries[0])).rows as Row[]];
    const parameters: unknown[] = [];
    for (const query of queries) parameters.push(...query.parameters);
    // (the texts are few — a list's count and page, per filter — and renumbering one took ~1.5 % of an uncached
    // list's time: each combination is written once)
    const key = queries.map((q) => `${q.parameters.length}:${q.sql}`).join('\u0000');
    let text = togetherTexts.get(key);
    if (text === undefined) {
      let offset = 0;
      const columns = queries.map((query, i) => {
        const renumbered = renumberParameters(query.sql, offset);
        offset += query.parameters.length;
        return `(select coalesce(json_agg(r${i}), '[]'::json) from (${renumbered}) r${i}) as p${i}`;
      });
      text = `select ${columns.join(', ')}`;
      if (togetherTexts.size >= MAX_TOGETHER_TEXTS) togetherTexts.clear();
      togetherTexts.set(key, text);
    }
    const { rows } = await db.executeQuery<Record<string, Row[]>>(CompiledQuery.raw(text, parameters));
    return queries.map((_, i) => rows[0][`p${i}`]);
  }

  /** Analyzes the tables that have rows but no statistics yet (after a bulk load); autovacuum does the rest. */
  async optimize(): Promise<void> {
    const { rows } = await sql<{ relname: string }>`
      select relname from pg_stat_user_tables
      where schemaname = current_schema() and n_live_tup > 0 and coalesce(last_analyze, last_autoanalyze) is null`.execute(this.db);
    for (const { relname } of rows) await sql`analyze ${sql.id(relname)}`.execute(this.db);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/**
 * A statement's `$n` parameters as `$(n + offset)`, outside quoted strings and names (PostgreSQL's placeholders,
 * as the query builder and stores/statement.ts write them).
 */
export function renumberParameters(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g, (match, n: string | undefined) =>
    n === undefined ? match : `$${Number(n) + offset}`,
  );
}

/** `xmin` and `xmax` of a snapshot's text, as strings (xid8 values may pass 2^53). */
function snapshotBounds(snapshot: string): [string, string] {
  const [xmin = '0', xmax = '0'] = snapshot.split(':');
  return [xmin, xmax];
}
