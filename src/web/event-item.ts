/**
 * What a calendar page shows of one event or occurrence: plain values (text, URLs, formatted times) that the
 * templates escape as they write them. Titles and text are taken as stored (plain text), never the API's
 * HTML-entity forms, so nothing is escaped twice.
 */
import { htmlToText } from '../domain/content/html.js';
import { formatCost } from '../domain/events/cost.js';
import type { EventView } from '../domain/events/event.service.js';
import type { Urls } from '../http/urls.js';
import { eventPermalink } from '../serializers/event.serializer.js';
import { type ShownTimes, shownTimes } from './format.js';
import type { GridItem } from './month-grid.js';

export interface EventItem extends GridItem {
  readonly title: string;
  readonly url: string;
  readonly times: ShownTimes;
  /** Covers more than one day (drawn as a bar in the month grid). */
  readonly multiDay: boolean;
  readonly featured: boolean;
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

export function eventItem(view: EventView, urls: Urls, currentYear: number): EventItem {
  const e = view.record;
  const times = shownTimes(e, currentYear);
  return {
    id: e.id,
    firstDay: times.firstDay,
    lastDay: times.lastDay,
    title: htmlToText(e.title),
    url: eventPermalink(view, urls),
    times,
    multiDay: times.lastDay > times.firstDay,
    featured: e.featured,
    venue: view.venue ? htmlToText(view.venue.record.title) : undefined,
    cost: formatCost(e.cost, e.currencySymbol, e.currencyPosition),
    excerpt: plainWords(e.excerpt || e.content, 30),
    imageUrl: view.image?.url,
    seriesId: view.series?.kind === 'occurrence' ? view.series.seriesId : undefined,
    categories: view.categories.map((c) => c.name),
  };
}

/** The month grid's stacking order: bars (multi-day) and all-day items first, longest first, then by start. */
export function stackOrder(a: EventItem, b: EventItem): number {
  const rank = (i: EventItem) => (i.multiDay ? 0 : i.times.allDay ? 1 : 2);
  return (
    rank(a) - rank(b) ||
    a.firstDay.localeCompare(b.firstDay) ||
    b.lastDay.localeCompare(a.lastDay) ||
    a.times.startIso.localeCompare(b.times.startIso) ||
    a.id - b.id
  );
}
