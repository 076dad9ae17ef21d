/**
 * Categories, tags, images, venues and organizers of a site import (see tec.writer.ts for the rules): each is
 * matched by the import map, else (terms) by slug or name here, created once, updated when what would be
 * written changed, left alone when it did not.
 */
import type { Storage } from '../../../storage/storage.js';
import type { ImageContent, ImageRecord } from '../../../storage/stores/image.store.js';
import type { LinkedService } from '../../linked/linked.service.js';
import { type MediaInfo, mediaPath } from '../../media/media.js';
import { postStamp } from '../../posts/post-writes.js';
import { decodeSlug, hashOf, isBlankedLinked, type Json, lineageOf, linkedFields, obj, oldPath, str } from './tec.mapper.js';
import { sizesOf } from './tec.media.js';
import { count, type Outcome, warn } from './tec.report.js';
import type { TecWriter } from './tec.writer.js';

const TERM_KIND = { category: 'categories', tag: 'tags' } as const;

export async function writeTerm(w: TecWriter, tx: Storage, kind: 'category' | 'tag', remote: Json): Promise<number | undefined> {
  const rid = str(remote, 'id');
  const service = w.servicesIn(tx)[TERM_KIND[kind]];
  const parentRid = kind === 'category' ? str(remote, 'parent') : '0';
  let parent = 0;
  if (parentRid !== '' && parentRid !== '0') {
    const p = w.cache.get('category', parentRid);
    if (p) parent = p.localId;
    else warn(w.report, kind, rid, `its parent category ${parentRid} is not on the site's list: imported at the top level`);
  }
  const input = {
    name: str(remote, 'name').trim(),
    slug: decodeSlug(str(remote, 'slug')),
    description: str(remote, 'description'),
    ...(kind === 'category' ? { parent } : {}),
  };
  const hash = hashOf(input);
  const known = w.same(kind, rid, hash, null);
  if (known) return w.done(kind, 'unchanged', known.localId);
  const row = {
    kind,
    remoteId: rid,
    remoteModified: null,
    hash,
    remoteGlobalId: null,
    incomplete: false,
    oldPath: oldPath(str(remote, 'url'), w.settings.site.home),
  };
  const mapped = w.cache.get(kind, rid);
  const taxonomy = service.info.taxonomy;
  let localId = mapped && mapped.localId > 0 && (await tx.terms.find(taxonomy, mapped.localId)) ? mapped.localId : undefined;
  // a term of that slug or name that exists here already is the same term
  localId ??=
    (await tx.terms.findBySlug(taxonomy, input.slug))?.id ??
    (await tx.terms.findByName(taxonomy, input.name, kind === 'category' ? parent : undefined))?.id;
  const current = localId === undefined ? undefined : await tx.terms.find(taxonomy, localId);
  const patch = {
    ...(current?.name !== input.name ? { name: input.name } : {}),
    ...(current?.description !== input.description ? { description: input.description } : {}),
    ...(kind === 'category' && current?.parentId !== parent ? { parent } : {}),
  };
  let outcome: Outcome = localId === undefined ? 'created' : Object.keys(patch).length === 0 && mapped === undefined ? 'unchanged' : 'updated';
  if (w.settings.dryRun) {
    localId ??= mapped?.localId ?? w.cache.nextFakeId();
    if (mapped && localId === mapped.localId && localId < 0) outcome = 'created';
  } else if (localId === undefined) {
    localId = (await service.create(w.settings.actor, input)).id;
  } else if (Object.keys(patch).length > 0) {
    await service.update(w.settings.actor, localId, patch);
  }
  await w.remember(tx, { ...row, localId });
  return w.done(kind, outcome, localId);
}

/**
 * The local image of a remote featured image, once per remote attachment: linked by its URL on the site, or
 * (download) our copies of its files, served here. A download that could not be had leaves the record without
 * an image (tec.media.ts says why in the report); the image post stays the same one when an image changes, or
 * moves from a link to a copy and back, so what shows it need not change.
 */
export async function writeImage(w: TecWriter, tx: Storage, value: unknown): Promise<number | undefined> {
  const image = obj(value);
  if (w.settings.images === 'skip' || !image) return undefined;
  const url = str(image, 'url');
  if (!/^https?:\/\//i.test(url)) return undefined;
  const rid = str(image, 'id') || url;
  const met = w.cache.get('image', rid);
  if (met && met.seenPass === w.settings.pass && met.localId !== 0) return met.localId;
  return w.settings.images === 'download' ? writeCopiedImage(w, tx, image, rid) : writeLinkedImage(w, tx, image, rid);
}

/** An existing image post mapped to this remote image, if it is still there. */
async function mappedImage(w: TecWriter, tx: Storage, rid: string): Promise<ImageRecord | undefined> {
  const mapped = w.cache.get('image', rid);
  return mapped && mapped.localId > 0 ? tx.images.find(mapped.localId) : undefined;
}

async function writeLinkedImage(w: TecWriter, tx: Storage, image: Json, rid: string): Promise<number | undefined> {
  const url = str(image, 'url');
  const sizes = obj(image.sizes) ?? {};
  const first = obj(Object.values(sizes)[0]);
  const meta = {
    width: Number(image.width) || null,
    height: Number(image.height) || null,
    filesize: Number(image.filesize) || null,
    mimeType: str(first, 'mime-type'),
    sizes,
  };
  const hash = hashOf({ url, meta });
  const known = w.same('image', rid, hash, null);
  if (known) return w.done('image', 'unchanged', known.localId);
  let localId: number;
  if (w.settings.dryRun) {
    localId = (await tx.images.findByUrl(url))?.id ?? (await mappedImage(w, tx, rid))?.id ?? w.cache.nextFakeId();
  } else {
    const existing = (await tx.images.findByUrl(url)) ?? (await mappedImage(w, tx, rid));
    if (existing && existing.url !== url) {
      // a copy an earlier run kept (download): the same image post, pointing at the site again
      const extension = /\.([a-z0-9]{1,8})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
      await tx.images.setContent(existing.id, { url, extension, ...meta, sizes: {} });
    }
    localId = existing?.id ?? (await tx.images.createExternal(url, w.settings.authorId, postStamp(w.clock(), w.settings.siteZone))).id;
    await tx.importMap.setImageMeta(localId, meta);
  }
  return rememberImage(w, tx, rid, localId, hash);
}

/** (download) Our copies of the full-size file and of the sizes the site lists; none when the full size failed. */
async function writeCopiedImage(w: TecWriter, tx: Storage, image: Json, rid: string): Promise<number | undefined> {
  const url = str(image, 'url');
  const full = w.media?.result(url);
  if (!full) throw new Error(`the image ${url} was not fetched before the record that shows it was written`);
  if (!full.copy) return undefined;
  const served = (info: MediaInfo) => `${w.settings.mediaBase}${mediaPath(info)}`;
  const sizes: ImageContent['sizes'] = {};
  for (const [name, sizeUrl] of sizesOf(image)) {
    const copy = w.media?.result(sizeUrl)?.copy;
    if (copy) sizes[name] = { width: copy.width, height: copy.height, 'mime-type': copy.mimeType, filesize: copy.size, url: served(copy) };
  }
  const { copy } = full;
  const content: ImageContent = {
    url: served(copy),
    extension: copy.extension,
    mimeType: copy.mimeType,
    width: copy.width,
    height: copy.height,
    filesize: copy.size,
    sizes,
  };
  const hash = hashOf({ download: content });
  const known = w.same('image', rid, hash, null);
  if (known) return w.done('image', 'unchanged', known.localId);
  const existing = await mappedImage(w, tx, rid);
  let localId: number;
  if (w.settings.dryRun) {
    localId = existing?.id ?? w.cache.nextFakeId();
  } else {
    // (titled by the site's file name, as WordPress titles an upload)
    const title = decodeSlug(new URL(url).pathname.split('/').pop() ?? '');
    localId = existing?.id ?? (await tx.images.createExternal(content.url, w.settings.authorId, postStamp(w.clock(), w.settings.siteZone), title)).id;
    await tx.images.setContent(localId, content);
  }
  return rememberImage(w, tx, rid, localId, hash);
}

async function rememberImage(w: TecWriter, tx: Storage, rid: string, localId: number, hash: string): Promise<number> {
  const outcome: Outcome = w.cache.get('image', rid) ? 'updated' : 'created';
  await w.remember(tx, {
    kind: 'image',
    remoteId: rid,
    localId,
    remoteModified: null,
    hash,
    remoteGlobalId: null,
    incomplete: false,
    oldPath: null,
  });
  return w.done('image', outcome, localId);
}

/**
 * A venue or organizer. `embedded`: met inside an event but not on the site's list (a draft the original
 * leaked, or one the lists hide): created as a draft, never published.
 */
export async function writeLinked(
  w: TecWriter,
  tx: Storage,
  kind: 'venue' | 'organizer',
  remote: Json,
  embedded = false,
): Promise<number | undefined> {
  const rid = str(remote, 'id');
  if (isBlankedLinked(kind, remote)) {
    warn(w.report, kind, rid, 'protected by a password: its fields came blanked, so it is not imported');
    count(w.report, kind, 'failed');
    return undefined;
  }
  const mapped = w.cache.get(kind, rid);
  const status = embedded ? 'draft' : str(remote, 'status') || 'publish';
  if (embedded) warn(w.report, kind, rid, `not on the site's ${kind} list (${str(remote, 'status') || 'status unknown'} there): imported as a draft`);
  const fields = linkedFields(kind, remote, status, w.settings.site.zone);
  const image = await writeImage(w, tx, remote.image);
  const input: Record<string, unknown> = { ...fields, author: w.settings.authorId, ...(image !== undefined ? { image } : {}) };
  const hash = hashOf(input);
  const known = w.same(kind, rid, hash, str(remote, 'modified_utc') || null);
  // (unchanged on the site, but a copy here in the trash — pruned when the site had it no more, or trashed by
  // hand — is no record to link events to: made again below)
  if (known && (await tx.linked(kind).find(known.localId))?.status !== 'trash') return w.done(kind, 'unchanged', known.localId);
  const service = w.servicesIn(tx)[kind === 'venue' ? 'venues' : 'organizers'] as LinkedService<'venue'>;
  const row = {
    kind,
    remoteId: rid,
    remoteModified: str(remote, 'modified_utc') || null,
    hash,
    remoteGlobalId: str(remote, 'global_id') || null,
    incomplete: false,
    oldPath: oldPath(str(remote, 'url'), w.settings.site.home),
  };
  const exists = mapped && mapped.localId > 0 ? await tx.linked(kind).find(mapped.localId) : undefined;
  let localId: number;
  let outcome: Outcome;
  if (w.settings.dryRun) {
    localId = exists?.id ?? w.cache.nextFakeId();
    outcome = exists ? 'updated' : 'created';
  } else if (exists && exists.status !== 'trash') {
    const { slug, ...rest } = input;
    const sameSlug = row.oldPath === mapped?.oldPath;
    localId = (await service.update(w.settings.actor, exists.id, (sameSlug ? rest : input) as never)).record.id;
    outcome = 'updated';
  } else {
    // matched by remote id only (FEATURES.md §6.3): a record of the same name here — another remote one, or the
    // user's own — is a different place or person, neither reused nor written over
    localId = (await service.createNew(w.settings.actor, input as never)).record.id;
    outcome = 'created';
  }
  await w.remember(tx, { ...row, localId }, lineageOf(remote));
  return w.done(kind, outcome, localId);
}
