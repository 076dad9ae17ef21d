import type { Insertable } from 'kysely';
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import {
  type DetailsRecordOf,
  type FieldSpec,
  LINKED_KINDS,
  type LinkedListFilter,
  type LinkedType,
  type RecordOf,
} from '../../domain/linked/linked.js';
import type { PostFields, PostPatch } from '../../domain/posts/post.js';
import type { PostKindStore } from '../../domain/posts/post-writer.js';
import type { SyncCut } from '../../domain/sync/change.js';
import { visiblePosts } from '../../domain/visibility.js';
import type { Database, EventsTable, OrganizersTable, PostsTable, VenuesTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { NAMED_TYPES_CONDITION } from '../migrations/0020-named-types-title-index.migration.js';
import { type Codec, type ColumnMap, columnMap, flag, nullableNumber } from './columns.js';
import { isStorableId } from './ids.js';
import { containsFolded } from './like.js';
import { caseInsensitiveEquals, caseInsensitiveText, needsUnindexedLookup } from './name-match.js';
import { plainEvents } from './plain-occurrences.js';
import { type PlannedRead, planned, runPlanned } from './planned.js';
import { postColumns, postFromRow } from './post.store.js';
import { assignments, idList, Statement, statementFor, statementSet } from './statement.js';

type DetailsTables = { venue: VenuesTable; organizer: OrganizersTable };

/** A kind's detail columns, from its descriptor: each field's wire name is its column. */
function detailColumns<T extends LinkedType>(type: T): ColumnMap<DetailsRecordOf<T>, DetailsTables[T]> {
  const codecFor = (spec: FieldSpec): Codec<unknown, unknown> | undefined =>
    spec.kind === 'flag' ? flag : spec.kind === 'latitude' || spec.kind === 'longitude' ? nullableNumber : undefined;
  const entries = Object.fromEntries(
    Object.entries({ ...LINKED_KINDS[type].fields, ...LINKED_KINDS[type].kept } as Readonly<Record<string, FieldSpec>>).map(([name, spec]) => {
      const codec = codecFor(spec);
      return [name, codec ? [spec.wire, codec] : spec.wire];
    }),
  );
  return columnMap<DetailsTables[T]>()<DetailsRecordOf<T>>(entries as never);
}

const DETAIL_COLUMNS = { venue: detailColumns('venue'), organizer: detailColumns('organizer') };

/** The reads of every event's view (see Statement): a kind's records by id, organizers by the events they are linked to. */
const statements = statementSet((dialect: Dialect) => {
  const of = (table: 'venues' | 'organizers') => `select posts.*, d.* from ${table} d inner join posts on posts.id = d.post_id`;
  return {
    findMany: {
      venue: new Statement<Record<string, unknown>>(dialect, `${of('venues')} where d.post_id in :ids`),
      organizer: new Statement<Record<string, unknown>>(dialect, `${of('organizers')} where d.post_id in :ids`),
    },
    linkedToEvents: new Statement<Record<string, unknown>>(
      dialect,
      `select posts.*, d.*, eo.event_id as linked_event_id from organizers d inner join posts on posts.id = d.post_id
       inner join event_organizers eo on eo.organizer_id = d.post_id where eo.event_id in :ids order by eo.event_id, eo.position`,
    ),
  };
});

/** What the queries see: the tables, and the details table under the `d` alias. */
type Joined = Database & { d: VenuesTable | OrganizersTable };
/** A record's linked events, under the aliases the list's subqueries give them. */
type LinkedEvents = Database & { le: EventsTable; lp: PostsTable };

/**
 * Venues or organizers: a `posts` row of that type and its details row, read and written together. One class
 * serves both; the kind's descriptor (domain/linked/linked.ts) names the details table and its columns.
 */
export class LinkedStore<T extends LinkedType> implements PostKindStore<RecordOf<T>, DetailsRecordOf<T>> {
  private readonly table: 'venues' | 'organizers';
  private readonly columns: ColumnMap<DetailsRecordOf<T>, DetailsTables[T]>;
  private readonly searched: readonly string[];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    readonly type: T,
  ) {
    const kind = LINKED_KINDS[type];
    this.table = kind.table;
    this.columns = DETAIL_COLUMNS[type] as unknown as ColumnMap<DetailsRecordOf<T>, DetailsTables[T]>;
    const fields = Object.values(kind.fields as Readonly<Record<string, FieldSpec>>);
    this.searched = ['posts.title', 'posts.content', 'posts.excerpt', ...fields.filter((f) => f.searched).map((f) => `d.${f.wire}`)];
  }

  private map = (row: Readonly<Record<string, unknown>>): RecordOf<T> =>
    ({ id: Number(row.id), type: this.type, ...postFromRow(row), ...this.columns.fromRow(row) }) as unknown as RecordOf<T>;

  /** Driven from the details table: a row there exists only for this type, found by its primary key. */
  private select() {
    // the details table under one alias, typed as either kind's row (queries use only their shared columns)
    const details = sql<VenuesTable | OrganizersTable>`${sql.table(this.table)}`.as('d');
    return this.db.selectFrom(details).innerJoin('posts', 'posts.id', 'd.post_id').selectAll('posts').selectAll('d');
  }

  async find(id: number): Promise<RecordOf<T> | undefined> {
    if (!isStorableId(id)) return undefined;
    const row = await this.select().where('d.post_id', '=', id).executeTakeFirst();
    return row ? this.map(row) : undefined;
  }

  findMany(ids: readonly number[]): Promise<Map<number, RecordOf<T>>> {
    return runPlanned(this.db, this.findManyPlan(ids));
  }

  /** findMany, planned (to run with other reads: Storage.readTogether). */
  findManyPlan(ids: readonly number[]): PlannedRead<Map<number, RecordOf<T>>> {
    const query = ids.length === 0 ? undefined : statements(this.dialect).findMany[this.type].compile([idList(this.dialect, ids)]);
    return planned(query, (rows) => new Map(rows.map((r) => [Number(r.id), this.map(r)])));
  }

  /**
   * The organizers linked to each of these events, in link order, with their records: one query where the
   * links and the records took two round trips one after the other (issue 17; the views of a list or an event).
   */
  linkedToEvents(eventIds: readonly number[]): Promise<{ links: Map<number, number[]>; records: Map<number, RecordOf<T>> }> {
    return runPlanned(this.db, this.linkedToEventsPlan(eventIds));
  }

  /** linkedToEvents, planned (to run with other reads: Storage.readTogether). */
  linkedToEventsPlan(eventIds: readonly number[]): PlannedRead<{ links: Map<number, number[]>; records: Map<number, RecordOf<T>> }> {
    if (this.type !== 'organizer') throw new Error('only organizers are linked to events by event_organizers');
    const query = eventIds.length === 0 ? undefined : statements(this.dialect).linkedToEvents.compile([idList(this.dialect, eventIds)]);
    return planned(query, (rows) => {
      const links = new Map<number, number[]>();
      const records = new Map<number, RecordOf<T>>();
      for (const row of rows) {
        const eventId = Number(row.linked_event_id);
        const id = Number(row.id);
        const ids = links.get(eventId);
        if (ids) ids.push(id);
        else links.set(eventId, [id]);
        if (!records.has(id)) records.set(id, this.map(row));
      }
      return { links, records };
    });
  }

  /** By slug, any status; a published one first. */
  async findBySlug(slug: string): Promise<RecordOf<T> | undefined> {
    const row = await this.select()
      .where('posts.slug', '=', slug)
      .orderBy(sql`case when posts.status = 'publish' then 0 else 1 end`)
      .orderBy('posts.id')
      .executeTakeFirst();
    return row ? this.map(row) : undefined;
  }

  /** Not-trashed records whose name (and description, when given) match case-insensitively, oldest first. */
  async findDuplicates(name: string, description?: string): Promise<RecordOf<T>[]> {
    // a fixed statement (every create naming a venue or organizer runs it: issue 17), the partial index's
    // condition spelt as it is (see migration 0020)
    const find = async (indexed: boolean) => {
      const named = caseInsensitiveText('posts.title', name, indexed);
      const text = `select posts.*, d.* from ${this.table} d inner join posts on posts.id = d.post_id
        where posts.type = ? and posts.${NAMED_TYPES_CONDITION} and posts.status not in ('trash', 'auto-draft')
        and ${named.text}${description === undefined ? '' : ' and lower(posts.content) = ?'}
        order by posts.id`;
      const params: unknown[] = [this.type, ...named.params];
      if (description !== undefined) params.push(description.toLowerCase());
      return (await statementFor(this.dialect, text).all(this.db, params)).map(this.map);
    };
    const found = await find(true);
    return found.length === 0 && needsUnindexedLookup(this.dialect, name) ? find(false) : found;
  }

  /** Organizers: the oldest not trashed whose e-mail address matches case-insensitively (an import's match). */
  async findByEmail(email: string): Promise<RecordOf<T> | undefined> {
    const find = (indexed: boolean) =>
      this.select()
        .where('posts.status', 'not in', ['trash', 'auto-draft'])
        .where(caseInsensitiveEquals(this.dialect, sql.ref('d.email'), email, indexed))
        .orderBy('posts.id')
        .executeTakeFirst();
    const row = (await find(true)) ?? (needsUnindexedLookup(this.dialect, email) ? await find(false) : undefined);
    return row ? this.map(row) : undefined;
  }

  async insert(post: PostFields, details: DetailsRecordOf<T>): Promise<number> {
    const { id } = await this.db
      .insertInto('posts')
      .values({ ...(postColumns.toRow(post) as Insertable<PostsTable>), type: this.type })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto(this.table as 'venues')
      .values({ ...this.columns.toRow(details), post_id: id } as never)
      .execute();
    return id;
  }

  /** Like insert, answering with the record as stored (its rows as the inserts return them). */
  async insertRecord(post: PostFields, details: DetailsRecordOf<T>): Promise<RecordOf<T>> {
    const postRow = await this.db
      .insertInto('posts')
      .values({ ...(postColumns.toRow(post) as Insertable<PostsTable>), type: this.type })
      .returningAll()
      .executeTakeFirstOrThrow();
    const detailRow = await this.db
      .insertInto(this.table as 'venues')
      .values({ ...this.columns.toRow(details), post_id: postRow.id } as never)
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.map({ ...detailRow, ...postRow });
  }

  /** Like update, answering with the record as it is then (the rows the updates return, over `current`). */
  async updateRecord(current: RecordOf<T>, post: PostPatch, details: Partial<DetailsRecordOf<T>>): Promise<RecordOf<T>> {
    const id = current.id;
    const out: Record<string, unknown> = { ...current };
    const postRow = postColumns.toRow(post);
    const detailRow = this.columns.toRow(details);
    // fixed statements per set of columns (an event write reusing a venue or organizer runs these: issue 17)
    const postColumnNames = Object.keys(postRow);
    const detailColumnNames = Object.keys(detailRow);
    if (this.dialect.name === 'postgres' && postColumnNames.length > 0 && detailColumnNames.length > 0) {
      // both rows in one statement, one round trip
      const text = `with p as (update posts set ${assignments(postColumnNames)}, version = version + 1 where id = ? returning *)
        update ${this.table} as d set ${assignments(detailColumnNames)} from p where d.post_id = p.id returning p.*, d.*`;
      const row = await statementFor(this.dialect, text).first(this.db, [...Object.values(postRow), id, ...Object.values(detailRow)]);
      if (!row) throw new Error(`${this.type} ${id} is missing`);
      return { ...current, ...postFromRow(row), ...this.columns.fromRow(row) } as unknown as RecordOf<T>;
    }
    if (postColumnNames.length > 0) {
      const text = `update posts set ${assignments(postColumnNames)}, version = version + 1 where id = ? returning *`;
      const row = await statementFor(this.dialect, text).first(this.db, [...Object.values(postRow), id]);
      if (!row) throw new Error(`${this.type} ${id} is missing`);
      Object.assign(out, postFromRow(row));
    }
    if (detailColumnNames.length > 0) {
      const text = `update ${this.table} set ${assignments(detailColumnNames)} where post_id = ? returning *`;
      const row = await statementFor(this.dialect, text).first(this.db, [...Object.values(detailRow), id]);
      if (!row) throw new Error(`${this.type} ${id} is missing`);
      Object.assign(out, this.columns.fromRow(row));
    }
    return out as unknown as RecordOf<T>;
  }

  /** See EventStore.update: the post's version moves on; with `ifVersion`, only while it is at that one. */
  async update(id: number, post: PostPatch, details: Partial<DetailsRecordOf<T>>, ifVersion?: number): Promise<boolean> {
    const postRow = postColumns.toRow(post);
    if (Object.keys(postRow).length > 0 || ifVersion !== undefined) {
      const written = await this.db
        .updateTable('posts')
        .set((eb) => ({ ...postRow, version: eb('version', '+', 1) }))
        .where('id', '=', id)
        .$if(ifVersion !== undefined, (q) => q.where('version', '=', ifVersion as number))
        .executeTakeFirst();
      if (ifVersion !== undefined && Number(written.numUpdatedRows) === 0) return false;
    }
    const row = this.columns.toRow(details);
    if (Object.keys(row).length > 0) {
      await this.db
        .updateTable(this.table as 'venues')
        .set(row as never)
        .where('post_id', '=', id)
        .execute();
    }
    return true;
  }

  /** Which of these slugs posts of this type with one of these statuses already have. */
  async takenSlugs(candidates: readonly string[], statuses: readonly string[], excludeId?: number): Promise<Set<string>> {
    let q = this.db
      .selectFrom('posts')
      .select('slug')
      .where('type', '=', this.type)
      .where('slug', 'in', [...candidates])
      .where('status', 'in', [...statuses]);
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    return new Set((await q.execute()).map((r) => r.slug));
  }

  private conditions(eb: ExpressionBuilder<Joined, 'd' | 'posts'>, f: LinkedListFilter): Expression<SqlBool> {
    const c: Expression<SqlBool>[] = [];
    if (f.statuses) c.push(eb('posts.status', 'in', [...f.statuses]));
    else c.push(eb('posts.status', 'not in', ['trash', 'auto-draft']));
    const visible = visiblePosts(eb, f.visibility, {
      status: 'posts.status',
      authorId: 'posts.author_id',
      statusBeforeTrash: 'posts.status_before_trash',
    });
    if (visible) c.push(visible);
    if (f.modifiedAfter !== undefined) c.push(eb('posts.modified_utc', '>', f.modifiedAfter));
    if (f.modifiedBefore !== undefined) c.push(eb('posts.modified_utc', '<', f.modifiedBefore));
    if (f.searchTokens && f.searchTokens.length > 0) {
      const tokens = f.searchTokens.map((t) => t.toLowerCase());
      c.push(eb.or(this.searched.map((col) => eb.and(tokens.map((token) => containsFolded(this.dialect, sql.ref(col), token))))));
    }
    // this record's events, as `lp` (the event's post) and `le` (its events row), narrowed by `where`: those with
    // rows of their own, and plain occurrences (migration 0023: `le` their dates and status over their series'
    // details, `lp` their series' post)
    const plain = sql<EventsTable>`${sql.raw(plainEvents(this.dialect))}`.as('le');
    const linked = (where: (e: ExpressionBuilder<LinkedEvents, 'le' | 'lp'>) => Expression<SqlBool>) => {
      const narrowed = (e: unknown) => where(e as ExpressionBuilder<LinkedEvents, 'le' | 'lp'>);
      if (this.type === 'venue') {
        // (no NULLs in the list: `not in` a list holding NULL is never true, and has_events=false needs it)
        return eb(
          'posts.id',
          'in',
          eb
            .selectFrom('events as le')
            .innerJoin('posts as lp', 'lp.id', 'le.post_id')
            .select('le.venue_id')
            .where('le.venue_id', 'is not', null)
            .where(narrowed)
            .unionAll(
              eb
                .selectFrom(plain)
                .innerJoin('posts as lp', 'lp.id', 'le.series_id')
                .select('le.venue_id')
                .where('le.venue_id', 'is not', null)
                .where(narrowed),
            ),
        );
      }
      return eb(
        'posts.id',
        'in',
        eb
          .selectFrom('event_organizers as lo')
          .innerJoin('posts as lp', 'lp.id', 'lo.event_id')
          .innerJoin('events as le', 'le.post_id', 'lo.event_id')
          .select('lo.organizer_id')
          // (this subquery has `lo` too; the condition reads only `le` and `lp`)
          .where(narrowed)
          .unionAll(
            eb
              .selectFrom(plain)
              .innerJoin('event_organizers as lo', 'lo.event_id', 'le.series_id')
              .innerJoin('posts as lp', 'lp.id', 'le.series_id')
              .select('lo.organizer_id')
              .where(narrowed),
          ),
      );
    };
    const event = f.event;
    if (event !== undefined) c.push(linked((e) => e('le.post_id', '=', event)));
    if (f.hasEvents !== undefined) {
      const having = linked((e) => e('lp.status', 'not in', ['draft', 'pending', 'auto-draft']));
      c.push(f.hasEvents ? having : eb.not(having));
    }
    if (f.upcomingFrom !== undefined) {
      const from = f.upcomingFrom;
      c.push(
        linked((e) => {
          const visible = visiblePosts(e, f.visibility, {
            status: 'lp.status',
            authorId: 'lp.author_id',
            statusBeforeTrash: 'lp.status_before_trash',
          });
          return e.and([
            e('le.start_utc', '>=', from),
            e('le.hide_from_listings', '=', 0),
            e('lp.status', 'not in', ['trash', 'auto-draft']),
            ...(visible ? [visible] : []),
          ]);
        }),
      );
    }
    return eb.and(c);
  }

  /**
   * What a sync shows (FEATURES.md §2.3): the records the filter lets the caller see, by id — those after
   * `afterId` (at most `limit`), or those of `ids`.
   */
  async syncRecords(filter: LinkedListFilter, cut: SyncCut): Promise<RecordOf<T>[]> {
    let q = this.select().where((eb) => this.conditions(eb, filter));
    q = 'ids' in cut ? q.where('posts.id', 'in', this.dialect.jsonIds(cut.ids)) : q.where('posts.id', '>', cut.afterId).limit(cut.limit);
    const rows = await q.orderBy('posts.id').execute();
    return rows.map(this.map);
  }

  /** A page of matching records (newest publication first) and the total count of matches. */
  async list(filter: LinkedListFilter, limit: number, offset: number): Promise<{ records: RecordOf<T>[]; total: number }> {
    const totalRow = await this.select()
      .clearSelect()
      .select((e) => e.fn.countAll<number>().as('n'))
      .where((eb) => this.conditions(eb, filter))
      .executeTakeFirstOrThrow();
    const total = Number(totalRow.n);
    if (total === 0 || offset >= total) return { records: [], total };
    const rows = await this.select()
      .where((eb) => this.conditions(eb, filter))
      .orderBy('posts.date_utc', 'desc')
      .orderBy('posts.id', 'asc')
      .limit(limit)
      .offset(offset)
      .execute();
    return { records: rows.map(this.map), total };
  }
}
