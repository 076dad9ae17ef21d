/**
 * Collection routes (every list): the paging arguments, and one helper that writes the envelope, the
 * `X-TEC-Total` / `X-TEC-TotalPages` headers and the self/next/previous URLs. Which filters those URLs carry
 * comes from the route's argument declarations (`carry`), with the effective values the service used
 * (DECISIONS.md: emitted URLs are followable).
 */
import { Type } from '@sinclair/typebox';
import type { ApiError } from '../domain/errors.js';
import { type SerializedItem, withItemsFirst } from './fragments.js';
import { accept, arg, type Carry, domainName, invalid } from './params.js';
import type { RouteContext, RouteResponse } from './route.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './schemas/common.schemas.js';
import { type QueryPairs, Urls } from './urls.js';

export const pageArg = arg(Type.Integer({ description: 'The page of the result set, from 1.' }), {
  default: 1,
  carry: false,
  check: (v: number) => (v < 1 ? invalid() : undefined),
});

/** per_page: a positive integer; values above 50 are capped silently, like the original. */
export const perPageArg = arg(Type.Integer({ description: `Items per page, at most ${MAX_PER_PAGE}.` }), {
  default: DEFAULT_PER_PAGE,
  as: 'perPage',
  check: (v: number) => (v < 1 ? invalid() : accept(Math.min(v, MAX_PER_PAGE))),
});

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** A query value as it should appear in an emitted URL: lists as CSV, booleans as 1/0. */
export function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(queryValue).join(',');
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

/** One page of a list, as a domain service answers it. */
export interface ListPage<T> {
  readonly items: readonly T[];
  readonly total: number;
  /**
   * The filters as applied, by domain name, where they differ from the arguments (computed dates, the status
   * a caller is limited to, an alias merged in); `undefined` leaves a filter out of the emitted URLs.
   */
  readonly effective?: Readonly<Record<string, unknown>>;
  /** How long the answer stays right while nothing is written (the response cache may keep it that long). */
  readonly stableForMs?: number;
}

export interface CollectionOptions<T> {
  /** The envelope key (`events`, `venues`, …) and the route's collection path (`/events/`). */
  readonly key: string;
  readonly path: string;
  readonly page: number;
  readonly perPage: number;
  readonly result: ListPage<T>;
  /** Each item as the answer shows it; or, instead, */
  readonly serialize?: (item: T) => unknown;
  /** the items already serialised, in order (a list assembled from fragments; the `posts` layout only). */
  readonly serialized?: readonly SerializedItem[];
  /**
   * `posts` (events, venues, organizers): items first, `rest_url` with `page` first, a page past the end is
   * `notFound()`. `terms` (categories, tags): as WordPress' term controllers shape it — `rest_url` carries
   * `page` last and only when it was sent, items after the totals.
   */
  readonly layout: 'posts' | 'terms';
  readonly notFound?: () => ApiError;
  /** How arguments without their own `carry` are carried (terms: only those the request named). */
  readonly carryDefault?: Carry;
}

/** The filters an emitted URL carries, in declaration order, with their wire names. */
export function carriedFilters(ctx: RouteContext, effective: Readonly<Record<string, unknown>> = {}, carryDefault: Carry = 'value'): QueryPairs {
  const args = ctx.args as Readonly<Record<string, unknown>>;
  const pairs: (readonly [string, string])[] = [];
  for (const [wire, declared] of Object.entries(ctx.spec.args)) {
    const carry = declared.carry ?? carryDefault;
    if (carry === false) continue;
    const name = domainName(wire, declared);
    let value: unknown;
    if (Object.hasOwn(effective, name)) value = effective[name];
    else if (carry === 'raw') value = ctx.sent[wire];
    else if (carry === 'given') value = wire in ctx.sent ? args[name] : undefined;
    else value = args[name];
    if (value !== undefined && value !== null) pairs.push([wire, queryValue(value)]);
  }
  return pairs;
}

/** The envelope, the paging headers and the followable URLs of one page of a list. */
export function collection<T>(ctx: RouteContext, options: CollectionOptions<T>): RouteResponse {
  const { result, page, perPage } = options;
  if (result.items.length === 0 && page > 1 && options.notFound) throw options.notFound();
  if (result.stableForMs !== undefined) ctx.request.cacheTtlMs = result.stableForMs;
  const pages = totalPages(result.total, perPage);
  const filters = carriedFilters(ctx, result.effective, options.carryDefault);
  const base = ctx.urls.rest(options.path);
  const at = (p: number) => Urls.withQuery(base, p === 1 ? filters : [...filters, ['page', p]]);
  const next = page < pages ? at(page + 1) : undefined;
  const previous = page > 1 ? at(Math.min(page - 1, Math.max(pages, 1))) : undefined;
  const { serialized, serialize } = options;
  if (!serialized && !serialize) throw new Error('a collection serialises its items, or is given them serialised');
  const items = serialized || !serialize ? [] : result.items.map(serialize);

  const body: Record<string, unknown> = {};
  if (options.layout === 'posts') {
    if (!serialized) body[options.key] = items;
    body.rest_url = Urls.withQuery(base, [['page', page], ...filters]);
    if (next) body.next_rest_url = next;
    if (previous) body.previous_rest_url = previous;
    body.total = result.total;
    body.total_pages = pages;
  } else {
    body.rest_url = Urls.withQuery(base, 'page' in ctx.sent ? [...filters, ['page', page]] : filters);
    body.total = result.total;
    body.total_pages = pages;
    body[options.key] = items;
    if (next) body.next_rest_url = next;
    if (previous) body.previous_rest_url = previous;
  }
  const headers = { 'X-TEC-Total': result.total, 'X-TEC-TotalPages': pages };
  if (serialized) {
    if (options.layout !== 'posts') throw new Error('serialized items come first in a body: the posts layout only');
    return { body: withItemsFirst(options.key, serialized, body), headers };
  }
  return { body, headers };
}
