/**
 * Case-insensitive equality that an index can serve (migration 0010): the database's own `lower()` on both
 * sides, which the index holds, and the Unicode-aware one on top. SQLite's `lower()` folds ASCII only, so
 * there a value whose case differs in other letters (CAFÉ / café) is not found by the narrowed lookup: the
 * caller looks again without the index when a value has such letters and nothing was found.
 */
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';

export function caseInsensitiveEquals(dialect: Dialect, column: Expression<string | null>, value: string, indexed: boolean): Expression<SqlBool> {
  const exact = sql<SqlBool>`${dialect.lower(column as Expression<string>)} = ${value.toLowerCase()}`;
  return indexed ? sql<SqlBool>`lower(${column}) = lower(${value}) and ${exact}` : exact;
}

/**
 * The same condition for a fixed statement (stores/statement.ts, where `lower(` is the dialect's Unicode-aware
 * lower-casing and `LOWER(` the database's own): its text for `column` and its parameters, in order.
 */
export function caseInsensitiveText(column: string, value: string, indexed: boolean): { text: string; params: string[] } {
  const exact = `lower(${column}) = ?`;
  return indexed
    ? { text: `LOWER(${column}) = LOWER(?) and ${exact}`, params: [value, value.toLowerCase()] }
    : { text: exact, params: [value.toLowerCase()] };
}

/** Whether a lookup narrowed by the index may have missed a match (see above). */
export function needsUnindexedLookup(dialect: Dialect, value: string): boolean {
  return !dialect.foldsEveryScript && /[^\u0020-\u007e]/.test(value);
}
