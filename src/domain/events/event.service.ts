/**
 * Events: read, list, create, update (partial, DECISIONS.md), trash. Every method takes the actor first and
 * asks the policy before it writes; every write is one transaction (terms and images it creates included).
 */
import type { Config } from '../../config/config.js';
import type { Storage } from '../../storage/storage.js';
import type { ImageRecord } from '../../storage/stores/image.store.js';
import { writtenEvent, type EventFields, type EventPostFields } from '../../storage/stores/event.store.js';
import { getZone, parseWall } from '../../time/zones.js';
import { isAuthenticated, type Actor } from '../actor.js';
import { errors } from '../errors.js';
import { can, canDeletePost, canEditPost, canReadPost, listVisibility } from '../policies.js';
import { applyScheduling, needsSlug, scaleBackStatus, SLUG_UNIQUE_STATUSES, TRASHED_SUFFIX } from '../posts/status.js';
import { firstFreeSlug, sanitizeSlug } from '../slugs.js';
import { assertMayWrite, filterHtml, postStamp, publicationMs, publicationUpdate, resolveImage, retryOnConflict, trashFields } from '../posts/post-writes.js';
import type { Term } from '../terms/term.js';
import type { TermService } from '../terms/term.service.js';
import { deriveCurrency } from './cost.js';
import type { EventInput, EventListFilter, EventRecord, LinkedRef } from './event.js';
import type { LinkedView, LinkedService } from '../linked/linked.service.js';
import type { LinkedRecord, OrganizerRecord, VenueRecord } from '../linked/linked.js';
import { canonicalZoneName, computeEventDates, readDate } from './event-dates.js';

/** An event with what its representation embeds (venue and organizers only when the caller may read them). */
export interface EventView {
  readonly record: EventRecord;
  readonly categories: readonly Term[];
  readonly tags: readonly Term[];
  readonly image: ImageRecord | undefined;
  readonly venue: LinkedView<VenueRecord> | undefined;
  readonly organizers: readonly LinkedView<OrganizerRecord>[];
}

const flag = (b: boolean) => (b ? 1 : 0) as 0 | 1;

export class EventService {
  constructor(
    private readonly storage: Storage,
    private readonly config: Config,
    private readonly categories: TermService,
    private readonly tags: TermService,
    private readonly venues: LinkedService<VenueRecord>,
    private readonly organizers: LinkedService<OrganizerRecord>,
    private readonly clock: () => number = Date.now,
  ) {}

  // ---- reads -------------------------------------------------------------------------------------------

  async get(actor: Actor, id: number): Promise<EventView> {
    const record = await this.storage.events.find(id);
    if (!record) {
      if ((await this.storage.posts.typeOf(id)) !== undefined) throw errors.invalidEventId(id);
      throw errors.eventNotFound(id);
    }
    this.assertReadable(actor, record);
    return (await this.views([record], actor))[0];
  }

  async getBySlug(actor: Actor, slug: string): Promise<EventView> {
    const record = await this.storage.events.findBySlug(slug);
    if (!record) throw errors.invalidParam('slug');
    this.assertReadable(actor, record);
    return (await this.views([record], actor))[0];
  }

  /** The id behind a slug (any status), for the by-slug routes. */
  async idForSlug(slug: string): Promise<number | undefined> {
    return (await this.storage.events.findBySlug(slug))?.id;
  }

  private assertReadable(actor: Actor, record: EventRecord): void {
    if (record.status === 'trash') throw errors.eventNoLongerAvailable();
    if (!canReadPost(actor, record)) throw errors.eventNotAccessible();
  }

  async list(
    actor: Actor,
    filter: Omit<EventListFilter, 'visibility'>,
    page: number,
    perPage: number,
  ): Promise<{ events: EventView[]; total: number }> {
    const { events, total } = await this.storage.events.list(
      { ...filter, visibility: listVisibility(actor) },
      perPage,
      (page - 1) * perPage,
    );
    return { events: await this.views(events, actor), total };
  }

  /** Embedded data for any number of events in a fixed number of queries. */
  async views(records: readonly EventRecord[], actor: Actor): Promise<EventView[]> {
    const ids = records.map((r) => r.id);
    const [terms, links, venues] = await Promise.all([
      this.storage.terms.forPosts(ids),
      this.storage.events.organizersFor(ids),
      this.storage.venues.findMany(records.map((r) => r.venueId).filter((id): id is number => id !== null)),
    ]);
    const organizers = await this.storage.organizers.findMany([...links.values()].flat());
    const imageIds = [...records, ...venues.values(), ...organizers.values()]
      .map((r) => r.imageId)
      .filter((id): id is number => id !== null);
    const images = await this.storage.images.findMany(imageIds);
    const image = (id: number | null) => (id === null ? undefined : images.get(id));
    const readable = <R extends LinkedRecord>(r: R | undefined): LinkedView<R> | undefined =>
      r && canReadPost(actor, r) ? { record: r, image: image(r.imageId) } : undefined;
    return records.map((record) => {
      const own = terms.get(record.id) ?? [];
      return {
        record,
        categories: own.filter((t) => t.taxonomy === 'tribe_events_cat'),
        tags: own.filter((t) => t.taxonomy === 'post_tag'),
        image: image(record.imageId),
        venue: readable(record.venueId === null ? undefined : venues.get(record.venueId)),
        organizers: (links.get(record.id) ?? [])
          .map((id) => readable(organizers.get(id)))
          .filter((o): o is LinkedView<OrganizerRecord> => o !== undefined),
      };
    });
  }

  // ---- writes ------------------------------------------------------------------------------------------

  async create(actor: Actor, input: EventInput): Promise<EventView> {
    if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
    const user = actor as Extract<Actor, { kind: 'user' }>;
    assertMayWrite(actor, input);
    const nowMs = this.clock();
    const zoneName = this.zoneName(input.timezone);
    const start = this.date('start_date', input.startDate!, zoneName, nowMs);
    const end = this.date('end_date', input.endDate!, zoneName, nowMs);
    const dates = computeEventDates(start, end, input.allDay ?? false, zoneName);
    const published = publicationMs(input, zoneName, nowMs) ?? nowMs;
    const status = applyScheduling(scaleBackStatus(actor, input.status ?? undefined), published, nowMs);
    const now = postStamp(nowMs, this.config.siteTimezone);
    const pub = postStamp(published, this.config.siteTimezone);
    const cost = input.cost ?? [];
    const currency = deriveCurrency(cost);

    const record = await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        const imageId = await resolveImage(tx, actor, input.image, now);
        const slug = await this.slug(tx, input.slug ?? undefined, '', input.title ?? '', status);
        const post: EventPostFields = {
          status,
          status_before_trash: null,
          author_id: input.author ?? user.id,
          title: filterHtml(actor, input.title ?? ''),
          content: filterHtml(actor, input.description ?? ''),
          excerpt: filterHtml(actor, input.excerpt ?? ''),
          slug,
          password: '',
          parent_id: 0,
          menu_order: input.sticky ? -1 : 0,
          image_id: imageId,
          date: pub.local,
          date_utc: pub.utc,
          modified: now.local,
          modified_utc: now.utc,
        };
        const event: EventFields = {
          ...dates,
          all_day: flag(input.allDay ?? false),
          cost: JSON.stringify(cost),
          currency_symbol: currency.symbol,
          currency_code: '',
          currency_position: currency.position,
          website: input.website === undefined ? null : (input.website ?? ''),
          show_map: flag(input.showMap ?? false),
          show_map_link: flag(input.showMapLink ?? false),
          hide_from_listings: flag(input.hideFromListings ?? false),
          featured: flag(input.featured ?? false),
          venue_id: input.venue ? await this.linkVenue(tx, actor, input.venue) : null,
        };
        const newId = await tx.events.insert(post, event);
        const termIds = await this.assignTerms(tx, newId, input, true);
        if (input.organizers) await tx.events.setOrganizers(newId, await this.linkOrganizers(tx, actor, input.organizers));
        await this.recount(tx, newId, [], false, status === 'publish', termIds);
        return writtenEvent(newId, post, event, cost);
      }),
    );
    // everything but the embedded data is what was just written: no need to read it back
    return (await this.views([record], actor))[0];
  }

  async update(actor: Actor, id: number, input: EventInput): Promise<EventView> {
    const access = await this.storage.posts.findAccess(id);
    if (!access) {
      if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
      throw errors.eventNotFound(id);
    }
    if (!canEditPost(actor, access)) throw errors.forbidden(isAuthenticated(actor));
    if (access.type !== 'event') throw errors.invalidEventId(id);
    assertMayWrite(actor, input);
    const nowMs = this.clock();

    await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        const current = await tx.events.find(id);
        if (!current) throw errors.eventNotFound(id);
        const now = postStamp(nowMs, this.config.siteTimezone);
        const post: Partial<EventPostFields> = { modified: now.local, modified_utc: now.utc };
        const event: Partial<EventFields> = {};

        // dates: what was not sent keeps its wall clock; a new zone alone re-derives the UTC times
        const zoneName = input.timezone === undefined ? current.timezone || this.config.siteTimezone : this.zoneName(input.timezone);
        const allDay = input.allDay ?? current.allDay;
        const datesChanged =
          input.startDate !== undefined || input.endDate !== undefined || input.timezone !== undefined || input.allDay !== undefined;
        if (datesChanged) {
          const start = input.startDate !== undefined ? this.date('start_date', input.startDate, zoneName, nowMs) : parseWall(current.startDate);
          const end = input.endDate !== undefined ? this.date('end_date', input.endDate, zoneName, nowMs) : parseWall(current.endDate);
          Object.assign(event, computeEventDates(start, end, allDay, zoneName));
          event.all_day = flag(allDay);
        }

        const { status, fields } = publicationUpdate(actor, input, current, zoneName, this.config.siteTimezone, nowMs);
        Object.assign(post, fields);

        if (input.title !== undefined) post.title = filterHtml(actor, input.title);
        if (input.description !== undefined) post.content = filterHtml(actor, input.description ?? '');
        if (input.excerpt !== undefined) post.excerpt = filterHtml(actor, input.excerpt ?? '');
        if (input.author !== undefined && input.author !== null) post.author_id = input.author;
        if (input.sticky !== undefined) post.menu_order = input.sticky ? -1 : 0;
        if (input.image !== undefined) post.image_id = await resolveImage(tx, actor, input.image, now);

        const untrashed = current.slug.endsWith(TRASHED_SUFFIX) ? current.slug.slice(0, -TRASHED_SUFFIX.length) : current.slug;
        let slug = await this.slug(tx, input.slug ?? undefined, untrashed, input.title ?? current.title, status, id);
        if (status === 'trash' && slug !== '') slug = `${slug}${TRASHED_SUFFIX}`;
        if (slug !== current.slug) post.slug = slug;

        if (input.cost !== undefined) {
          const cost = input.cost ?? [];
          const currency = deriveCurrency(cost);
          event.cost = JSON.stringify(cost);
          event.currency_symbol = currency.symbol;
          event.currency_position = currency.position;
        }
        if (input.website !== undefined) event.website = input.website ?? '';
        if (input.showMap !== undefined) event.show_map = flag(input.showMap ?? false);
        if (input.showMapLink !== undefined) event.show_map_link = flag(input.showMapLink ?? false);
        if (input.hideFromListings !== undefined) event.hide_from_listings = flag(input.hideFromListings ?? false);
        if (input.featured !== undefined) event.featured = flag(input.featured ?? false);
        if (input.venue !== undefined) event.venue_id = input.venue === null ? null : await this.linkVenue(tx, actor, input.venue);
        if (input.organizers !== undefined) {
          await tx.events.setOrganizers(id, await this.linkOrganizers(tx, actor, input.organizers ?? []));
        }

        const termsBefore = await tx.terms.idsForPost(id);
        await tx.events.update(id, post, event);
        await this.assignTerms(tx, id, input);
        await this.recount(tx, id, termsBefore, current.status === 'publish', status === 'publish');
      }),
    );
    return this.view(id, actor);
  }

  /**
   * Publishes scheduled events (and venues and organizers) whose publication date has come, as WordPress'
   * cron does; their terms count them from now on. Returns how many events were published.
   */
  async publishDue(nowMs: number = this.clock()): Promise<number> {
    const now = postStamp(nowMs, this.config.siteTimezone).utc;
    return this.storage.transaction(async (tx) => {
      const ids = await tx.posts.publishDue('event', now);
      await tx.events.syncStatus(ids, 'publish');
      for (const id of ids) await this.recount(tx, id, [], false, true);
      await tx.posts.publishDue('venue', now);
      await tx.posts.publishDue('organizer', now);
      return ids.length;
    });
  }

  /** Moves the event to the trash and answers with it as trashed. */
  async remove(actor: Actor, id: number): Promise<EventView> {
    const access = await this.storage.posts.findAccess(id);
    if (!access) {
      if (!can(actor, 'delete_posts')) throw errors.forbidden(isAuthenticated(actor));
      throw errors.eventNotFound(id);
    }
    if (!canDeletePost(actor, access)) throw errors.forbidden(isAuthenticated(actor));
    if (access.type !== 'event') throw errors.invalidEventId(id);
    if (access.status === 'trash') throw errors.eventInTrash(id);
    const now = postStamp(this.clock(), this.config.siteTimezone);
    await this.storage.transaction(async (tx) => {
      const current = await tx.events.find(id);
      if (!current) throw errors.eventNotFound(id);
      if (current.status === 'trash') throw errors.eventInTrash(id);
      /* trash keeps the links: a restored event still has its venue and organizers */
      await this.recount(tx, id, await tx.terms.idsForPost(id), current.status === 'publish', false);
      await tx.events.update(id, trashFields(current, now), {});
    });
    return this.view(id, actor);
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private async view(id: number, actor: Actor): Promise<EventView> {
    const record = await this.storage.events.find(id);
    if (!record) throw errors.eventNotFound(id);
    return (await this.views([record], actor))[0];
  }

  /** The venue to link: an existing one, or one created (or reused) from the fields sent. */
  private async linkVenue(tx: Storage, actor: Actor, ref: LinkedRef): Promise<number> {
    if ('id' in ref) {
      if ((await tx.posts.typeOf(ref.id)) !== 'venue') throw errors.invalidParam('venue');
      return ref.id;
    }
    return this.venues.createOrReuse(tx, actor, ref.create);
  }

  private async linkOrganizers(tx: Storage, actor: Actor, refs: readonly LinkedRef[]): Promise<number[]> {
    const ids: number[] = [];
    for (const ref of refs) {
      if ('id' in ref) {
        if ((await tx.posts.typeOf(ref.id)) !== 'organizer') throw errors.invalidParam('organizer');
        ids.push(ref.id);
      } else {
        ids.push(await this.organizers.createOrReuse(tx, actor, ref.create));
      }
    }
    return ids;
  }

  private zoneName(timezone: string | null | undefined): string {
    return timezone ? canonicalZoneName(timezone) : this.config.siteTimezone;
  }

  private date(name: string, input: string, zoneName: string, nowMs: number) {
    const parsed = readDate(input, getZone(zoneName), nowMs);
    if (!parsed) throw errors.invalidParam(name);
    return parsed.wall;
  }

  /**
   * The slug to store: the one asked for, else the current one, else (once published) one from the title;
   * unique among published events.
   */
  private async slug(
    tx: Storage,
    requested: string | undefined,
    current: string,
    title: string,
    status: string,
    excludeId?: number,
  ): Promise<string> {
    let base = requested !== undefined ? sanitizeSlug(requested) : current;
    if (base === '' && (requested !== undefined || needsSlug(status))) base = sanitizeSlug(title) || 'event';
    if (base === '' || !SLUG_UNIQUE_STATUSES.includes(status)) return base;
    await tx.lock(`slug:event:${base}`);
    return firstFreeSlug(base, (candidates) => tx.events.takenSlugs(candidates, SLUG_UNIQUE_STATUSES, excludeId));
  }

  /** Sets the terms sent; for a new event (`fresh`), answers with the ids it now carries. */
  private async assignTerms(tx: Storage, id: number, input: EventInput, fresh = false): Promise<number[]> {
    const assigned: number[] = [];
    if (input.categories !== undefined) {
      const ids = await this.categories.resolveForPost(tx, input.categories ?? []);
      await tx.terms.setForPost(id, 'tribe_events_cat', ids, fresh);
      assigned.push(...ids);
    }
    if (input.tags !== undefined) {
      const ids = await this.tags.resolveForPost(tx, input.tags ?? []);
      await tx.terms.setForPost(id, 'post_tag', ids, fresh);
      assigned.push(...ids);
    }
    return [...new Set(assigned)];
  }

  /**
   * Keeps term counts (published events per term) exact: the terms the event had count it no more if it was
   * published; the terms it has now count it if it is published now.
   */
  private async recount(
    tx: Storage,
    id: number,
    before: readonly number[],
    wasPublished: boolean,
    isPublished: boolean,
    /** The terms it carries now, when the caller knows them. */
    now?: readonly number[],
  ) {
    const after = now ?? (before.length === 0 && !wasPublished && !isPublished ? [] : await tx.terms.idsForPost(id));
    const deltas = new Map<number, number>();
    if (wasPublished) for (const t of before) deltas.set(t, (deltas.get(t) ?? 0) - 1);
    if (isPublished) for (const t of after) deltas.set(t, (deltas.get(t) ?? 0) + 1);
    await tx.terms.adjustCounts(deltas);
  }


}
