/** Arguments every post route shares (events, venues, organizers): author, dates, status, image, URLs. */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../domain/services.js';
import { isStatus } from '../../domain/posts/status.js';
import { can } from '../../domain/policies.js';
import { getZone } from '../../time/zones.js';
import { parseDateInput } from '../../time/strtotime.js';
import { accept, arg, invalid, parseInteger, type Arg, type ArgCheck } from '../params.js';

type A = Arg<Services>;

export function absoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The original's `tribe_is_truthy`. */
export const truthy = (v: unknown) =>
  v === true || v === 1 || (typeof v === 'string' && ['1', 'true', 'on', 'yes'].includes(v.trim().toLowerCase()));

/** Parseable the way the original's strtotime-based validator accepts it. */
export const dateCheck: ArgCheck<Services> = (value: string, { services }) =>
  parseDateInput(value, { nowMs: Date.now(), zone: getZone(services.config.siteTimezone) }) ? undefined : invalid();

export const dateArg = (description: string, required = false): A =>
  arg(
    Type.String({ description: `${description} Any strtotime-style date: 2018-01-01 16:00, tomorrow 9am, +5 days, a unix timestamp.` }),
    { required, check: dateCheck },
  );

export const authorArg: A = arg(Type.Integer({ description: 'The author\'s user id (default: the caller).' }), {
  check: async (id: number, { services }) => ((await services.storage.users.exists(id)) ? undefined : invalid()),
});

export const statusArg: A = arg(Type.String({ description: 'Publication status: publish, future, draft, pending, private.' }), {
  check: (v: string) => (isStatus(v) ? undefined : invalid()),
});

/** A stored image id, or an absolute http(s) URL from a role that may upload; `''` clears where allowed. */
export function imageArg(allowEmpty: boolean): A {
  return arg(Type.Unknown({ description: 'A stored image id, or an absolute http(s) image URL (not downloaded).' }), {
    check: async (value, { services, actor }) => {
      if (allowEmpty && (value === '' || value === 0 || value === '0')) return accept(null);
      const id =
        typeof value === 'number' ? (Number.isSafeInteger(value) ? value : undefined) : typeof value === 'string' ? parseInteger(value) : undefined;
      if (id !== undefined) return id > 0 && (await services.storage.images.find(id)) ? accept(id) : invalid();
      if (typeof value !== 'string' || !absoluteHttpUrl(value.trim())) return invalid();
      if (!can(actor, 'upload_files')) return invalid('Only roles that may upload files may set an image by URL.');
      return accept(value.trim());
    },
  });
}

/** A website: an absolute http(s) URL, or `''` to clear. */
export const websiteArg = (description: string): A =>
  arg(Type.Unknown({ description: `${description}: an absolute URL, or empty to clear.` }), {
    check: (v: unknown) => {
      if (v === '') return accept('');
      return typeof v === 'string' && absoluteHttpUrl(v.trim()) ? accept(v.trim()) : invalid();
    },
  });

/** The `status` list filter: `publish` only for callers who cannot edit; registered statuses (or any) otherwise. */
export const statusFilterArg: A = arg(
  Type.Array(Type.String(), { description: 'Publication statuses (CSV or array); publish only for callers who cannot edit.' }),
  {
    check: (statuses: string[], { actor }) => {
      if (!can(actor, 'edit_posts')) return statuses.length === 1 && statuses[0] === 'publish' ? undefined : invalid();
      return statuses.length > 0 && statuses.every((s) => s === 'any' || isStatus(s)) ? undefined : invalid();
    },
  },
);
