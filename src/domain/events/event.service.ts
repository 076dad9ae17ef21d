/**
 * Events: read, list, create, update (partial, DECISIONS.md), trash. Every method takes the actor first and
 * asks the policy before it writes; every write is one transaction (terms, venues, organizers and images it
 * creates included). The shared post part of every write is the PostWriter's; this adds the calendar details,
 * the links and the terms.
 */
import { randomUUID } from 'node:crypto';
import type { Storage } from '../../storage/storage.js';
import type { ImageRecord } from '../../storage/stores/image.store.js';
import type { OccurrenceRow, SeriesRow } from '../../storage/stores/series.store.js';
import type { IsoBound } from '../../time/iso-bound.js';
import { formatUtcMs, formatWall, getZone, msToWall, parseWall, utcMsToZonedWall, wallToMs, zonedWallToUtcMs } from '../../time/zones.js';
import { type Actor, isAuthenticated } from '../actor.js';
import { errors } from '../errors.js';
import type { OrganizerRecord, VenueRecord } from '../linked/linked.js';
import type { LinkedService, LinkedView } from '../linked/linked.service.js';
import { can, canReadPost } from '../policies.js';
import { type PostKind, PostWriter, type VersionGuard } from '../posts/post-writer.js';
import { assertMayWrite, postStamp, resolveImageRecord, retryOnConflict } from '../posts/post-writes.js';
import { statusFilter } from '../posts/status.js';
import { findBySlugAsWordPress } from '../slugs.js';
import type { Term } from '../terms/term.js';
import { resolveTerms, type TermService } from '../terms/term.service.js';
import { listVisibility } from '../visibility.js';
import { deriveCurrency } from './cost.js';
import {
  type EventDetails,
  type EventInput,
  type EventListFilter,
  type EventListQuery,
  type EventRecord,
  type LinkedRef,
  PLAIN_DETAILS,
  PLAIN_FILTERS,
} from './event.js';
import { canonicalZoneName, computeEventDates, readDate } from './event-dates.js';
import { parseSearch, resolveDateWindow } from './event-query.js';
import { describeRecurrence, expand, type Instance, type Recurrence, RecurrenceError, reframe, splitRecurrence } from './recurrence.js';
import { changedProperties, frameOf, overriddenBy, readRecurrence, SeriesKeeper } from './series.js';
import { writtenView } from './written-view.js';

type PlainDetails = { -readonly [K in keyof typeof PLAIN_DETAILS]: EventDetails[K] };

/** The plain details an input sets: on create every one (defaults for what was not sent), on update what was sent. */
function plainDetails(input: EventInput, create: true): PlainDetails;
function plainDetails(input: EventInput, create: false): Partial<PlainDetails>;
function plainDetails(input: EventInput, create: boolean): Partial<PlainDetails> {
  // (keyed loosely: each field's value comes from the input's field of the same name and type, or its default)
  const sent = input as Readonly<Record<string, unknown>>;
  const defaults: Readonly<Record<string, unknown>> = PLAIN_DETAILS;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(PLAIN_DETAILS)) {
    if (sent[key] !== undefined || create) out[key] = sent[key] ?? defaults[key];
  }
  return out as Partial<PlainDetails>;
}

/** The filters the store takes as the query gives them, without the absent ones. */
function plainFilters(q: EventListQuery): Partial<EventListFilter> {
  const out: Record<string, unknown> = {};
  for (const key of PLAIN_FILTERS) if (q[key] !== undefined && q[key] !== null) out[key] = q[key];
  return out as Partial<EventListFilter>;
}

/** An event with what its representation embeds (venue and organizers only when the caller may read them). */
export interface EventView {
  readonly record: EventRecord;
  readonly categories: readonly Term[];
  readonly tags: readonly Term[];
  readonly image: ImageRecord | undefined;
  readonly venue: LinkedView<VenueRecord> | undefined;
  readonly organizers: readonly LinkedView<OrganizerRecord>[];
  /** Set when a linked organizer is left out (the caller may not read it: a draft, say). */
  readonly organizersHidden?: true;
  /** Recurring items only: what the series or occurrence adds (FEATURES.md §1.5). */
  readonly series?: SeriesView;
  /** A write of a series: the occurrences it removed. */
  readonly removedOccurrences?: readonly number[];
}

export type SeriesView =
  | { readonly kind: 'series'; readonly recurrence: readonly string[]; readonly text: string; readonly splitFrom: number | null }
  | {
      readonly kind: 'occurrence';
      readonly seriesId: number;
      readonly key: string;
      readonly originalStart: string;
      readonly originalStartUtc: string;
      readonly isException: boolean;
    };

/** A single event or a whole series for an iCalendar stream (FEATURES.md §3.4). */
export interface CalendarEntry {
  readonly view: EventView;
  /** A series' occurrences edited alone that the caller may read. */
  readonly exceptions?: readonly EventView[];
  /** Original starts (wall time) of a series' cancelled occurrences, and of exceptions the caller may not read. */
  readonly cancelled?: readonly string[];
  /** The latest modified UTC stamp of those (the master VEVENT's EXDATEs changed then). */
  readonly cancelledModifiedUtc?: string;
}

/** The filters of an iCalendar feed: the list's, without pages. */
export type CalendarQuery = Omit<EventListQuery, 'page' | 'perPage' | 'geolocDistance' | 'strictDates'> & {
  readonly strictDates?: boolean;
  readonly limit: number;
};

/**
 * A FullCalendar request (FEATURES.md §5.3): its range `[start, end)` as written, the zone of the answer (absent
 * or `local`: each event's own), and the list's filters.
 */
export interface FeedQuery extends Pick<EventListQuery, 'search' | 'categories' | 'tags' | 'venues' | 'organizers' | 'featured'> {
  readonly start: IsoBound;
  readonly end: IsoBound;
  readonly timeZone?: string | null;
  readonly limit: number;
}

export interface FeedPage {
  /** Occurrences and single events overlapping the range, by start instant, at most `limit`. */
  readonly items: readonly EventView[];
  /** How many overlap it in all. */
  readonly total: number;
  /** The zone times are given in; undefined: each event's own. */
  readonly zone: string | undefined;
}

export interface EventPage {
  readonly items: readonly EventView[];
  readonly total: number;
  /** The filters as applied where they differ from the query (see ListPage in http/collection.ts). */
  readonly effective: Readonly<Record<string, unknown>>;
  readonly stableForMs?: number;
}

/** A page of a list as records (EventService.listRecords). */
export interface EventRecordPage extends Omit<EventPage, 'items'> {
  readonly records: readonly EventRecord[];
}

/** A page of a list as the events' ids (EventService.listIds). */
export interface EventIdPage extends Omit<EventPage, 'items'> {
  readonly ids: readonly number[];
}

const EVENT: PostKind<EventRecord, EventDetails> = {
  type: 'event',
  draftSlugs: false,
  notFound: errors.eventNotFound,
  wrongType: errors.invalidEventId,
  inTrash: errors.eventInTrash,
  // writes to an occurrence id a rule change removed answer as reads do (FEATURES.md §1.5: 410)
  gone: async (s, id) => ((await s.series.occurrence(id))?.state === 'gone' ? errors.eventOccurrenceGone(id) : undefined),
  store: (s) => s.events,
};

/** What the change log says of a scheduled post that came due. */
const PUBLISHED_WHEN_DUE = { status: 'publish', priorStatus: 'future', fields: ['status'] } as const;

const DATE_ARGS = ['startDate', 'endDate', 'startsBefore', 'startsAfter', 'endsBefore', 'endsAfter'] as const;

/** A list whose date window is whole days stays right this long (the window moves once a day). */
const STABLE_WINDOW_MS = 60_000;

export class EventService {
  private readonly writer: PostWriter<EventRecord, EventDetails>;
  private readonly series: SeriesKeeper;

  constructor(
    private readonly storage: Storage,
    private readonly siteZone: string,
    private readonly categories: TermService,
    private readonly tags: TermService,
    private readonly venues: LinkedService<'venue'>,
    private readonly organizers: LinkedService<'organizer'>,
    private readonly clock: () => number = Date.now,
    private readonly horizonMonths = 60,
    /** The right-hand side of generated iCalendar UIDs (`<uuid>@<domain>`): the site's host. */
    private readonly uidDomain = 'localhost',
  ) {
    this.writer = new PostWriter(storage, siteZone, EVENT, clock);
    this.series = new SeriesKeeper(siteZone, horizonMonths);
  }

  // ---- reads -------------------------------------------------------------------------------------------

  async get(actor: Actor, id: number): Promise<EventView> {
    return (await this.views([await this.getRecord(actor, id)], actor))[0];
  }

  /** The event a single read answers this caller with, without what it embeds (see views); the errors of get. */
  async getRecord(actor: Actor, id: number): Promise<EventRecord> {
    const record = await this.storage.events.find(id);
    if (!record) {
      if ((await this.storage.posts.typeOf(id)) !== undefined) throw errors.invalidEventId();
      if ((await this.storage.series.occurrence(id))?.state === 'gone') throw errors.eventOccurrenceGone(id);
      throw errors.eventNotFound(id);
    }
    this.assertReadable(actor, record);
    return record;
  }

  async getBySlug(actor: Actor, slug: string): Promise<EventView> {
    const record = await this.findBySlug(slug);
    if (!record) throw errors.invalidParam('slug');
    this.assertReadable(actor, record);
    return (await this.views([record], actor))[0];
  }

  /** The id behind a slug (any status), for the by-slug routes. */
  async idForSlug(slug: string): Promise<number | undefined> {
    return (await this.findBySlug(slug))?.id;
  }

  /** The event a slug names, as WordPress looks it up. */
  private findBySlug(slug: string): Promise<EventRecord | undefined> {
    return findBySlugAsWordPress(slug, (tried) => this.storage.events.findBySlug(tried));
  }

  private assertReadable(actor: Actor, record: EventRecord): void {
    if (record.status === 'trash') throw errors.eventNoLongerAvailable();
    if (!canReadPost(actor, record)) throw errors.eventNotAccessible();
  }

  /** Whether a single read of the event answers this caller with it (get, getBySlug). */
  readable(actor: Actor, record: EventRecord): boolean {
    return record.status !== 'trash' && canReadPost(actor, record);
  }

  /**
   * The event as a conditional write checks it (FEATURES.md §2.3): its record — read first, so that its version
   * is never newer than what the view shows — and its view when a single read answers this caller with it.
   * Undefined when no event has this id.
   */
  async item(actor: Actor, id: number): Promise<{ record: EventRecord; view: EventView | undefined } | undefined> {
    const record = await this.storage.events.find(id);
    if (!record) return undefined;
    return { record, view: this.readable(actor, record) ? (await this.views([record], actor))[0] : undefined };
  }

  /**
   * One page of `GET /events` (CONTRACT.md §3): the date window (defaults, whole days or exact instants,
   * relative bounds), the filters, what the caller may see; and the effective filters, for emitted URLs.
   */
  async list(actor: Actor, q: EventListQuery): Promise<EventPage> {
    const page = await this.listRecords(actor, q);
    return { items: await this.views(page.records, actor), total: page.total, effective: page.effective, stableForMs: page.stableForMs };
  }

  /** A page of the list as records, without what they embed (see views). */
  async listRecords(actor: Actor, q: EventListQuery): Promise<EventRecordPage> {
    const { found, ...page } = await this.listing(actor, q, (filter, limit, offset) => this.storage.events.list(filter, limit, offset));
    return { records: found.events, total: found.total, ...page };
  }

  /** A page of the list as the events' ids: for lists assembled from kept items (see viewsOf). */
  async listIds(actor: Actor, q: EventListQuery): Promise<EventIdPage> {
    const { found, ...page } = await this.listing(actor, q, (filter, limit, offset) => this.storage.events.listIds(filter, limit, offset));
    return { ids: found.ids, total: found.total, ...page };
  }

  /**
   * The views of these events (a page's, from listIds), in the order of the ids; undefined for one gone since
   * its id was read.
   */
  async viewsOf(ids: readonly number[], actor: Actor): Promise<(EventView | undefined)[]> {
    const found = await this.storage.events.findMany(ids);
    const views = new Map((await this.views(found, actor)).map((v) => [v.record.id, v]));
    return ids.map((id) => views.get(id));
  }

  /** Each term group's root (EventListFilter.termRoots), when every group has one. */
  private async termRoots(q: Pick<EventListQuery, 'categories' | 'tags'>): Promise<number[][] | undefined> {
    const roots: number[][] = [];
    for (const [group, service] of [
      [q.categories, this.categories],
      [q.tags, this.tags],
    ] as const) {
      if (!Array.isArray(group)) continue;
      const these = await service.rootsOf(group);
      if (these === undefined) return undefined;
      roots.push(these);
    }
    return roots.length > 0 ? roots : undefined;
  }

  private async listing<R extends { readonly total: number }>(
    actor: Actor,
    q: EventListQuery,
    read: (filter: EventListFilter, limit: number, offset: number) => Promise<R>,
  ): Promise<{ found: R; effective: Readonly<Record<string, unknown>>; stableForMs: number | undefined }> {
    const include = q.include ?? undefined;
    const nowMs = this.clock();
    // polling by modification: every date, unless the caller gives some
    const polling = (q.modifiedAfter != null || q.modifiedBefore != null) && !DATE_ARGS.some((k) => q[k] != null);
    const windowAt = (ms: number) =>
      resolveDateWindow(q, { strict: q.strictDates, include: include !== undefined || polling, nowMs: ms, siteZone: this.siteZone });
    const window = windowAt(nowMs);
    const lat = q.geolocLat ?? undefined;
    const lng = q.geolocLng ?? undefined;
    if ((lat === undefined) !== (lng === undefined)) {
      throw errors.invalidParam(lat === undefined ? 'geoloc_lat' : 'geoloc_lng', 'geoloc_lat and geoloc_lng go together.');
    }
    const hasGeo = q.hasGeoloc ?? q.geoloc ?? undefined;
    const statuses = statusFilter(q.statuses);
    const termGroups = [q.categories, q.tags].filter((g): g is readonly number[] => Array.isArray(g));
    // (not for series once each: event_terms files the occurrences, not their masters)
    const termRoots = q.expandRecurring === false ? undefined : await this.termRoots(q);
    const perPage = q.perPage;
    await this.reach(window.endLte ?? window.startLt, nowMs);
    const found = await read(
      {
        visibility: listVisibility(actor),
        statuses,
        startGte: window.startGte,
        endLte: window.endLte,
        startLt: window.startLt,
        startGt: window.startGt,
        endLt: window.endLt,
        endGt: window.endGt,
        ...plainFilters(q),
        search: q.search ? parseSearch(q.search) : undefined,
        termGroups,
        termRoots,
        hasGeo,
        near: lat !== undefined && lng !== undefined ? { lat, lng, km: q.geolocDistance } : undefined,
        orderByDate: include !== undefined,
        newestFirst: q.newestFirst ? true : undefined,
        seriesOnce: q.expandRecurring === false ? true : undefined,
        withCancelled: q.showCancelled && can(actor, 'edit_posts') ? true : undefined,
        modifiedAfter: q.modifiedAfter ?? undefined,
        modifiedBefore: q.modifiedBefore ?? undefined,
      },
      perPage,
      (q.page - 1) * perPage,
    );
    // callers who cannot edit events list published ones: their URLs say so, as the original's do
    const status = statuses !== undefined ? statuses.join(',') : can(actor, 'edit_posts') ? undefined : 'publish';
    // (Object.assign, not `{ ...window.effective, strictDates, … }`: on Node 20 each key written after a leading
    // spread costs ~1 µs; the same holds for the other query objects built per request)
    const effective = Object.assign({}, window.effective, {
      strictDates: q.strictDates ? true : undefined,
      statuses: status,
      hasGeoloc: hasGeo,
      geolocDistance: lat !== undefined ? q.geolocDistance : undefined,
      expandRecurring: q.expandRecurring === false ? false : undefined,
    });
    // the answer depends on the clock only through the window: when it is the same a minute from now (whole
    // days, the default), it stays right for that minute unless something is written
    const stable = JSON.stringify(windowAt(nowMs + STABLE_WINDOW_MS)) === JSON.stringify(window);
    return { found, effective, stableForMs: stable ? STABLE_WINDOW_MS : undefined };
  }

  /**
   * Embedded data for any number of events in a fixed number of queries, read together (on PostgreSQL one round
   * trip): terms, organizers with their links, venues, the images of all three, and what recurring records add.
   */
  async views(records: readonly EventRecord[], actor: Actor): Promise<EventView[]> {
    // (a plain occurrence's organizers are its series')
    const organizersFrom = (r: EventRecord) => (r.plain && r.seriesId !== null ? r.seriesId : r.id);
    const venueIds = records.map((r) => r.venueId).filter((id): id is number => id !== null);
    const masters = records.filter((r) => r.kind === 'series').map((r) => r.id);
    const occurrences = records.filter((r) => r.kind === 'occurrence').map((r) => r.id);
    const imageIds = (rs: Iterable<{ readonly imageId: number | null }>) => [...rs].flatMap((r) => (r.imageId === null ? [] : [r.imageId]));
    // the images of the venues and organizers with them where a statement is a round trip; after them otherwise
    const together = this.storage.dialect.statementsAreRoundTrips;
    const [terms, { links, records: organizers }, venues, imagesRead, rules, rows] = await this.storage.readTogether([
      // (an occurrence's terms may be its series')
      this.storage.terms.forPostsPlan(records.map((r) => r.termsFrom)),
      this.storage.organizers.linkedToEventsPlan(records.map(organizersFrom)),
      this.storage.venues.findManyPlan(venueIds),
      this.storage.images.forViewsPlan(
        together ? { ids: imageIds(records), ofPosts: venueIds, ofOrganizersOfEvents: records.map(organizersFrom) } : { ids: [] },
      ),
      this.storage.series.findManyPlan(masters),
      this.storage.series.occurrencesByIdsPlan(occurrences),
    ] as const);
    const images = together ? imagesRead : await this.storage.images.findMany(imageIds([...records, ...venues.values(), ...organizers.values()]));
    const series = this.seriesViews(records, rules, rows);
    const image = (id: number | null) => (id === null ? undefined : images.get(id));
    const readable = <R extends VenueRecord | OrganizerRecord>(r: R | undefined): LinkedView<R> | undefined =>
      r && canReadPost(actor, r) ? { record: r, image: image(r.imageId) } : undefined;
    return records.map((record) => {
      const own = terms.get(record.termsFrom) ?? [];
      const linked = links.get(organizersFrom(record)) ?? [];
      const shown = linked.map((id) => readable(organizers.get(id))).filter((o): o is LinkedView<OrganizerRecord> => o !== undefined);
      return {
        record,
        categories: own.filter((t) => t.taxonomy === 'tribe_events_cat'),
        tags: own.filter((t) => t.taxonomy === 'post_tag'),
        image: image(record.imageId),
        venue: readable(record.venueId === null ? undefined : venues.get(record.venueId)),
        organizers: shown,
        ...(shown.length < linked.length ? { organizersHidden: true as const } : {}),
        ...(series.has(record.id) ? { series: series.get(record.id) } : {}),
      };
    });
  }

  /** What recurring records add (nothing for single events), from their series' rules and occurrence rows. */
  private seriesViews(
    records: readonly EventRecord[],
    rules: ReadonlyMap<number, SeriesRow>,
    rows: ReadonlyMap<number, OccurrenceRow>,
  ): Map<number, SeriesView> {
    const out = new Map<number, SeriesView>();
    for (const m of records) {
      if (m.kind !== 'series') continue;
      const rule = rules.get(m.id);
      if (!rule) continue;
      const frame = frameOf(m, this.siteZone);
      const rec = readRecurrence(rule.recurrence, frame);
      out.set(m.id, {
        kind: 'series',
        recurrence: rule.recurrence,
        text: rec ? describeRecurrence(rec, frame) : '',
        splitFrom: rule.splitFrom,
      });
    }
    for (const o of records) {
      if (o.kind !== 'occurrence') continue;
      const row = rows.get(o.id);
      if (row) out.set(o.id, { kind: 'occurrence', ...SeriesKeeper.describe(row, o.allDay) });
    }
    return out;
  }

  // ---- FullCalendar --------------------------------------------------------------------------------------

  /**
   * The events a FullCalendar view of `[start, end)` shows (FEATURES.md §5.3): what the caller may list, series
   * expanded, overlapping the range as FullCalendar counts it (an event ending exactly at `start` is out). Bounds
   * without an offset are read in `timeZone` (or, without one, the site's).
   */
  async feed(actor: Actor, q: FeedQuery): Promise<FeedPage> {
    const { records, total, zone } = await this.feedRecords(actor, q);
    return { items: await this.views(records, actor), total, zone };
  }

  /** The records of `feed`, without what they embed (the month page needs no venue, terms or images). */
  async feedRecords(
    actor: Actor,
    q: FeedQuery,
    options: { readonly withoutText?: boolean } = {},
  ): Promise<{ records: EventRecord[]; total: number; zone: string | undefined }> {
    const named = q.timeZone && q.timeZone.toLowerCase() !== 'local' ? canonicalZoneName(q.timeZone) : undefined;
    const zone = getZone(named ?? this.siteZone);
    const instant = (b: IsoBound) => (b.offsetMinutes === undefined ? zonedWallToUtcMs(b.wall, zone) : wallToMs(b.wall) - b.offsetMinutes * 60_000);
    const [fromMs, toMs] = [instant(q.start), instant(q.end)];
    if (toMs <= fromMs) throw errors.invalidParam('end', 'Invalid parameter(s): end (it must be after start).');
    // the days of all-day events are compared with the range's wall clock: in the zone asked for, or as written
    // (FullCalendar in the browser's zone sends its local midnight with that day's offset)
    const wall = (b: IsoBound, ms: number) => formatWall(named ? utcMsToZonedWall(ms, zone) : b.wall);
    const nowMs = this.clock();
    // all-day days float up to 14 hours either side of UTC: a day more covers them
    await this.reach(formatUtcMs(toMs + 86_400_000), nowMs);
    const { events, total } = await this.storage.events.list(
      {
        visibility: listVisibility(actor),
        overlap: {
          fromUtc: formatUtcMs(fromMs),
          toUtc: formatUtcMs(toMs),
          fromWall: wall(q.start, fromMs),
          toWall: wall(q.end, toMs),
          nearFrom: formatUtcMs(fromMs - 86_400_000),
          nearTo: formatUtcMs(toMs + 86_400_000),
        },
        ...plainFilters(Object.assign({}, q, { page: 1, perPage: q.limit, strictDates: true, geolocDistance: 50 })),
        search: q.search ? parseSearch(q.search) : undefined,
        termGroups: [q.categories, q.tags].filter((g): g is readonly number[] => Array.isArray(g)),
        termRoots: await this.termRoots(q),
        orderByStartUtc: true,
        withoutText: options.withoutText ? true : undefined,
      },
      q.limit,
      0,
    );
    return { records: events, total, zone: named };
  }

  // ---- iCalendar -----------------------------------------------------------------------------------------

  /**
   * When an event last changed, whichever (the change log's newest event row, which its fan-out gives an event
   * for every venue, organizer or term it embeds): a feed's answer is no older than that, events gone from it
   * included. Undefined when the log has none.
   */
  async lastChangeUtc(): Promise<string | undefined> {
    return this.storage.changes.lastAt('event');
  }

  /**
   * The events of a feed: singles and series once each (a series when one of its occurrences is in the window),
   * by start, at most `limit`; by default from 30 days ago to 24 months ahead (FEATURES.md §3.4).
   */
  async calendar(actor: Actor, q: CalendarQuery): Promise<CalendarEntry[]> {
    let { startDate, endDate } = q;
    if (startDate == null || endDate == null) {
      const today = utcMsToZonedWall(this.clock(), getZone(this.siteZone));
      const day = (months: number, days: number) => {
        const d = new Date(Date.UTC(today.year, today.month - 1 + months, today.day + days));
        return d.toISOString().slice(0, 10);
      };
      startDate ??= day(0, -30);
      endDate ??= day(24, 0);
    }
    const page = await this.list(
      actor,
      Object.assign({}, q, {
        startDate,
        endDate,
        strictDates: q.strictDates ?? false,
        geolocDistance: 50,
        page: 1,
        perPage: q.limit,
        expandRecurring: false,
      }),
    );
    return this.calendarEntries(actor, page.items);
  }

  /** One event's entry; an occurrence's is its whole series. */
  async calendarOf(actor: Actor, id: number): Promise<CalendarEntry> {
    let view = await this.get(actor, id);
    if (view.series?.kind === 'occurrence') view = await this.get(actor, view.series.seriesId);
    return (await this.calendarEntries(actor, [view]))[0];
  }

  private async calendarEntries(actor: Actor, views: readonly EventView[]): Promise<CalendarEntry[]> {
    const seriesIds = views.filter((v) => v.record.kind === 'series').map((v) => v.record.id);
    if (seriesIds.length === 0) return views.map((view) => ({ view }));
    const changed = await this.storage.series.changedOccurrences(seriesIds);
    // (the cancelled ones too: when they were cancelled is when their master's EXDATEs changed)
    const records = new Map((await this.storage.events.findMany(changed.map((o) => o.id))).map((r) => [r.id, r]));
    const active = new Set(changed.filter((o) => o.state === 'active').map((o) => o.id));
    const readable = [...records.values()].filter((r) => active.has(r.id) && r.status !== 'trash' && canReadPost(actor, r));
    const exceptions = new Map((await this.views(readable, actor)).map((v) => [v.record.id, v]));
    const bySeries = new Map<number, { exceptions: EventView[]; cancelled: string[]; cancelledModifiedUtc?: string }>();
    for (const o of changed) {
      const entry = bySeries.get(o.seriesId) ?? { exceptions: [], cancelled: [] };
      bySeries.set(o.seriesId, entry);
      const view = exceptions.get(o.id);
      if (view) {
        entry.exceptions.push(view);
        continue;
      }
      entry.cancelled.push(o.originalStart);
      const stamp = records.get(o.id)?.modifiedUtc;
      if (stamp !== undefined && (entry.cancelledModifiedUtc === undefined || stamp > entry.cancelledModifiedUtc)) entry.cancelledModifiedUtc = stamp;
    }
    return views.map((view) => {
      const own = bySeries.get(view.record.id);
      return own ? Object.assign({ view }, own) : { view };
    });
  }

  // ---- writes ------------------------------------------------------------------------------------------

  /**
   * `options.icalUidFree`: the caller has just looked the UID up in this transaction and found no event with it
   * (the importer), so it is not looked up again. `options.countsInto`: the caller adds what the terms' counts
   * gain to this map and writes them before its transaction commits (an import batch: one statement for all its
   * events); the view's terms then carry the counts they had before, in the order sent.
   */
  async create(actor: Actor, input: EventInput, options: { icalUidFree?: boolean; countsInto?: Map<number, number> } = {}): Promise<EventView> {
    if (!can(actor, 'edit_posts')) throw errors.forbidden(isAuthenticated(actor));
    assertMayWrite(actor, input);
    const nowMs = this.clock();
    // the view is what was just written and found: nothing is read back
    return (await retryOnConflict(() => this.storage.transaction((tx) => this.insert(tx, actor, input, nowMs, options)))).view;
  }

  /**
   * Inside a transaction: a new event, and with a rule its occurrences. `rule` stands for `input.recurrence`
   * (a split passes the second half of a rule); `adopt` runs before the occurrences are made (a split hands
   * over the occurrences the new series keeps).
   */
  private async insert(
    tx: Storage,
    actor: Actor,
    input: EventInput,
    nowMs: number,
    o: {
      rule?: (frame: ReturnType<typeof frameOf>) => Recurrence | undefined;
      adopt?: (id: number) => Promise<void>;
      splitFrom?: number;
      icalUidFree?: boolean;
      countsInto?: Map<number, number>;
    } = {},
  ): Promise<{ record: EventRecord; view: EventView }> {
    const zoneName = this.zoneName(input.timezone);
    const allDay = input.allDay ?? false;
    const dates = computeEventDates(
      this.date('start_date', input.startDate ?? '', zoneName, nowMs),
      this.date('end_date', input.endDate ?? '', zoneName, nowMs),
      allDay,
      zoneName,
    );
    const frame = frameOf(Object.assign({}, dates, { allDay }), this.siteZone);
    const rule = o.rule ? o.rule(frame) : readRecurrence(input.recurrence ?? [], frame);
    const cost = input.cost ?? [];
    const currency = deriveCurrency(cost);
    const image = await resolveImageRecord(tx, actor, input.image, postStamp(nowMs, this.siteZone));
    const uid = input.icalUid ?? undefined;
    let venue: VenueRecord | undefined;
    const written = await this.writer.insert(
      tx,
      actor,
      Object.assign({}, input, { image: undefined }),
      nowMs,
      async () => {
        if (input.venue) venue = await this.linkVenue(tx, actor, input.venue);
        // (Object.assign, not a leading spread: on Node 20 each key written after one costs ~1 µs)
        return Object.assign(
          {},
          dates,
          {
            allDay,
            cost,
            currencySymbol: currency.symbol,
            currencyCode: '',
            currencyPosition: currency.position,
            website: input.website === undefined ? null : (input.website ?? ''),
          },
          plainDetails(input, true),
          {
            venueId: venue?.id ?? null,
            kind: rule ? ('series' as const) : ('single' as const),
            seriesId: null,
            // a UID made here is new; one sent may be another event's
            icalUid: uid === undefined ? `${randomUUID()}@${this.uidDomain}` : o.icalUidFree ? uid : await this.freeIcalUid(tx, uid),
            icalSequence: 0,
          },
        );
      },
      { menuOrder: input.sticky ? -1 : 0, imageId: image?.id ?? null },
    );
    const terms = await this.assignNewTerms(tx, written.id, input);
    const organizers = input.organizers ? await this.linkOrganizers(tx, actor, input.organizers) : [];
    if (input.organizers)
      await tx.events.setOrganizers(
        written.id,
        organizers.map((r) => r.id),
        true,
      );
    // the terms count it now (a series once: its occurrences are not counted), and are answered with those counts
    const ids = terms.map((t) => t.id);
    let counted = terms;
    if (o.countsInto) {
      if (written.status === 'publish') for (const id of ids) o.countsInto.set(id, (o.countsInto.get(id) ?? 0) + 1);
    } else counted = written.status === 'publish' ? await tx.terms.addToCounts(ids, 1) : await tx.terms.findOrdered(ids);
    let series: SeriesView | undefined;
    if (rule) {
      await o.adopt?.(written.id);
      await this.series.sync(
        tx,
        written.id,
        rule,
        {
          nowMs,
          datesChanged: o.adopt !== undefined,
          fields: o.adopt !== undefined ? 'all' : 'none',
          relink: o.adopt ? ['categories', 'tags', 'organizers'] : [],
          splitFrom: o.splitFrom ?? null,
        },
        // a new master that adopted nothing has no occurrences and no stored rule yet
        o.adopt ? undefined : { master: written, stored: undefined, existing: [] },
      );
      const stored = readRecurrence(rule.lines, frame);
      series = { kind: 'series', recurrence: rule.lines, text: stored ? describeRecurrence(stored, frame) : '', splitFrom: o.splitFrom ?? null };
    }
    return { record: written, view: await writtenView(tx, actor, written, { image, venue, organizers, terms: counted, series }) };
  }

  /**
   * Updates an event. A series' master: the whole series (fields propagate to the occurrences but what an
   * exception overrode; a new rule or new times keep the ids of instances that remain). An occurrence: that
   * occurrence alone, which becomes an exception.
   */
  async update(actor: Actor, id: number, input: EventInput, ifVersion?: number): Promise<EventView> {
    return this.write(actor, id, input, ifVersion === undefined ? undefined : { id, version: ifVersion });
  }

  /** An update (see update) under a conditional write's guard, which may name another post (see split). */
  private async write(actor: Actor, id: number, input: EventInput, guard: VersionGuard | undefined): Promise<EventView> {
    let termsBefore: number[] = [];
    let removed: number[] | undefined;
    await this.writer.update(
      actor,
      id,
      input,
      async (tx, current, ctx) => {
        if (current.kind === 'occurrence' && input.recurrence !== undefined) {
          throw errors.invalidParam('recurrence', 'Invalid parameter(s): recurrence (an occurrence has no rule of its own: update its series).');
        }
        if (current.kind !== 'occurrence') termsBefore = await tx.terms.idsForPost(id);
        // an occurrence edited alone for the first time gets rows of its own to write
        if (current.plain) await tx.series.materialize([id]);
        // what the series gives its exceptions may change, and a new rule may remove them
        if (current.kind === 'series') await tx.changes.noteSeriesExceptions(id);
        return this.changes(tx, actor, id, input, current, ctx.nowMs);
      },
      async (tx, current, ctx) => {
        // an occurrence that read its series' terms overrides one taxonomy on copies of the series' links
        const termsSent = input.categories !== undefined || input.tags !== undefined;
        if (termsSent && current.termsFrom !== id && current.seriesId !== null) await tx.series.ownTerms(id, current.seriesId);
        await this.assignTerms(tx, id, input);
        if (current.kind === 'occurrence') {
          // edited alone: it overrides what was sent (occurrences do not count in their terms: the series alone does)
          const row = await tx.series.occurrence(id);
          if (!row) return;
          await tx.series.setOverrides(id, [...new Set([...row.overrides, ...overriddenBy(input)])].sort());
          const state = ctx.status === 'trash' ? 'cancelled' : 'active';
          await tx.series.setState([id], state);
          // cancelled or restored: an EXDATE on the master VEVENT comes or goes
          if (state !== row.state && current.seriesId !== null) await tx.events.bumpIcalSequence(current.seriesId);
          return;
        }
        // without terms sent, it carries the terms it had
        await this.recount(tx, id, termsBefore, current.status === 'publish', ctx.status === 'publish', termsSent ? undefined : termsBefore);
        const lines = input.recurrence;
        if (current.kind !== 'series' && (lines === undefined || lines === null || lines.length === 0)) return;
        const after = (await tx.events.find(id)) as EventRecord;
        const frame = frameOf(after, this.siteZone);
        const stored = await tx.series.find(id);
        const rule = lines === undefined ? this.series.reframed(stored, frameOf(current, this.siteZone), frame) : readRecurrence(lines ?? [], frame);
        const sent = (k: keyof EventInput) => input[k] !== undefined;
        removed = await this.series.sync(
          tx,
          id,
          rule,
          {
            nowMs: ctx.nowMs,
            datesChanged: sent('startDate') || sent('endDate') || sent('timezone') || sent('allDay') || sent('recurrence'),
            fields: changedProperties(current, after),
            relink: (['categories', 'tags', 'organizers'] as const).filter((k) => sent(k)),
          },
          // (both just read in this transaction)
          { master: after, stored },
        );
        // an exception the new rule removed went with its rows: the log says so (a delete, not the update noted)
        await tx.changes.noteRemoved('event', removed);
      },
      // an occurrence's slug is its series'
      { keepSlug: (current) => current.kind === 'occurrence', guard },
    );
    const view = await this.view(id, actor);
    return removed ? { ...view, removedOccurrences: removed } : view;
  }

  /** The detail changes an update sends (dates keep their wall clock when only the zone changes). */
  private async changes(tx: Storage, actor: Actor, id: number, input: EventInput, current: EventRecord, nowMs: number) {
    const details: { -readonly [K in keyof EventDetails]?: EventDetails[K] } = {};
    const zoneName = input.timezone === undefined ? current.timezone || this.siteZone : this.zoneName(input.timezone);
    const allDay = input.allDay ?? current.allDay;
    const datesSent = input.startDate != null || input.endDate != null || input.timezone !== undefined || input.allDay !== undefined;
    if (datesSent) {
      const start = input.startDate != null ? this.date('start_date', input.startDate, zoneName, nowMs) : parseWall(current.startDate);
      const end = input.endDate != null ? this.date('end_date', input.endDate, zoneName, nowMs) : parseWall(current.endDate);
      Object.assign(details, computeEventDates(start, end, allDay, zoneName), { allDay });
    }
    if (input.icalUid === null) throw errors.invalidParam('ical_uid', 'Invalid parameter(s): ical_uid (an event always has a UID).');
    if (input.icalUid !== undefined && input.icalUid !== current.icalUid) {
      if (current.kind === 'occurrence') {
        throw errors.invalidParam('ical_uid', "Invalid parameter(s): ical_uid (an occurrence has its series' UID).");
      }
      details.icalUid = await this.freeIcalUid(tx, input.icalUid, id);
    }
    if (input.cost !== undefined) {
      const cost = input.cost ?? [];
      const currency = deriveCurrency(cost);
      Object.assign(details, { cost, currencySymbol: currency.symbol, currencyPosition: currency.position });
    }
    if (input.website !== undefined) details.website = input.website ?? '';
    Object.assign(details, plainDetails(input, false));
    if (input.venue !== undefined) details.venueId = input.venue === null ? null : (await this.linkVenue(tx, actor, input.venue)).id;
    if (input.organizers !== undefined) {
      const before = (await tx.events.organizersFor([id])).get(id) ?? [];
      const after = (await this.linkOrganizers(tx, actor, input.organizers ?? [])).map((r) => r.id);
      await tx.events.setOrganizers(id, after);
      if (before.length !== after.length || before.some((o, i) => o !== after[i])) {
        await tx.changes.note('event', id, 'update', { fields: ['organizer'] });
      }
    }
    const times = ['startDate', 'endDate', 'startUtc', 'endUtc', 'timezone', 'allDay'] as const;
    const timesChanged = times.some((k) => details[k] !== undefined && details[k] !== current[k]);
    const ruleSent = input.recurrence !== undefined && current.kind !== 'occurrence';
    // iCalendar SEQUENCE: a change of when the event happens (RFC 5545 §3.8.7.4), whether or not the rule's instances moved
    if (timesChanged || ruleSent) details.icalSequence = current.icalSequence + 1;
    return { details, post: input.sticky !== undefined ? { menuOrder: input.sticky ? -1 : 0 } : undefined };
  }

  /** The UID, when no other event has it (409 otherwise). */
  private async freeIcalUid(tx: Storage, uid: string, self?: number): Promise<string> {
    const holder = await tx.events.idByIcalUid(uid);
    if (holder !== undefined && holder !== self) throw errors.icalUidTaken(uid);
    return uid;
  }

  /**
   * "This and following" (FEATURES.md §1.5): the series ends before the occurrence, and a new series with the
   * changes starts there, taking over the later occurrences with their ids. At the first occurrence it is an
   * update of the whole series. Answers with the new series and whether one was created.
   */
  async split(actor: Actor, id: number, input: EventInput, ifVersion?: number): Promise<{ view: EventView; created: boolean }> {
    const occurrence = await this.storage.events.find(id);
    if (!occurrence) {
      // the id of a venue, organizer or image: answered as the other event routes answer it (CONTRACT.md §6.2)
      if ((await this.storage.posts.typeOf(id)) !== undefined) throw errors.invalidEventId();
      if ((await this.storage.series.occurrence(id))?.state === 'gone') throw errors.eventOccurrenceGone(id);
      throw errors.eventNotFound(id);
    }
    if (occurrence.kind !== 'occurrence' || occurrence.seriesId === null) throw errors.eventNotOccurrence(id);
    const seriesId = occurrence.seriesId;
    await this.writer.authorize(actor, 'edit', seriesId);
    assertMayWrite(actor, input);
    const row = await this.storage.series.occurrence(id);
    const first = (await this.storage.series.occurrencesOf(seriesId))[0];
    // a conditional split is conditional on the occurrence named, whichever rows it then writes (a plain one's
    // version is its series': it has no row of its own)
    const guard = ifVersion === undefined ? undefined : { id: occurrence.plain ? seriesId : id, version: ifVersion };
    if (!row || first?.id === id) return { view: await this.write(actor, seriesId, input, guard), created: false };
    if (input.recurrence !== undefined) throw errors.invalidParam('recurrence', 'Invalid parameter(s): recurrence (a split keeps the rule).');
    const nowMs = this.clock();
    const record = await retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        await tx.lockPost(seriesId);
        if (guard && !(await tx.posts.claim(guard.id, guard.version))) throw errors.preconditionFailed();
        const master = await tx.events.find(seriesId);
        if (!master) throw errors.eventNotFound(seriesId);
        const frame = frameOf(master, this.siteZone);
        const rule = await this.series.storedRule(tx, seriesId, frame, frame);
        if (!rule) throw errors.eventNotRecurring(seriesId);
        const at = splitAt(rule, frame, row.originalStart);
        const { before, after } = splitAround(rule, frame, at);
        const moving = (await tx.series.occurrencesOf(seriesId)).filter((o) => o.originalStartUtc >= row.originalStartUtc).map((o) => o.id);
        const base = await this.inputOf(tx, master);
        const merged: EventInput = {
          ...base,
          startDate: formatWall(at.startWall),
          endDate: formatWall(at.endWall),
          ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
        };
        const { record: created } = await this.insert(tx, actor, merged, nowMs, {
          rule: (f) => reframe(after, f),
          adopt: (newId) => tx.series.moveOccurrences(moving, newId),
          splitFrom: seriesId,
        });
        await this.series.sync(tx, seriesId, before, { nowMs, datesChanged: false, fields: 'none', relink: [] });
        // its exceptions from the split on belong to the new series now (those before it are unchanged)
        await tx.changes.noteSeriesExceptions(created.id);
        // the series written: its rule now ends before the split (its modified date, version and the change log say
        // so, for Last-Modified, conditional writes, modified_after and sync)
        const stamp = postStamp(nowMs, this.siteZone);
        await tx.events.update(seriesId, { modified: stamp.local, modifiedUtc: stamp.utc }, { icalSequence: master.icalSequence + 1 });
        await tx.changes.note('event', seriesId, 'update', { status: master.status, priorStatus: master.status, fields: ['recurrence'] });
        return created;
      }),
    );
    return { view: await this.view(record.id, actor), created: true };
  }

  /** An existing event as the input that would create it again (the start of a split's new series). */
  private async inputOf(tx: Storage, e: EventRecord): Promise<EventInput> {
    const terms = await tx.terms.forPosts([e.id]);
    const own = terms.get(e.id) ?? [];
    const organizers = (await tx.events.organizersFor([e.id])).get(e.id) ?? [];
    return {
      title: e.title,
      description: e.content,
      excerpt: e.excerpt,
      status: e.status,
      author: e.authorId,
      image: e.imageId ?? undefined,
      timezone: e.timezone,
      allDay: e.allDay,
      cost: e.cost,
      website: e.website,
      showMap: e.showMap,
      showMapLink: e.showMapLink,
      hideFromListings: e.hideFromListings,
      featured: e.featured,
      sticky: e.menuOrder === -1,
      categories: own.filter((t) => t.taxonomy === 'tribe_events_cat').map((t) => t.id),
      tags: own.filter((t) => t.taxonomy === 'post_tag').map((t) => t.id),
      venue: e.venueId === null ? undefined : { id: e.venueId },
      organizers: organizers.map((oid) => ({ id: oid })),
      customFields: e.customFields,
    };
  }

  /** `GET /events/{id}/occurrences`: one series' occurrences in a window, as a list. */
  async occurrences(actor: Actor, id: number, q: EventListQuery): Promise<EventPage> {
    const series = await this.get(actor, id);
    if (series.record.kind !== 'series') throw errors.eventNotRecurring(id);
    return this.list(actor, { ...q, postParent: id, expandRecurring: true });
  }

  /**
   * Lists whose window reaches past the horizon of unbounded series make their occurrences exist up to it
   * (at most twice the horizon ahead: a window far in the future must not make a series write decades of
   * rows). Windows within the horizon cost nothing here.
   */
  private async reach(until: string | undefined, nowMs: number): Promise<void> {
    if (until === undefined) return;
    const reachUtc = formatUtcMs(wallToMs(parseWall(until)) + 86_400_000);
    const safe = this.series.horizon(nowMs, this.horizonMonths - 1);
    if (reachUtc <= safe) return;
    const cap = this.series.horizon(nowMs, this.horizonMonths * 2);
    await this.series.extend(this.storage, [reachUtc, cap].sort()[0]);
  }

  /** The daily job: unbounded series keep their occurrences up to the horizon. Returns how many grew. */
  async extendSeries(nowMs: number = this.clock()): Promise<number> {
    return this.series.extend(this.storage, this.series.horizon(nowMs));
  }

  /**
   * Publishes scheduled events (and venues and organizers) whose publication date has come, as WordPress'
   * cron does; their terms count them from now on. Returns how many events were published.
   */
  async publishDue(nowMs: number = this.clock()): Promise<number> {
    const now = postStamp(nowMs, this.siteZone).utc;
    return this.storage.transaction(async (tx) => {
      const ids = await tx.posts.publishDue('event', now);
      await tx.events.syncStatus(ids, 'publish');
      await tx.series.followStatus(ids);
      // a series counts once in its terms: its occurrences (published with it) do not
      const occurrences = await tx.series.occurrencesByIds(ids);
      for (const id of ids) {
        if (occurrences.has(id)) continue;
        await this.recount(tx, id, [], false, true);
        await tx.changes.note('event', id, 'update', PUBLISHED_WHEN_DUE);
      }
      for (const type of ['venue', 'organizer'] as const) {
        for (const id of await tx.posts.publishDue(type, now)) await tx.changes.note(type, id, 'update', PUBLISHED_WHEN_DUE);
      }
      return ids.length;
    });
  }

  /**
   * Moves the event to the trash and answers with it as trashed; it keeps its links (a restored event has
   * them). An occurrence is cancelled (its series goes on); a series' master takes its occurrences along.
   */
  async remove(actor: Actor, id: number, ifVersion?: number): Promise<EventView> {
    await this.writer.trash(
      actor,
      id,
      async (tx, current) => {
        // a cancelled occurrence has rows of its own
        if (current.plain) await tx.series.materialize([id]);
        if (current.kind !== 'occurrence') await this.recount(tx, id, await tx.terms.idsForPost(id), current.status === 'publish', false);
        // a series' exceptions leave with it
        if (current.kind === 'series') await tx.changes.noteSeriesExceptions(id);
      },
      async (tx, current) => {
        if (current.kind === 'occurrence') {
          await tx.series.setState([id], 'cancelled');
          // an EXDATE on the master VEVENT
          if (current.seriesId !== null) await tx.events.bumpIcalSequence(current.seriesId);
        }
        if (current.kind === 'series') await tx.series.follow(id, await tx.series.occurrencesOf(id));
      },
      ifVersion,
    );
    return this.view(id, actor);
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private async view(id: number, actor: Actor): Promise<EventView> {
    const record = await this.storage.events.find(id);
    if (!record) throw errors.eventNotFound(id);
    return (await this.views([record], actor))[0];
  }

  /** The venue to link: an existing one, or one created (or reused) from the fields sent. */
  private async linkVenue(tx: Storage, actor: Actor, ref: LinkedRef): Promise<VenueRecord> {
    if ('id' in ref) return this.venues.linkable(tx, actor, ref.id, ref.found as VenueRecord | undefined);
    return this.venues.createOrReuseRecord(tx, actor, ref.create, ref.absent);
  }

  private async linkOrganizers(tx: Storage, actor: Actor, refs: readonly LinkedRef[]): Promise<OrganizerRecord[]> {
    const out: OrganizerRecord[] = [];
    for (const ref of refs) {
      out.push(
        'id' in ref
          ? await this.organizers.linkable(tx, actor, ref.id, ref.found as OrganizerRecord | undefined)
          : await this.organizers.createOrReuseRecord(tx, actor, ref.create, ref.absent),
      );
    }
    return out;
  }

  private zoneName(timezone: string | null | undefined): string {
    return timezone ? canonicalZoneName(timezone) : this.siteZone;
  }

  private date(name: string, input: string, zoneName: string, nowMs: number) {
    const parsed = readDate(input, getZone(zoneName), nowMs);
    if (!parsed) throw errors.invalidParam(name);
    return parsed.wall;
  }

  /** The term entries sent, resolved (in one lookup for both taxonomies; unknown names created). */
  private async resolveSentTerms(tx: Storage, input: EventInput) {
    const requests = [
      ...(input.categories !== undefined ? [{ service: this.categories, entries: input.categories ?? [] }] : []),
      ...(input.tags !== undefined ? [{ service: this.tags, entries: input.tags ?? [] }] : []),
    ];
    const resolved = requests.length === 0 ? [] : await resolveTerms(tx, requests);
    return requests.map((r, i) => ({ taxonomy: r.service.info.taxonomy, terms: resolved[i] }));
  }

  /** Sets the terms sent (replacing those of each taxonomy sent). */
  private async assignTerms(tx: Storage, id: number, input: EventInput): Promise<void> {
    const sent = await this.resolveSentTerms(tx, input);
    if (sent.length === 0) return;
    const before = new Set(await tx.terms.idsForPost(id));
    for (const { taxonomy, terms } of sent) {
      await tx.terms.setForPost(
        id,
        taxonomy,
        terms.map((t) => t.id),
      );
    }
    // the change log names the taxonomies whose terms changed (one that lost a term is among those sent: when
    // both were, both are named)
    const now = new Set(await tx.terms.idsForPost(id));
    const lost = [...before].some((t) => !now.has(t));
    const fields = sent
      .filter((s) => lost || s.terms.some((t) => !before.has(t.id)))
      .map((s) => (s.taxonomy === this.categories.info.taxonomy ? 'categories' : 'tags'));
    if (fields.length > 0) await tx.changes.note('event', id, 'update', { fields });
  }

  /** A new event's terms: related in one statement; answers with them. */
  private async assignNewTerms(tx: Storage, id: number, input: EventInput): Promise<Term[]> {
    const terms = [...new Map((await this.resolveSentTerms(tx, input)).flatMap((r) => r.terms).map((t) => [t.id, t])).values()];
    await tx.terms.relateNew(
      id,
      terms.map((t) => t.id),
    );
    return terms;
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

/** The recurrence cut at a split instance (see splitRecurrence); a 400 naming the id where it cannot be cut there. */
function splitAround(rule: Recurrence, frame: ReturnType<typeof frameOf>, at: Instance) {
  try {
    return splitRecurrence(rule, frame, at);
  } catch (error) {
    if (error instanceof RecurrenceError) throw errors.invalidParam('id', `Invalid parameter(s): id (${error.message}).`);
    throw error;
  }
}

/** The instance of a rule that starts at an original wall time (a split point). */
function splitAt(rule: Recurrence, frame: ReturnType<typeof frameOf>, originalStart: string) {
  // every instance up to and including that one
  const instances = expand(rule, frame, msToWall(wallToMs(parseWall(originalStart)) + 1000));
  const at = instances.find((i) => formatWall(i.originalWall) === originalStart);
  if (!at) throw errors.invalidParam('id', "Invalid parameter(s): id (that occurrence is no longer in its series' rule).");
  return at;
}
