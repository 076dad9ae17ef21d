/**
 * The arguments of the event routes (spec §2.1, §4.3, §4.4; CONTRACT.md §3.3, §6.2), with the original's
 * validation. Checks that need the database go through the services.
 */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../domain/services.js';
import { isValidTimeZone } from '../../../time/zones.js';
import { pageArg, perPageArg } from '../../paging.js';
import { accept, arg, invalid, Invalid, nonEmptyString, resolveArgs, type Arg, type Args } from '../../params.js';
import { ApiError } from '../../../domain/errors.js';
import type { Actor } from '../../../domain/actor.js';
import type { LinkedRef } from '../../../domain/events/event.js';
import type { LinkedType } from '../../../domain/linked/linked.js';
import { linkedWriteArgs, toLinkedInput } from '../linked/linked.args.js';
import { authorArg, dateArg, imageArg, statusArg, statusFilterArg, truthy, websiteArg } from '../post-args.js';

type A = Arg<Services>;

const bool = (description: string, def?: boolean): A =>
  arg(Type.Boolean(def === undefined ? { description } : { description, default: def }));

/** A list given as CSV, an array, or one scalar; `''` is the empty list. */
function termList(value: unknown): (string | number)[] | undefined {
  if (value === '') return [];
  if (typeof value === 'number') return [value];
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
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
const termListCheck = (v: unknown) => {
  const list = termList(v);
  if (list === undefined || list.length > 100 || list.some((t) => String(t).length > 200)) return invalid();
  return accept(list);
};

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
    (await services.readablePosts(actor, [id], type)).has(id) ? { id } : invalid(`${id} is not a ${type}.`);
  const id = asId(value);
  if (id !== undefined) return fromId(id);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return invalid();
  const fields = value as Record<string, unknown>;
  if (fields.id !== undefined && fields.id !== '') {
    const inner = asId(fields.id);
    return inner === undefined ? invalid() : fromId(inner);
  }
  try {
    const args = await resolveArgs(linkedWriteArgs(type, true), { path: {}, body: fields, query: {} }, services, actor);
    return { create: toLinkedInput(type, args) };
  } catch (error) {
    if (error instanceof ApiError) return invalid(`Invalid ${type}: ${error.message}`);
    throw error;
  }
}

const isEmpty = (v: unknown) => v === '' || v === 0 || v === '0' || (Array.isArray(v) && v.length === 0);

const venueArg: A = arg(Type.Unknown({ description: 'A venue id, {"id": n}, or the fields of a venue to create (or reuse); empty detaches.' }), {
  check: async (value, { services, actor }) => {
    if (isEmpty(value)) return accept(null);
    const ref = await linkedRef('venue', value, services, actor);
    return ref instanceof Invalid ? ref : accept(ref);
  },
});

const organizerArg: A = arg(
  Type.Unknown({ description: 'Organizer ids and/or fields of organizers to create (or reuse), in order: one, a list, or CSV ids; empty clears.' }),
  {
    check: async (value, { services, actor }) => {
      if (isEmpty(value)) return accept([]);
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else if (typeof value === 'string' && /^[\d\s,]+$/.test(value)) items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
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

/** Arguments of event writes, in the original's order; `create` marks the required ones. */
export function eventWriteArgs(create: boolean): Args<Services> {
  return {
    author: authorArg,
    date: dateArg('Publication date, in the event\'s time zone.'),
    date_utc: dateArg('Publication date, in UTC.'),
    title: arg(Type.String({ description: 'The event title.' }), { required: create, check: nonEmptyString }),
    description: arg(Type.String({ description: 'The event description (HTML).' }), { check: nonEmptyString }),
    slug: arg(Type.String({ description: 'The event slug.' }), { check: nonEmptyString }),
    excerpt: arg(Type.String({ description: 'The event excerpt.' }), { check: nonEmptyString }),
    status: statusArg,
    timezone: arg(Type.String({ description: 'IANA time zone, UTC, or UTC±N; empty for the site\'s.' }), {
      check: (v: string) => (v === '' || isValidTimeZone(v) ? undefined : invalid()),
    }),
    all_day: bool('Whether the event lasts whole days.', create ? false : undefined),
    start_date: dateArg('Start, in the event\'s time zone.', create),
    end_date: dateArg('End, in the event\'s time zone.', create),
    image: imageArg(false),
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
    show_map: bool('Whether the event shows a map.'),
    show_map_link: bool('Whether the event shows a map link.'),
    hide_from_listings: bool('Whether the event is hidden from listings.'),
    sticky: bool('Whether the event is sticky in calendar views.'),
    featured: bool('Whether the event is featured.'),
    categories: arg(Type.Unknown({ description: 'Category ids, slugs or names (CSV or array); unknown names are created.' }), {
      check: termListCheck,
    }),
    tags: arg(Type.Unknown({ description: 'Tag ids, slugs or names (CSV or array); unknown names are created.' }), {
      check: termListCheck,
    }),
    venue: venueArg,
    organizer: organizerArg,
  };
}


const linkedFilter = (type: LinkedType): A =>
  arg(Type.Array(Type.Integer(), { description: `Events with any of these ${type} ids (CSV or array).` }), {
    check: async (ids: number[], { services, actor }) => {
      const found = await services.readablePosts(actor, ids, type);
      return ids.length > 0 && ids.every((id) => found.has(id)) ? undefined : invalid();
    },
  });

const termFilter = (which: 'categories' | 'tags'): A =>
  arg(
    Type.Array(Type.String(), {
      description: `Events with any of these ${which} (ids or slugs, CSV or array)${which === 'categories' ? ', children included' : ''}.`,
    }),
    {
      check: async (entries: string[], { services }) => {
        const ids = await services[which].resolveFilter(entries);
        return ids === undefined ? invalid() : accept(ids);
      },
    },
  );

/** Arguments of `GET /events`, in the order the emitted URLs carry them. */
export const eventListArgs: Args<Services> = {
  page: pageArg,
  per_page: perPageArg,
  start_date: dateArg('Events starting on or after this date.'),
  end_date: dateArg('Events ending on or before this date.'),
  search: arg(Type.String({ description: 'Events whose title, excerpt or description contain every word.' }), {
    check: nonEmptyString,
  }),
  categories: termFilter('categories'),
  tags: termFilter('tags'),
  venue: linkedFilter('venue'),
  organizer: linkedFilter('organizer'),
  featured: bool('Only featured (true) or only not featured (false) events.'),
  has_geoloc: bool('Events whose venue has (true) or lacks (false) coordinates.'),
  geoloc: bool('Alias of has_geoloc.'),
  geoloc_lat: arg(Type.Number({ minimum: -90, maximum: 90, description: 'Latitude of the point to search around; needs geoloc_lng.' })),
  geoloc_lng: arg(Type.Number({ minimum: -180, maximum: 180, description: 'Longitude of the point to search around; needs geoloc_lat.' })),
  geoloc_distance: arg(Type.Number({ default: 50, description: 'Search radius in km around geoloc_lat/geoloc_lng.' }), {
    check: (km: number) => (km > 0 && km <= 20_000 ? undefined : invalid()),
  }),
  status: statusFilterArg,
  post_parent: arg(Type.Integer({ description: 'Events whose parent is this event.' }), {
    check: async (id: number, { services, actor }) => ((await services.readablePosts(actor, [id], 'event')).has(id) ? undefined : invalid()),
  }),
  include: arg(Type.Array(Type.Integer(), { description: 'Only these event ids (the date window is dropped).' }), {
    // the original's is_positive_int_list: at least one, all positive
    check: (ids: number[]) => (ids.length > 0 && ids.every((id) => id > 0) ? undefined : invalid()),
  }),
  starts_before: dateArg('Events starting before this date.'),
  starts_after: dateArg('Events starting after this date.'),
  ends_before: dateArg('Events ending before this date.'),
  ends_after: dateArg('Events ending after this date.'),
  strict_dates: arg(
    Type.String({ default: 'false', description: 'true: dates are exact instants; false: whole days are included.' }),
    { check: (v: string) => (v.trim() === '' ? invalid() : accept(truthy(v))) },
  ),
  tickets: arg(Type.Boolean({ description: 'Events with (true) or without (false) tickets; needs a ticketing module for true.' }), {
    check: (v: boolean) =>
      v ? invalid('Filtering by tickets needs a ticketing module, and none is active.', 'event-tickets-not-active') : undefined,
  }),
  ticketed: arg(Type.Boolean({ description: 'Alias of tickets.' }), {
    check: (v: boolean) =>
      v ? invalid('Filtering by tickets needs a ticketing module, and none is active.', 'event-tickets-not-active') : undefined,
  }),
};
