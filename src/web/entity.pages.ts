/**
 * The data of an event's page (one event, a whole series, or one occurrence of it: `/event/<slug>/<date>/`),
 * a venue's and an organizer's page (FEATURES.md §5.3): everything the visitor may read, as plain values the
 * templates escape; the description as sanitised HTML; the event's JSON-LD as the API's single read has it.
 */
import { autop, htmlToText, sanitizeHtml, termText } from '../domain/content/html.js';
import { absoluteHttpUrl } from '../domain/content/web-address.js';
import type { EventListQuery } from '../domain/events/event.js';
import type { EventView } from '../domain/events/event.service.js';
import type { OrganizerRecord, VenueRecord } from '../domain/linked/linked.js';
import type { LinkedView } from '../domain/linked/linked.service.js';
import { eventJsonLd, eventPermalink } from '../serializers/event.serializer.js';
import { formatUtcMs } from '../time/zones.js';
import { type PageContext, siteToday } from './calendar.pages.js';
import { type EventItem, eventItem } from './event-item.js';
import { addDays } from './format.js';
import { type AddToCalendar, addToCalendar } from './links.js';

export interface VenueModel {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  /** Address lines, without the empty ones. */
  readonly address: readonly string[];
  readonly phone: string;
  readonly website: string | undefined;
  /** A map of the place: OpenStreetMap at its coordinates, or a search for its address. */
  readonly mapUrl: string | undefined;
  readonly description: string;
}

export interface OrganizerModel {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly phone: string;
  readonly email: string;
  readonly website: string | undefined;
  readonly description: string;
}

export interface TermLink {
  readonly name: string;
  readonly url: string;
}

export interface EventModel {
  readonly item: EventItem;
  readonly view: EventView;
  readonly kind: 'single' | 'series' | 'occurrence';
  /** The rule in words (series and occurrences). */
  readonly recurrenceText: string | undefined;
  /** The series' page (occurrences). */
  readonly seriesUrl: string | undefined;
  /** Upcoming occurrences (series). */
  readonly upcoming: readonly EventItem[];
  readonly venue: VenueModel | undefined;
  readonly organizers: readonly OrganizerModel[];
  readonly categories: readonly TermLink[];
  readonly tags: readonly TermLink[];
  readonly website: string | undefined;
  /** Pro's additional fields (its "Other" group): the label as text, the value as sanitised HTML (it may be a link). */
  readonly customFields: readonly { readonly label: string; readonly valueHtml: string }[];
  /** Sanitised HTML. */
  readonly descriptionHtml: string;
  /** The JSON-LD object, as `GET /events/{id}` has it. */
  readonly jsonLd: Record<string, unknown>;
  readonly calendarLinks: AddToCalendar;
}

function lines(...parts: (string | undefined)[]): string[] {
  return parts.map((p) => (p ?? '').trim()).filter((p) => p !== '');
}

/** A website to link: http(s) only (a `javascript:` one stored before imports checked it is not). */
const httpWebsite = (website: string | null | undefined): string | undefined => (website && absoluteHttpUrl(website) ? website : undefined);

export function venueModel(ctx: PageContext, v: LinkedView<VenueRecord>): VenueModel {
  const r = v.record;
  const cityLine = lines(r.city, r.stateprovince, r.zip).join(', ');
  const address = lines(r.address, cityLine, r.country);
  let mapUrl: string | undefined;
  if (r.geoLat !== null && r.geoLng !== null && r.geoLat !== undefined && r.geoLng !== undefined) {
    mapUrl = `https://www.openstreetmap.org/?mlat=${r.geoLat}&mlon=${r.geoLng}#map=16/${r.geoLat}/${r.geoLng}`;
  } else if (address.length > 0 && r.showMapLink) {
    mapUrl = `https://www.openstreetmap.org/search?query=${encodeURIComponent(address.join(', '))}`;
  }
  return {
    id: r.id,
    name: htmlToText(r.title),
    url: ctx.urls.permalink('venue', r.slug, r.id, r.status),
    address,
    phone: r.phone,
    website: httpWebsite(r.website),
    mapUrl,
    description: sanitizeHtml(autop(r.content)),
  };
}

export function organizerModel(ctx: PageContext, o: LinkedView<OrganizerRecord>): OrganizerModel {
  const r = o.record;
  return {
    id: r.id,
    name: htmlToText(r.title),
    url: ctx.urls.permalink('organizer', r.slug, r.id, r.status),
    phone: r.phone,
    email: r.email,
    website: httpWebsite(r.website),
    description: sanitizeHtml(autop(r.content)),
  };
}

/** Upcoming occurrences of a series (at most `limit`), or upcoming events at a venue or by an organizer. */
export async function upcoming(ctx: PageContext, filter: Partial<EventListQuery>, limit: number): Promise<{ items: EventItem[]; total: number }> {
  const page = await ctx.services.events.list(
    ctx.actor,
    Object.assign({}, filter, { page: 1, perPage: limit, strictDates: true, geolocDistance: 50, endsAfter: formatUtcMs(ctx.nowMs) }),
  );
  const year = Number(siteToday(ctx).slice(0, 4));
  return { items: page.items.map((v) => eventItem(v, ctx.urls, year)), total: page.total };
}

export async function eventModel(ctx: PageContext, view: EventView): Promise<EventModel> {
  const year = Number(siteToday(ctx).slice(0, 4));
  const item = eventItem(view, ctx.urls, year);
  const e = view.record;
  const series = view.series;
  let recurrenceText: string | undefined;
  let seriesUrl: string | undefined;
  let list: EventItem[] = [];
  if (series?.kind === 'series') {
    recurrenceText = series.text;
    list = (await upcoming(ctx, { postParent: e.id, expandRecurring: true }, 10)).items;
  } else if (series?.kind === 'occurrence') {
    const master = await ctx.services.events.get(ctx.actor, series.seriesId).catch(() => undefined);
    if (master?.series?.kind === 'series') {
      recurrenceText = master.series.text;
      seriesUrl = eventPermalink(master, ctx.urls);
    }
  }
  const venue = view.venue ? venueModel(ctx, view.venue) : undefined;
  const description = sanitizeHtml(autop(e.content));
  const lastDayExclusive = addDays(item.times.lastDay, 1);
  return {
    item,
    view,
    kind: series?.kind ?? 'single',
    recurrenceText,
    seriesUrl,
    upcoming: list,
    venue,
    organizers: view.organizers.map((o) => organizerModel(ctx, o)),
    categories: view.categories.map((t) => ({ name: termText(t.name), url: `${ctx.urls.home}/events/category/${encodeURIComponent(t.slug)}/` })),
    tags: view.tags.map((t) => ({ name: termText(t.name), url: `${ctx.urls.home}/events/tag/${encodeURIComponent(t.slug)}/` })),
    website: httpWebsite(e.website),
    customFields: e.customFields.map((f) => ({ label: htmlToText(f.label), valueHtml: sanitizeHtml(f.value) })),
    descriptionHtml: description,
    jsonLd: eventJsonLd(view, item.url),
    calendarLinks: addToCalendar(
      ctx.urls,
      {
        id: e.id,
        title: item.title,
        allDay: e.allDay,
        firstDay: item.times.firstDay,
        lastDayExclusive,
        startIso: item.times.startIso,
        endIso: item.times.endIso,
        timezone: e.timezone,
      },
      `${item.url}\n\n${item.excerpt}`,
      venue ? [venue.name, ...venue.address].join(', ') : '',
      ctx.services.site.name,
    ),
  };
}
