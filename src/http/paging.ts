/** Paging conventions shared by every collection route. */
import { Type } from '@sinclair/typebox';
import { accept, arg, invalid, type Arg } from './params.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './schemas/common.schemas.js';
import { Urls, type QueryPairs } from './urls.js';

export const pageArg: Arg = arg(Type.Integer({ default: 1, description: 'The page of the result set, from 1.' }), {
  check: (v: number) => (v < 1 ? invalid() : undefined),
});

/** per_page: a positive integer; values above 50 are capped silently, like the original. */
export const perPageArg: Arg = arg(
  Type.Integer({ default: DEFAULT_PER_PAGE, description: `Items per page, at most ${MAX_PER_PAGE}.` }),
  { check: (v: number) => (v < 1 ? invalid() : accept(Math.min(v, MAX_PER_PAGE))) },
);

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

export function totalHeaders(total: number, pages: number): Record<string, number> {
  return { 'X-TEC-Total': total, 'X-TEC-TotalPages': pages };
}

/** A query value as it should appear in an emitted URL: lists as CSV, booleans as 1/0. */
export function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(queryValue).join(',');
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

/**
 * The self/next/previous URLs of a page: `filters` are carried in every one of them (DECISIONS.md: emitted URLs
 * are followable), `page` comes last; page 1 is written without `page` in the previous link.
 */
export function pageLinks(base: string, filters: QueryPairs, page: number, pages: number, selfPage: boolean) {
  const at = (p: number) => Urls.withQuery(base, p === 1 ? filters : [...filters, ['page', p]]);
  return {
    self: selfPage ? Urls.withQuery(base, [...filters, ['page', page]]) : Urls.withQuery(base, filters),
    next: page < pages ? at(page + 1) : undefined,
    previous: page > 1 ? at(Math.min(page - 1, Math.max(pages, 1))) : undefined,
  };
}
