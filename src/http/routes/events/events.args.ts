/**
 * The arguments of the event routes (spec §2.1, §4.3, §4.4; CONTRACT.md §3.3, §6.2), with the original's
 * validation. Checks that need the database go through the services.
 */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../domain/services.js';
import { isStatus } from '../../../domain/posts/status.js';
import { can } from '../../../domain/policies.js';
import { getZone, isValidTimeZone } from '../../../time/zones.js';
import { parseDateInput } from '../../../time/strtotime.js';
import { pageArg, perPageArg } from '../../paging.js';
import { accept, arg, invalid, nonEmptyString, parseInteger, type Arg, type Args, type ArgCheck } from '../../params.js';

type A = Arg<Services>;

/** Parseable the way the original's strtotime-based validator accepts it. */
export const dateCheck: ArgCheck<Services> = (value: string, { services }) =>
  parseDateInput(value, { nowMs: Date.now(), zone: getZone(services.config.siteTimezone) }) ? undefined : invalid();

const dateArg = (description: string, required = false): A =>
  arg(Type.String({ description: `${description} Any strtotime-style date: 2018-01-01 16:00, tomorrow 9am, +5 days, a unix timestamp.` }), {
    required,
    check: dateCheck,
  });

const bool = (description: string, def?: boolean): A =>
  arg(Type.Boolean(def === undefined ? { description } : { description, default: def }));

function absoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

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

const imageArg: A = arg(Type.Unknown({ description: 'A stored image id, or an absolute http(s) image URL (not downloaded).' }), {
  check: async (value, { services, actor }) => {
    const id = typeof value === 'number' ? (Number.isSafeInteger(value) ? value : undefined) : typeof value === 'string' ? parseInteger(value) : undefined;
    if (id !== undefined) {
      return id > 0 && (await services.storage.images.find(id)) ? accept(id) : invalid();
    }
    if (typeof value !== 'string' || !absoluteHttpUrl(value.trim())) return invalid();
    if (!can(actor, 'upload_files')) return invalid('Only roles that may upload files may set an image by URL.');
    return accept(value.trim());
  },
});

/** Arguments of event writes, in the original's order; `create` marks the required ones. */
export function eventWriteArgs(create: boolean): Args<Services> {
  return {
    author: arg(Type.Integer({ description: 'The author\'s user id (default: the caller).' }), {
      check: async (id: number, { services }) => ((await services.storage.users.exists(id)) ? undefined : invalid()),
    }),
    date: dateArg('Publication date, in the event\'s time zone.'),
    date_utc: dateArg('Publication date, in UTC.'),
    title: arg(Type.String({ description: 'The event title.' }), { required: create, check: nonEmptyString }),
    description: arg(Type.String({ description: 'The event description (HTML).' }), { check: nonEmptyString }),
    slug: arg(Type.String({ description: 'The event slug.' }), { check: nonEmptyString }),
    excerpt: arg(Type.String({ description: 'The event excerpt.' }), { check: nonEmptyString }),
    status: arg(Type.String({ description: 'Publication status: publish, future, draft, pending, private.' }), {
      check: (v: string) => (isStatus(v) ? undefined : invalid()),
    }),
    timezone: arg(Type.String({ description: 'IANA time zone, UTC, or UTC±N; empty for the site\'s.' }), {
      check: (v: string) => (v === '' || isValidTimeZone(v) ? undefined : invalid()),
    }),
    all_day: bool('Whether the event lasts whole days.', create ? false : undefined),
    start_date: dateArg('Start, in the event\'s time zone.', create),
    end_date: dateArg('End, in the event\'s time zone.', create),
    image: imageArg,
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
    website: arg(Type.Unknown({ description: 'The event website: an absolute URL, or empty to clear.' }), {
      check: (v: unknown) => {
        if (v === '') return accept('');
        return typeof v === 'string' && absoluteHttpUrl(v.trim()) ? accept(v.trim()) : invalid();
      },
    }),
    show_map: bool('Whether the event shows a map.'),
    show_map_link: bool('Whether the event shows a map link.'),
    hide_from_listings: bool('Whether the event is hidden from listings.'),
    sticky: bool('Whether the event is sticky in calendar views.'),
    featured: bool('Whether the event is featured.'),
    categories: arg(Type.Unknown({ description: 'Category ids, slugs or names (CSV or array); unknown names are created.' }), {
      check: (v: unknown) => {
        const list = termList(v);
        return list === undefined ? invalid() : accept(list);
      },
    }),
    tags: arg(Type.Unknown({ description: 'Tag ids, slugs or names (CSV or array); unknown names are created.' }), {
      check: (v: unknown) => {
        const list = termList(v);
        return list === undefined ? invalid() : accept(list);
      },
    }),
  };
}

const truthy = (v: string) => ['1', 'true', 'on', 'yes'].includes(v.trim().toLowerCase());

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
  featured: bool('Only featured (true) or only not featured (false) events.'),
  status: arg(Type.Array(Type.String(), { description: 'Publication statuses (CSV or array); publish only for anonymous callers.' }), {
    check: (statuses: string[], { actor }) => {
      if (!can(actor, 'edit_posts')) return statuses.length === 1 && statuses[0] === 'publish' ? undefined : invalid();
      return statuses.length > 0 && statuses.every((s) => s === 'any' || isStatus(s)) ? undefined : invalid();
    },
  }),
  post_parent: arg(Type.Integer({ description: 'Events whose parent is this event.' }), {
    check: async (id: number, { services }) => ((await services.postType(id)) === 'event' ? undefined : invalid()),
  }),
  include: arg(Type.Array(Type.Integer(), { description: 'Only these event ids (the date window is dropped).' }), {
    check: (ids: number[]) => (ids.every((id) => id > 0) ? undefined : invalid()),
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
