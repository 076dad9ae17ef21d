/**
 * What every post write (events, venues, organizers) shares: retrying a transaction that lost a race,
 * post date stamps, HTML filtering by capability, featured images, and publication dates (see post-writer.ts
 * for the write path itself).
 */

import { StorageError } from '../../storage/dialects/dialect.js';
import type { Storage } from '../../storage/storage.js';
import type { ImageRecord } from '../../storage/stores/image.store.js';
import { parseDateInput } from '../../time/strtotime.js';
import { formatUtcMs, formatWall, getZone, utcMsToZonedWall, wallToMs, zonedWallToUtcMs } from '../../time/zones.js';
import type { Actor } from '../actor.js';
import { sanitizeHtml } from '../content/html.js';
import { errors } from '../errors.js';
import { can } from '../policies.js';

/** Runs a transaction again when a concurrent writer won a unique slug or held the lock. */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      // (a row a write links to deleted meanwhile — a category, on PostgreSQL — is a conflict too: tried again,
      // the write resolves its links anew and finds it gone, as it would have had it come second)
      const again = error instanceof StorageError && (error.kind === 'unique' || error.kind === 'busy' || error.kind === 'foreign_key');
      if (!again || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/** A post date pair: site-local and UTC. */
export interface Stamp {
  readonly local: string;
  readonly utc: string;
}

export function postStamp(ms: number, siteZone: string): Stamp {
  return { local: formatWall(utcMsToZonedWall(ms, getZone(siteZone))), utc: formatUtcMs(ms) };
}

/** HTML as sent for editors and administrators (`unfiltered_html`); a safe subset for everyone else. */
export function filterHtml(actor: Actor, text: string): string {
  return can(actor, 'unfiltered_html') ? text : sanitizeHtml(text);
}

/** The publication instant from `date_utc` (read as UTC) or `date` (read in `zoneName`); undefined if neither. */
export function publicationMs(
  input: { readonly date?: string | null; readonly dateUtc?: string | null },
  zoneName: string,
  nowMs: number,
): number | undefined {
  if (input.dateUtc) {
    const parsed = parseDateInput(input.dateUtc, { nowMs, zone: getZone('UTC') });
    if (!parsed) throw errors.invalidParam('date_utc');
    return parsed.instantMs ?? wallToMs(parsed.wall);
  }
  if (input.date) {
    const zone = getZone(zoneName);
    const parsed = parseDateInput(input.date, { nowMs, zone });
    if (!parsed) throw errors.invalidParam('date');
    return parsed.instantMs ?? zonedWallToUtcMs(parsed.wall, zone);
  }
  return undefined;
}

/** An image id must name a stored image; a URL becomes (or reuses) an external image. null/'' clear. */
export async function resolveImage(tx: Storage, actor: Actor, image: number | string | null | undefined, now: Stamp): Promise<number | null> {
  return (await resolveImageRecord(tx, actor, image, now))?.id ?? null;
}

/** The same, answering with the image as stored. */
export async function resolveImageRecord(
  tx: Storage,
  actor: Actor,
  image: number | string | null | undefined,
  now: Stamp,
): Promise<ImageRecord | null> {
  if (image === undefined || image === null || image === '') return null;
  if (typeof image === 'number') {
    const found = await tx.images.find(image);
    if (!found) throw errors.invalidParam('image');
    return found;
  }
  return (await tx.images.findByUrl(image)) ?? (await tx.images.createExternal(image, actor.kind === 'user' ? actor.id : 0, now));
}

/** Writing as someone else needs `edit_others_posts`; an image by URL needs `upload_files`. */
export function assertMayWrite(actor: Actor, input: { readonly author?: number | null; readonly image?: unknown }): void {
  const userId = actor.kind === 'user' ? actor.id : 0;
  if (input.author !== undefined && input.author !== null && input.author !== userId && !can(actor, 'edit_others_posts')) {
    throw errors.cannotEditOthers();
  }
  if (typeof input.image === 'string' && input.image !== '' && !can(actor, 'upload_files')) throw errors.cannotUploadImage();
}
