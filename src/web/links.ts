/**
 * The addresses the pages link to: the views (with their filters), the subscribe menu of a view (the
 * iCalendar feed with the same filters, as `webcal://`, Google's `render?cid=`, Outlook's add-from-web) and an
 * event's "add to calendar" links, as the original's Subscribe menu builds them (FEATURES.md §5.1).
 */
import type { Urls } from '../http/urls.js';
import { filterPairs, type PageFilters } from './page-filters.js';

export type ViewName = 'list' | 'month' | 'day';

/** Where a family of views lives: the whole calendar, a category's or a tag's. */
export interface ViewBase {
  /** `…/events`, `…/events/category/<path>`, `…/events/tag/<slug>` (no trailing slash). */
  readonly path: string;
  /** The category or tag it is filtered by (for headings), if any. */
  readonly term?: { readonly kind: 'category' | 'tag'; readonly name: string; readonly slug: string; readonly id: number };
  /** Views inside the embed: its navigation stays at `/events/embed?view=…` (path: `…/events`). */
  readonly embed?: { readonly filterBar: boolean };
}

function query(pairs: readonly (readonly [string, string])[]): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

export function viewUrl(base: ViewBase, view: ViewName, filters: PageFilters, at?: { date?: string; page?: number; past?: boolean }): string {
  if (base.embed) {
    const pairs: [string, string][] = [['view', view]];
    const date = view === 'month' ? at?.date?.slice(0, 7) : view === 'day' ? at?.date : undefined;
    if (date) pairs.push(['date', date]);
    if (view === 'list' && at?.page && at.page > 1) pairs.push(['page', String(at.page)]);
    if (view === 'list' && at?.past) pairs.push(['past', '1']);
    if (view === 'list' && at?.date) pairs.push(['date', at.date]);
    if (base.embed.filterBar) pairs.push(['filter_bar', '1']);
    return `${base.path}/embed${query([...pairs, ...filterPairs(filters)])}`;
  }
  let path: string;
  if (view === 'month') path = `${base.path}/month/${at?.date ? `${at.date.slice(0, 7)}/` : ''}`;
  else if (view === 'day') path = `${base.path}/${at?.date ? `${at.date}/` : 'today/'}`;
  else path = `${base.path}/list/${at?.page && at.page > 1 ? `page/${at.page}/` : ''}`;
  const pairs = filterPairs(filters);
  if (view === 'list' && at?.past) pairs.push(['eventDisplay', 'past']);
  // (a list from a day on keeps its day from page to page)
  if (view === 'list' && at?.date) pairs.push(['date', at.date]);
  return path + query(pairs);
}

/** The API's names for the page filters (the iCalendar feed and the FullCalendar feed take these). */
export function apiFilterPairs(filters: PageFilters, base: ViewBase): [string, string][] {
  const out: [string, string][] = [];
  const categories = [...filters.categories];
  const tags = [...filters.tags];
  if (base.term?.kind === 'category') categories.unshift(base.term.slug);
  if (base.term?.kind === 'tag') tags.unshift(base.term.slug);
  if (categories.length > 0) out.push(['categories', categories.join(',')]);
  if (tags.length > 0) out.push(['tags', tags.join(',')]);
  if (filters.venue !== undefined) out.push(['venue', String(filters.venue)]);
  if (filters.organizer !== undefined) out.push(['organizer', String(filters.organizer)]);
  if (filters.featured) out.push(['featured', '1']);
  if (filters.keyword !== undefined) out.push(['search', filters.keyword]);
  return out;
}

export interface SubscribeLinks {
  readonly ics: string;
  readonly webcal: string;
  readonly google: string;
  readonly outlookLive: string;
  readonly outlook365: string;
}

function webcal(url: string): string {
  return url.replace(/^https?:\/\//, 'webcal://');
}

export function subscribeLinks(urls: Urls, feedPath: string, pairs: readonly (readonly [string, string])[], name: string): SubscribeLinks {
  const ics = urls.rest(feedPath) + query(pairs);
  const cal = webcal(ics);
  const outlook = (host: string) =>
    `https://${host}/owa?path=${encodeURIComponent('/calendar/action/compose')}&rru=addsubscription&url=${encodeURIComponent(cal)}&name=${encodeURIComponent(name)}`;
  return {
    ics,
    webcal: cal,
    google: `https://calendar.google.com/calendar/render?cid=${encodeURIComponent(cal)}`,
    outlookLive: outlook('outlook.live.com'),
    outlook365: outlook('outlook.office.com'),
  };
}

/** `20251103T140000Z` */
function basicUtc(iso: string): string {
  return iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

export interface AddToCalendar extends SubscribeLinks {
  readonly googleEvent: string;
  readonly outlookLiveEvent: string;
  readonly outlook365Event: string;
}

/** One event: its .ics (also to subscribe to), and Google's and Outlook's "new event" forms filled in. */
export function addToCalendar(
  urls: Urls,
  e: { id: number; title: string; allDay: boolean; firstDay: string; lastDayExclusive: string; startIso: string; endIso: string; timezone: string },
  details: string,
  location: string,
  siteName: string,
): AddToCalendar {
  const feed = subscribeLinks(urls, `/events/${e.id}.ics`, [], siteName);
  const dates = e.allDay
    ? `${e.firstDay.replace(/-/g, '')}/${e.lastDayExclusive.replace(/-/g, '')}`
    : `${basicUtc(e.startIso)}/${basicUtc(e.endIso)}`;
  const google = query([
    ['action', 'TEMPLATE'],
    ['text', e.title],
    ['dates', dates],
    ['details', details],
    ['location', location],
    ['trp', 'false'],
    ...(e.allDay ? [] : ([['ctz', e.timezone]] as [string, string][])),
  ]);
  const outlook = (host: string) =>
    `https://${host}/calendar/0/deeplink/compose${query([
      ['path', '/calendar/action/compose'],
      ['rru', 'addevent'],
      ['subject', e.title],
      ['startdt', e.allDay ? e.firstDay : e.startIso],
      ['enddt', e.allDay ? e.lastDayExclusive : e.endIso],
      ['allday', String(e.allDay)],
      ['body', details],
      ['location', location],
    ])}`;
  return {
    ...feed,
    googleEvent: `https://calendar.google.com/calendar/render${google}`,
    outlookLiveEvent: outlook('outlook.live.com'),
    outlook365Event: outlook('outlook.office.com'),
  };
}
