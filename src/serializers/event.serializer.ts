/**
 * The event object of CONTRACT.md §2.1: every key, in the original's order, with its types (author as a
 * string, date details as zero-padded strings, `venue` `[]` when none, `image` false when none). `json_ld` only
 * for single reads. Typed from the Event schema: a key missing here fails to compile.
 */
import { autop, escHtml, texturize } from '../domain/content/html.js';
import { costNumbers, costText, costValues, formatCost } from '../domain/events/cost.js';
import type { EventView } from '../domain/events/event.service.js';
import { answeredUtcDates } from '../domain/posts/status.js';
import { CATEGORIES, TAGS } from '../domain/terms/term.js';
import type { EventResponse } from '../http/routes/events/events.schemas.js';
import type { DateDetails } from '../http/schemas/components.schemas.js';
import type { Urls } from '../http/urls.js';
import { formatIsoWithOffset, getZone, parseWall, wallToMs } from '../time/zones.js';
import { eventSchedule } from './event-schedule.js';
import { globalIds } from './global-id.js';
import { serializeImage } from './image.serializer.js';
import { jsonLdDescription } from './json-ld-text.js';
import { organizerJsonLd, serializeOrganizer, serializeVenue, venueJsonLd } from './linked.serializer.js';
import { serializeEmbeddedTerm } from './term.serializer.js';

export function dateDetails(value: string): DateDetails {
  return {
    year: value.slice(0, 4),
    month: value.slice(5, 7),
    day: value.slice(8, 10),
    hour: value.slice(11, 13),
    minutes: value.slice(14, 16),
    seconds: value.slice(17, 19),
  };
}

/** The event's page; an occurrence's is its series' page for the day it starts (`/event/<slug>/<YYYY-MM-DD>/`). */
export function eventPermalink(view: Pick<EventView, 'record'>, urls: Urls): string {
  const page = urls.permalink('event', view.record.slug, view.record.id, view.record.status);
  // (the day goes after a pretty link only: not after `/?p=<id>` or a draft's query form)
  if (view.record.kind !== 'occurrence' || !page.endsWith('/')) return page;
  return `${page}${view.record.startDate.slice(0, 10)}/`;
}

export function serializeEvent(view: EventView, urls: Urls, options: { single?: boolean } = {}): EventResponse {
  const e = view.record;
  const url = eventPermalink(view, urls);
  const ids = globalIds(e, urls);
  const costs = costNumbers(e.cost);
  const utc = answeredUtcDates(e);
  const out: EventResponse = {
    id: e.id,
    global_id: ids.global_id,
    global_id_lineage: ids.global_id_lineage,
    author: String(e.authorId),
    status: e.status,
    date: e.date,
    date_utc: utc.dateUtc,
    modified: e.modified,
    modified_utc: utc.modifiedUtc,
    url,
    rest_url: urls.rest(`/events/${e.id}`),
    title: texturize(e.title),
    description: autop(e.content),
    excerpt: autop(e.excerpt),
    slug: e.slug,
    image: serializeImage(view.image),
    all_day: e.allDay,
    start_date: e.startDate,
    start_date_details: dateDetails(e.startDate),
    end_date: e.endDate,
    end_date_details: dateDetails(e.endDate),
    utc_start_date: e.startUtc,
    utc_start_date_details: dateDetails(e.startUtc),
    utc_end_date: e.endUtc,
    utc_end_date_details: dateDetails(e.endUtc),
    timezone: e.timezone,
    timezone_abbr: e.timezoneAbbr,
    cost: formatCost(e.cost, e.currencySymbol, e.currencyPosition, costs),
    cost_details: {
      currency_symbol: e.currencySymbol,
      currency_code: e.currencyCode,
      currency_position: e.currencyPosition,
      values: costValues(e.cost, costs),
    },
    website: e.website === null ? url : escHtml(e.website),
    show_map: e.showMap,
    show_map_link: e.showMapLink,
    hide_from_listings: e.hideFromListings,
    sticky: e.menuOrder === -1,
    featured: e.featured,
    categories: view.categories.map((t) => serializeEmbeddedTerm(t, CATEGORIES, urls)),
    tags: view.tags.map((t) => serializeEmbeddedTerm(t, TAGS, urls)),
    venue: view.venue ? serializeVenue(view.venue, urls, options) : [],
    organizer: view.organizers.map((o) => serializeOrganizer(o, urls, options)),
    custom_fields: customFields(e.customFields),
  };
  if (options.single) out.json_ld = eventJsonLd(view, url);
  const series = view.series;
  if (series?.kind === 'occurrence') {
    out.series_id = series.seriesId;
    out.occurrence_key = series.key;
    out.original_start_date = series.originalStart;
    out.original_utc_start_date = series.originalStartUtc;
    out.is_exception = series.isException;
  } else if (series?.kind === 'series') {
    out.recurrence = [...series.recurrence];
    out.recurrence_text = series.text;
    if (series.splitFrom !== null) out.split_from = series.splitFrom;
  }
  if (view.removedOccurrences) out.removed_occurrences = [...view.removedOccurrences];
  return out;
}

/**
 * Pro's additional fields as the original answers them (CONTRACT.md §2.1): an object keyed by meta name, or `[]`
 * (a JSON array, as PHP encodes an empty one) when there are none. (The original blanks them to `[]` for a
 * password-protected event; posts here have no passwords, so nothing is blanked.)
 */
/** JSON-LD's price of a cost without numbers: `Free` is 0 (any case), another word as written. */
function wordPrice(costs: readonly string[]): string {
  const text = costText(costs) ?? '';
  return text.toLowerCase() === 'free' ? '0' : text;
}

function customFields(fields: EventView['record']['customFields']): EventResponse['custom_fields'] {
  if (fields.length === 0) return [];
  // (fromEntries: a name such as `__proto__` is a key like any other)
  return Object.fromEntries(fields.map((f) => [f.name, { label: f.label, value: f.value }]));
}

/** schema.org Event for single reads (CONTRACT.md §2.1). */
export function eventJsonLd(view: EventView, url: string): Record<string, unknown> {
  const e = view.record;
  const zone = getZone(e.timezone || 'UTC');
  const startMs = wallToMs(parseWall(e.startUtc));
  const endMs = wallToMs(parseWall(e.endUtc));
  const ld: Record<string, unknown> = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: e.title,
    description: jsonLdDescription(e.excerpt, e.content),
  };
  if (view.image) ld.image = view.image.url;
  ld.url = url;
  ld.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode';
  ld.eventStatus = 'https://schema.org/EventScheduled';
  ld.startDate = formatIsoWithOffset(startMs, zone);
  ld.endDate = formatIsoWithOffset(endMs, zone);
  // (recorded: a venue or organizers the caller may not read are `false` there, not left out)
  if (view.venue) ld.location = venueJsonLd(view.venue);
  else if (e.venueId !== null) ld.location = false;
  // (the original's JSON-LD names one organizer, its first, as an object)
  if (view.organizers.length > 0) ld.organizer = organizerJsonLd(view.organizers[0]);
  else if (view.organizersHidden) ld.organizer = false;
  const numbers = costNumbers(e.cost);
  const text = costValues(e.cost, numbers);
  if (text.length > 0) {
    ld.offers = {
      '@type': 'Offer',
      // as recorded on the original: the range without its symbol (`5 – 15`), `Free` as 0, another word as it is
      // written (`Donation`)
      price:
        numbers.length === 0
          ? wordPrice(e.cost)
          : numbers[0] === numbers[numbers.length - 1]
            ? numbers[0]
            : `${numbers[0]} \u2013 ${numbers[numbers.length - 1]}`,
      priceCurrency: e.currencyCode || 'USD',
      url,
      category: 'primary',
      availability: 'inStock',
      // the day it was published, at midnight UTC (the original's `strtotime` of the post's date)
      validFrom: `${e.date.slice(0, 10)}T00:00:00+00:00`,
    };
  }
  ld.performer = 'Organization';
  if (view.series?.kind === 'series') {
    const schedule = eventSchedule(view.series.recurrence, e);
    if (schedule) ld.eventSchedule = schedule;
  }
  return ld;
}
