/**
 * Walking a site's lists (FEATURES.md §6.3, CONTRACT.md §3–5), with the original's traps handled:
 * - categories and tags are asked for with `hide_empty=false` (else empty terms are hidden) and paged by our
 *   own `page=N`: their `next_rest_url` drops every filter (`…/categories/?page=2`);
 * - events and linked posts follow `next_rest_url` only when it keeps every parameter we sent: it drops
 *   `strict_dates` and term filters, and for editors carries `status=any`, which the same endpoint refuses
 *   with a 400; otherwise the next page is our own query with `page=N`;
 * - a page past the end is a 404 (`…-archive-page-not-found`), not an error.
 * Event windows: a probe of the whole span first (its total is the number of events the site lists, and its
 * first and last events bound the years), yearly windows with `strict_dates` over those years, and, when
 * they hold fewer events than the total (with `strict_dates` an event crossing a year edge is in no yearly
 * window), one sweep over the whole span without `strict_dates` until every listed event has been found.
 */
import { type TecClient, TecHttpError, wpErrorCode } from './tec.client.js';
import { apiUrl, type Site } from './tec.discovery.js';
import { type Json, list, obj, str } from './tec.mapper.js';

export type Params = readonly (readonly [string, string])[];

export const encodeQuery = (params: Params): string => params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

export interface Page {
  readonly items: Json[];
  /** X-TEC-Total (or the body's `total`). */
  readonly total: number;
  readonly totalPages: number;
  readonly nextRestUrl: string | null;
}

/** One page of a list; `null` when the page is past the end (the original's 404). */
export async function fetchPage(client: TecClient, url: string, key: string): Promise<Page | null> {
  const res = await client.getJson(url);
  const body = obj(res.json);
  if (res.status === 200 && body && Array.isArray(body[key])) {
    const header = Number(res.headers['x-tec-total']);
    const total = Number.isFinite(header) && res.headers['x-tec-total'] !== undefined ? header : Number(body.total ?? list(body[key]).length);
    const pages = Number(res.headers['x-tec-totalpages'] ?? body.total_pages ?? 1);
    return { items: list(body[key]), total, totalPages: Number.isFinite(pages) ? pages : 1, nextRestUrl: str(body, 'next_rest_url') || null };
  }
  const code = wpErrorCode(res.json);
  if (res.status === 404 && code.endsWith('archive-page-not-found')) return null;
  const what =
    res.json === undefined ? `${String(res.headers['content-type'] ?? 'no content type').split(';')[0]}, not JSON` : code || `no "${key}" list`;
  throw new TecHttpError(url, res.status, code, `${url} answered HTTP ${res.status} (${what})`);
}

const decodedPairs = (search: string) =>
  search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const [k, v = ''] = p.split('=');
      const d = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      return [d(k), d(v)] as const;
    });

/**
 * The URL of the page after `page`: the site's `next_rest_url` when it asks for what we asked for (all our
 * parameters with their values, nothing else but `page` and a `status` other than `any`), else our own query.
 */
export function nextPageUrl(site: Site, path: string, params: Params, page: Page, pageNo: number, follow: boolean): string | null {
  const more = page.nextRestUrl !== null || pageNo < page.totalPages;
  if (!more || page.items.length === 0) return null;
  if (follow && page.nextRestUrl) {
    try {
      const next = new URL(page.nextRestUrl);
      const pairs = decodedPairs(next.search);
      const got = new Map(pairs);
      const keeps = params.every(([k, v]) => got.get(k) === v);
      const extra = pairs.filter(([k]) => !params.some(([p]) => p === k));
      const harmless = extra.every(([k, v]) => k === 'page' || (k === 'status' && v !== 'any' && !v.split(',').includes('any')));
      if (keeps && harmless && got.get('page') === String(pageNo + 1) && next.origin === new URL(site.apiRoot).origin) return next.href;
    } catch {
      // not a URL: ours then
    }
  }
  return apiUrl(site, path, encodeQuery([...params, ['page', String(pageNo + 1)]]));
}

export interface WindowSpec {
  readonly key: string;
  readonly params: Params;
}

const PER_PAGE = '50';
export const SPAN_END = '2099-12-31 23:59:59';

/** The probe of the whole span: its total is what the site lists; page 1 and page `total` are its ends. */
export function spanUrl(site: Site, since: string, page?: number): string {
  const params: [string, string][] = [
    ['start_date', `${since} 00:00:00`],
    ['end_date', SPAN_END],
    ['per_page', '1'],
  ];
  if (page !== undefined) params.push(['page', String(page)]);
  return apiUrl(site, '/events', encodeQuery(params));
}

/** Yearly windows with exact instants (`strict_dates`), the first from `since`. */
export function yearlyWindows(since: string, fromYear: number, toYear: number): WindowSpec[] {
  const out: WindowSpec[] = [];
  for (let year = fromYear; year <= toYear; year++) {
    const start = year === fromYear ? since : `${year}-01-01`;
    out.push({
      key: `year:${year}`,
      params: [
        ['start_date', `${start} 00:00:00`],
        ['end_date', `${year}-12-31 23:59:59`],
        ['strict_dates', 'true'],
        ['per_page', PER_PAGE],
      ],
    });
  }
  return out;
}

/**
 * The sweep: the whole span by whole days. Authenticated, with the statuses listed: the original's
 * `next_rest_url` for editors says `status=any`, which it refuses; a list survives paging.
 */
export function sweepWindow(since: string, toYear: number, authenticated: boolean): WindowSpec {
  const params: [string, string][] = [
    ['start_date', `${since} 00:00:00`],
    ['end_date', `${toYear}-12-31 23:59:59`],
  ];
  if (authenticated) params.push(['status', 'publish,future,draft,pending,private']);
  params.push(['per_page', PER_PAGE]);
  return { key: 'sweep', params };
}

export const termQuery = (page: number): Params => [
  ['hide_empty', 'false'],
  ['per_page', PER_PAGE],
  ...(page > 1 ? ([['page', String(page)]] as const) : []),
];

export const linkedQuery: Params = [['per_page', PER_PAGE]];
