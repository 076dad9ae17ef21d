import { type Expression, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';

/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * `expr LIKE pattern ESCAPE '\'`, written so both databases read it the same way.
 * `contains`: anywhere; `prefix`: starts with `text` followed by `suffix` (e.g. `base-` for numbered slugs).
 */
export function likeContains(expr: Expression<string>, text: string, mode: 'contains' | 'prefix', suffix = ''): Expression<SqlBool> {
  const escaped = escapeLike(text) + escapeLike(suffix);
  const pattern = mode === 'contains' ? `%${escaped}%` : `${escaped}%`;
  return sql<SqlBool>`${expr} like ${pattern} escape ${'\\'}`;
}

/** The only characters outside ASCII whose lower case holds ASCII letters (U+212A KELVIN SIGN → k, U+0130 → i̇). */
const ASCII_LOWERING = ['\u212a', '\u0130'] as const;

/**
 * `expr` contains `text` (given lower-cased) whatever the case of either, as `dialect.lower` folds it.
 *
 * On SQLite `lower` is `ulower`, a JavaScript function called for every row a search reads (three columns of each
 * candidate post: at 1M events, 36,725 candidates took ~250 ms to count, ~200 ms without it). SQLite's own LIKE
 * folds ASCII letters, in C. For a text of ASCII only, the two agree on every value but one that holds a character
 * whose lower case is ASCII — the two of ASCII_LOWERING, the whole of Unicode checked — so `expr LIKE` decides,
 * and `ulower` is asked only of values holding one of those. A text with other characters is `ulower`'s alone.
 */
export function containsFolded(dialect: Pick<Dialect, 'name' | 'lower'>, expr: Expression<string>, text: string): Expression<SqlBool> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the range this tests for
  if (dialect.name !== 'sqlite' || !/^[\x00-\x7f]*$/.test(text)) return likeContains(dialect.lower(expr), text, 'contains');
  const pattern = `%${escapeLike(text)}%`;
  const [kelvin, dotted] = ASCII_LOWERING;
  return sql<SqlBool>`(${expr} like ${pattern} escape ${'\\'} or (instr(${expr}, ${kelvin}) + instr(${expr}, ${dotted}) > 0 and ${dialect.lower(expr)} like ${pattern} escape ${'\\'}))`;
}
