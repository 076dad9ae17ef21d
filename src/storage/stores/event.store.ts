import {
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { EventDetails, EventListFilter, EventRecord } from '../../domain/events/event.js';
import type { LinkedType } from '../../domain/linked/linked.js';
import type { PostFields, PostPatch } from '../../domain/posts/post.js';
import type { PostKindStore } from '../../domain/posts/post-writer.js';
import { SLUG_UNIQUE_STATUSES } from '../../domain/posts/status.js';
import type { SyncCut } from '../../domain/sync/change.js';
import type { Visibility } from '../../domain/visibility.js';
import { statusesOnly, visiblePosts } from '../../domain/visibility.js';
import type { Database, EventsTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { columnMap, customFieldList, flag, jsonList } from './columns.js';
import { isStorableId, storableIds } from './ids.js';
import { containsFolded } from './like.js';
import { PLAIN, plainEvents } from './plain-occurrences.js';
import type { Row } from './planned.js';
import { postColumns, postFromRow } from './post.store.js';
import { builtOnce, idList, placeholders, Statement, statementFor, statementSet } from './statement.js';

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
  const record: EventRecord = { id, type: 'event', ...postFromRow(row), ...details, termsFrom: termsCarrier(id, details.seriesId, row.shared_terms) };
  if (typeof row.links_modified_utc === 'string') Object.assign(record, { linksModifiedUtc: row.links_modified_utc });
  return Number(row.own_rows) === 0 ? Object.assign(record, { plain: true as const }) : record;
}

/**
 * What a read of events answers, column by column, as `[expression, name]`: `posts.*, events.*` (the status
 * the events row mirrors) for an event with rows of its own (`own`), and for a plain occurrence (`plain`, see
 * plainEvents) its row's dates and status over its master's post and details, with its own id and its series
 * as parent. `own_rows` says which. Without text: content and excerpt read as empty.
 */
function readColumns(arm: 'own' | 'plain', withText = true): [string, string][] {
  const post = (c: string): [string, string] => [`posts.${c}`, c];
  const text = (c: string): [string, string] => (withText ? post(c) : ["''", c]);
  return [
    ['events.post_id', 'id'],
    post('type'),
    post('status_before_trash'),
    post('author_id'),
    post('title'),
    text('content'),
    text('excerpt'),
    post('slug'),
    post('password'),
    arm === 'own' ? post('parent_id') : ['events.series_id', 'parent_id'],
    post('menu_order'),
    post('image_id'),
    post('date'),
    post('date_utc'),
    post('modified'),
    post('modified_utc'),
    arm === 'own' ? post('global_id_lineage') : ['null', 'global_id_lineage'],
    post('version'),
    ...EVENT_READ.map((c): [string, string] => [`events.${c}`, c]),
    [arm === 'own' ? '1' : '0', 'own_rows'],
  ];
}

const EVENT_READ = [
  'post_id',
  'status',
  'start_date',
  'end_date',
  'start_utc',
  'end_utc',
  'timezone',
  'timezone_abbr',
  'all_day',
  'cost',
  'currency_symbol',
  'currency_code',
  'currency_position',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'featured',
  'venue_id',
  'kind',
  'series_id',
  'ical_uid',
  'ical_sequence',
  'custom_fields',
  'shared_terms',
  'links_modified_utc',
] as const satisfies readonly (keyof EventsTable)[];

/** readColumns as selections, made once (a list built them for every request: ~30 µs of a 1 ms list at 10k events). */
const SELECTIONS = {
  own: { text: selections('own', true), summary: selections('own', false) },
  plain: { text: selections('plain', true), summary: selections('plain', false) },
};

function selections(arm: 'own' | 'plain', withText: boolean) {
  return readColumns(arm, withText).map(([expr, name]) => sql.raw(expr).as(name));
}

const selectList = (columns: readonly [string, string][]) =>
  columns.map(([expr, name]) => (expr === `posts.${name}` || expr === `events.${name}` ? expr : `${expr} as ${name}`)).join(', ');

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
    `select ${selectList(readColumns('own'))} from events inner join posts on posts.id = events.post_id where events.post_id = ?
     union all
     select ${selectList(readColumns('plain'))} from ${plainEvents(dialect, { byId: true })} as events inner join posts on posts.id = events.series_id where events.post_id = ?`,
  ),
  // an event's organizers in order, their ids as one JSON array (a position is its index there)
  linkOrganizers: new Statement(
    dialect,
    dialect.name === 'postgres'
      ? `insert into event_organizers (event_id, organizer_id, position)
         select ?, cast(value as integer), cast(ordinality - 1 as integer) from json_array_elements_text(cast(? as json)) with ordinality`
      : 'insert into event_organizers (event_id, organizer_id, position) select ?, cast(value as integer), cast(key as integer) from json_each(?)',
  ),
  // whether the calendar has a recurring series (see EventStore.termsPlan)
  hasSeries: new Statement<{ post_id: number }>(dialect, 'select post_id from event_series limit 1'),
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
const needsPostRow = (f: EventListFilter, textApart = false) =>
  (f.search !== undefined && !textApart) ||
  statusesOnly(f.visibility) === undefined ||
  f.postParent !== undefined ||
  f.modifiedAfter !== undefined ||
  f.modifiedBefore !== undefined;

/** A filter's window and the rest, without its terms and text (what the per-day counts may count of it). */
const windowOf = (f: EventListFilter): EventListFilter => ({ ...f, termGroups: undefined, termRoots: undefined, search: undefined });

/** `column` is one of these terms (`=` for one: the form an index range reads best). */
const termsIn = (terms: readonly number[], column: Expression<unknown>) =>
  terms.length === 1 ? sql<SqlBool>`${column} = ${terms[0]}` : sql<SqlBool>`${column} in (${sql.join(terms)})`;

/** Whether a filter names terms or text: its count and page look up every candidate (see EventStore.read). */
const byTermsOrText = (f: EventListFilter) => (f.termGroups?.length ?? 0) > 0 || f.search !== undefined;

/** Whether a filter asks something of what a plain occurrence reads from its series (see EventStore.seriesWith). */
const asksOfSeries = (f: EventListFilter) =>
  f.featured !== undefined ||
  f.modifiedAfter !== undefined ||
  f.modifiedBefore !== undefined ||
  f.venues !== undefined ||
  f.organizers !== undefined ||
  f.hasGeo !== undefined ||
  byTermsOrText(f);

/** The visibility rule's columns here: the status mirrored on `events`, the rest from the post. */
const VISIBILITY_COLUMNS = { status: 'events.status', authorId: 'posts.author_id', statusBeforeTrash: 'posts.status_before_trash' } as const;

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

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM` one month after (or before) this one. */
function shiftMonth(month: string, by: 1 | -1): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + by;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * How a count over whole days `from`..`to` (either open) splits over the month counts and the day counts: the
 * months from `first` to `last` (`YYYY-MM`, each bound open when undefined) held whole — an event counted there
 * when it starts in `first` or later and ends in `last` or earlier — and the days outside them: those that start
 * before `first` (from `from` on), and those that start in `first` or later and end after `last` (up to `to`).
 * Undefined for a bound that is not a day `YYYY-MM-DD` (counted by days alone).
 */
export function monthSplit(from: string | undefined, to: string | undefined): { first?: string; last?: string } | undefined {
  const start = from === undefined ? undefined : DAY.exec(from);
  const end = to === undefined ? undefined : DAY.exec(to);
  if (start === null || end === null) return undefined;
  const month = (day: RegExpExecArray) => `${day[1]}-${day[2]}`;
  return {
    // a window from the 1st holds its month whole; from a later day, the months after it
    first: start && (start[3] === '01' ? month(start) : shiftMonth(month(start), 1)),
    // a window to the month's last day holds it whole; to an earlier day, the months before it
    last: end && (Number(end[3]) === daysIn(Number(end[1]), Number(end[2])) ? month(end) : shiftMonth(month(end), -1)),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the select of either arm of a list, whatever its tables (see EventStore.page)
type AnySelect<R> = SelectQueryBuilder<any, any, R>;

/** Whether the calendar has plain occurrences at all (one probe of their partial index; see EventStore.tally). */
const HAS_PLAIN = sql<number | boolean>`exists (select 1 from occurrences o where ${sql.raw(PLAIN)})`;

/** The events of a filter's window, asked once per filter object (see EventStore.eventsInWindow). */
const windowEvents = new WeakMap<EventListFilter, Promise<number | undefined>>();

/** Per database: whether the last list counted by days found plain occurrences (see EventStore.listing). */
const hasPlainLastSeen = new WeakMap<Dialect, boolean>();

/** A list's order: output columns and directions. */
type Order = readonly (readonly [string, 'asc' | 'desc'])[];

/** How many venue groups a location search's page walks one by one before it ranks the rest in one statement. */
const NEAR_WALK = 8;

/** A list of categories or tags is walked in its order only with this many matching events, and when the walk is at most this share of them squared (see EventStore.walkInOrder). */
const WALK_MIN = 1_000;
const WALK_SHARE = 1 / 4;

/**
 * SQLite: a count of terms reads the terms' events by id when their links are at most this share of the window's
 * events (see EventStore.termsPlan): a link looked up cost ~0.6 µs against ~0.17 µs an event of the window
 * walked at 10k events, 1.27 against 0.22 at 1M (the events' table no longer in the cache; break-even at ~17 %
 * there: 80k links, 466k events, ~100 ms either way) (bench/README.md "Session 26").
 */
const TERMS_FIRST_SHARE = 1 / 6;
/** PostgreSQL: how many links of a group of terms termsPlan counts at most (more: the window is walked). */
const LINKS_ASKED = 20_000;

const orderBy = <Q extends AnySelect<unknown>>(q: Q, order: Order): Q =>
  order.reduce((acc, [column, direction]) => acc.orderBy(column, direction) as Q, q);

/** The type of a read of events joined with their posts (see EventStore.from). */
const ownFrom = (db: Kysely<Database>) => db.selectFrom('events').innerJoin('posts', 'posts.id', 'events.post_id');
/** The type of `posts.*, events.*` from it (see EventStore.rows). */
const ownRows = (db: Kysely<Database>) => ownFrom(db).selectAll(['posts', 'events']);

/**
 * Events: a `posts` row of type event and its `events` row, read and written together; and plain occurrences
 * (migration 0023), read as their series' rows with their own dates.
 */
export class EventStore implements PostKindStore<EventRecord, EventDetails> {
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {
    this.sql = statements(dialect);
  }

  /**
   * Events with rows of their own (`own`: singles, masters, occurrences edited alone or cancelled) or plain
   * occurrences (`plain`), as `events` joined with the post they read (see readColumns), or without the post
   * (`withPost` false: for what reads nothing of it).
   */
  private from(arm: 'own' | 'plain', withPost = true, which: { ofSeries?: string; byId?: boolean } = {}) {
    if (arm === 'own') return withPost ? ownFrom(this.db) : (this.db.selectFrom('events') as unknown as ReturnType<typeof ownFrom>);
    const plain = this.db.selectFrom(sql<EventsTable>`${sql.raw(plainEvents(this.dialect, which))}`.as('events'));
    return (withPost ? plain.innerJoin('posts', 'posts.id', 'events.series_id') : plain) as unknown as ReturnType<typeof ownFrom>;
  }

  /** `from(arm)` with every column a record needs (see readColumns), for reads by id. */
  private rows(arm: 'own' | 'plain') {
    // (rows of their own: `posts.*, events.*`, which the query builder compiles in a fraction of the time of 46
    // named columns; toRecord reads a missing `own_rows` as rows of their own)
    const from = this.from(arm, true, { byId: true });
    return (arm === 'own' ? from.selectAll(['posts', 'events']) : from.select(SELECTIONS[arm].text)) as unknown as ReturnType<typeof ownRows>;
  }

  /**
   * One arm of a list: the events of `from(arm)` that match the filter, with what `pick` selects of them.
   *
   * Plain occurrences of a list that asks something of their series (its terms, venue…), on PostgreSQL: the
   * series first (seriesWith), then each one's occurrences in a `lateral` subquery that holds the filter and that
   * the planner may not flatten (`offset 0`). Through `series_id = any(…)` its planner walked the window's
   * listing index whenever the occurrences had no statistics yet (after a million of them were written: 0.9 s
   * for a category's count at 1.65M events, against 45 ms); series by series, an equality on `series_id` and a
   * range on the start leave it `occurrences_series_start` whatever it knows. SQLite finds the series first on
   * its own (see conditions).
   */
  private arm<O>(
    arm: 'own' | 'plain',
    filter: EventListFilter,
    pick: (q: ReturnType<typeof ownFrom>) => AnySelect<O>,
    options: { withPost?: boolean; page?: { order: Order; end: number }; inOrder?: boolean } = {},
  ): AnySelect<O> {
    // (a page's flags and statuses as literals: see conditions)
    const literal = options.page !== undefined;
    const where = (q: AnySelect<O>) => q.where((eb) => this.conditions(eb as unknown as Eb, filter, 'either', arm, options.inOrder, literal));
    if (arm === 'own' || this.dialect.name !== 'postgres' || !asksOfSeries(filter)) return where(pick(this.from(arm, options.withPost)));
    // a page: each series' first rows in the list's order, up to the page's end (an index walk each, then a few
    // hundred rows to merge, where one sort of every occurrence in the window took 111 ms for a category at
    // 1.65M events); a count: all of them
    const matching = where(pick(this.from(arm, options.withPost, { ofSeries: 's.post_id' })));
    const each = options.page ? orderBy(matching, options.page.order).limit(options.page.end) : matching.offset(0);
    return this.db
      .selectFrom(this.seriesWith(filter).as('s'))
      .innerJoinLateral(each.as('r'), (j) => j.onTrue())
      .selectAll('r') as unknown as AnySelect<O>;
  }

  private base() {
    return this.rows('own');
  }

  async find(id: number): Promise<EventRecord | undefined> {
    if (!isStorableId(id)) return undefined;
    const row = await this.sql.find.first(this.db, [id, id]);
    return row ? toRecord(row) : undefined;
  }

  /** These events in the order of their ids (an event deleted since its id was read is left out). */
  private async findInOrder(ids: readonly number[]): Promise<EventRecord[]> {
    const byId = new Map((await this.findMany(ids)).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is EventRecord => r !== undefined);
  }

  /** These events, in no particular order (those that exist). */
  async findMany(wanted: readonly number[]): Promise<EventRecord[]> {
    const ids = storableIds(wanted);
    if (ids.length === 0) return [];
    // events with rows of their own, then plain occurrences among the rest (a page of single events: one query)
    const own = (await this.rows('own').where('events.post_id', 'in', this.dialect.jsonIds(ids)).execute()).map((r) =>
      toRecord(r as Record<string, unknown>),
    );
    const found = new Set(own.map((r) => r.id));
    const rest = ids.filter((id) => !found.has(id));
    if (rest.length === 0) return own;
    const plain = await this.rows('plain').where('events.post_id', 'in', this.dialect.jsonIds(rest)).execute();
    return [...own, ...plain.map((r) => toRecord(r as Record<string, unknown>))];
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
    // (one fixed statement whatever their number, the ids as a JSON array: every create naming one runs it)
    if (unique.length > 0) await this.sql.linkOrganizers.run(this.db, [eventId, JSON.stringify(unique)]);
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

  /**
   * A series' iCalendar SEQUENCE one higher: an occurrence of it was cancelled or restored, which adds or removes
   * an EXDATE on its master VEVENT (RFC 5545 §3.8.7.4 counts EXDATE among the significant changes). Its v1 body
   * and version do not change.
   */
  async bumpIcalSequence(id: number): Promise<void> {
    await this.db.updateTable('events').set({ ical_sequence: sql`ical_sequence + 1` }).where('post_id', '=', id).execute();
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
   * The conditions of a list on one arm of it (see from): rows of their own (`own`), or plain occurrences
   * (`plain`). `carriers` (own rows): which events the term filters match through. `either` (a page): an
   * event's own terms, or its series' for an occurrence that carries them (`shared_terms`). `own` and `shared`:
   * only the events of that kind, matched through that way alone — the two halves of a count on PostgreSQL (see
   * count). A plain occurrence is its series' in all but its dates and status: what a filter asks of its terms,
   * venue, organizers, flags or text it asks of the series (seriesWith).
   */
  private conditions(
    eb: Eb,
    f: EventListFilter,
    carriers: 'either' | 'own' | 'shared' = 'either',
    arm: 'own' | 'plain' = 'own',
    inOrder = false,
    /**
     * One status, the statuses left out, hidden, kind and the visibility rule's statuses as literals, not
     * parameters: for a page, whose PostgreSQL generic plan then knows how many rows they leave — with parameters
     * it guessed one, sorted every event of the window, and stayed with planning each call anew (~0.25 ms; see
     * page). Not for counts: a filtered list's count, generic either way, took 3 ms with parameters and 12 with
     * literals (a hash join over every post's text, before the text was read by a subquery).
     */
    literal = false,
    /** The window's bounds as literals: for counts of terms or text on PostgreSQL (see tally). */
    literalWindow = false,
    /** PostgreSQL: the terms' events read by id (see termsPlan). */
    byId = false,
  ): Expression<SqlBool> {
    const c: Expression<SqlBool>[] = [];
    const visible = visiblePosts(eb, f.visibility, VISIBILITY_COLUMNS, literal);
    if (visible) c.push(visible);
    const lit = <T extends string | number>(value: T) => (literal ? sql.lit(value) : value);
    if (f.statuses) c.push(f.statuses.length === 1 ? eb('events.status', '=', lit(f.statuses[0])) : eb('events.status', 'in', [...f.statuses]));
    else c.push(eb('events.status', 'not in', (f.withCancelled ? ['auto-draft'] : ['trash', 'auto-draft']).map(lit)));
    c.push(eb('events.hide_from_listings', '=', lit(0)));
    if (arm === 'own' && f.seriesOnce) {
      // singles in the window, and series with an occurrence in it (one with rows of its own, or a plain one)
      const own = windowConditions(f, 'events');
      const occurrence = eb
        .selectFrom('events as o')
        .select('o.post_id')
        .where('o.series_id', '=', eb.ref('events.post_id'))
        .where('o.kind', '=', 'occurrence')
        .where('o.status', 'not in', ['trash', 'auto-draft'])
        .where((o) => o.and(windowConditions(f, 'o').map(([col, op, v]) => o(col as 'o.start_date', op, v))));
      const plain = eb
        .selectFrom('occurrences as o')
        .select('o.id')
        .where('o.series_id', '=', eb.ref('events.post_id'))
        .where(sql<SqlBool>`${sql.raw(PLAIN)}`)
        .where('o.status', 'not in', ['trash', 'auto-draft'])
        .where((o) => o.and(windowConditions(f, 'o').map(([col, op, v]) => sql<SqlBool>`${sql.ref(col)} ${sql.raw(op)} ${v}`)));
      c.push(eb('events.kind', '<>', 'occurrence'));
      c.push(
        eb.or([
          eb.and([eb('events.kind', '=', 'single'), ...own.map(([col, op, v]) => eb(col as 'events.start_date', op, v))]),
          eb.and([eb('events.kind', '=', 'series'), eb.or([eb.exists(occurrence), eb.exists(plain)])]),
        ]),
      );
    } else {
      if (arm === 'own') c.push(eb('events.kind', '<>', lit('series')));
      for (const [col, op, v] of windowConditions(f, 'events')) {
        c.push(eb(col as 'events.start_date', op, literalWindow ? sql.lit(v) : v));
      }
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
    if (f.include) {
      const ids = storableIds(f.include);
      c.push(ids.length > 0 ? eb('events.post_id', 'in', ids) : sql<SqlBool>`1 = 0`);
    }
    if (f.postParent !== undefined) c.push(eb(arm === 'own' ? 'posts.parent_id' : 'events.series_id', '=', f.postParent));
    if (arm === 'plain') {
      // (PostgreSQL reads the series first, each one's occurrences then: see arm)
      if (asksOfSeries(f) && this.dialect.name !== 'postgres') c.push(eb('events.series_id', 'in', this.seriesWith(f)));
      return eb.and(c);
    }
    c.push(...this.attributeConditions(eb, f, carriers, inOrder, byId, true));
    return eb.and(c);
  }

  /**
   * The series that have what the filter asks of terms, venue, organizers, flags, modification and text (their
   * plain occurrences have it: they read it from them), from `event_series` (a row per series: a calendar of
   * single events looks nothing up). SQLite: the plain occurrences' condition, `series_id in (…)`, which it
   * answers from `occurrences_series_start`; PostgreSQL reads them series by series (see arm).
   */
  private seriesWith(f: EventListFilter) {
    return this.db
      .selectFrom('event_series as es')
      .innerJoin('events', 'events.post_id', 'es.post_id')
      .innerJoin('posts', 'posts.id', 'events.post_id')
      .select('events.post_id')
      .where((m) => m.and(this.attributeConditions(m as unknown as Eb, f, 'own')));
  }

  /** What a filter asks of an event's terms, venue, organizers, flags, modification and text (see conditions). */
  private attributeConditions(
    eb: Eb,
    f: EventListFilter,
    carriers: 'either' | 'own' | 'shared',
    inOrder = false,
    byId = false,
    filed = false,
  ): Expression<SqlBool>[] {
    const c: Expression<SqlBool>[] = [];
    if (f.featured !== undefined) c.push(eb('events.featured', '=', f.featured ? 1 : 0));
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
    for (const [i, group] of (f.termGroups ?? []).entries()) {
      if (group.length === 0) {
        c.push(sql<SqlBool>`1 = 0`);
        continue;
      }
      // (series once each list their masters, which event_terms does not file)
      const roots = filed && !f.seriesOnce ? f.termRoots?.[i] : undefined;
      if (roots !== undefined) {
        c.push(this.filedUnder(eb, roots, inOrder ? 'walked' : byId ? 'byId' : this.dialect.name === 'postgres' && f.search ? 'tested' : 'joined'));
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
        // (PostgreSQL: `= any(array(…))` reads the term's events by key, whatever the planner would guess; see
        // termsPlan for when)
        c.push(byId ? sql<SqlBool>`events.post_id = any(array(${own}))` : eb('events.post_id', 'in', own));
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
      // (`+`: a page walked in the list's order tests each event against the list, see EventStore.walkInOrder)
      c.push(eb(inOrder ? sql<number>`+events.post_id` : 'events.post_id', 'in', own.unionAll(shared)));
    }
    if (f.search) {
      // PostgreSQL: the text read by a subquery per event the other conditions leave (its post by key), not by a
      // condition on the joined post, which the planner met by lower-casing every post's text to hash-join it
      // (bench/README.md "Session 24")
      if (this.dialect.name === 'postgres') c.push(this.textOf(eb, f.search, sql.ref('events.post_id')));
      else c.push(...this.textConditions(eb, f.search, 'posts'));
    }
    return c;
  }

  /**
   * The event is filed under one of `roots` (event_terms: its own links or its series', a category's descendants
   * included). `walked`: a key lookup per event walked in order; `byId`: the filed events read by key first;
   * `tested`: a scalar subquery per event, which PostgreSQL cannot make a join of — a page with a text search, whose
   * generic plan then walks the window in order, where joined it read all the category's events and sorted them
   * (3.1 against 0.6 ms at 10k events); `joined`: left to the planner.
   */
  private filedUnder(eb: Eb, roots: readonly number[], how: 'walked' | 'byId' | 'tested' | 'joined'): Expression<SqlBool> {
    const under = termsIn(roots, sql.ref('et.term_id'));
    const rooted = eb.selectFrom('event_terms as et').select('et.post_id').where(under);
    if (how === 'walked') return sql<SqlBool>`exists (select 1 from event_terms et where ${under} and et.post_id = events.post_id)`;
    if (how === 'byId') return sql<SqlBool>`events.post_id = any(array(${rooted}))`;
    if (how === 'tested') return sql<SqlBool>`(select true from event_terms et where ${under} and et.post_id = events.post_id limit 1)`;
    return eb('events.post_id', 'in', rooted);
  }

  /** A text search's conditions on the post `table` (an alias of posts): every word in its text, no excluded one. */
  private textConditions(eb: Eb, search: NonNullable<EventListFilter['search']>, table: string): Expression<SqlBool>[] {
    const inText = (word: string) =>
      eb.or(['title', 'excerpt', 'content'].map((col) => containsFolded(this.dialect, sql.ref(`${table}.${col}`), word.toLowerCase())));
    return [...search.words.map(inText), ...search.excluded.map((word) => eb.not(inText(word)))];
  }

  /** A text search as one subquery on the post whose id is `post` (read by key, for the rows the rest leaves). */
  private textOf(eb: Eb, search: NonNullable<EventListFilter['search']>, post: Expression<unknown>): Expression<SqlBool> {
    return sql<SqlBool>`(select ${eb.and(this.textConditions(eb, search, 'search_post'))} from posts as search_post where search_post.id = ${post})`;
  }

  /**
   * How a count of terms reads: whether the calendar has series (PostgreSQL; see tally), and whether the terms'
   * events are read by id instead of walking the window's events and testing each against the terms. Both
   * planners walk the window when it holds many events, whatever the terms' size: at 10k events a category of
   * 571 links in a window of ~5,000 events took SQLite 555–850 µs so (170–335 µs by id), PostgreSQL 6.1 ms (a
   * hash join over a scan of every event; 1.2 ms by key). By id wins when the links of one group of terms are a
   * small share of the window's events (the per-day counts tell those; the links are counted up to that share
   * only — on PostgreSQL, where the three questions are one round trip, up to LINKS_ASKED — so a term of many
   * events costs no more to ask about than that); a window they cannot count is left to the planner. Either way
   * the count is the same: only the order of the lookups changes. PostgreSQL: for the events' own terms (a
   * calendar without series, or the half of a count split by carriers), not for its one OR (a text search on a
   * calendar with series).
   */
  private async termsPlan(filter: EventListFilter): Promise<{ series: boolean; byId: boolean }> {
    const groups = filter.termGroups ?? [];
    const postgres = this.dialect.name === 'postgres';
    const window = windowOf(filter);
    const byDays = countableByDays(window);
    const askable = byDays !== undefined && groups.length > 0 && groups.every((g) => g.length > 0);
    // the group with fewest links, each counted up to `cap` + 1, in one statement
    const links = (cap: number) =>
      statementFor<{ n: number }>(
        this.dialect,
        `select min(n) as n from (${groups
          .map((_, i) => `select count(*) as n from (select 1 from term_relationships where term_id in :ids limit ?) as g${i}`)
          .join(' union all ')}) as groups`,
      ).compile(groups.flatMap((g) => [idList(this.dialect, g), cap + 1]));
    if (!postgres) {
      if (!askable) return { series: false, byId: false };
      const events = await this.eventsInWindow(filter);
      if (events === undefined) return { series: false, byId: false };
      const enough = Math.floor(events * TERMS_FIRST_SHARE);
      // (apart from the event loop, as the count: at 1M a category's links are tens of thousands of index entries)
      const [row] = await this.read(filter, links(enough));
      return { series: false, byId: Number(row?.n ?? 0) <= enough };
    }
    const hasSeries = this.sql.hasSeries.compile([]);
    if (!askable) return { series: (await this.db.executeQuery(hasSeries)).rows.length > 0, byId: false };
    const [seriesRows, windowRows, linkRows] = await this.dialect.readTogether(this.db, [
      hasSeries,
      this.dayCount(window, byDays, JSON.stringify(window)),
      links(LINKS_ASKED),
    ]);
    const series = seriesRows.length > 0;
    const linked = Number(linkRows[0]?.n ?? 0);
    const byId = !(series && filter.search) && linked <= LINKS_ASKED && linked <= Number(windowRows[0]?.n ?? 0) * TERMS_FIRST_SHARE;
    return { series, byId };
  }

  /**
   * The events of a filter's window without its terms and text, from the per-day counts (undefined where they
   * cannot count it); asked once per filter object (a list's count and its page's walk both ask).
   */
  private eventsInWindow(filter: EventListFilter): Promise<number | undefined> {
    let known = windowEvents.get(filter);
    if (!known) {
      const window = windowOf(filter);
      known = countableByDays(window) ? this.tally(window).then((t) => t.total) : Promise.resolve(undefined);
      windowEvents.set(filter, known);
    }
    return known;
  }

  /**
   * A list's read: apart from the event loop where the filter may make it long (terms: every event of the
   * term looked up; text: every candidate's text tested; bench/README.md "Session 25"), else as any read.
   */
  private async read(filter: EventListFilter, query: CompiledQuery): Promise<Row[]> {
    if (byTermsOrText(filter)) return this.dialect.readApart(this.db, query);
    return (await this.db.executeQuery(query)).rows as Row[];
  }

  /**
   * How many events match, from the per-day counts when the filter is only statuses and whole days (the
   * default list): a sum over a few thousand rows whatever the number of events. Otherwise a count of each arm
   * (rows of their own, plain occurrences), in one statement.
   */
  async count(filter: EventListFilter): Promise<number> {
    return (await this.tally(filter)).total;
  }

  /**
   * `count`, and whether the calendar has plain occurrences at all (asked in the statement that counts the
   * rest): a list of a calendar without them reads one arm, as it did before they existed (the union of both
   * cost a list of 10k single events a quarter of its requests a second, on both databases: bench/README.md
   * "Session 16"); one with them counts those in a statement of its own.
   */
  private async tally(filter: EventListFilter, known?: string): Promise<{ total: number; plain: boolean }> {
    if (filter.near) filter = (await this.withNearVenues(filter)).filter;
    // (the filter's JSON: the key of its statements, builtOnce; a list passes the one it made)
    const key = known ?? JSON.stringify(filter);
    const byDays = countableByDays(filter);
    if (byDays) {
      const row = (await this.db.executeQuery(this.dayCount(filter, byDays, key))).rows[0];
      return { total: Number(row.n), plain: Boolean(Number(row.plain)) };
    }
    // the count reads only the listing index unless a filter needs the post row
    const postgres = this.dialect.name === 'postgres';
    const needsPost = needsPostRow(filter, postgres);
    // PostgreSQL, terms or text: the window's bounds as literals, so that the plan knows how many events they
    // leave (with parameters its generic plan guessed a few hundred of 4,645 and read every one's text)
    const literalWindow = postgres && byTermsOrText(filter);
    // PostgreSQL, with term filters: the events with terms of their own plus the occurrences that carry their
    // series' (disjoint: an occurrence gets links of its own only as it stops sharing, see SeriesStore.ownTerms),
    // each counted with the plan that suits it — the term's posts looked up, the series' occurrences read from
    // events_shared_terms. Counted as one OR, it read every event of the window and tested each against both
    // (1.65M events with 5,000 series: ~0.9–1.5 s, against 55–80 ms; bench/README.md "Session 12"). Not with
    // a text search: at 10k events the two counts then ran at half the requests a second of the one (bench
    // uncached.filtered under 64 connections, 161 → ~70/s; each alone took as long as the one), not explained
    // yet. Nor on a calendar without series (no occurrence shares terms; at 10k singles the two took ~0.5–3 ms
    // more than the one). SQLite's one IN list of both already starts from the term's posts.
    const byTerms = (filter.termGroups?.length ?? 0) > 0;
    // the groups' events filed under their roots (event_terms): no lookup of the links, and no split by carriers
    const filed = byTerms && !filter.seriesOnce && filter.termRoots?.length === filter.termGroups?.length;
    // (PostgreSQL, with a text search: the filed events looked up by key, each one's text then — its planner
    // joined them one by one, ~0.4 ms more at 10k events)
    const { series, byId: fromTerms } =
      byTerms && !filed ? await this.termsPlan(filter) : { series: false, byId: filed && postgres && filter.search !== undefined };
    const carriers = !byTerms || !postgres || filed ? 'either' : !series ? 'own' : filter.search ? 'either' : 'split';
    // the terms' events read by id (see termsPlan): SQLite's NOT INDEXED leaves it the events' ids alone;
    // PostgreSQL looks the events of their own terms up by key
    const events = () => (fromTerms && !postgres ? (sql`events not indexed` as unknown as 'events') : 'events');
    const countOf = (carriers: 'either' | 'own' | 'shared') =>
      this.db
        .selectFrom(events())
        .$if(needsPost, (q) => q.innerJoin('posts', 'posts.id', 'events.post_id'))
        .select((e) => e.fn.countAll<number>().as('n'))
        .where((eb) => this.conditions(eb as unknown as Eb, filter, carriers, 'own', false, false, literalWindow, fromTerms));
    const counted =
      (filed && this.filedCount(filter, key)) ||
      builtOnce(this.dialect, `count ${carriers} ${fromTerms} ${key}`, () => {
        const counts = (carriers === 'split' ? [countOf('own'), countOf('shared')] : [countOf(carriers)]).map((q) => sql`(${q})`);
        return sql<{ n: number | string; plain: number | boolean }>`select ${sql.join(counts, sql` + `)} as n, ${HAS_PLAIN} as plain`.compile(
          this.db,
        );
      });
    const [row] = (await this.read(filter, counted)) as { n: number | string; plain: number | boolean }[];
    const total = Number(row.n);
    const hasPlain = Boolean(Number(row.plain));
    if (!hasPlain || filter.seriesOnce) return { total, plain: hasPlain };
    // plain occurrences, when there are some (a statement of their own: a calendar without them builds and
    // sends none); their master's post only for a visibility rule that reads more than the status
    const plainNeedsPost = statusesOnly(filter.visibility) === undefined;
    const plainCounted = builtOnce(this.dialect, `plain ${key}`, () =>
      this.db
        .selectFrom(this.arm('plain', filter, (q) => q.select(sql<number>`1`.as('one')), { withPost: plainNeedsPost }).as('c'))
        .select((e) => e.fn.countAll<number>().as('n'))
        .compile(),
    );
    const [ofPlain] = (await this.read(filter, plainCounted)) as { n: number | string }[];
    return { total: total + Number(ofPlain.n), plain: true };
  }

  /**
   * The count of a filter by terms whose groups have roots (EventListFilter.termRoots), when the rest is what the
   * per-day counts could count (statuses, whole days) and perhaps a text search: the rows of `event_terms` under the
   * first group's roots, of those statuses, listed, in the window — a range of its listing index per root, no event
   * read — each also under the other groups' roots (a key lookup each), and with the search's words in its post
   * (read by key).
   * Rows of their own only: plain occurrences are counted apart (see tally). Undefined for any other filter.
   */
  private filedCount(filter: EventListFilter, key: string): CompiledQuery<{ n: number | string; plain: number | boolean }> | undefined {
    const roots = filter.termRoots ?? [];
    const byDays = roots.length > 0 ? countableByDays(windowOf(filter)) : undefined;
    if (!byDays) return undefined;
    const search = filter.search;
    return builtOnce(this.dialect, `filed ${key}`, () => {
      // (an event under two roots of the first group has a row under each: counted once)
      let q = this.db
        .selectFrom('event_terms as t0')
        .select(roots[0].length > 1 ? sql<number>`count(distinct t0.post_id)`.as('n') : (e) => e.fn.countAll<number>().as('n'))
        .where(termsIn(roots[0], sql.ref('t0.term_id')))
        .where('t0.hidden', '=', 0);
      if (byDays.statuses !== 'all') q = q.where('t0.status', 'in', [...byDays.statuses]);
      if (filter.statuses) q = q.where('t0.status', 'in', [...filter.statuses]);
      else q = q.where('t0.status', 'not in', ['trash', 'auto-draft']);
      if (filter.startGte !== undefined) q = q.where('t0.start_date', '>=', filter.startGte);
      if (filter.endLte !== undefined) q = q.where('t0.end_date', '<=', filter.endLte);
      for (const [i, these] of roots.slice(1).entries()) {
        const alias = `t${i + 1}`;
        q = q.where(
          sql<SqlBool>`exists (select 1 from event_terms as ${sql.id(alias)} where ${termsIn(these, sql.ref(`${alias}.term_id`))} and ${sql.ref(`${alias}.post_id`)} = t0.post_id)`,
        );
      }
      // a text search: each filed event's post read by key (no event row)
      if (search) q = q.where((eb) => this.textOf(eb as unknown as Eb, search, sql.ref('t0.post_id')));
      return sql<{ n: number | string; plain: number | boolean }>`select (${q}) as n, ${HAS_PLAIN} as plain`.compile(this.db);
    });
  }

  /** The count of a filter `countableByDays` (its `byDays`), from the month and day counts, and whether the calendar has plain occurrences. */
  private dayCount(
    filter: EventListFilter,
    byDays: NonNullable<ReturnType<typeof countableByDays>>,
    key: string,
  ): CompiledQuery<{ n: number | string; plain: number | boolean }> {
    return builtOnce(this.dialect, `days ${key}`, () => {
      const counted = <T extends 'event_day_counts' | 'event_month_counts'>(table: T) => {
        let q = this.db
          .selectFrom(table as 'event_day_counts')
          .select(sql<number>`coalesce(sum(n), 0)`.as('n'))
          .where('hidden', '=', 0);
        if (byDays.statuses !== 'all') q = q.where('status', 'in', [...byDays.statuses]);
        if (filter.statuses) q = q.where('status', 'in', [...filter.statuses]);
        else q = q.where('status', 'not in', ['trash', 'auto-draft']);
        return q;
      };
      const { from, to } = byDays;
      const split = monthSplit(from, to);
      // (a bound that is no day: the days alone)
      const days =
        split === undefined
          ? [
              counted('event_day_counts')
                .$if(from !== undefined, (q) => q.where('start_day', '>=', from as string))
                .$if(to !== undefined, (q) => q.where('end_day', '<=', to as string)),
            ]
          : [
              // the months held whole
              counted('event_month_counts')
                .$if(split.first !== undefined, (q) => q.where(sql.ref('start_month'), '>=', split.first))
                .$if(split.last !== undefined, (q) => q.where(sql.ref('end_month'), '<=', split.last)),
              // the days before them (those starting in the window's first, partial month)
              ...(from !== undefined && split.first !== undefined && from !== `${split.first}-01`
                ? [
                    counted('event_day_counts')
                      .where('start_day', '>=', from)
                      .where('start_day', '<', `${split.first}-01`)
                      .$if(to !== undefined, (q) => q.where('end_day', '<=', to as string)),
                  ]
                : []),
              // and those after them (ending in the window's last, partial month), by the end-day index
              ...(to !== undefined && split.last !== undefined && to.slice(0, 7) !== split.last
                ? [
                    counted('event_day_counts')
                      .where('end_day', '>=', `${shiftMonth(split.last, 1)}-01`)
                      .where('end_day', '<=', to)
                      .$if(split.first !== undefined, (q) => q.where('start_day', '>=', `${split.first}-01`)),
                  ]
                : []),
            ];
      const sum = sql.join(
        days.map((q) => sql`(${q})`),
        sql` + `,
      );
      return sql<{ n: number | string; plain: number | boolean }>`select ${sum} as n, ${HAS_PLAIN} as plain`.compile(this.db);
    });
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

  /**
   * A page of the rows of a list's arms (rows of their own, plain occurrences) in the list's order. Both: each
   * arm ordered and cut at the page's end, then the two together (at most twice the page's end in rows). An arm
   * with its own ORDER BY and LIMIT is planned as a query of its own, which walks its index in that order and
   * stops (PostgreSQL plans a union of two joins, as a whole, by sorting every row of the window: 144 ms for
   * the default list at 10k events and 110 series, its rows in a Merge Append only for unions of single tables
   * without conditions).
   */
  private pageQuery<R>(arms: readonly AnySelect<R>[], order: Order, limit: number, offset: number): AnySelect<R> {
    // PostgreSQL, the first page: its size a literal and no offset. With LIMIT and OFFSET parameters the generic
    // plan assumes a tenth of the rows is read, so a prepared page was planned anew on every call (~0.25 ms of the
    // server's time, its run ~0.04 ms); with the literals (and those of conditions) its generic plan is the walk
    // of the index in the list's order, which PostgreSQL then keeps. Few texts: one per page size. Later pages as
    // before.
    const first = offset === 0 && this.dialect.name === 'postgres';
    const upTo = (q: AnySelect<R>, n: number) => (first ? q.limit(sql.lit(n)) : q.limit(n));
    const pageOf = (q: AnySelect<R>) => (first ? upTo(q, limit) : q.limit(limit).offset(offset));
    if (arms.length === 1) return pageOf(orderBy(arms[0], order));
    // SQLite merges a compound select in order, each arm walking its index as far as the merge asks (one cut
    // per arm cost it ~60 µs more a page at 10k events)
    if (this.dialect.name === 'sqlite') return orderBy(arms[0].unionAll(arms[1]), order).limit(limit).offset(offset);
    const cut = (q: AnySelect<R>, alias: string) => this.db.selectFrom(upTo(orderBy(q, order), limit + offset).as(alias)).selectAll();
    const both = cut(arms[0], 'a').unionAll(cut(arms[1], 'b'));
    return pageOf(orderBy(this.db.selectFrom(both.as('e')).selectAll() as unknown as AnySelect<R>, order));
  }

  /** How many matching events each venue has (the filter names the venues), over the list's arms. */
  private async countsByVenue(filter: EventListFilter, arms: readonly ('own' | 'plain')[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const arm of arms) {
      const rows = await this.db
        .selectFrom(this.arm(arm, filter, (q) => q.select('events.venue_id as v'), { withPost: needsPostRow(filter) }).as('c'))
        .select((e) => ['c.v', e.fn.countAll<number>().as('n')])
        .groupBy('c.v')
        .execute();
      for (const r of rows) counts.set(Number(r.v), (counts.get(Number(r.v)) ?? 0) + Number(r.n));
    }
    return counts;
  }

  /**
   * The ids of a page of events near a point, nearest venue first (then the list's date, then id). The venues
   * of equal distance form a group; the nearest groups are read one after the other, each in the order of its
   * venue's index, until the page is full — the first page of a location search is then one short index walk,
   * where ranking every matching event by its venue sorted them all (70,000 events near Paris in 1M: 1.4–1.6 s
   * on SQLite, whose planner walked the whole date window; 52 ms with the venue index, most of it the ranking).
   * Groups before the page's start are counted, not read (one by one, then the rest in one statement). A page
   * that spans more than `NEAR_WALK` groups ranks the rest in one statement, as before.
   */
  private async nearPage(
    filter: EventListFilter,
    near: readonly { id: number; rank: number }[],
    arms: readonly ('own' | 'plain')[],
    limit: number,
    offset: number,
  ): Promise<number[]> {
    const wanted = new Set(filter.venues ?? []);
    const groups: number[][] = [];
    let lastRank: number | undefined;
    for (const v of near) {
      if (!wanted.has(v.id)) continue;
      if (v.rank !== lastRank) groups.push([]);
      lastRank = v.rank;
      groups[groups.length - 1].push(v.id);
    }
    const withPost = needsPostRow(filter) || filter.orderByDate === true;
    const sortKey = filter.orderByDate ? sql.ref<string>('posts.date_utc') : sql.ref<string>('events.start_date');
    /** `count` ids from `skip` on of these venues' events, by date (and by `rank` first, when given). */
    const read = async (venues: number[], rank: RawBuilder<number> | undefined, count: number, skip: number) => {
      const order: Order = [...(rank ? [['venue_rank', 'asc'] as const] : []), ['sort_key', 'asc'], ['id', 'asc']];
      const inVenues: EventListFilter = { ...filter, venues };
      const columns = ['events.post_id as id', sortKey.as('sort_key'), ...(rank ? [rank.as('venue_rank')] : [])] as const;
      // (the post only when the filter or the order reads it: the venue index alone answers the rest)
      const select = (arm: 'own' | 'plain') =>
        this.arm(arm, inVenues, (q) => q.select([...columns]), { page: { order, end: count + skip }, withPost });
      return (await this.pageQuery(arms.map(select), order, count, skip).execute()).map((r) => Number(r.id));
    };
    const ids: number[] = [];
    let skip = offset;
    let group = 0;
    // the events of each venue before the page's start: counted group by group (the first pages pass a few),
    // then the rest in one statement
    let counted = 0;
    let counts: Map<number, number> | undefined;
    for (let reads = 0; group < groups.length && ids.length < limit; group++) {
      if (skip > 0) {
        let n: number;
        if (counted++ < NEAR_WALK) n = (await this.tally({ ...filter, venues: groups[group] })).total;
        else {
          counts ??= await this.countsByVenue({ ...filter, venues: groups.slice(group).flat() }, arms);
          n = groups[group].reduce((sum, id) => sum + (counts?.get(id) ?? 0), 0);
        }
        if (n <= skip) {
          skip -= n;
          continue;
        }
      }
      if (reads++ === NEAR_WALK) break;
      ids.push(...(await read(groups[group], undefined, limit - ids.length, skip)));
      skip = 0;
    }
    if (ids.length >= limit || group >= groups.length) return ids;
    // the groups after the walk, ranked in one statement
    // (integer literals: PostgreSQL types a parameter in a THEN as text, and ranked '10' before '9')
    const left = new Set(groups.slice(group).flat());
    const rest = near.filter((v) => left.has(v.id));
    const rank = sql<number>`case events.venue_id ${sql.join(
      rest.map((v) => sql`when ${sql.lit(v.id)} then ${sql.lit(v.rank)}`),
      sql` `,
    )} end`;
    ids.push(...(await read([...left], rank, limit - ids.length, skip)));
    return ids;
  }

  /**
   * Whether SQLite should read a page of a list with categories or tags (by start) by walking the window in that order
   * and testing each event against the terms' events, rather than starting from those events and sorting them all.
   * Its planner starts from the terms whatever their size: a category of 36,000 events in the window of 1M
   * took 150–200 ms a page for the sort, against ~25 ms walking. Walking wins when the page ends early in the
   * walk: when (the page's end) × (events in the window) / (matching events), the events walked, is small
   * beside the matching events the other way sorts. The window's events come from the per-day counts; a filter
   * they cannot count is left to the planner.
   */
  private async walkInOrder(filter: EventListFilter, total: number, end: number): Promise<boolean> {
    if (this.dialect.name !== 'sqlite' || filter.orderByDate || filter.orderByStartUtc) return false;
    if ((filter.termGroups?.length ?? 0) === 0 || total < WALK_MIN) return false;
    const events = await this.eventsInWindow(filter);
    return events !== undefined && end * events <= total * total * WALK_SHARE;
  }

  /**
   * One page of matching events and the total: two queries whatever the page size (three with a location), the
   * page a union of both arms (rows of their own, plain occurrences) in the list's order.
   */
  async list(original: EventListFilter, limit: number, offset: number): Promise<{ events: EventRecord[]; total: number }> {
    const { ids, events, total } = await this.listing(original, limit, offset, false);
    return { events: events ?? (await this.findInOrder(ids ?? [])), total };
  }

  /** The statement of a page's ids (and the columns its order reads, which a union orders by outside its arms). */
  private idsQuery(
    filter: EventListFilter,
    key: string,
    arms: readonly ('own' | 'plain')[],
    order: Order,
    limit: number,
    offset: number,
    inOrder: boolean,
  ): CompiledQuery<Record<string, unknown>> {
    const columns = [
      sql.raw('events.post_id').as('id'),
      ...order
        .filter(([column]) => column !== 'id')
        .map(([column]) => sql.raw(column === 'date_utc' ? 'posts.date_utc' : `events.${column}`).as(column)),
    ];
    const page = { order, end: limit + offset };
    // (the post only when the filter or the order reads it: joined, SQLite's planner started a category's page
    // from the posts of its terms and sorted them all — 432 µs against 137 for a category of 273 events in the
    // window at 10k events, bench/README.md "Session 26")
    const withPost = needsPostRow(filter) || filter.orderByDate === true;
    return builtOnce(this.dialect, `ids ${arms} ${limit} ${offset} ${inOrder} ${key}`, () =>
      this.pageQuery(
        arms.map((arm) => this.arm(arm, filter, (q) => q.select(columns), { page, inOrder, withPost })),
        order,
        limit,
        offset,
      ).compile(),
    );
  }

  /**
   * The same page as list, as the events' ids only: for a list whose items are mostly kept serialised
   * (http/fragments.ts), which reads the rows of the others by id. A page's whole rows cost PostgreSQL's driver
   * ~30 µs a row to decode (10 rows of ~50 columns: ~0.3 ms of a list's ~1.2 ms at 10k events, bench/README.md
   * "Session 23"), and SQLite its second read.
   */
  async listIds(original: EventListFilter, limit: number, offset: number): Promise<{ ids: number[]; total: number }> {
    const { ids, events, total } = await this.listing(original, limit, offset, true);
    return { ids: ids ?? (events ?? []).map((e) => e.id), total };
  }

  private async listing(
    original: EventListFilter,
    limit: number,
    offset: number,
    idsOnly: boolean,
  ): Promise<{ ids?: number[]; events?: EventRecord[]; total: number }> {
    const { filter, near } = await this.withNearVenues(original);
    const key = JSON.stringify(filter);
    const direction = filter.newestFirst ? 'desc' : 'asc';
    const order: Order = filter.orderByDate
      ? [
          ['date_utc', 'asc'],
          ['id', 'asc'],
        ]
      : [
          [filter.orderByStartUtc ? 'start_utc' : 'start_date', direction],
          ['id', direction],
        ];
    const byDays = countableByDays(filter);
    let known: { total: number; plain: boolean } | undefined;
    if (idsOnly && byDays && !near && this.dialect.statementsAreRoundTrips && !hasPlainLastSeen.get(this.dialect)) {
      // PostgreSQL, a window the day counts count on a calendar last seen without plain occurrences: the count
      // and the page's ids (rows of their own: the arm such a calendar lists) in one statement, a round trip
      // fewer; a calendar that has them since reads its page again, with both arms, and is not asked so again
      // until it has none (bench/README.md "Session 24")
      const [counted, found] = await this.dialect.readTogether(this.db, [
        this.dayCount(filter, byDays, key),
        this.idsQuery(filter, key, ['own'], order, limit, offset, false),
      ]);
      known = { total: Number(counted[0].n), plain: Boolean(Number(counted[0].plain)) };
      hasPlainLastSeen.set(this.dialect, known.plain);
      if (!known.plain || filter.seriesOnce) {
        if (known.total === 0 || offset >= known.total) return { events: [], total: known.total };
        return { ids: found.map((r) => Number(r.id)), total: known.total };
      }
    }
    const { total, plain } = known ?? (await this.tally(filter, key));
    if (byDays) hasPlainLastSeen.set(this.dialect, plain);
    if (total === 0 || offset >= total) return { events: [], total };
    const arms = filter.seriesOnce || !plain ? (['own'] as const) : (['own', 'plain'] as const);
    if (near) return { ids: await this.nearPage(filter, near, arms, limit, offset), total };
    const inOrder = await this.walkInOrder(filter, total, limit + offset);
    const page = { order, end: limit + offset };
    if (idsOnly || (this.dialect.name === 'sqlite' && arms.length === 1 && !filter.withoutText)) {
      // The page's ids (and the columns its order reads, which a union orders by outside its arms). On SQLite,
      // rows of their own, list() then reads their rows by id: the ids come from the listing index alone, where
      // reading whole rows read every event and post the walk passed (the sort by id within a start time reads a
      // few past the page's end, each offset row too): the default list's page at 10k events, ~170 µs among a
      // request's other work, now ~80 (ids) + ~35 (rows) (bench/README.md "Session 22").
      const found = await this.read(filter, this.idsQuery(filter, key, arms, order, limit, offset, inOrder));
      return { ids: found.map((r) => Number((r as { id: unknown }).id)), total };
    }
    // (both arms of a union name the same columns; one arm alone, rows of their own, reads `posts.*, events.*`)
    const pick = (arm: 'own' | 'plain') => (q: ReturnType<typeof ownFrom>) =>
      arms.length === 1 && arm === 'own' && !filter.withoutText
        ? (q.selectAll(['posts', 'events']) as unknown as AnySelect<unknown>)
        : q.select(SELECTIONS[arm][filter.withoutText ? 'summary' : 'text']);
    const found = await this.read(
      filter,
      this.pageQuery(
        arms.map((arm) => this.arm(arm, filter, pick(arm), { page, inOrder })),
        order,
        limit,
        offset,
      ).compile(),
    );
    return { events: found.map((r) => toRecord(r as Record<string, unknown>)), total };
  }
}
