/**
 * What a calendar page shows of one event or occurrence: plain values (text, URLs, formatted times) that the
 * templates escape as they write them. Titles and text are taken as stored (plain text), never the API's
 * HTML-entity forms, so nothing is escaped twice.
 */
import { htmlToText, termText } from '../domain/content/html.js';
import { formatCost } from '../domain/events/cost.js';
import type { EventRecord } from '../domain/events/event.js';
import type { EventView } from '../domain/events/event.service.js';
import type { Urls } from '../http/urls.js';
import { eventPermalink } from '../serializers/event.serializer.js';
import { type ShownTimes, shownTimes } from './format.js';
import type { GridItem } from './month-grid.js';

/** What the month grid shows of an event: read from its record alone, nothing embedded. */
export interface GridEvent extends GridItem {
  readonly title: string;
  readonly url: string;
  readonly times: ShownTimes;
  /** Covers more than one day (drawn as a bar in the month grid). */
  readonly multiDay: boolean;
  readonly featured: boolean;
}

/** What the list, the day and the single pages show of an event. */
export interface EventItem extends GridEvent {
  readonly venue: string | undefined;
  readonly cost: string;
  /** Plain text, at most ~30 words. */
  readonly excerpt: string;
  readonly imageUrl: string | undefined;
  /** The series it belongs to (occurrences). */
  readonly seriesId: number | undefined;
  readonly categories: readonly string[];
}

function plainWords(html: string, words: number): string {
  const text = html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const parts = text.split(' ');
  return parts.length > words ? `${parts.slice(0, words).join(' ')}…` : text;
}

export function gridEvent(record: EventRecord, urls: Urls, currentYear: number): GridEvent {
  const times = shownTimes(record, currentYear);
  return {
    id: record.id,
    firstDay: times.firstDay,
    lastDay: times.lastDay,
    title: htmlToText(record.title),
    url: eventPermalink({ record }, urls),
    times,
    multiDay: times.lastDay > times.firstDay,
    featured: record.featured,
  };
}

export function eventItem(view: EventView, urls: Urls, currentYear: number): EventItem {
  const e = view.record;
  // (Object.assign, not a leading spread: on Node 20 each key written after one costs ~1 µs, per item here)
  return Object.assign(gridEvent(e, urls, currentYear), {
    venue: view.venue ? htmlToText(view.venue.record.title) : undefined,
    cost: formatCost(e.cost, e.currencySymbol, e.currencyPosition),
    excerpt: plainWords(e.excerpt || e.content, 30),
    imageUrl: view.image?.url,
    seriesId: view.series?.kind === 'occurrence' ? view.series.seriesId : undefined,
    categories: view.categories.map((c) => termText(c.name)),
  });
}

/** The month grid's stacking order: bars (multi-day) and all-day items first, longest first, then by start. */
export function stackOrder(a: GridEvent, b: GridEvent): number {
  const rank = (i: GridEvent) => (i.multiDay ? 0 : i.times.allDay ? 1 : 2);
  return (
    rank(a) - rank(b) ||
    a.firstDay.localeCompare(b.firstDay) ||
    b.lastDay.localeCompare(a.lastDay) ||
    a.times.startIso.localeCompare(b.times.startIso) ||
    a.id - b.id
  );
}
