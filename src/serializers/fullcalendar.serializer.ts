/**
 * FullCalendar event objects (FEATURES.md §5.3, https://fullcalendar.io/docs/event-object) for the JSON feed.
 * Timed events carry their instants with an offset: that of the zone asked for (FullCalendar with a named zone
 * and no zone plugin ignores offsets and shows the wall clock, so it must already be that zone's), or of the
 * event's own zone (FullCalendar in the browser's zone converts). All-day events are dates, the same everywhere,
 * with the exclusive end FullCalendar expects.
 */
import { formatCost } from '../domain/events/cost.js';
import type { EventView } from '../domain/events/event.service.js';
import type { FeedEvent } from '../http/routes/events/events.schemas.js';
import type { Urls } from '../http/urls.js';
import { atTimeOfDay, findZone, formatIsoWithOffset, getZone, parseWall, wallToMs } from '../time/zones.js';
import { eventPermalink } from './event.serializer.js';

/** The day after a stored all-day end (`YYYY-MM-DD 23:59:59`): FullCalendar's exclusive end. */
function dayAfter(stored: string): string {
  const w = parseWall(stored);
  return new Date(wallToMs(atTimeOfDay(w, 0, 0, 0)) + 86_400_000).toISOString().slice(0, 10);
}

/** One event or occurrence; `zone`: the zone asked for (undefined: the event's own). */
export function serializeFeedEvent(view: EventView, urls: Urls, zone: string | undefined): FeedEvent {
  const e = view.record;
  const occurrence = view.series?.kind === 'occurrence' ? view.series : undefined;
  let start: string;
  let end: string;
  if (e.allDay) {
    start = e.startDate.slice(0, 10);
    end = dayAfter(e.endDate);
  } else {
    const shown = getZone(zone ?? (findZone(e.timezone) ? e.timezone : 'UTC'));
    start = formatIsoWithOffset(wallToMs(parseWall(e.startUtc)), shown);
    end = formatIsoWithOffset(wallToMs(parseWall(e.endUtc)), shown);
  }
  return {
    id: String(e.id),
    ...(occurrence ? { groupId: String(occurrence.seriesId) } : {}),
    title: e.title,
    start,
    end,
    allDay: e.allDay,
    url: eventPermalink(view, urls),
    extendedProps: {
      venue: view.venue ? view.venue.record.title : null,
      organizers: view.organizers.map((o) => o.record.title),
      categories: view.categories.map((t) => t.slug),
      tags: view.tags.map((t) => t.slug),
      cost: formatCost(e.cost, e.currencySymbol, e.currencyPosition),
      featured: e.featured,
      timezone: e.timezone,
      rest_url: urls.rest(`/events/${e.id}`),
      ...(occurrence ? { series_id: occurrence.seriesId, occurrence_key: occurrence.key } : {}),
    },
  };
}
