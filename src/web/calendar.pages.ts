/**
 * The data of the three calendar views (FEATURES.md §5.3), read through the event service as the visitor sees
 * them: list (upcoming, paged, or past, newest first), month (the six-week grid) and day. Days are the site's:
 * a view of November shows what overlaps November in the site's zone; an event sits on the days it covers in
 * its own zone, where its times are shown.
 */
import type { Actor } from '../domain/actor.js';
import type { EventListQuery } from '../domain/events/event.js';
import type { Services } from '../domain/services.js';
import type { Urls } from '../http/urls.js';
import { atTimeOfDay, formatUtcMs, getZone, utcMsToZonedWall, zonedWallToUtcMs } from '../time/zones.js';
import { type EventItem, eventItem, type GridEvent, gridEvent, stackOrder } from './event-item.js';
import { addDays, dayKey, dayParts, MONTHS } from './format.js';
import { gridBounds, type MonthGrid, monthGrid } from './month-grid.js';
import type { ResolvedFilters } from './page-filters.js';

export interface PageContext {
  readonly actor: Actor;
  readonly services: Services;
  readonly urls: Urls;
  readonly nowMs: number;
}

/** Events per page of the list view (the original's default, `posts_per_page` 12 in its views). */
export const LIST_PER_PAGE = 12;
/** Events a month cell shows before "+N more" (the original's `month_events_per_day` default, 3). */
export const MONTH_PER_DAY = 3;
/** The most events one month or day view reads. */
export const VIEW_LIMIT = 5000;

export function siteToday(ctx: PageContext): string {
  return dayKey(utcMsToZonedWall(ctx.nowMs, getZone(ctx.services.siteTimezone)));
}

function currentYear(ctx: PageContext): number {
  return Number(siteToday(ctx).slice(0, 4));
}

const midnight = (day: string) => ({ wall: atTimeOfDay(dayParts(day), 0, 0, 0), dateOnly: true });

/** The feed's query for the site's days [first, last], a day either side (another zone's event may sit on them). */
function daysQuery(first: string, last: string, filters: Exclude<ResolvedFilters, { none: true }>) {
  const { none: _none, ...f } = filters;
  // (Object.assign, not a leading spread: see event.service.ts' list)
  return Object.assign({}, f, { start: midnight(addDays(first, -1)), end: midnight(addDays(last, 2)), timeZone: null, limit: VIEW_LIMIT });
}

/** Events overlapping the site's days [first, last], placed on the days they cover in their own zone. */
async function eventsOnDays(ctx: PageContext, first: string, last: string, filters: ResolvedFilters) {
  if (filters.none) return { items: [] as EventItem[], total: 0 };
  const page = await ctx.services.events.feed(ctx.actor, daysQuery(first, last, filters));
  const year = currentYear(ctx);
  const items = page.items
    .filter((v) => !v.record.hideFromListings)
    .map((v) => eventItem(v, ctx.urls, year))
    .filter((i) => i.lastDay >= first && i.firstDay <= last);
  return { items, total: page.total };
}

/** The same for the month grid, from the records alone (a month may hold thousands: nothing embedded is read). */
async function gridEventsOnDays(ctx: PageContext, first: string, last: string, filters: ResolvedFilters) {
  if (filters.none) return { items: [] as GridEvent[], total: 0 };
  const page = await ctx.services.events.feedRecords(ctx.actor, daysQuery(first, last, filters), { withoutText: true });
  const year = currentYear(ctx);
  const items: GridEvent[] = [];
  for (const record of page.records) {
    if (record.hideFromListings) continue;
    const item = gridEvent(record, ctx.urls, year);
    if (item.lastDay >= first && item.firstDay <= last) items.push(item);
  }
  return { items, total: page.total };
}

export interface MonthModel {
  readonly month: string;
  readonly label: string;
  readonly grid: MonthGrid<GridEvent>;
  readonly previous: string;
  readonly next: string;
  readonly truncated: boolean;
  readonly count: number;
}

export function monthLabel(month: string): string {
  const { year, month: m } = dayParts(`${month}-01`);
  return `${MONTHS[m - 1]} ${year}`;
}

function shiftMonth(month: string, by: number): string {
  const { year, month: m } = dayParts(`${month}-01`);
  const d = new Date(Date.UTC(year, m - 1 + by, 1));
  return d.toISOString().slice(0, 7);
}

export async function monthModel(ctx: PageContext, month: string, filters: ResolvedFilters): Promise<MonthModel> {
  const { first, last } = gridBounds(month);
  const { items, total } = await gridEventsOnDays(ctx, first, last, filters);
  items.sort(stackOrder);
  return {
    month,
    label: monthLabel(month),
    grid: monthGrid(month, items, siteToday(ctx), MONTH_PER_DAY),
    previous: shiftMonth(month, -1),
    next: shiftMonth(month, 1),
    truncated: total > VIEW_LIMIT,
    count: items.filter((i) => i.lastDay >= `${month}-01` && i.firstDay <= `${month}-31`).length,
  };
}

export interface DayModel {
  readonly day: string;
  readonly label: string;
  readonly previous: string;
  readonly next: string;
  /** All-day and multi-day events first, then by start. */
  readonly items: readonly EventItem[];
  readonly truncated: boolean;
}

export async function dayModel(ctx: PageContext, day: string, filters: ResolvedFilters): Promise<DayModel> {
  const { items, total } = await eventsOnDays(ctx, day, day, filters);
  items.sort(
    (a, b) => Number(!(a.times.allDay || a.multiDay)) - Number(!(b.times.allDay || b.multiDay)) || a.times.startIso.localeCompare(b.times.startIso),
  );
  const { year, month, day: d } = dayParts(day);
  const weekday = new Date(Date.UTC(year, month - 1, d)).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  return {
    day,
    label: `${weekday}, ${MONTHS[month - 1]} ${d}, ${year}`,
    previous: addDays(day, -1),
    next: addDays(day, 1),
    items,
    truncated: total > VIEW_LIMIT,
  };
}

export interface ListGroup {
  /** `November 2025` */
  readonly label: string;
  readonly items: readonly EventItem[];
}

export interface ListModel {
  readonly past: boolean;
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  readonly groups: readonly ListGroup[];
}

/**
 * Upcoming (ending after now, soonest first) or past (ended, latest first), a page at a time; `from` (a site
 * day): from that day's start instead of now.
 */
export async function listModel(ctx: PageContext, page: number, past: boolean, filters: ResolvedFilters, from?: string): Promise<ListModel> {
  if (filters.none) return { past, page, pages: 0, total: 0, groups: [] };
  const { none: _none, ...f } = filters;
  const now = formatUtcMs(
    from === undefined ? ctx.nowMs : zonedWallToUtcMs(atTimeOfDay(dayParts(from), 0, 0, 0), getZone(ctx.services.siteTimezone)),
  );
  const q: EventListQuery = Object.assign(
    {},
    f,
    { page, perPage: LIST_PER_PAGE, strictDates: true, geolocDistance: 50 },
    past ? { endsBefore: now, newestFirst: true } : { endsAfter: now },
  );
  const result = await ctx.services.events.list(ctx.actor, q);
  const year = currentYear(ctx);
  const groups: { label: string; items: EventItem[] }[] = [];
  for (const view of result.items) {
    const item = eventItem(view, ctx.urls, year);
    const label = monthLabel(item.firstDay.slice(0, 7));
    if (groups.at(-1)?.label !== label) groups.push({ label, items: [] });
    groups[groups.length - 1].items.push(item);
  }
  return { past, page, pages: Math.ceil(result.total / LIST_PER_PAGE), total: result.total, groups };
}
