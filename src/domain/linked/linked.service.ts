/**
 * Venues and organizers: read, list, create (reusing a same-named record, as the original does; an importer's
 * createNew never does), update
 * (partial), trash (unlinking events). Also what event writes call to link, create or reuse them inline, inside
 * the event's transaction. One class serves both kinds; what differs is the kind's descriptor (linked.ts).
 */
import type { Storage } from '../../storage/storage.js';
import type { ImageRecord } from '../../storage/stores/image.store.js';
import type { LinkedStore } from '../../storage/stores/linked.store.js';
import { nowUtc } from '../../time/clock.js';
import { type Actor, isAuthenticated } from '../actor.js';
import { errors } from '../errors.js';
import { can, canEditPost, canReadPost } from '../policies.js';
import { type PostKind, type PostKindStore, PostWriter } from '../posts/post-writer.js';
import { assertMayWrite, postStamp, resolveImage, retryOnConflict } from '../posts/post-writes.js';
import { statusFilter } from '../posts/status.js';
import { findBySlugAsWordPress } from '../slugs.js';
import { listVisibility } from '../visibility.js';
import type { DetailsRecordOf, FieldSpec, KindOf, LinkedInput, LinkedKind, LinkedListQuery, LinkedType, RecordOf } from './linked.js';

export interface LinkedView<R = RecordOf<LinkedType>> {
  readonly record: R;
  readonly image: ImageRecord | undefined;
}

export interface LinkedPage<T extends LinkedType> {
  readonly items: readonly LinkedView<RecordOf<T>>[];
  readonly total: number;
  readonly effective: Readonly<Record<string, unknown>>;
}

/** The search tokens: split on everything that is not a letter, a digit or a dash (CONTRACT.md §4). */
export function searchTokens(search: string): string[] {
  return search.split(/[^\p{L}\p{N}-]+/u).filter((t) => t !== '');
}

type Details = Record<string, unknown>;

export class LinkedService<T extends LinkedType> {
  private readonly writer: PostWriter<RecordOf<T>, DetailsRecordOf<T>>;

  constructor(
    private readonly storage: Storage,
    private readonly siteZone: string,
    readonly kind: KindOf<T>,
    private readonly clock: () => number = Date.now,
  ) {
    const postKind: PostKind<RecordOf<T>, DetailsRecordOf<T>> = {
      type: kind.type,
      draftSlugs: true,
      // the route validates the id first, so these answer only races: as the original, a 400 on `id`
      notFound: () => errors.invalidParam('id'),
      wrongType: () => errors.invalidParam('id'),
      inTrash: () => errors.linkedInTrash(kind.type),
      store: (s) => this.store(s),
    };
    this.writer = new PostWriter(storage, siteZone, postKind, clock);
  }

  private store(s: Storage = this.storage): PostKindStore<RecordOf<T>, DetailsRecordOf<T>> & LinkedStore<T> {
    return s.linked(this.kind.type) as never;
  }

  // ---- reads -------------------------------------------------------------------------------------------

  async exists(id: number): Promise<boolean> {
    return (await this.storage.posts.typeOf(id)) === this.kind.type;
  }

  /** The id behind a slug (any status), as WordPress looks it up. */
  async idForSlug(slug: string): Promise<number | undefined> {
    return (await findBySlugAsWordPress(slug, (tried) => this.store().findBySlug(tried)))?.id;
  }

  async get(actor: Actor, id: number): Promise<LinkedView<RecordOf<T>>> {
    const record = (await this.store().find(id)) as RecordOf<T> | undefined;
    if (!record) throw errors.invalidParam('id');
    if (!this.readable(actor, record)) throw errors.linkedNotAccessible(this.kind.type);
    return (await this.views([record]))[0];
  }

  /** Whether a single read answers this caller with the record (get). */
  readable(actor: Actor, record: RecordOf<T>): boolean {
    return canReadPost(actor, record);
  }

  /**
   * The record as a conditional write checks it (see EventService.item): the record, read first, and its view
   * when a single read answers this caller with it; undefined when there is none of this kind with this id.
   */
  async item(actor: Actor, id: number): Promise<{ record: RecordOf<T>; view: LinkedView<RecordOf<T>> | undefined } | undefined> {
    const record = (await this.store().find(id)) as RecordOf<T> | undefined;
    if (!record) return undefined;
    return { record, view: this.readable(actor, record) ? (await this.views([record]))[0] : undefined };
  }

  async views(records: readonly RecordOf<T>[]): Promise<LinkedView<RecordOf<T>>[]> {
    const images = await this.storage.images.findMany(records.map((r) => r.imageId).filter((id): id is number => id !== null));
    return records.map((record) => ({ record, image: record.imageId === null ? undefined : images.get(record.imageId) }));
  }

  /** One page of `GET /venues` or `/organizers` (CONTRACT.md §4), newest first, with its effective filters. */
  async list(actor: Actor, q: LinkedListQuery): Promise<LinkedPage<T>> {
    const statuses = statusFilter(q.statuses);
    const { records, total } = await this.store().list(
      {
        visibility: listVisibility(actor),
        statuses,
        searchTokens: q.search ? searchTokens(q.search) : undefined,
        event: q.event ?? undefined,
        hasEvents: q.hasEvents ?? undefined,
        upcomingFrom: q.onlyWithUpcoming ? nowUtc() : undefined,
        modifiedAfter: q.modifiedAfter ?? undefined,
        modifiedBefore: q.modifiedBefore ?? undefined,
      },
      q.perPage,
      (q.page - 1) * q.perPage,
    );
    const status = statuses !== undefined ? statuses.join(',') : can(actor, 'edit_posts') ? undefined : 'publish';
    const effective = { statuses: status, onlyWithUpcoming: q.onlyWithUpcoming ? true : undefined };
    return { items: await this.views(records as RecordOf<T>[]), total, effective };
  }

  // ---- writes ------------------------------------------------------------------------------------------

  /** Creates one, or answers with the same-named one it reuses. */
  async create(actor: Actor, input: LinkedInput<T>): Promise<LinkedView<RecordOf<T>>> {
    if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
    assertMayWrite(actor, input);
    const id = await retryOnConflict(() => this.storage.transaction((tx) => this.createOrReuse(tx, actor, input)));
    return this.view(id);
  }

  /**
   * Creates one, never reusing a same-named record: for a caller that matches records by an identity of its own
   * (a site import maps them by remote id), to which a record of the same name here is another place, or
   * someone's own record, and must not be written over.
   */
  async createNew(actor: Actor, input: LinkedInput<T>): Promise<LinkedView<RecordOf<T>>> {
    if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
    assertMayWrite(actor, input);
    const name = (input.title ?? '').trim();
    if (name === '') throw errors.couldNotCreateLinked(this.kind.type, 'a name is required');
    const id = await retryOnConflict(() =>
      this.storage.transaction(
        async (tx) =>
          (
            await this.writer.insert(
              tx,
              actor,
              { ...input, title: name },
              this.clock(),
              async () => this.details(input, undefined, true) as DetailsRecordOf<T>,
            )
          ).id,
      ),
    );
    return this.view(id);
  }

  /**
   * Inside a transaction: reuse a same-named record the actor may read (writing the sent fields onto it when
   * they may edit it), or create one. Returns its id.
   */
  async createOrReuse(tx: Storage, actor: Actor, input: LinkedInput<T>): Promise<number> {
    return (await this.createOrReuseRecord(tx, actor, input)).id;
  }

  /**
   * The same, answering with the record as it is after the write. `absent`: the caller has just looked for one of
   * that name in this transaction and found none (the importer).
   */
  async createOrReuseRecord(tx: Storage, actor: Actor, input: LinkedInput<T>, absent = false): Promise<RecordOf<T>> {
    const name = (input.title ?? '').trim();
    if (name === '') throw errors.couldNotCreateLinked(this.kind.type, 'a name is required');
    const description = typeof input.description === 'string' ? input.description : undefined;
    const findDuplicate = async () => ((await this.store(tx).findDuplicates(name, description)) as RecordOf<T>[]).find((r) => canReadPost(actor, r));
    // most names are reused: one that exists is found without waiting; only a name about to be created takes its
    // turn, so that of two writers creating it at once the second waits and then finds the first's record
    let duplicate = absent ? undefined : await findDuplicate();
    if (!duplicate) {
      await tx.lock(`name:${this.kind.type}:${name.toLowerCase()}`);
      duplicate = await findDuplicate();
    }
    const nowMs = this.clock();
    if (duplicate) {
      if (!canEditPost(actor, duplicate)) return duplicate;
      const now = postStamp(nowMs, this.siteZone);
      const post = input.image === undefined ? {} : { imageId: await resolveImage(tx, actor, input.image, now) };
      // (its own change; the events that embed it are not noted: an event write reusing it by name refreshes it)
      await tx.changes.note(this.kind.type, duplicate.id, 'update');
      return this.store(tx).updateRecord(
        duplicate,
        { modified: now.local, modifiedUtc: now.utc, ...post },
        this.details(input, duplicate, true) as Partial<DetailsRecordOf<T>>,
      );
    }
    return this.writer.insert(tx, actor, { ...input, title: name }, nowMs, async () => this.details(input, undefined, true) as DetailsRecordOf<T>);
  }

  /** `ifVersion`: a conditional write's (see VersionGuard). */
  async update(actor: Actor, id: number, input: LinkedInput<T>, ifVersion?: number): Promise<LinkedView<RecordOf<T>>> {
    await this.writer.update(
      actor,
      id,
      input,
      async (_tx, current) => ({ details: this.details(input, current, false) as Partial<DetailsRecordOf<T>> }),
      async (tx, current, { status }) => {
        // the events that embed it change with it
        await tx.changes.noteEventsEmbedding(this.kind.type, id);
        if (status === 'trash' && current.status !== 'trash') await tx.events.unlink(this.kind.type, id);
      },
      { guard: ifVersion === undefined ? undefined : { id, version: ifVersion } },
    );
    return this.view(id);
  }

  /** Moves to the trash and takes it off every event. `ifVersion`: a conditional write's (see VersionGuard). */
  async remove(actor: Actor, id: number, ifVersion?: number): Promise<LinkedView<RecordOf<T>>> {
    await this.writer.trash(
      actor,
      id,
      async (tx) => {
        await tx.changes.noteEventsEmbedding(this.kind.type, id);
        await tx.events.unlink(this.kind.type, id);
      },
      undefined,
      ifVersion,
    );
    return this.view(id);
  }

  /**
   * Inside an event's transaction: the id of an existing record to link, checked again there (it may have been
   * trashed since the request was validated). A trashed one is never linked: trashing takes it off every event.
   */
  async linkable(tx: Storage, actor: Actor, id: number, found?: RecordOf<T>): Promise<RecordOf<T>> {
    const record = found?.id === id ? found : ((await this.store(tx).find(id)) as RecordOf<T> | undefined);
    if (!record || record.status === 'trash' || !canReadPost(actor, record)) {
      throw errors.invalidParam(this.kind.type, `${id} is not ${this.kind.named} that can be linked.`);
    }
    return record;
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private async view(id: number): Promise<LinkedView<RecordOf<T>>> {
    const record = (await this.store().find(id)) as RecordOf<T> | undefined;
    if (!record) throw errors.invalidParam('id');
    return (await this.views([record]))[0];
  }

  /**
   * The detail fields to write. A new record gets the defaults of what was not sent; a reused one (`create` with
   * a `current`) gets its flags reset to their defaults (as the original's create does); an update leaves what
   * was not sent alone. `null` resets a field to its default.
   */
  private details(input: LinkedInput<T>, current: RecordOf<T> | undefined, create: boolean): Details {
    const sent = input as Readonly<Record<string, unknown>>;
    const out: Details = {};
    for (const [key, spec] of Object.entries({ ...this.kind.fields, ...this.kind.kept } as Readonly<Record<string, FieldSpec>>)) {
      const value = sent[key];
      if (value !== undefined) out[key] = value ?? spec.default;
      else if (create && (current === undefined || spec.kind === 'flag')) out[key] = spec.default;
    }
    (this.kind as LinkedKind).derive?.(sent, current as Readonly<Record<string, unknown>> | undefined, out);
    return out;
  }
}
