/**
 * The arguments of the event routes (spec §2.1, §4.3, §4.4; CONTRACT.md §3.3, §6.2), with the original's
 * validation. Checks that need the database go through the services. Each declaration names its domain field
 * (`as`), so the routes hand `ctx.args` to the service as they are.
 */
import { Type } from '@sinclair/typebox';
import type { Actor } from '../../../domain/actor.js';
import { ApiError } from '../../../domain/errors.js';
import type { EventInput, EventListQuery, LinkedRef } from '../../../domain/events/event.js';
import type { FeedQuery } from '../../../domain/events/event.service.js';
import { LINKED_KINDS, type LinkedType } from '../../../domain/linked/linked.js';
import type { Services } from '../../../domain/services.js';
import { parseIsoBound } from '../../../time/iso-bound.js';
import { isValidTimeZone } from '../../../time/zones.js';
import { pageArg, perPageArg } from '../../collection.js';
import { type ArgContext, accept, arg, argsFor, Invalid, invalid, nonEmptyString, required, resolveArgs, withDefault } from '../../params.js';
import { syncArgs } from '../../sync.js';
import { authorArg, dateArg, imageArg, publicationArgs, readablePostId, statusArg, statusFilterArg, truthy, websiteArg } from '../post-args.js';
import { linkedWriteArgs } from '../venues-organizers/venues-organizers.args.js';

const bool = <const N extends string>(description: string, as: N) => arg(Type.Boolean({ description }), { as });

/**
 * A list of terms given as CSV, an array, one scalar, or an object whose values are the list (real clients send
 * `{"id": 1}` or `{}`, and the original takes the values); `''` is the empty list.
 */
function termList(value: unknown): (string | number)[] | undefined {
  if (value === '') return [];
  if (typeof value === 'number') return [value];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return termList(Object.values(value));
  if (Array.isArray(value)) {
    const out: (string | number)[] = [];
    for (const v of value) {
      if (typeof v === 'number' || typeof v === 'string') out.push(typeof v === 'string' ? v.trim() : v);
      else if (v !== null && typeof v === 'object' && 'id' in v && typeof (v as { id: unknown }).id !== 'object') {
        out.push((v as { id: string | number }).id);
      } else return undefined;
    }
    return out.filter((v) => v !== '');
  }
  return undefined;
}

/** Term names are at most 200 characters (as in WordPress), and a write names at most 100 terms. */
const termListArg = (description: string) =>
  arg(Type.Unknown({ description }), {
    check: (v: unknown) => {
      const list = termList(v);
      if (list === undefined) return invalid();
      if (list.length > 100) return invalid('At most 100 terms.');
      if (list.some((t) => String(t).length > 200)) return invalid('A term name is at most 200 characters.');
      return accept(list);
    },
  });

/** Digits only (a number, or a string of digits): an id. */
function asId(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v);
  return undefined;
}

/**
 * One venue or organizer reference of an event write: an id (of the right type), `{id}`, or the fields of one to
 * create (validated with the venue/organizer rules).
 */
async function linkedRef(type: LinkedType, value: unknown, services: Services, actor: Actor): Promise<LinkedRef | Invalid> {
  const fromId = async (id: number) =>
    (await services.readablePosts(actor, [id], type)).has(id) ? { id } : invalid(`${id} is not ${LINKED_KINDS[type].named}.`);
  const id = asId(value);
  if (id !== undefined) return fromId(id);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return invalid();
  const fields = value as Record<string, unknown>;
  if (fields.id !== undefined && fields.id !== '') {
    const inner = asId(fields.id);
    return inner === undefined ? invalid() : fromId(inner);
  }
  try {
    return { create: await resolveArgs(linkedWriteArgs(type, true), { path: {}, body: fields, query: {} }, services, actor) };
  } catch (error) {
    if (error instanceof ApiError) return invalid(`Invalid ${type}: ${error.message}`);
    throw error;
  }
}

/**
 * A list sent as an object with index keys only (`{"0": 12, "2": 14}`: PHP's json_encode of an array with a gap),
 * which the original reads as the list it is (PHP decodes both to one array). An object with a field name is one
 * record's fields instead.
 */
const indexedList = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => /^\d+$/.test(k));

const isEmpty = (v: unknown) => v === '' || v === 0 || v === '0' || (Array.isArray(v) && v.length === 0);

const venueArg = arg(Type.Unknown({ description: 'A venue id, {"id": n}, or the fields of a venue to create (or reuse); empty detaches.' }), {
  check: async (value: unknown, { services, actor }: ArgContext) => {
    if (isEmpty(value)) return accept<LinkedRef | null>(null);
    const ref = await linkedRef('venue', value, services, actor);
    return ref instanceof Invalid ? ref : accept<LinkedRef | null>(ref);
  },
});

const organizerArg = arg(
  Type.Unknown({ description: 'Organizer ids and/or fields of organizers to create (or reuse), in order: one, a list, or CSV ids; empty clears.' }),
  {
    as: 'organizers',
    check: async (value: unknown, { services, actor }: ArgContext) => {
      if (isEmpty(value)) return accept<LinkedRef[]>([]);
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else if (indexedList(value)) items = Object.values(value);
      else if (typeof value === 'string' && /^[\d\s,]+$/.test(value))
        items = value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
      else items = [value];
      if (items.length > 100) return invalid('At most 100 organizers.');
      const refs: LinkedRef[] = [];
      for (const item of items) {
        const ref = await linkedRef('organizer', item, services, actor);
        if (ref instanceof Invalid) return ref;
        refs.push(ref);
      }
      return accept(refs);
    },
  },
);

/** Arguments of event updates, in the original's order; every one optional. */
export const eventUpdateArgs = argsFor<EventInput>()({
  author: authorArg,
  ...publicationArgs,
  title: arg(Type.String({ description: 'The event title.' }), { check: nonEmptyString }),
  description: arg(Type.String({ description: 'The event description (HTML).' }), { check: nonEmptyString }),
  slug: arg(Type.String({ description: 'The event slug.' }), { check: nonEmptyString }),
  excerpt: arg(Type.String({ description: 'The event excerpt.' }), { check: nonEmptyString }),
  status: statusArg,
  timezone: arg(Type.String({ description: "IANA time zone, UTC, or UTC±N; empty for the site's." }), {
    check: (v: string) => (v === '' || isValidTimeZone(v) ? undefined : invalid()),
  }),
  all_day: bool('Whether the event lasts whole days.', 'allDay'),
  start_date: dateArg("Start, in the event's time zone.", 'startDate'),
  end_date: dateArg("End, in the event's time zone.", 'endDate'),
  image: imageArg(true),
  cost: arg(Type.Unknown({ description: 'The cost: a string, or an array of strings; empty clears it.' }), {
    check: (v: unknown) => {
      if (typeof v === 'number') return accept([String(v)]);
      if (typeof v === 'string') return accept(v.trim() === '' ? [] : [v]);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
        return accept(v.map(String).filter((x) => x.trim() !== ''));
      }
      return invalid();
    },
  }),
  website: websiteArg('The event website'),
  show_map: bool('Whether the event shows a map.', 'showMap'),
  show_map_link: bool('Whether the event shows a map link.', 'showMapLink'),
  hide_from_listings: bool('Whether the event is hidden from listings.', 'hideFromListings'),
  sticky: bool('Whether the event is sticky in calendar views.', 'sticky'),
  featured: bool('Whether the event is featured.', 'featured'),
  categories: termListArg('Category ids, slugs or names (CSV, array, or an object of them); unknown names are created.'),
  tags: termListArg('Tag ids, slugs or names (CSV, array, or an object of them); unknown names are created.'),
  venue: venueArg,
  organizer: organizerArg,
  ical_uid: arg(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        "The event's iCalendar UID in .ics feeds, instead of the one generated when it was made (an import keeps the source's); unique among events. Not on occurrences, and not in event bodies.",
    }),
    {
      as: 'icalUid',
      check: (uid: string) =>
        // a UID is one text value: control characters (CR/LF above all) would end the property in a feed
        // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
        /[\u0000-\u001f\u007f]/.test(uid) || uid.trim() === '' ? invalid('A UID is printable text, not blank.') : undefined,
    },
  ),
  recurrence: arg(
    Type.Array(Type.String(), {
      description:
        'Makes the event a recurring series: one `RRULE:` line and any `RDATE`/`EXDATE` lines (RFC 5545, as Google Calendar takes them); the first instance is the event itself. `[]` or null turns a series back into a single event. Not on occurrences.',
    }),
    { check: (lines: string[]) => (lines.length > 1000 ? invalid('At most 1000 lines.') : undefined) },
  ),
});

/** Arguments of `POST /events`: the same, with title and dates required and all_day false by default. */
export const eventCreateArgs = argsFor<EventInput>()({
  ...eventUpdateArgs,
  title: required(eventUpdateArgs.title),
  all_day: withDefault(eventUpdateArgs.all_day, false),
  start_date: required(eventUpdateArgs.start_date),
  end_date: required(eventUpdateArgs.end_date),
});

const linkedFilter = <const N extends string>(type: LinkedType, as: N) =>
  arg(Type.Array(Type.Integer(), { description: `Events with any of these ${type} ids (CSV or array).` }), {
    as,
    check: async (ids: number[], { services, actor }: ArgContext) => {
      const found = await services.readablePosts(actor, ids, type);
      return ids.length > 0 && ids.every((id) => found.has(id)) ? undefined : invalid();
    },
  });

/** Categories and tags filters: ids or slugs; the emitted URLs carry them as sent (children are resolved here). */
const termFilter = (which: 'categories' | 'tags') =>
  arg(
    Type.Array(Type.String(), {
      description: `Events with any of these ${which} (ids or slugs, CSV or array)${which === 'categories' ? ', children included' : ''}.`,
    }),
    {
      carry: 'raw',
      check: async (entries: string[], { services, dataVersion }: ArgContext) => {
        const ids = await services[which].resolveFilter(entries, await dataVersion?.());
        return ids === undefined ? invalid() : accept(ids);
      },
    },
  );

const ticketsCheck = (v: boolean) =>
  v ? invalid('Filtering by tickets needs a ticketing module, and none is active.', 'event-tickets-not-active') : undefined;

/** Arguments of `GET /events`, in the order the emitted URLs carry them. */
export const eventListArgs = argsFor<EventListQuery>()({
  page: pageArg,
  per_page: perPageArg,
  start_date: dateArg('Events starting on or after this date.', 'startDate'),
  end_date: dateArg('Events ending on or before this date.', 'endDate'),
  search: arg(Type.String({ description: 'Events whose title, excerpt or description contain every word.' }), { check: nonEmptyString }),
  categories: termFilter('categories'),
  tags: termFilter('tags'),
  venue: linkedFilter('venue', 'venues'),
  organizer: linkedFilter('organizer', 'organizers'),
  featured: bool('Only featured (true) or only not featured (false) events.', 'featured'),
  has_geoloc: bool('Events whose venue has (true) or lacks (false) coordinates.', 'hasGeoloc'),
  geoloc: arg(Type.Boolean({ description: 'Alias of has_geoloc.' }), { carry: false }),
  geoloc_lat: arg(Type.Number({ minimum: -90, maximum: 90, description: 'Latitude of the point to search around; needs geoloc_lng.' }), {
    as: 'geolocLat',
  }),
  geoloc_lng: arg(Type.Number({ minimum: -180, maximum: 180, description: 'Longitude of the point to search around; needs geoloc_lat.' }), {
    as: 'geolocLng',
  }),
  geoloc_distance: arg(Type.Number({ description: 'Search radius in km around geoloc_lat/geoloc_lng.' }), {
    as: 'geolocDistance',
    default: 50,
    check: (km: number) => (km > 0 && km <= 20_000 ? undefined : invalid()),
  }),
  status: statusFilterArg,
  post_parent: { ...readablePostId('event', 'Events whose parent is this event.'), as: 'postParent' as const },
  include: arg(Type.Array(Type.Integer(), { description: 'Only these event ids (the date window is dropped).' }), {
    // the original's is_positive_int_list: at least one, all positive
    check: (ids: number[]) => (ids.length > 0 && ids.every((id) => id > 0) ? undefined : invalid()),
  }),
  starts_before: dateArg('Events starting before this date.', 'startsBefore'),
  starts_after: dateArg('Events starting after this date.', 'startsAfter'),
  ends_before: dateArg('Events ending before this date.', 'endsBefore'),
  ends_after: dateArg('Events ending after this date.', 'endsAfter'),
  strict_dates: arg(Type.String({ description: 'true: dates are exact instants; false: whole days are included.' }), {
    as: 'strictDates',
    default: 'false',
    check: (v: string) => (v.trim() === '' ? invalid() : accept(truthy(v))),
  }),
  tickets: arg(Type.Boolean({ description: 'Events with (true) or without (false) tickets; needs a ticketing module for true.' }), {
    carry: false,
    check: ticketsCheck,
  }),
  ticketed: arg(Type.Boolean({ description: 'Alias of tickets.' }), { carry: false, check: ticketsCheck }),
  expand_recurring: arg(
    Type.Boolean({
      description:
        'false: recurring series listed once each (a series is in the window when one of its occurrences is) beside single events, instead of one item per occurrence.',
    }),
    { as: 'expandRecurring' },
  ),
  ...syncArgs,
});

/** Arguments of `GET /events/{id}/occurrences`: a window and a page of one series' occurrences. */
export const occurrenceListArgs = {
  page: pageArg,
  per_page: perPageArg,
  start_date: eventListArgs.start_date,
  end_date: eventListArgs.end_date,
  strict_dates: eventListArgs.strict_dates,
  show_cancelled: bool('Cancelled occurrences too (callers who may edit events).', 'showCancelled'),
} as const;

/** The most events (singles and series) one feed holds. */
export const ICAL_FEED_MAX = 5000;

/**
 * Arguments of the iCalendar feed `GET /events.ics`: the list's filters, its window (by default from 30 days ago
 * to 24 months ahead, the service's), and `limit` instead of pages.
 */
export const icalFeedArgs = {
  start_date: eventListArgs.start_date,
  end_date: eventListArgs.end_date,
  strict_dates: eventListArgs.strict_dates,
  search: eventListArgs.search,
  categories: eventListArgs.categories,
  tags: eventListArgs.tags,
  venue: eventListArgs.venue,
  organizer: eventListArgs.organizer,
  featured: eventListArgs.featured,
  limit: arg(Type.Integer({ minimum: 1, maximum: ICAL_FEED_MAX, description: `The most events (a series counts once) in the feed.` }), {
    default: 1000,
  }),
  download: bool('Sent as an attachment (Content-Disposition) rather than inline.', 'download'),
} as const;

/** `download` of the per-event .ics routes. */
export const icalDownloadArg = { download: icalFeedArgs.download } as const;

/** The most events one FullCalendar answer holds. */
export const FEED_MAX = 5000;

const boundArg = (description: string) =>
  arg(Type.String({ description }), {
    required: true,
    check: (v: string) => {
      const bound = parseIsoBound(v);
      return bound ? accept(bound) : invalid();
    },
  });

/**
 * Arguments of the FullCalendar feed `GET /events/feed` (FEATURES.md §5.3): the range and zone FullCalendar
 * sends (its parameter names), the list's filters, and `limit`.
 */
export const feedArgs = argsFor<FeedQuery>()({
  start: boundArg('Start of the range (inclusive): an ISO 8601 date or date-time; without an offset it is read in timeZone (or the site zone).'),
  end: boundArg('End of the range (exclusive), in the same forms.'),
  timeZone: arg(
    Type.String({
      description:
        "The zone of the answer's times (and of start/end without an offset): an IANA name, UTC, or `local` (absent: each event's own zone).",
    }),
    { check: (v: string) => (v.toLowerCase() === 'local' || isValidTimeZone(v) ? undefined : invalid()) },
  ),
  search: eventListArgs.search,
  categories: eventListArgs.categories,
  tags: eventListArgs.tags,
  venue: eventListArgs.venue,
  organizer: eventListArgs.organizer,
  featured: eventListArgs.featured,
  limit: arg(Type.Integer({ minimum: 1, maximum: FEED_MAX, description: 'The most events (occurrences count one each) in the answer.' }), {
    default: FEED_MAX,
  }),
});
