/**
 * Arguments every post route shares (events, venues, organizers): author, dates, status, image, URLs, the status
 * list filter. Each carries its domain name (`as`) and the type of its checked value.
 */
import { Type } from '@sinclair/typebox';
import { absoluteHttpUrl } from '../../domain/content/web-address.js';
import { can } from '../../domain/policies.js';
import { isStatus } from '../../domain/posts/status.js';
import { parseDateInput } from '../../time/strtotime.js';
import { getZone } from '../../time/zones.js';
import { type ArgContext, accept, arg, invalid, parseInteger } from '../params.js';

/** The original's `tribe_is_truthy`. */
export const truthy = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && ['1', 'true', 'on', 'yes'].includes(v.trim().toLowerCase()));

/** Parseable the way the original's strtotime-based validator accepts it. */
const dateCheck = (value: string, { services }: ArgContext) =>
  parseDateInput(value, { nowMs: Date.now(), zone: getZone(services.siteTimezone) }) ? undefined : invalid();

/** A date argument (domain name `as`). */
export const dateArg = <const N extends string>(description: string, as: N) =>
  arg(Type.String({ description: `${description} Any strtotime-style date: 2018-01-01 16:00, tomorrow 9am, +5 days, a unix timestamp.` }), {
    as,
    check: dateCheck,
  });

/** The publication date pair of every post. */
export const publicationArgs = {
  date: dateArg("Publication date, in the site's time zone.", 'date'),
  date_utc: dateArg('Publication date, in UTC.', 'dateUtc'),
};

export const authorArg = arg(Type.Integer({ description: "The author's user id (default: the caller)." }), {
  check: async (id: number, { services }: ArgContext) => ((await services.users.exists(id)) ? undefined : invalid()),
});

export const statusArg = arg(Type.String({ description: 'Publication status: publish, future, draft, pending, private.' }), {
  check: (v: string) => (isStatus(v) ? undefined : invalid()),
});

/** A stored image id, or an absolute http(s) URL from a role that may upload; `''` clears where allowed. */
export function imageArg(allowEmpty: boolean) {
  return arg(Type.Unknown({ description: 'A stored image id, or an absolute http(s) image URL (not downloaded); empty removes it.' }), {
    check: async (value: unknown, { services, actor }: ArgContext) => {
      if (allowEmpty && (value === '' || value === 0 || value === '0')) return accept<number | string | null>(null);
      const id =
        typeof value === 'number' ? (Number.isSafeInteger(value) ? value : undefined) : typeof value === 'string' ? parseInteger(value) : undefined;
      if (id !== undefined) return id > 0 && (await services.imageExists(id)) ? accept<number | string | null>(id) : invalid();
      if (typeof value !== 'string' || !absoluteHttpUrl(value.trim())) return invalid();
      if (!can(actor, 'upload_files')) return invalid('Only roles that may upload files may set an image by URL.');
      return accept<number | string | null>(value.trim());
    },
  });
}

/** A website: an absolute http(s) URL, or `''` to clear. */
export const websiteArg = (description: string) =>
  arg(Type.Unknown({ description: `${description}: an absolute URL, or empty to clear.` }), {
    check: (v: unknown) => {
      if (v === '') return accept('');
      return typeof v === 'string' && absoluteHttpUrl(v.trim()) ? accept(v.trim()) : invalid();
    },
  });

/** The `status` list filter: `publish` only for callers who cannot edit; registered statuses (or any) otherwise. */
export const statusFilterArg = arg(
  Type.Array(Type.String(), { description: 'Publication statuses (CSV or array); publish only for callers who cannot edit.' }),
  {
    as: 'statuses',
    check: (statuses: string[], { actor }: ArgContext) => {
      if (!can(actor, 'edit_posts')) return statuses.length === 1 && statuses[0] === 'publish' ? undefined : invalid();
      return statuses.length > 0 && statuses.every((s) => s === 'any' || isStatus(s)) ? undefined : invalid();
    },
  },
);

/** An id of a post of `type` that the caller may read (an id they may not read is answered as a missing one). */
export const readablePostId = (type: 'event' | 'venue' | 'organizer', description: string) =>
  arg(Type.Integer({ description }), {
    check: async (id: number, { services, actor }: ArgContext) => ((await services.readablePosts(actor, [id], type)).has(id) ? undefined : invalid()),
  });
