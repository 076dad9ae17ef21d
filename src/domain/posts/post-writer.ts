/**
 * The one write path of posts (events, venues, organizers): who may write which post, with each kind's own
 * not-found answers; creating one (status scaled back and scheduled, slug, stamps, image); updating one
 * (partial: what is not sent stays — DECISIONS.md); moving one to the trash. A kind's service adds only its
 * own fields, through callbacks that run inside the same transaction.
 */

import { StorageError } from '../../storage/dialects/dialect.js';
import type { Storage } from '../../storage/storage.js';
import { parseWall, wallToMs } from '../../time/zones.js';
import { type Actor, isAuthenticated } from '../actor.js';
import { type ApiError, errors } from '../errors.js';
import { can, canDeletePost, canEditPost } from '../policies.js';
import { firstFreeSlug, sanitizeSlug } from '../slugs.js';
import { changedFieldNames } from '../sync/changed-fields.js';
import type { PostFields, PostInput, PostPatch, PostRecord, PostType } from './post.js';
import { assertMayWrite, filterHtml, postStamp, publicationMs, resolveImage, retryOnConflict, type Stamp } from './post-writes.js';
import { applyScheduling, needsSlug, SLUG_UNIQUE_STATUSES, scaleBackStatus, TRASHED_SUFFIX } from './status.js';

/** What the writer needs of a kind's store (implemented in storage/stores). */
export interface PostKindStore<R extends PostRecord, D> {
  find(id: number): Promise<R | undefined>;
  insert(post: PostFields, details: D): Promise<number>;
  /** Where a kind's stored record may differ from what was written (converted columns): insert, answering with it. */
  insertRecord?(post: PostFields, details: D): Promise<R>;
  /** Writes a post; its version moves on. `ifVersion`: only while it is at that version (else false, nothing written). */
  update(id: number, post: PostPatch, details: Partial<D>, ifVersion?: number): Promise<boolean>;
  /** Which of these slugs posts of this kind with one of these statuses already have. */
  takenSlugs(candidates: readonly string[], statuses: readonly string[], excludeId?: number): Promise<Set<string>>;
}

export interface PostKind<R extends PostRecord, D> {
  readonly type: Exclude<PostType, 'image'>;
  /** Drafts get a slug from their title too (venues, organizers); events get one only once published. */
  readonly draftSlugs: boolean;
  /** The original's answers for an id that names no post, a post of another kind, a post already trashed. */
  readonly notFound: (id: number) => ApiError;
  readonly wrongType: (id: number) => ApiError;
  readonly inTrash: (id: number) => ApiError;
  /** A kind's answer for an id it knew once (an occurrence its series' rule no longer gives), else undefined. */
  readonly gone?: (storage: Storage, id: number) => Promise<ApiError | undefined>;
  store(storage: Storage): PostKindStore<R, D>;
}

/** What a kind's callbacks learn about the write in progress. */
export interface WriteContext {
  readonly nowMs: number;
  readonly now: Stamp;
  /** The status the post has after this write. */
  readonly status: string;
}

/**
 * A conditional write's condition (FEATURES.md §2.3): the post whose version it was checked against, and that
 * version. The write happens only while the post is still at it, else it is refused with 412 and nothing of it
 * stays: the written post's own UPDATE carries the condition; another post's row (an occurrence whose split
 * rewrites its series) is claimed first, which also holds off its other writers until the commit.
 */
export interface VersionGuard {
  readonly id: number;
  readonly version: number;
}

/** Refuses a conditional write whose post moved on (see VersionGuard). */
export function assertVersion(guard: VersionGuard | undefined, version: number): void {
  if (guard !== undefined && guard.version !== version) throw errors.preconditionFailed();
}

/** A kind's own part of an update: its detail fields, and post fields only it knows (an event's `sticky`). */
export interface OwnChanges<D> {
  readonly post?: PostPatch;
  readonly details?: Partial<D>;
}

type Verb = 'edit' | 'delete';

const generalCapability = (verb: Verb) => (verb === 'edit' ? 'edit_posts' : 'delete_posts');

/**
 * WordPress' permission callback for writing a post: the general capability, then, when the post exists, the
 * check on that post. The one rule both the write path (`authorize`) and the `Allow` header use.
 */
async function judge(storage: Storage, actor: Actor, verb: Verb, id: number | undefined) {
  if (!can(actor, generalCapability(verb))) return { verdict: 'forbidden' } as const;
  const access = id === undefined ? undefined : await storage.posts.findAccess(id);
  if (!access) return { verdict: 'missing' } as const;
  const allowed = verb === 'edit' ? canEditPost(actor, access) : canDeletePost(actor, access);
  return allowed ? ({ verdict: 'allowed', access } as const) : ({ verdict: 'forbidden' } as const);
}

/** Whether the caller passes the permission check for writing this post (a missing one passes: it is a 404). */
export async function mayWritePost(storage: Storage, actor: Actor, verb: Verb, id: number | undefined): Promise<boolean> {
  return (await judge(storage, actor, verb, id)).verdict !== 'forbidden';
}

export class PostWriter<R extends PostRecord, D> {
  constructor(
    private readonly storage: Storage,
    private readonly siteZone: string,
    readonly kind: PostKind<R, D>,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The post a write is about, once the caller may write it: a missing post is the kind's not-found answer
   * (forbidden to callers without the general capability, as WordPress' permission callback comes first), a post
   * of another kind its wrong-type answer.
   */
  async authorize(actor: Actor, verb: Verb, id: number): Promise<void> {
    const judged = await judge(this.storage, actor, verb, id);
    if (judged.verdict === 'forbidden') throw errors.forbidden(isAuthenticated(actor));
    if (judged.verdict === 'missing') throw (await this.kind.gone?.(this.storage, id)) ?? this.kind.notFound(id);
    if (judged.access.type !== this.kind.type) throw this.kind.wrongType(id);
    if (verb === 'delete' && judged.access.status === 'trash') throw this.kind.inTrash(id);
  }

  /**
   * Inside a transaction: stores a new post of this kind, its status scaled back for the caller and scheduled by
   * its date, with the details `details` gives, and answers with the record as written.
   */
  async insert(
    tx: Storage,
    actor: Actor,
    input: PostInput,
    nowMs: number,
    details: (ctx: WriteContext) => Promise<D>,
    extra: PostPatch = {},
  ): Promise<R> {
    const published = publicationMs(input, this.siteZone, nowMs) ?? nowMs;
    const status = applyScheduling(scaleBackStatus(actor, input.status ?? undefined), published, nowMs);
    const now = postStamp(nowMs, this.siteZone);
    const pub = postStamp(published, this.siteZone);
    const title = input.title ?? '';
    const post: PostFields = {
      status,
      statusBeforeTrash: null,
      authorId: input.author ?? (actor.kind === 'user' ? actor.id : 0),
      title: filterHtml(actor, title),
      content: filterHtml(actor, input.description ?? ''),
      excerpt: filterHtml(actor, input.excerpt ?? ''),
      slug: await this.slug(tx, { requested: input.slug, current: '', title, status }),
      password: '',
      parentId: 0,
      menuOrder: 0,
      imageId: await resolveImage(tx, actor, input.image, now),
      date: pub.local,
      dateUtc: pub.utc,
      // a new post was last modified when it is dated, as WordPress' wp_insert_post has it (the recorded TEC
      // site's events, created with a publication date weeks before, answer that date as `modified`)
      modified: pub.local,
      modifiedUtc: pub.utc,
      ...extra,
    };
    const own = await details({ nowMs, now, status });
    const store = this.kind.store(tx);
    const record = store.insertRecord
      ? await store.insertRecord(post, own)
      : // (a new row starts at version 0)
        ({ id: await store.insert(post, own), type: this.kind.type, ...post, ...own, version: 0 } as unknown as R);
    await tx.changes.note(this.kind.type, record.id, 'create', { status });
    return record;
  }

  /**
   * Updates a post: the shared fields sent, then the kind's own (`change`), in one transaction that is tried
   * again when it loses a race for a slug; `after` runs last, inside it.
   */
  async update(
    actor: Actor,
    id: number,
    input: PostInput,
    change: (tx: Storage, current: R, ctx: WriteContext) => Promise<OwnChanges<D>>,
    after?: (tx: Storage, current: R, ctx: WriteContext) => Promise<void>,
    /**
     * `keepSlug`: whether the post's slug is another's (an occurrence of a recurring event's): then never derived
     * or checked here. `guard`: a conditional write's (see VersionGuard).
     */
    options: { keepSlug?: (current: R) => boolean; guard?: VersionGuard } = {},
  ): Promise<void> {
    await this.authorize(actor, 'edit', id);
    assertMayWrite(actor, input);
    const nowMs = this.clock();
    const own = options.guard?.id === id ? options.guard : undefined;
    await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        const store = this.kind.store(tx);
        if (options.guard && !own && !(await tx.posts.claim(options.guard.id, options.guard.version))) throw errors.preconditionFailed();
        // what follows reads the post, its terms and links, and writes what it computed from them: one writer of
        // the post at a time (on PostgreSQL two updates read it before either wrote, and the second's term counts,
        // dates and change-log status were computed from what the first replaced)
        await tx.lockPost(id);
        const current = await store.find(id);
        if (!current) throw this.kind.notFound(id);
        assertVersion(own, current.version);
        const now = postStamp(nowMs, this.siteZone);
        const { status, fields } = this.publication(actor, input, current, nowMs);
        const post: { -readonly [K in keyof PostFields]?: PostFields[K] } = { modified: now.local, modifiedUtc: now.utc, ...fields };
        if (input.title !== undefined && input.title !== null) post.title = filterHtml(actor, input.title);
        if (input.description !== undefined) post.content = filterHtml(actor, input.description ?? '');
        if (input.excerpt !== undefined) post.excerpt = filterHtml(actor, input.excerpt ?? '');
        if (input.author !== undefined && input.author !== null) post.authorId = input.author;
        if (input.image !== undefined) post.imageId = await resolveImage(tx, actor, input.image, now);
        // a slug kept as it is, by a post that keeps a status of unique slugs, is still its own: the unique index
        // (type, slug) over those statuses holds every other post of the kind off it, so there is nothing to check
        const ownSlug =
          (input.slug === undefined || input.slug === null) &&
          current.parentId === 0 &&
          current.slug !== '' &&
          !current.slug.endsWith(TRASHED_SUFFIX) &&
          SLUG_UNIQUE_STATUSES.includes(current.status) &&
          SLUG_UNIQUE_STATUSES.includes(status);
        const slug =
          options.keepSlug?.(current) || ownSlug
            ? current.slug
            : await this.slug(tx, {
                requested: input.slug,
                current: current.slug,
                title: input.title ?? current.title,
                status,
                excludeId: id,
              });
        if (slug !== current.slug) post.slug = slug;
        const ctx: WriteContext = { nowMs, now, status };
        const changes = await change(tx, current, ctx);
        const written = { ...post, ...changes.post };
        if (!(await store.update(id, written, changes.details ?? {}, own?.version))) throw errors.preconditionFailed();
        await tx.changes.note(
          this.kind.type,
          id,
          status === current.status ? 'update' : status === 'trash' ? 'trash' : current.status === 'trash' ? 'restore' : 'update',
          { status, priorStatus: current.status, fields: changedFieldNames(current, { ...written, ...changes.details }) },
        );
        await after?.(tx, current, ctx);
      }),
    );
  }

  /**
   * Moves a post to the trash (its slug freed with WordPress' `__trashed` suffix); `also` runs in the same
   * transaction. `ifVersion`: a conditional write's (see VersionGuard).
   */
  async trash(
    actor: Actor,
    id: number,
    also: (tx: Storage, current: R) => Promise<void>,
    after?: (tx: Storage, current: R) => Promise<void>,
    ifVersion?: number,
  ): Promise<void> {
    await this.authorize(actor, 'delete', id);
    const now = postStamp(this.clock(), this.siteZone);
    const guard = ifVersion === undefined ? undefined : { id, version: ifVersion };
    await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        const store = this.kind.store(tx);
        // (an occurrence cancelled gets rows of its own: its series' writers must see them, see lockPost)
        await tx.lockPost(id);
        const current = await store.find(id);
        if (!current) throw this.kind.notFound(id);
        assertVersion(guard, current.version);
        if (current.status === 'trash') throw this.kind.inTrash(id);
        await also(tx, current);
        // (on the version read: two deletes at once on PostgreSQL both read the post before either wrote it, and
        // both trashed it, each logging a trash; the second's update now finds the version moved, as SQLite's one
        // writer at a time would have had it find the post in the trash)
        const written = await store.update(
          id,
          {
            status: 'trash',
            statusBeforeTrash: current.status,
            slug: current.slug === '' ? '' : `${current.slug}${TRASHED_SUFFIX}`,
            modified: now.local,
            modifiedUtc: now.utc,
          },
          {},
          ifVersion ?? current.version,
        );
        if (!written) {
          if (ifVersion !== undefined) throw errors.preconditionFailed();
          // another write came first: in the trash now, 410; another change, tried again (retryOnConflict)
          if ((await store.find(id))?.status === 'trash') throw this.kind.inTrash(id);
          throw new StorageError('busy', 'the post changed while it was being trashed');
        }
        await tx.changes.note(this.kind.type, id, 'trash', { status: 'trash', priorStatus: current.status });
        await after?.(tx, current);
      }),
    );
  }

  /**
   * The slug to store: the one asked for, else the current one (without a trash suffix), else one from the title
   * once the post is published (or at once, for kinds whose drafts have slugs); unique among published posts of
   * the kind (drafts and pending posts skip the check, as in WordPress); suffixed in the trash.
   */
  private async slug(
    tx: Storage,
    s: { requested: string | null | undefined; current: string; title: string; status: string; excludeId?: number },
  ): Promise<string> {
    const bare = s.current.endsWith(TRASHED_SUFFIX) ? s.current.slice(0, -TRASHED_SUFFIX.length) : s.current;
    const requested = s.requested ?? undefined;
    let base = requested !== undefined ? sanitizeSlug(requested) : bare;
    if (base === '' && (requested !== undefined || needsSlug(s.status) || this.kind.draftSlugs)) {
      base = sanitizeSlug(s.title) || this.kind.type;
    }
    if (s.status === 'trash') return base === '' ? '' : `${base}${TRASHED_SUFFIX}`;
    if (base === '' || !SLUG_UNIQUE_STATUSES.includes(s.status)) return base;
    const store = this.kind.store(tx);
    // Most slugs asked for are free, and one that is needs no turn: should another writer store it first, the
    // unique index (type, slug) over these statuses refuses this write, which is tried again (retryOnConflict)
    // and then finds it taken. A slug found taken takes the turn of its base, so that writers of one title get
    // -2, -3… one after the other.
    if (!(await store.takenSlugs([base], SLUG_UNIQUE_STATUSES, s.excludeId)).has(base)) return base;
    await tx.lock(`slug:${this.kind.type}:${base}`);
    return firstFreeSlug(base, (candidates) => store.takenSlugs(candidates, SLUG_UNIQUE_STATUSES, s.excludeId));
  }

  /**
   * An update's publication date and status: a new date from `date` (site time) / `date_utc`, the status rules of
   * CONTRACT.md §6.1 for a requested status, WordPress' scheduling when either changes, and the trash bookkeeping.
   */
  private publication(actor: Actor, input: PostInput, current: PostRecord, nowMs: number) {
    const fields: PostPatch & { status?: string } = {};
    let publishedMs = wallToMs(parseWall(current.dateUtc));
    const published = publicationMs(input, this.siteZone, nowMs);
    if (published !== undefined) {
      publishedMs = published;
      const pub = postStamp(published, this.siteZone);
      Object.assign(fields, { date: pub.local, dateUtc: pub.utc });
    }
    let status = current.status;
    if (input.status !== undefined && input.status !== null) status = scaleBackStatus(actor, input.status);
    if (input.status !== undefined || published !== undefined) status = applyScheduling(status, publishedMs, nowMs);
    if (status !== current.status) Object.assign(fields, { status, statusBeforeTrash: status === 'trash' ? current.status : null });
    return { status, fields };
  }
}
