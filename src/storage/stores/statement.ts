import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';

/**
 * A fixed statement on a hot path (creating an event runs a dozen of them): written once in SQL that both
 * databases read the same, with `?` placeholders, and handed to the driver as it is, without building a query
 * tree per call (the query builder cost more than SQLite spent running these); SQLite reuses its prepared statement
 * for the same text (SqliteDialect's statement cache). `lower(` becomes the dialect's Unicode-aware lower-casing
 * (`LOWER(`, in capitals, stays the database's own, which indexes hold: see name-match.ts), `in :ids` a list
 * of ids (`idList`): one JSON parameter on SQLite, one parameter per id on PostgreSQL, and on SQLite `limit ?`
 * the `limit ? + 0` it plans once.
 */
export class Statement<Row = unknown> {
  readonly text: string;
  /** PostgreSQL, with `in :ids` lists: the text cut at each placeholder (`?` or a list), numbered per call. */
  private readonly pieces: readonly string[] | undefined;

  constructor(dialect: Dialect, text: string) {
    const lowered = text.replace(/\blower\(/g, `${dialect.lowerFunction}(`);
    if (dialect.name !== 'postgres') {
      // a list of ids as one parameter (idList): one text whatever their number; a bound LIMIT as `? + 0`, which
      // SQLite does not plan with (a plain `limit ?` has the statement prepared again at every run: SqliteCompiler)
      this.text = lowered.replace(/\bin :ids\b/g, 'in (select value from json_each(?))').replace(/\blimit \?/g, 'limit ? + 0');
      return;
    }
    let n = 0;
    this.text = lowered.replace(/\?/g, () => `$${++n}`);
    // PostgreSQL plans `in ($1, $2, …)` best: one parameter per id (measured against `= any($1)`, which an
    // event's reads took 50 % longer with, and `in (select unnest($1))`)
    if (/\bin :ids\b/.test(lowered)) this.pieces = lowered.split(/(\?|\bin :ids\b)/);
  }

  /** The statement with these parameters (an `in :ids` list takes an `idList`), to run later (stores/planned.ts). */
  compile(params: readonly unknown[]): CompiledQuery<Row> {
    if (!this.pieces) return CompiledQuery.raw(this.text, [...params]);
    let n = 0;
    let next = 0;
    const values: unknown[] = [];
    const text = this.pieces
      .map((piece, i) => {
        if (i % 2 === 0) return piece;
        const value = params[next++];
        if (piece === '?') {
          values.push(value);
          return `$${++n}`;
        }
        const ids = (value as IdList).ids;
        // (an empty list matches nothing: `x in (null)` is never true)
        if (ids.length === 0) return 'in (null)';
        values.push(...ids);
        return `in (${ids.map(() => `$${++n}`).join(', ')})`;
      })
      .join('');
    return CompiledQuery.raw(text, values);
  }

  async all(db: Kysely<Database>, params: readonly unknown[]): Promise<Row[]> {
    return (await db.executeQuery<Row>(this.compile(params))).rows;
  }

  async first(db: Kysely<Database>, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.all(db, params))[0];
  }

  async run(db: Kysely<Database>, params: readonly unknown[]): Promise<void> {
    await db.executeQuery(this.compile(params));
  }
}

/** A store's fixed statements, built once per dialect (stores themselves are made anew for every transaction). */
export function statementSet<T>(build: (dialect: Dialect) => T): (dialect: Dialect) => T {
  const built = new WeakMap<Dialect, T>();
  return (dialect) => {
    let set = built.get(dialect);
    if (!set) {
      set = build(dialect);
      built.set(dialect, set);
    }
    return set;
  };
}

const byText = statementSet(() => new Map<string, Statement<unknown>>());

/**
 * The Statement of this text, made once per dialect: for hot statements whose text follows a few fixed choices
 * (which columns a write sets, whether a condition applies), written from the store's own column names, never
 * from input (so the texts are few and the map stays small).
 */
export function statementFor<Row = Record<string, unknown>>(dialect: Dialect, text: string): Statement<Row> {
  const known = byText(dialect);
  let statement = known.get(text);
  if (!statement) {
    statement = new Statement<unknown>(dialect, text);
    known.set(text, statement);
  }
  return statement as Statement<Row>;
}

/** Built statements kept per dialect (see builtOnce); the least recently used go past this many. */
const BUILT_KEPT = 500;
const built = statementSet(() => new Map<string, CompiledQuery>());

/**
 * A statement the query builder makes, built once for its key: for reads whose text and parameters follow from
 * plain data (a list's filter, its page), where building the query tree again for the same data cost more than
 * SQLite took to run it (a list's count and page: ~15 % of an uncached list's time at 10k events, issue 17).
 * `key` must name everything `build` reads; a statement is never run from here, only its text and parameters
 * kept. At most BUILT_KEPT per dialect, the least recently used dropped first.
 */
export function builtOnce<Row>(dialect: Dialect, key: string, build: () => CompiledQuery<Row>): CompiledQuery<Row> {
  const kept = built(dialect);
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, found);
    return found as CompiledQuery<Row>;
  }
  // (its text and parameters only: the query tree it was built from is not kept)
  const { sql: text, parameters } = build();
  const query = CompiledQuery.raw(text, [...parameters]) as CompiledQuery<Row>;
  kept.set(key, query);
  if (kept.size > BUILT_KEPT) kept.delete(kept.keys().next().value as string);
  return query;
}

/** `"a" = ?, "b" = ?` for an update of these columns (the store's own names). */
export const assignments = (columns: readonly string[]): string => columns.map((c) => `"${c}" = ?`).join(', ');

/** `?, ?, …` for n values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** A list of ids for PostgreSQL's `in :ids` (see Statement). */
class IdList {
  constructor(readonly ids: readonly number[]) {}
}

/** The parameter of an `in :ids` list (PostgreSQL: the ids, one parameter each; SQLite: a JSON array). */
export function idList(dialect: Dialect, ids: Iterable<number>): IdList | string {
  const unique = [...new Set(ids)].map((id) => Math.trunc(id));
  return dialect.name === 'postgres' ? new IdList(unique) : JSON.stringify(unique);
}
