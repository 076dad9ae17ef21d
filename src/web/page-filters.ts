/**
 * The filters of the calendar pages, as their query strings carry them (FEATURES.md §5.3): `categories` and
 * `tags` (slugs or ids, comma-separated), `venue` and `organizer` (ids), `featured=1`, `keyword`, `date`, and
 * the original's `tribe-bar-search` / `tribe-bar-date` from links of a site that moved here. Every filtered view
 * has a URL, so the filter bar works without JavaScript and can be bookmarked.
 */
import type { Actor } from '../domain/actor.js';
import type { Services } from '../domain/services.js';

export interface PageFilters {
  readonly categories: readonly string[];
  readonly tags: readonly string[];
  readonly venue?: number;
  readonly organizer?: number;
  readonly featured: boolean;
  readonly keyword?: string;
  /** `YYYY-MM-DD` or `YYYY-MM`, as given. */
  readonly date?: string;
}

/** The filters resolved to what the event queries take; `none`: a filter names nothing, so nothing matches. */
export type ResolvedFilters =
  | { readonly none: true }
  | {
      readonly none: false;
      readonly categories?: readonly number[];
      readonly tags?: readonly number[];
      readonly venues?: readonly number[];
      readonly organizers?: readonly number[];
      readonly featured?: boolean;
      readonly search?: string;
    };

function text(v: unknown): string | undefined {
  if (Array.isArray(v)) return text(v[v.length - 1]);
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t.slice(0, 200);
}

function list(v: unknown): string[] {
  const parts = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
  return [...new Set(parts.flatMap((p) => p.split(',')).map((p) => p.trim()))].filter((p) => p !== '' && p.length <= 200).slice(0, 20);
}

function id(v: unknown): number | undefined {
  const t = text(v);
  return t !== undefined && /^\d{1,10}$/.test(t) && Number(t) > 0 ? Number(t) : undefined;
}

/** Reads the filters of a page's query string; what does not parse is left out (a page never fails on it). */
export function parsePageFilters(query: Readonly<Record<string, unknown>>): PageFilters {
  const featured = text(query.featured);
  const date = text(query.date) ?? text(query['tribe-bar-date']);
  return {
    categories: list(query.categories ?? query.category),
    tags: list(query.tags ?? query.tag),
    venue: id(query.venue),
    organizer: id(query.organizer),
    featured: featured === '1' || featured === 'true' || featured === 'on',
    keyword: text(query.keyword) ?? text(query['tribe-bar-search']),
    date: date !== undefined && /^\d{4}-\d{2}(-\d{2})?$/.test(date) ? date : undefined,
  };
}

/** The query-string pairs of filters (without `date` unless asked), in a stable order. */
export function filterPairs(f: PageFilters, withDate = false): [string, string][] {
  const out: [string, string][] = [];
  if (f.categories.length > 0) out.push(['categories', f.categories.join(',')]);
  if (f.tags.length > 0) out.push(['tags', f.tags.join(',')]);
  if (f.venue !== undefined) out.push(['venue', String(f.venue)]);
  if (f.organizer !== undefined) out.push(['organizer', String(f.organizer)]);
  if (f.featured) out.push(['featured', '1']);
  if (f.keyword !== undefined) out.push(['keyword', f.keyword]);
  if (withDate && f.date !== undefined) out.push(['date', f.date]);
  return out;
}

export function isFiltered(f: PageFilters): boolean {
  return filterPairs(f).length > 0;
}

/** Slugs (or ids) to term ids; a venue or organizer the visitor may not read matches nothing, as an unknown one. */
export async function resolveFilters(services: Services, actor: Actor, f: PageFilters): Promise<ResolvedFilters> {
  // (at the data version of now, as the API's filters: the tree is kept, and the list's roots are taken from the
  // tree kept last — without a version, from whatever tree an earlier request kept, before the categories moved)
  const categories = f.categories.length > 0 ? await services.categories.resolveFilter(f.categories, await services.dataVersion()) : undefined;
  const tags = f.tags.length > 0 ? await services.tags.resolveFilter(f.tags) : undefined;
  if ((f.categories.length > 0 && !categories?.length) || (f.tags.length > 0 && !tags?.length)) return { none: true };
  for (const [value, type] of [
    [f.venue, 'venue'],
    [f.organizer, 'organizer'],
  ] as const) {
    if (value !== undefined && !(await services.readablePosts(actor, [value], type)).has(value)) return { none: true };
  }
  return {
    none: false,
    categories,
    tags,
    venues: f.venue !== undefined ? [f.venue] : undefined,
    organizers: f.organizer !== undefined ? [f.organizer] : undefined,
    featured: f.featured ? true : undefined,
    search: f.keyword,
  };
}
