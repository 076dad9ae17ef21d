/**
 * Venues and organizers: read, list, create (reusing a same-named record, as the original does), update
 * (partial), trash (unlinking events). Also what event writes call to create or reuse them inline, inside the
 * event's transaction. Every method takes the actor first and asks the policy before it writes.
 */
import type { Config } from '../../config/config.js';
import type { Storage } from '../../storage/storage.js';
import type { LinkedPostFields, LinkedStore } from '../../storage/stores/linked.store.js';
import type { ImageRecord } from '../../storage/stores/image.store.js';
import { isAuthenticated, type Actor } from '../actor.js';
import { errors } from '../errors.js';
import { can, canDeletePost, canEditPost, canReadPost, listVisibility } from '../policies.js';
import { applyScheduling, needsSlug, scaleBackStatus, SLUG_UNIQUE_STATUSES, TRASHED_SUFFIX } from '../posts/status.js';
import { firstFreeSlug, sanitizeSlug } from '../slugs.js';
import { assertMayWrite, filterHtml, postStamp, publicationMs, publicationUpdate, resolveImage, retryOnConflict, trashFields } from '../posts/post-writes.js';
import type { LinkedInput, LinkedListFilter, LinkedRecord, LinkedType, OrganizerRecord, VenueRecord } from './linked.js';

export interface LinkedView<R extends LinkedRecord = LinkedRecord> {
  readonly record: R;
  readonly image: ImageRecord | undefined;
}

/** Detail columns and their values on create when not sent. */
const CREATE_DEFAULTS: Record<LinkedType, Record<string, string | number | null>> = {
  venue: {
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    website: '',
    stateprovince: '',
    show_map: 1,
    show_map_link: 1,
    geo_lat: null,
    geo_lng: null,
  },
  organizer: { phone: '', website: '', email: '' },
};

/** `stateprovince` when it is not given: the state for US (or no) country, else the province. */
export function deriveStateProvince(country: string, state: string, province: string): string {
  const c = country.trim().toLowerCase();
  return c === '' || c === 'us' || c === 'usa' || c === 'united states' ? state : province;
}

export class LinkedService<R extends LinkedRecord> {
  constructor(
    private readonly storage: Storage,
    private readonly config: Config,
    readonly type: LinkedType,
    private readonly clock: () => number = Date.now,
  ) {}

  private store(s: Storage = this.storage): LinkedStore<R> {
    return (this.type === 'venue' ? s.venues : s.organizers) as unknown as LinkedStore<R>;
  }

  // ---- reads -------------------------------------------------------------------------------------------

  async exists(id: number): Promise<boolean> {
    return (await this.storage.posts.typeOf(id)) === this.type;
  }

  async idForSlug(slug: string): Promise<number | undefined> {
    return (await this.store().findBySlug(slug))?.id;
  }

  async get(actor: Actor, id: number): Promise<LinkedView<R>> {
    const record = await this.store().find(id);
    if (!record) throw errors.invalidParam('id');
    if (!canReadPost(actor, record)) throw errors.linkedNotAccessible(this.type);
    return (await this.views([record]))[0];
  }

  async views(records: readonly R[]): Promise<LinkedView<R>[]> {
    const images = await this.storage.images.findMany(records.map((r) => r.imageId).filter((id): id is number => id !== null));
    return records.map((record) => ({ record, image: record.imageId === null ? undefined : images.get(record.imageId) }));
  }

  async list(
    actor: Actor,
    filter: Omit<LinkedListFilter, 'visibility'>,
    page: number,
    perPage: number,
  ): Promise<{ views: LinkedView<R>[]; total: number }> {
    const { records, total } = await this.store().list({ ...filter, visibility: listVisibility(actor) }, perPage, (page - 1) * perPage);
    return { views: await this.views(records), total };
  }

  // ---- writes ------------------------------------------------------------------------------------------

  /** Creates one, or answers with the same-named one it reuses. */
  async create(actor: Actor, input: LinkedInput): Promise<LinkedView<R>> {
    if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
    assertMayWrite(actor, input);
    const id = await retryOnConflict(() => this.storage.transaction((tx) => this.createOrReuse(tx, actor, input)));
    return this.view(id);
  }

  /**
   * Inside a transaction: reuse a same-named record the actor may read (writing the sent fields onto it when
   * they may edit it), or create one. Returns its id.
   */
  async createOrReuse(tx: Storage, actor: Actor, input: LinkedInput): Promise<number> {
    const name = (input.name ?? '').trim();
    if (name === '') throw errors.couldNotCreateLinked(this.type, 'a name is required');
    const description = typeof input.description === 'string' ? input.description : undefined;
    // two writers creating the same name at once: the second waits and then finds the first's record
    await tx.lock(`name:${this.type}:${name.toLowerCase()}`);
    const duplicate = (await this.store(tx).findDuplicates(name, description)).find((r) => canReadPost(actor, r));
    const nowMs = this.clock();
    const now = postStamp(nowMs, this.config.siteTimezone);
    if (duplicate) {
      if (canEditPost(actor, duplicate)) {
        const details = this.details(input.meta, duplicate, true);
        const post: Partial<LinkedPostFields> = { modified: now.local, modified_utc: now.utc };
        if (input.image !== undefined) post.image_id = await resolveImage(tx, actor, input.image, now);
        await this.store(tx).update(duplicate.id, post, details);
      }
      return duplicate.id;
    }
    const published = publicationMs(input, this.config.siteTimezone, nowMs) ?? nowMs;
    const status = applyScheduling(scaleBackStatus(actor, input.status ?? undefined), published, nowMs);
    const pub = postStamp(published, this.config.siteTimezone);
    const slug = needsSlug(status) ? await this.uniqueSlug(tx, sanitizeSlug(name) || this.type, status) : '';
    const post: LinkedPostFields = {
      status,
      status_before_trash: null,
      author_id: input.author ?? (actor.kind === 'user' ? actor.id : 0),
      title: filterHtml(actor, name),
      content: filterHtml(actor, input.description ?? ''),
      slug,
      image_id: await resolveImage(tx, actor, input.image, now),
      date: pub.local,
      date_utc: pub.utc,
      modified: now.local,
      modified_utc: now.utc,
    };
    return this.store(tx).insert(post, this.details(input.meta, undefined, true));
  }

  async update(actor: Actor, id: number, input: LinkedInput): Promise<LinkedView<R>> {
    const access = await this.storage.posts.findAccess(id);
    if (!access || access.type !== this.type) throw errors.invalidParam('id');
    if (!canEditPost(actor, access)) throw errors.forbidden(isAuthenticated(actor));
    assertMayWrite(actor, input);
    await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        const current = await this.store(tx).find(id);
        if (!current) throw errors.invalidParam('id');
        const nowMs = this.clock();
        const now = postStamp(nowMs, this.config.siteTimezone);
        const post: Partial<LinkedPostFields> = { modified: now.local, modified_utc: now.utc };
        if (input.name !== undefined) post.title = filterHtml(actor, input.name.trim());
        if (input.description !== undefined) post.content = filterHtml(actor, input.description ?? '');
        if (input.author !== undefined && input.author !== null) post.author_id = input.author;
        if (input.image !== undefined) post.image_id = await resolveImage(tx, actor, input.image, now);
        const { status, fields } = publicationUpdate(actor, input, current, this.config.siteTimezone, this.config.siteTimezone, nowMs);
        Object.assign(post, fields);
        if (status !== current.status) {
          const bare = current.slug.endsWith(TRASHED_SUFFIX) ? current.slug.slice(0, -TRASHED_SUFFIX.length) : current.slug;
          if (status === 'trash') post.slug = bare === '' ? '' : `${bare}${TRASHED_SUFFIX}`;
          else if (bare !== '' || needsSlug(status)) {
            post.slug = await this.uniqueSlug(tx, bare || sanitizeSlug(post.title ?? current.title) || this.type, status, id);
          }
        }
        await this.store(tx).update(id, post, this.details(input.meta, current, false));
        if (status === 'trash' && current.status !== 'trash') await this.unlinkEvents(tx, id);
      }),
    );
    return this.view(id);
  }

  /** Moves to the trash and takes it off every event. */
  async remove(actor: Actor, id: number): Promise<LinkedView<R>> {
    const access = await this.storage.posts.findAccess(id);
    if (!access || access.type !== this.type) throw errors.invalidParam('id');
    if (!canDeletePost(actor, access)) throw errors.forbidden(isAuthenticated(actor));
    if (access.status === 'trash') throw errors.linkedInTrash(this.type, id);
    const now = postStamp(this.clock(), this.config.siteTimezone);
    await this.storage.transaction(async (tx) => {
      const current = await this.store(tx).find(id);
      if (!current) throw errors.invalidParam('id');
      if (current.status === 'trash') throw errors.linkedInTrash(this.type, id);
      await this.store(tx).update(id, trashFields(current, now), {});
      await this.unlinkEvents(tx, id);
    });
    return this.view(id);
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private async view(id: number): Promise<LinkedView<R>> {
    const record = await this.store().find(id);
    if (!record) throw errors.invalidParam('id');
    return (await this.views([record]))[0];
  }

  private async unlinkEvents(tx: Storage, id: number): Promise<void> {
    if (this.type === 'venue') await tx.events.unlinkVenue(id);
    else await tx.events.unlinkOrganizer(id);
  }

  /**
   * The detail columns to write. On create (or a reuse) what was not sent takes its default; on update it is
   * left alone. `stateprovince` follows state/province/country unless it is sent.
   */
  private details(meta: LinkedInput['meta'], current: R | undefined, create: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const defaults = CREATE_DEFAULTS[this.type];
    for (const column of Object.keys(defaults)) {
      if (column in meta) out[column] = meta[column] ?? (typeof defaults[column] === 'number' ? defaults[column] : defaults[column] ?? null);
      else if (create && (current === undefined || column === 'show_map' || column === 'show_map_link')) out[column] = defaults[column];
    }
    if (this.type === 'venue') {
      const sentSp = typeof meta.stateprovince === 'string' && meta.stateprovince !== '';
      const touched = 'state' in meta || 'province' in meta || 'country' in meta;
      if (!sentSp && (touched || (create && current === undefined))) {
        const v = current as VenueRecord | undefined;
        const pick = (k: 'country' | 'state' | 'province') => (k in out ? String(out[k] ?? '') : (v?.[k] ?? ''));
        out.stateprovince = deriveStateProvince(pick('country'), pick('state'), pick('province'));
      }
    }
    return out;
  }

  private async uniqueSlug(tx: Storage, base: string, status: string, excludeId?: number): Promise<string> {
    if (!SLUG_UNIQUE_STATUSES.includes(status)) return base;
    await tx.lock(`slug:${this.type}:${base}`);
    return firstFreeSlug(base, (candidates) => this.store(tx).takenSlugs(candidates, SLUG_UNIQUE_STATUSES, excludeId));
  }


}

export type VenueService = LinkedService<VenueRecord>;
export type OrganizerService = LinkedService<OrganizerRecord>;
