/**
 * Reads described before they run (issue 17: "fewer round trips per list"). A store hands a read as its compiled
 * statement and the function that turns its rows into the answer; `Storage.readTogether` then runs several of
 * them at once — on PostgreSQL in one statement and one round trip (Dialect.readTogether), on SQLite one after
 * the other, as before. The store's own method runs the same plan alone, so there is one query per read either way.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../database.js';

export type Row = Readonly<Record<string, unknown>>;

export interface PlannedRead<T> {
  /** The statement; none when the answer needs no reading (no ids). */
  readonly query: CompiledQuery | undefined;
  /** The answer from the statement's rows (from no rows when there was no statement). */
  read(rows: readonly Row[]): T;
}

export function planned<T>(query: CompiledQuery | undefined, read: (rows: readonly Row[]) => T): PlannedRead<T> {
  return { query, read };
}

/** Runs one planned read by itself. */
export async function runPlanned<T>(db: Kysely<Database>, plan: PlannedRead<T>): Promise<T> {
  return plan.read(plan.query ? ((await db.executeQuery(plan.query)).rows as Row[]) : []);
}

/** The answers of a tuple of planned reads, in their order. */
export type PlannedAnswers<P extends readonly PlannedRead<unknown>[]> = { -readonly [K in keyof P]: P[K] extends PlannedRead<infer T> ? T : never };
