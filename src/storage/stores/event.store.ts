import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { EventDetails, EventListFilter, EventRecord } from '../../domain/events/event.js';
import type { LinkedType } from '../../domain/linked/linked.js';
import type { PostFields, PostPatch } from '../../domain/posts/post.js';
import type { PostKindStore } from '../../domain/posts/post-writer.js';
import { SLUG_UNIQUE_STATUSES } from '../../domain/posts/status.js';
import type { SyncCut } from '../../domain/sync/change.js';
import type { Visibility } from '../../domain/visibility.js';
import { statusesOnly, visiblePosts } from '../../domain/visibility.js';
import type { Database, EventsTable, PostsTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { columnMap, customFieldList, flag, jsonList } from './columns.js';
import { likeContains } from './like.js';
import { postColumns, postFromRow } from './post.store.js';
import { placeholders, Statement, statementSet } from './statement.js';

type Eb = ExpressionBuilder<Database, 'posts' | 'events'>;

/** The columns of `events` (see columns.ts); `status` mirrors the post's for the listing index. */
export const eventColumns = columnMap<EventsTable>()<EventDetails>({
  startDate: 'start_date',
  endDate: 'end_date',
  startUtc: 'start_utc',
  endUtc: 'end_utc',
  timezone: 'timezone',
  timezoneAbbr: 'timezone_abbr',
  allDay: ['all_day', flag],
  cost: ['cost', jsonList],
  currencySymbol: 'currency_symbol',
  currencyCode: 'currency_code',
  currencyPosition: 'currency_position',
  website: 'website',
  showMap: ['show_map', flag],
  showMapLink: ['show_map_link', flag],
  hideFromListings: ['hide_from_listings', flag],
  featured: ['featured', flag],
  venueId: 'venue_id',
  kind: 'kind',
  seriesId: 'series_id',
  icalUid: 'ical_uid',
  icalSequence: 'ical_sequence',
  customFields: ['custom_fields', customFieldList],
});

/**
 * The post whose categories and tags an event carries (EventRecord.termsFrom), from its `events` row: its
 * series' for an occurrence that shares them (migration 0017), else its own.
 */
export function termsCarrier(postId: number, seriesId: number | null, sharedTerms: unknown): number {
  return Number(sharedTerms) === 1 && seriesId !== null ? seriesId : postId;
}

function toRecord(row: Readonly<Record<string, unknown>>): EventRecord {
  const id = Number(row.id);
  const details = eventColumns.fromRow(row);
  return { id, type: 'event', ...postFromRow(row), ...details, termsFrom: termsCarrier(id, details.seriesId, row.shared_terms) };
}

/** The statements of the write path (see Statement). */
const statements = statementSet((dialect: Dialect) => ({
  insertPost: new Statement<{ id: number }>(
    dialect,
    `insert into posts (type, ${postColumns.columns.join(', ')}) values ('event', ${placeholders(postColumns.columns.length)}) returning id`,
  ),
  insertEvent: new Statement(
    dialect,
    `insert into events (post_id, status, ${eventColumns.columns.join(', ')}) values (?, ?, ${placeholders(eventColumns.columns.length)})`,
  ),
  // PostgreSQL only: both rows in one statement, one round trip (SQLite has no writes in `with`)
  insertPostAndEvent: new Statement<{ id: number }>(
    dialect,
    `with p as (insert into posts (type, ${postColumns.columns.join(', ')}) values ('event', ${placeholders(postColumns.columns.length)}) returning id)
     insert into events (post_id, status, ${eventColumns.columns.join(', ')}) values ((select id from p), ?, ${placeholders(eventColumns.columns.length)})
     returning post_id as id`,
  ),
  find: new Statement<Record<string, unknown>>(
    dialect,
    'select posts.*, events.* from events inner join posts on posts.id = events.post_id where events.post_id = ?',
  ),
  slugTaken: new Statement(
    dialect,
    `select 1 as taken from posts where type = 'event' and parent_id = 0 and slug = ? and ${UNIQUE_SLUG_CONDITION} and id <> ? limit 1`,
  ),
}));

/**
 * The condition of the partial unique index `posts_unique_slug`, spelt as in the index (literals, not
 * parameters): only then does SQLite's planner know the index covers the query. With the statuses as
 * parameters it walked `posts_parent` through every post without a parent (1.6 ms at 47k posts, growing with
 * the site), and the posts_type_slug alternative holds a series' occurrences, which share its slug.
 */
const UNIQUE_SLUG_CONDITION = `status in (${SLUG_UNIQUE_STATUSES.map((s) => `'${s}'`).join(', ')})`;
const isUniqueSlugSet = (statuses: readonly string[]) =>
  statuses.length === SLUG_UNIQUE_STATUSES.length && SLUG_UNIQUE_STATUSES.every((s) => statuses.includes(s));

type Comparison = readonly [string, '>=' | '<=' | '<' | '>', string];

/** A filter's date window, on the events table or an alias of it. */
function windowConditions(f: EventListFilter, table: 'events' | 'o'): Comparison[] {
  const out: Comparison[] = [];
  if (f.startGte !== undefined) out.push([`${table}.start_date`, '>=', f.startGte]);
  if (f.endLte !== undefined) out.push([`${table}.end_date`, '<=', f.endLte]);
  if (f.startLt !== undefined) out.push([`${table}.start_date`, '<', f.startLt]);
  if (f.startGt !== undefined) out.push([`${table}.start_date`, '>', f.startGt]);
  if (f.endLt !== undefined) out.push([`${table}.end_date`, '<', f.endLt]);
  if (f.endGt !== undefined) out.push([`${table}.end_date`, '>', f.endGt]);
  return out;
}

/** Whether a filter reads the post row (else the events table and its indexes answer alone). */
const needsPostRow = (f: EventListFilter) =>
  f.search !== undefined ||
  statusesOnly(f.visibility) === undefined ||
  f.postParent !== undefined ||
  f.modifiedAfter !== undefined ||
  f.modifiedBefore !== undefined;

/** The visibility rule's columns here: the status mirrored on `events`, the rest from the post. */
const VISIBILITY_COLUMNS = { status: 'events.status', authorId: 'posts.author_id', statusBeforeTrash: 'posts.status_before_trash' } as const;

/** Every column of `posts` but the long texts. */
const SUMMARY_POST_COLUMNS = [
  'id',
  'type',
  'status',
  'status_before_trash',
  'author_id',
  'title',
  'slug',
  'password',
  'parent_id',
  'menu_order',
  'image_id',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'version',
] as const satisfies readonly (keyof PostsTable)[];

const DAY_COUNTABLE = new Set<string>(['visibility', 'statuses', 'startGte', 'endLte', 'orderByDate'] satisfies (keyof EventListFilter)[]);
const DAY_START = ' 00:00:00';
const DAY_END = ' 23:59:59';

/**
 * The whole-day bounds of a filter that asks for nothing but statuses, listed (not hidden) events and whole
 * days — what `event_day_counts` can count — or undefined. `start_date >= 'D 00:00:00'` holds exactly when the
 * start day is D or later, and `end_date <= 'D 23:59:59'` exactly when the end day is D or earlier.
 */
export function countableByDays(f: EventListFilter): { from?: string; to?: string; statuses: readonly string[] | 'all' } | undefined {
  const statuses = statusesOnly(f.visibility);
  if (statuses === undefined) return undefined;
  // any other filter, including one added later, is counted the exact way
  const neutral = (key: string, value: unknown) =>
    value === undefined || DAY_COUNTABLE.has(key) || (key === 'termGroups' && (value as unknown[]).length === 0);
  if (!Object.entries(f).every(([key, value]) => neutral(key, value))) return undefined;
  if (f.startGte !== undefined && !f.startGte.endsWith(DAY_START)) return undefined;
  if (f.endLte !== undefined && !f.endLte.endsWith(DAY_END)) return undefined;
  return { from: f.startGte?.slice(0, 10), to: f.endLte?.slice(0, 10), statuses };
}

/** Events: a `posts` row of type event and its `events` row, read and written together. */
export class EventStore implements PostKindStore<EventRecord, EventDetails> {
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {
    this.sql = statements(dialect);
  }

  private base() {
    return this.db.selectFrom('events').innerJoin('posts', 'posts.id', 'events.post_id').selectAll(['posts', 'events']);
  }

  /** The rows without their text (content and excerpt read as empty): for pages of many events that show none. */
  private summaryBase() {
    return this.db
      .selectFrom('events')
      .innerJoin('posts', 'posts.id', 'events.post_id')
      .select(SUMMARY_POST_COLUMNS.map((c) => `posts.${c}` as const))
      .select([sql<string>`''`.as('content'), sql<string>`''`.as('excerpt')])
      .selectAll('events');
  }

  async find(id: number): Promise<EventRecord | undefined> {
    const row = await this.sql.find.first(this.db, [id]);
    return row ? toRecord(row) : undefined;
  }

  /** These events, in no particular order (those that exist). */
  async findMany(ids: readonly number[]): Promise<EventRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('events')
      .innerJoin('posts', 'posts.id', 'events.post_id')
      .selectAll(['posts', 'events'])
      .where('events.post_id', 'in', this.dialect.jsonIds(ids))
      .execute();
    return rows.map((r) => toRecord(r as Record<string, unknown>));
  }

  /** The event that has this iCalendar UID. */
  async idByIcalUid(uid: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('events').select('post_id').where('ical_uid', '=', uid).executeTakeFirst();
    return row ? Number(row.post_id) : undefined;
  }

  /** By slug, any status; a published one first when drafts share it (a series' occurrences share its slug: the series). */
  async findBySlug(slug: string): Promise<EventRecord | undefined> {
    const row = await this.base()
      .where('posts.type', '=', 'event')
      .where('posts.parent_id', '=', 0)
      .where('posts.slug', '=', slug)
      .orderBy(sql`case when posts.status = 'publish' then 0 else 1 end`)
      .orderBy('posts.id')
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async insert(post: PostFields, details: EventDetails): Promise<number> {
    if (this.dialect.name === 'postgres') {
      const both = await this.sql.insertPostAndEvent.first(this.db, [...postColumns.toValues(post), post.status, ...eventColumns.toValues(details)]);
      if (!both) throw new Error('insert into events returned no id');
      return Number(both.id);
    }
    const row = await this.sql.insertPost.first(this.db, postColumns.toValues(post));
    if (!row) throw new Error('insert into posts returned no id');
    const id = Number(row.id);
    await this.sql.insertEvent.run(this.db, [id, post.status, ...eventColumns.toValues(details)]);
    return id;
  }

  /** A new event as written (a new row starts at version 0; its terms are its own: occurrences are made elsewhere). */
  async insertRecord(post: PostFields, details: EventDetails): Promise<EventRecord> {
    const id = await this.insert(post, details);
    return { id, type: 'event', ...post, ...details, version: 0, termsFrom: id };
  }

  /**
   * Writes the post's fields and the event's; the post's version moves on. `ifVersion`: only while the post is
   * at that version (a conditional write) — answers false, having written nothing, when it is not.
   */
  async update(id: number, post: PostPatch, details: Partial<EventDetails>, ifVersion?: number): Promise<boolean> {
    const postRow = postColumns.toRow(post);
    const row = { ...eventColumns.toRow(details), ...(post.status === undefined ? {} : { status: post.status }) };
    const writesPost = Object.keys(postRow).length > 0 || ifVersion !== undefined;
    if (this.dialect.name === 'postgres' && writesPost && Object.keys(row).length > 0) {
      // both rows in one statement, one round trip
      const set = (r: object) => sql.join(Object.entries(r).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
      const guard = ifVersion === undefined ? sql`` : sql` and version = ${ifVersion}`;
      const result = await sql`
        with p as (update posts set ${set({ ...postRow, version: sql`version + 1` })} where id = ${id}${guard} returning id)
        update events set ${set(row)} where post_id = (select id from p)`.execute(this.db);
      return ifVersion === undefined || Number(result.numAffectedRows ?? 0) > 0;
    }
    if (writesPost) {
      const written = await this.db
        .updateTable('posts')
        .set((eb) => ({ ...postRow, version: eb('version', '+', 1) }))
        .where('id', '=', id)
        .$if(ifVersion !== undefined, (q) => q.where('version', '=', ifVersion as number))
        .executeTakeFirst();
      if (ifVersion !== undefined && Number(written.numUpdatedRows) === 0) return false;
    }
    if (Object.keys(row).length > 0) await this.db.updateTable('events').set(row).where('post_id', '=', id).execute();
    return true;
  }

  /** Organizer ids of each event, in link order: one query for any number of events. */
  async organizersFor(eventIds: readonly number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (eventIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('event_organizers')
      .select(['event_id', 'organizer_id'])
      .where('event_id', 'in', [...new Set(eventIds)])
      .orderBy('event_id')
      .orderBy('position')
      .execute();
    for (const r of rows) out.set(r.event_id, [...(out.get(r.event_id) ?? []), r.organizer_id]);
    return out;
  }

  /** Replaces the event's organizers (`fresh`: a new event, which has none yet). */
  async setOrganizers(eventId: number, organizerIds: readonly number[], fresh = false): Promise<void> {
    if (!fresh) await this.db.deleteFrom('event_organizers').where('event_id', '=', eventId).execute();
    const unique = [...new Set(organizerIds)];
    if (unique.length > 0) {
      await this.db
        .insertInto('event_organizers')
        .values(unique.map((organizer_id, position) => ({ event_id: eventId, organizer_id, position })))
        .execute();
    }
  }

  /** Mirrors a status change made on `posts` directly (scheduled posts coming due). */
  async syncStatus(ids: readonly number[], status: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('events')
      .set({ status })
      .where('post_id', 'in', [...ids])
      .execute();
  }

  /** Takes a trashed venue or organizer off every event that had it (and only that one). */
  async unlink(type: LinkedType, id: number): Promise<void> {
    if (type === 'venue') await this.db.updateTable('events').set({ venue_id: null }).where('venue_id', '=', id).execute();
    else await this.db.deleteFrom('event_organizers').where('organizer_id', '=', id).execute();
  }

  /** Which of these slugs posts of this type with one of these statuses already have. */
  async takenSlugs(candidates: readonly string[], statuses: readonly string[], excludeId?: number): Promise<Set<string>> {
    const uniqueSet = isUniqueSlugSet(statuses);
    if (candidates.length === 1 && uniqueSet) {
      const taken = await this.sql.slugTaken.first(this.db, [candidates[0], excludeId ?? 0]);
      return new Set(taken ? candidates : []);
    }
    let q = this.db
      .selectFrom('posts')
      .select('slug')
      .where('type', '=', 'event')
      .where('parent_id', '=', 0)
      .where('slug', 'in', [...candidates])
      .where(uniqueSet ? sql<boolean>`${sql.raw(UNIQUE_SLUG_CONDITION)}` : sql<boolean>`status in (${sql.join(statuses)})`);
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    return new Set((await q.execute()).map((r) => r.slug));
  }

  /**
   * `carriers`: which events the term filters match through. `either` (a page): an event's own terms, or its
   * series' for an occurrence that carries them (`shared_terms`). `own` and `shared`: only the events of that
   * kind, matched through that way alone — the two halves of a count on PostgreSQL (see count).
   */
  private conditions(eb: Eb, f: EventListFilter, carriers: 'either' | 'own' | 'shared' = 'either'): Expression<SqlBool> {
    const c: Expression<SqlBool>[] = [];
    const visible = visiblePosts(eb, f.visibility, VISIBILITY_COLUMNS);
    if (visible) c.push(visible);
    if (f.statuses) c.push(f.statuses.length === 1 ? eb('events.status', '=', f.statuses[0]) : eb('events.status', 'in', [...f.statuses]));
    else c.push(eb('events.status', 'not in', f.withCancelled ? ['auto-draft'] : ['trash', 'auto-draft']));
    c.push(eb('events.hide_from_listings', '=', 0));
    if (f.seriesOnce) {
      // singles in the window, and series with an occurrence in it
      const own = windowConditions(f, 'events');
      const occurrence = eb
        .selectFrom('events as o')
        .select('o.post_id')
        .where('o.series_id', '=', eb.ref('events.post_id'))
        .where('o.kind', '=', 'occurrence')
        .where('o.status', 'not in', ['trash', 'auto-draft'])
        .where((o) => o.and(windowConditions(f, 'o').map(([col, op, v]) => o(col as 'o.start_date', op, v))));
      c.push(eb('events.kind', '<>', 'occurrence'));
      c.push(
        eb.or([
          eb.and([eb('events.kind', '=', 'single'), ...own.map(([col, op, v]) => eb(col as 'events.start_date', op, v))]),
          eb.and([eb('events.kind', '=', 'series'), eb.exists(occurrence)]),
        ]),
      );
    } else {
      c.push(eb('events.kind', '<>', 'series'));
      for (const [col, op, v] of windowConditions(f, 'events')) c.push(eb(col as 'events.start_date', op, v));
    }
    if (f.overlap) {
      const o = f.overlap;
      // implied by both branches below (a wall clock is within a day of its instant; the range's wall clock too),
      // but on columns of the listing index, which can then answer them without reading rows
      c.push(eb('events.start_date', '<', o.nearTo), eb('events.end_date', '>=', o.nearFrom));
      // an all-day event's stored end is its last day's 23:59:59, so `end >= from` is "its exclusive end (the next
      // midnight) is after from"
      c.push(
        eb.or([
          eb.and([
            eb('events.all_day', '=', 0),
            eb('events.start_utc', '<', o.toUtc),
            eb.or([eb('events.end_utc', '>', o.fromUtc), eb('events.start_utc', '=', o.fromUtc)]),
          ]),
          eb.and([eb('events.all_day', '=', 1), eb('events.start_date', '<', o.toWall), eb('events.end_date', '>=', o.fromWall)]),
        ]),
      );
    }
    if (f.featured !== undefined) c.push(eb('events.featured', '=', f.featured ? 1 : 0));
    if (f.include) c.push(f.include.length > 0 ? eb('events.post_id', 'in', [...f.include]) : sql<SqlBool>`1 = 0`);
    if (f.postParent !== undefined) c.push(eb('posts.parent_id', '=', f.postParent));
    if (f.modifiedAfter !== undefined) c.push(eb('posts.modified_utc', '>', f.modifiedAfter));
    if (f.modifiedBefore !== undefined) c.push(eb('posts.modified_utc', '<', f.modifiedBefore));
    if (f.venues) c.push(f.venues.length > 0 ? eb('events.venue_id', 'in', [...f.venues]) : sql<SqlBool>`1 = 0`);
    if (f.organizers) {
      c.push(
        eb(
          'events.post_id',
          'in',
          eb
            .selectFrom('event_organizers')
            .select('event_organizers.event_id')
            .where('event_organizers.organizer_id', 'in', [...f.organizers]),
        ),
      );
    }
    if (f.hasGeo !== undefined) {
      const located = eb
        .selectFrom('venues')
        .select('venues.post_id')
        .where('venues.geo_lat', 'is not', null)
        .where('venues.geo_lng', 'is not', null);
      if (f.hasGeo === false) c.push(eb.or([eb('events.venue_id', 'is', null), eb('events.venue_id', 'not in', located)]));
      else c.push(eb('events.venue_id', 'in', located));
    }
    // (a literal, not a parameter: a prepared statement's generic plan then still knows which half it counts, and
    // that events_shared_terms holds the shared one)
    if (carriers !== 'either' && (f.termGroups?.length ?? 0) > 0)
      c.push(sql<SqlBool>`events.shared_terms = ${sql.lit(carriers === 'shared' ? 1 : 0)}`);
    for (const group of f.termGroups ?? []) {
      if (group.length === 0) {
        c.push(sql<SqlBool>`1 = 0`);
        continue;
      }
      // the events with one of these terms of their own, and the occurrences that carry their series'
      const own = eb
        .selectFrom('term_relationships')
        .select('term_relationships.post_id')
        .where('term_relationships.term_id', 'in', [...group]);
      // the series that have the term (through event_series, a row per series: a site without series looks
      // nothing up, where events' `kind` had it scan every event)
      const masters = eb
        .selectFrom('term_relationships as r')
        .innerJoin('event_series as m', 'm.post_id', 'r.post_id')
        .select('r.post_id')
        .where('r.term_id', 'in', [...group]);
      if (carriers === 'own') {
        c.push(eb('events.post_id', 'in', own));
        continue;
      }
      if (carriers === 'shared') {
        // (the series first, whatever the statistics say: as an IN, one build of the 1.65M dataset had it walk
        // all of events_shared_terms and look each occurrence's series up, 1.4 s against 35–60 ms)
        c.push(sql<SqlBool>`events.series_id = any(array(${masters}))`);
        continue;
      }
      if (this.dialect.name === 'postgres') {
        // PostgreSQL: an OR of the two. One IN list of both (SQLite's form below) it took for 200 rows whatever it
        // held, and answered the filtered list by reading every post (10 against 45 requests a second, bench
        // uncached.filtered); `= any(array(…))` reads the series first, whatever the statistics say
        c.push(
          eb.or([
            eb('events.post_id', 'in', own),
            eb.and([eb('events.shared_terms', '=', 1), sql<SqlBool>`events.series_id = any(array(${masters}))`]),
          ]),
        );
        continue;
      }
      // SQLite: one IN list of both (an OR of the two made it walk the window instead of starting from the
      // term's posts); the occurrences are looked up in the partial index events_shared_terms
      const shared = eb
        .selectFrom('events as shared')
        .select('shared.post_id')
        .where('shared.shared_terms', '=', 1)
        .where('shared.series_id', 'in', masters);
      c.push(eb('events.post_id', 'in', own.unionAll(shared)));
    }
    if (f.search) {
      const fields = ['posts.title', 'posts.excerpt', 'posts.content'] as const;
      for (const word of f.search.words) {
        c.push(eb.or(fields.map((col) => likeContains(this.dialect.lower(sql.ref(col)), word.toLowerCase(), 'contains'))));
      }
      for (const word of f.search.excluded) {
        c.push(eb.not(eb.or(fields.map((col) => likeContains(this.dialect.lower(sql.ref(col)), word.toLowerCase(), 'contains')))));
      }
    }
    return eb.and(c);
  }

  /** Whether the calendar has a recurring series (so some occurrence may carry its series' terms). */
  private async hasSeries(): Promise<boolean> {
    const row = await this.db.selectFrom('event_series').select('post_id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * How many events match, from the per-day counts when the filter is only statuses and whole days (the
   * default list): a sum over a few thousand rows whatever the number of events.
   */
  async count(filter: EventListFilter): Promise<number> {
    if (filter.near) filter = (await this.withNearVenues(filter)).filter;
    const byDays = countableByDays(filter);
    if (byDays) {
      let q = this.db.selectFrom('event_day_counts').select(sql<number>`coalesce(sum(n), 0)`.as('n')).where('hidden', '=', 0);
      if (byDays.statuses !== 'all') q = q.where('status', 'in', [...byDays.statuses]);
      if (filter.statuses) q = q.where('status', 'in', [...filter.statuses]);
      else q = q.where('status', 'not in', ['trash', 'auto-draft']);
      if (byDays.from !== undefined) q = q.where('start_day', '>=', byDays.from);
      if (byDays.to !== undefined) q = q.where('end_day', '<=', byDays.to);
      return Number((await q.executeTakeFirstOrThrow()).n);
    }
    // the count reads only the listing index unless a filter needs the post row
    const needsPost = needsPostRow(filter);
    const countOf = async (carriers: 'either' | 'own' | 'shared') => {
      const row = await this.db
        .selectFrom('events')
        .$if(needsPost, (q) => q.innerJoin('posts', 'posts.id', 'events.post_id'))
        .select((e) => e.fn.countAll<number>().as('n'))
        .where((eb) => this.conditions(eb as unknown as Eb, filter, carriers))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    // PostgreSQL, with term filters: the events with terms of their own plus the occurrences that carry their
    // series' (disjoint: an occurrence gets links of its own only as it stops sharing, see SeriesStore.ownTerms),
    // each counted with the plan that suits it — the term's posts looked up, the series' occurrences read from
    // events_shared_terms. Counted as one OR, it read every event of the window and tested each against both
    // (1.65M events with 5,000 series: ~0.9–1.5 s, against 55–80 ms; bench/README.md "Session 12"). Not with
    // a text search: at 10k events the two counts then ran at half the requests a second of the one (bench
    // uncached.filtered under 64 connections, 161 → ~70/s; each alone took as long as the one), not explained
    // yet. Nor on a calendar without series (no occurrence shares terms; at 10k singles the two took ~0.5–3 ms
    // more than the one). SQLite's one IN list of both already starts from the term's posts.
    if (this.dialect.name === 'postgres' && (filter.termGroups?.length ?? 0) > 0 && !filter.search && (await this.hasSeries())) {
      return (await countOf('own')) + (await countOf('shared'));
    }
    return countOf('either');
  }

  /**
   * The venues within `km` of a point, nearest first, with the rank their distance gives (equal distances
   * share one): a bounding box an index can serve, then the exact distance — over venues, not events.
   */
  private async nearVenues(near: NonNullable<EventListFilter['near']>): Promise<{ id: number; rank: number }[]> {
    const { lat, lng, km } = near;
    const dLat = km / 110.574;
    const cos = Math.cos((lat * Math.PI) / 180);
    const dLng = cos > 0.01 ? km / (111.32 * cos) : 360;
    const distance = this.dialect.distanceKm(sql.ref('venues.geo_lat'), sql.ref('venues.geo_lng'), lat, lng);
    const rows = await this.db
      .selectFrom('venues')
      .select(['venues.post_id', distance.as('d')])
      .where('venues.geo_lat', '>=', lat - dLat)
      .where('venues.geo_lat', '<=', lat + dLat)
      .$if(dLng < 180, (q) => q.where('venues.geo_lng', '>=', lng - dLng).where('venues.geo_lng', '<=', lng + dLng))
      .where(distance, '<=', km)
      .orderBy('d')
      .execute();
    let rank = -1;
    let last: number | undefined;
    return rows.map((r) => {
      if (Number(r.d) !== last) rank++;
      last = Number(r.d);
      return { id: Number(r.post_id), rank };
    });
  }

  /** Near a point: the venues first (a few hundred at most), then the filter asks for events at those venues. */
  private async withNearVenues(filter: EventListFilter) {
    if (!filter.near) return { filter, near: undefined };
    const near = await this.nearVenues(filter.near);
    const ids = near.map((v) => v.id);
    const venues = filter.venues ? filter.venues.filter((id) => ids.includes(id)) : ids;
    return { filter: { ...filter, near: undefined, venues }, near };
  }

  /**
   * What a sync of events shows (FEATURES.md §2.3), by id: singles, series masters, and occurrences edited alone
   * or cancelled, that the caller may see with these statuses (default: all but trash) and that are not hidden
   * from listings — those after `afterId` (at most `limit`), or those of `ids`.
   */
  async syncRecords(f: { readonly visibility: Visibility; readonly statuses?: readonly string[] }, cut: SyncCut): Promise<EventRecord[]> {
    let q = this.base().where((eb) => {
      const c: Expression<SqlBool>[] = [];
      const visible = visiblePosts(eb, f.visibility, VISIBILITY_COLUMNS);
      if (visible) c.push(visible);
      c.push(f.statuses ? eb('events.status', 'in', [...f.statuses]) : eb('events.status', 'not in', ['trash', 'auto-draft']));
      c.push(eb('events.hide_from_listings', '=', 0));
      c.push(
        eb.or([
          eb('events.kind', '<>', 'occurrence'),
          eb.exists(
            eb
              .selectFrom('occurrences')
              .select('occurrences.id')
              .where('occurrences.id', '=', eb.ref('events.post_id'))
              .where((o) => o.or([o('occurrences.overrides', '<>', '[]'), o('occurrences.state', '=', 'cancelled')])),
          ),
        ]),
      );
      return eb.and(c);
    });
    q = 'ids' in cut ? q.where('events.post_id', 'in', this.dialect.jsonIds(cut.ids)) : q.where('events.post_id', '>', cut.afterId).limit(cut.limit);
    const rows = await q.orderBy('events.post_id').execute();
    return rows.map(toRecord);
  }

  /** One page of matching events and the total: two queries whatever the page size (three with a location). */
  async list(original: EventListFilter, limit: number, offset: number): Promise<{ events: EventRecord[]; total: number }> {
    const { filter, near } = await this.withNearVenues(original);
    const total = await this.count(filter);
    if (total === 0 || offset >= total) return { events: [], total };
    if (near) {
      // nearest first: pick the page's ids from the venue index alone, then read those rows
      const ranks = sql.join(
        near.map((v) => sql`when ${v.id} then ${v.rank}`),
        sql` `,
      );
      const page = await this.db
        .selectFrom('events')
        .$if(needsPostRow(filter) || filter.orderByDate === true, (qb) => qb.innerJoin('posts', 'posts.id', 'events.post_id'))
        .select('events.post_id')
        .where((eb) => this.conditions(eb as unknown as Eb, filter))
        .orderBy(sql`case events.venue_id ${ranks} end`)
        .orderBy(filter.orderByDate ? sql.ref('posts.date_utc') : sql.ref('events.start_date'))
        .orderBy('events.post_id')
        .limit(limit)
        .offset(offset)
        .execute();
      const ids = page.map((r) => Number(r.post_id));
      const rows = await this.base().where('events.post_id', 'in', ids).execute();
      const byId = new Map(rows.map((r) => [Number(r.id), toRecord(r)]));
      return { events: ids.map((id) => byId.get(id)).filter((r): r is EventRecord => r !== undefined), total };
    }
    let q = (filter.withoutText ? this.summaryBase() : this.base()).where((eb) => this.conditions(eb, filter));
    if (filter.orderByDate) q = q.orderBy('posts.date_utc').orderBy('posts.id');
    else {
      const direction = filter.newestFirst ? 'desc' : 'asc';
      q = q.orderBy(filter.orderByStartUtc ? 'events.start_utc' : 'events.start_date', direction).orderBy('posts.id', direction);
    }
    const rows = await q.limit(limit).offset(offset).execute();
    return { events: rows.map(toRecord), total };
  }
}
