import { type Expression, type SqlBool, sql } from 'kysely';

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
