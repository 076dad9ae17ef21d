/**
 * The original's iCalendar URLs (FEATURES.md §3.4): `?ical=1` (or `?outlook-ical=1`) on a calendar view or an
 * event's page answers with the equivalent feed, so subscriptions made on a site running the original keep
 * working after it moves here. They are rewritten before routing (like the `/wp-json` paths) to the REST feed
 * with the view's filters, so both answer the same bytes, with the same caching and the same rights. The file comes
 * as a download (`download=1`: `Content-Disposition: attachment`), as the original sends every `?ical=1` answer
 * (its "Export .ics file" links download it; fixtures/tec-6.17/index.json), where the REST feeds are inline.
 *
 * Views: `/events/` and `/events/list/` (the default window), `/events/month/[YYYY-MM/]`, `/events/today/` and
 * `/events/YYYY-MM-DD/` (one day), each also under `/events/category/<slug>/` and `/events/tag/<slug>/`;
 * `/event/<slug>/` (one event or series); `/?post_type=tribe_events&ical=1`, with the view in WordPress' query
 * variables (`eventDisplay=month&eventDate=2025-03`, `eventDisplay=day&eventDate=2025-03-08`, `tribe_events_cat=<slug>`,
 * `tag=<slug>`; other views, Pro's week, photo and map, as the list).
 */
import { NAMESPACE } from '../../urls.js';

const ICAL_PARAMS = new Set(['ical', 'outlook-ical']);

/** What the original's `?ical=1` answers are: a download (the REST feed's `download` argument). */
export const ICAL_DOWNLOAD = { download: '1' } as const;

/** Whether a page's query asks for the original's iCalendar file (`?ical=1` or `?outlook-ical=1`). */
export function asksForIcal(query: Record<string, unknown>): boolean {
  return [...ICAL_PARAMS].some((p) => query[p] === '1');
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

const MONTH = /^(\d{4})-(\d{2})$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The window of a view segment (`month/2027-03`, `2027-03-05`, `today`…), or undefined for the default window.
 * `picked`: the filter bar's date (`date`, `tribe-bar-date`), which a view without a date of its own shows — the
 * month of the month view, the day of today's, and the list from that day on (as the pages do).
 */
function viewWindow(view: string[], today: { year: number; month: number; day: number }, picked?: string): Record<string, string> | undefined | null {
  const pickedDay = picked !== undefined && DAY.test(picked) ? picked : undefined;
  const pickedMonth = picked !== undefined && (MONTH.test(picked) || pickedDay) ? MONTH.exec(picked.slice(0, 7)) : null;
  if (view.length === 0 || (view.length === 1 && view[0] === 'list')) {
    return pickedDay ? { start_date: pickedDay } : pickedMonth ? { start_date: `${pickedMonth[0]}-01` } : undefined;
  }
  if (view[0] === 'month' && view.length <= 2) {
    const m = view.length === 2 ? MONTH.exec(view[1]) : (pickedMonth ?? ['', String(today.year), pad(today.month)]);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return null;
    const [y, mo] = [Number(m[1]), Number(m[2])];
    return { start_date: `${m[1]}-${m[2]}-01`, end_date: `${m[1]}-${m[2]}-${pad(lastDay(y, mo))}` };
  }
  if (view.length === 1 && (view[0] === 'today' || DAY.test(view[0]))) {
    const day = view[0] === 'today' ? (pickedDay ?? `${today.year}-${pad(today.month)}-${pad(today.day)}`) : view[0];
    return { start_date: day, end_date: day };
  }
  return null;
}

/**
 * The REST feed URL a calendar URL with `ical=1` stands for; the URL itself when it is not one. `today` is the
 * site's current date (for `/events/month/` and `/events/today/`); `eventPages`: an event's page (PAGES on)
 * answers its `?ical=1` itself.
 */
export function icalAliasUrl(url: string, today: () => { year: number; month: number; day: number }, eventPages = false): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  if (!asksForIcal(Object.fromEntries(params))) return url;
  const segments = url
    .slice(0, at)
    .split('/')
    .filter((s) => s !== '');
  const query = new URLSearchParams([...params].filter(([k]) => !ICAL_PARAMS.has(k)));
  // the pages' own filter names (web/page-filters.ts), and the original's filter bar's, as the feed's
  const keyword = params.get('keyword') ?? params.get('tribe-bar-search');
  const picked = params.get('date') ?? params.get('tribe-bar-date') ?? undefined;
  for (const name of ['keyword', 'tribe-bar-search', 'date', 'tribe-bar-date']) query.delete(name);
  if (keyword !== null && keyword.trim() !== '') query.set('search', keyword.trim());
  const feed = (path: string, extra: Record<string, string> = {}) => {
    for (const [k, v] of Object.entries({ ...extra, ...ICAL_DOWNLOAD })) query.set(k, v);
    const qs = query.toString();
    return `/${NAMESPACE}${path}${qs ? `?${qs}` : ''}`;
  };
  if (segments.length === 0) {
    if (params.get('post_type') !== 'tribe_events') return url;
    // the view as WordPress' query variables name it: `eventDisplay=month&eventDate=2025-03`, `eventDisplay=day&eventDate=…`
    const display = params.get('eventDisplay');
    const date = params.get('eventDate');
    const category = params.get('tribe_events_cat');
    const tag = params.get('tag');
    for (const name of ['post_type', 'eventDisplay', 'eventDate', 'tribe_events_cat', 'tag']) query.delete(name);
    const view = display === 'month' ? ['month', ...(date ? [date.slice(0, 7)] : [])] : display === 'day' ? [date ?? 'today'] : [];
    const window = viewWindow(view, today());
    if (window === null) return url;
    return feed('/events.ics', { ...(category ? { categories: category } : {}), ...(tag ? { tags: tag } : {}), ...(window ?? {}) });
  }
  // (one occurrence's page, `/event/<slug>/<YYYY-MM-DD>/`, is answered by the page route: such a path may be an
  // imported Pro occurrence's, which redirects.routes.ts sends to the event it became, query and all)
  // (with the pages on, an event's page answers its own `?ical=1`: an unknown slug is the 404 page there, and an
  // imported event's old slug redirects to its page here first, query and all — see entity.routes.ts)
  if (segments[0] === 'event' && segments.length === 2) return eventPages ? url : feed(`/events/by-slug/${segments[1]}.ics`);
  if (segments[0] !== 'events') return url;
  let rest = segments.slice(1);
  const filter: Record<string, string> = {};
  if ((rest[0] === 'category' || rest[0] === 'tag') && rest.length >= 2) {
    try {
      filter[rest[0] === 'category' ? 'categories' : 'tags'] = decodeURIComponent(rest[1]);
    } catch {
      return url;
    }
    rest = rest.slice(2);
  }
  const window = viewWindow(rest, today(), picked);
  if (window === null) return url;
  return feed('/events.ics', { ...filter, ...(window ?? {}) });
}
