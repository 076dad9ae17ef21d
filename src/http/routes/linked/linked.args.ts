/**
 * Arguments of the venue and organizer routes (spec §2.2, §2.3, §4.5; CONTRACT.md §4, §6.3), also used to
 * validate venues and organizers written inline in an event.
 */
import { Type } from '@sinclair/typebox';
import { plainText } from '../../../domain/content/html.js';
import type { LinkedInput, LinkedType } from '../../../domain/linked/linked.js';
import type { Services } from '../../../domain/services.js';
import { pageArg, perPageArg } from '../../paging.js';
import { accept, arg, invalid, nonEmptyString, type Arg, type Args } from '../../params.js';
import { authorArg, dateArg, imageArg, statusArg, statusFilterArg, truthy, websiteArg } from '../post-args.js';

type A = Arg<Services>;

const text = (description: string): A =>
  arg(Type.String({ description: `${description}; empty clears it.` }), { check: (v: string) => accept(plainText(v)) });

/**
 * Typed string in the original (CONTRACT.md §6): `true/1/yes/on` are true, anything else false; a JSON boolean
 * or number is a type error, as there.
 */
const flag = (description: string): A =>
  arg(Type.String({ description: `${description} (a string: "true"/"false"; default true).` }), {
    check: (v: string) => accept(truthy(v) ? 1 : 0),
  });

const coordinate = (name: string, limit: number): A =>
  arg(Type.Number({ minimum: -limit, maximum: limit, description: `The ${name}, in decimal degrees.` }));

const META: Record<LinkedType, readonly string[]> = {
  venue: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'],
  organizer: ['phone', 'website', 'email'],
};

/** Write arguments of a venue or organizer; `create` marks the name required. */
export function linkedWriteArgs(type: LinkedType, create: boolean): Args<Services> {
  const common = {
    author: authorArg,
    date: dateArg('Publication date, in the site\'s time zone.'),
    date_utc: dateArg('Publication date, in UTC.'),
    [type]: arg<Services>(Type.String({ description: `The ${type} name.` }), { required: create, check: nonEmptyString }),
    description: arg<Services>(Type.String({ description: `The ${type} description (HTML); empty clears it.` })),
    status: statusArg,
  };
  if (type === 'venue') {
    return {
      ...common,
      show_map: flag('Whether events at the venue show a map'),
      show_map_link: flag('Whether events at the venue show a map link'),
      address: text('Street address'),
      city: text('City'),
      country: text('Country'),
      province: text('Province'),
      state: text('State'),
      zip: text('Postal code'),
      phone: text('Phone'),
      stateprovince: text('State or province (derived from state/province/country when not given)'),
      website: websiteArg('The venue website'),
      image: imageArg(true),
      geo_lat: coordinate('latitude', 90),
      geo_lng: coordinate('longitude', 180),
    };
  }
  return {
    ...common,
    phone: text('Phone'),
    website: websiteArg('The organizer website'),
    email: arg(Type.String({ description: 'E-mail address (not format-checked, as in the original).' }), {
      check: (v: string) => accept(plainText(v)),
    }),
    image: imageArg(true),
  };
}

/** Resolved route arguments → the service's input (`undefined` for what was not sent). */
export function toLinkedInput(type: LinkedType, a: Record<string, any>): LinkedInput {
  const meta: Record<string, string | number | null> = {};
  for (const column of META[type]) if (a[column] !== undefined) meta[column] = a[column];
  return {
    name: a[type] ?? undefined,
    description: a.description,
    status: a.status,
    author: a.author,
    date: a.date,
    dateUtc: a.date_utc,
    image: a.image,
    meta,
  };
}

/** The search tokens: split on everything that is not a letter, a digit or a dash. */
export function searchTokens(search: string): string[] {
  return search.split(/[^\p{L}\p{N}-]+/u).filter((t) => t !== '');
}

export function linkedListArgs(type: LinkedType): Args<Services> {
  return {
    page: pageArg,
    per_page: perPageArg,
    search: arg(Type.String({ description: `${type}s with one field containing every word of the string.` }), { check: nonEmptyString }),
    event: arg(Type.Integer({ description: `Only the ${type}s of this event.` }), {
      check: async (id: number, { services, actor }) => ((await services.readablePosts(actor, [id], 'event')).has(id) ? undefined : invalid()),
    }),
    has_events: arg(Type.Unknown({ description: `true: ${type}s with events (not drafts); false: the others.` }), {
      check: (v: unknown) => accept(truthy(v)),
    }),
    only_with_upcoming: arg(Type.Unknown({ description: `true: only ${type}s with an upcoming event.`, default: false }), {
      check: (v: unknown) => accept(truthy(v)),
    }),
    status: statusFilterArg,
  };
}
