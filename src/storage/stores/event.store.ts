import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { EventListFilter, EventRecord } from '../../domain/events/event.js';
import type { Selectable } from 'kysely';
import type { Database, EventsTable, Flag, PostsTable } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { likeContains } from './like.js';

type Row = Selectable<PostsTable> & Selectable<EventsTable>;
type Eb = ExpressionBuilder<Database, 'posts' | 'events'>;

const flag = (v: Flag | number) => v === 1;

function toRecord(row: Row): EventRecord {
  return {
    id: row.id,
    authorId: row.author_id,
    status: row.status,
    statusBeforeTrash: row.status_before_trash,
    title: row.title,
    content: row.content,
    excerpt: row.excerpt,
    slug: row.slug,
    password: row.password,
    parentId: row.parent_id,
    menuOrder: row.menu_order,
    imageId: row.image_id,
    date: row.date,
    dateUtc: row.date_utc,
    modified: row.modified,
    modifiedUtc: row.modified_utc,
    startDate: row.start_date,
    endDate: row.end_date,
    startUtc: row.start_utc,
    endUtc: row.end_utc,
    timezone: row.timezone,
    timezoneAbbr: row.timezone_abbr,
    allDay: flag(row.all_day),
    cost: JSON.parse(row.cost) as string[],
    currencySymbol: row.currency_symbol,
    currencyCode: row.currency_code,
    currencyPosition: row.currency_position,
    website: row.website,
    showMap: flag(row.show_map),
    showMapLink: flag(row.show_map_link),
    hideFromListings: flag(row.hide_from_listings),
    featured: flag(row.featured),
    venueId: row.venue_id,
  };
}

export type EventPostFields = Omit<Selectable<PostsTable>, 'id' | 'type'>;
export type EventFields = Omit<Selectable<EventsTable>, 'post_id'>;

/** Events: a `posts` row of type event and its `events` row, read and written together. */
export class EventStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  private base() {
    return this.db.selectFrom('posts').innerJoin('events', 'events.post_id', 'posts.id').selectAll(['posts', 'events']);
  }

  async find(id: number): Promise<EventRecord | undefined> {
    const row = await this.base().where('posts.id', '=', id).where('posts.type', '=', 'event').executeTakeFirst();
    return row ? toRecord(row as unknown as Row) : undefined;
  }

  /** By slug, any status; a published one first when drafts share it. */
  async findBySlug(slug: string): Promise<EventRecord | undefined> {
    const row = await this.base()
      .where('posts.type', '=', 'event')
      .where('posts.slug', '=', slug)
      .orderBy(sql`case when posts.status = 'publish' then 0 else 1 end`)
      .orderBy('posts.id')
      .executeTakeFirst();
    return row ? toRecord(row as unknown as Row) : undefined;
  }

  async insert(post: EventPostFields, event: EventFields): Promise<number> {
    const { id } = await this.db
      .insertInto('posts')
      .values({ ...post, type: 'event' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db.insertInto('events').values({ ...event, post_id: id }).execute();
    return id;
  }

  async update(id: number, post: Partial<EventPostFields>, event: Partial<EventFields>): Promise<void> {
    if (Object.keys(post).length > 0) await this.db.updateTable('posts').set(post).where('id', '=', id).execute();
    if (Object.keys(event).length > 0) await this.db.updateTable('events').set(event).where('post_id', '=', id).execute();
  }

  /** Slugs of events that count for uniqueness, equal to `base` or `base-N`. */
  async takenSlugs(base: string, statuses: readonly string[], excludeId?: number): Promise<Set<string>> {
    let q = this.db
      .selectFrom('posts')
      .select('slug')
      .where('type', '=', 'event')
      .where('status', 'in', [...statuses])
      .where((eb) => eb.or([eb('slug', '=', base), likeContains(eb.ref('slug'), base, 'prefix', '-')]));
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    return new Set((await q.execute()).map((r) => r.slug));
  }

  private conditions(eb: Eb, f: EventListFilter): Expression<SqlBool> {
    const c: Expression<SqlBool>[] = [eb('posts.type', '=', 'event'), eb('events.hide_from_listings', '=', 0)];
    if (f.statuses) c.push(eb('posts.status', 'in', [...f.statuses]));
    else c.push(eb('posts.status', 'not in', ['trash', 'auto-draft']));
    const v = f.visibility;
    if (v.kind === 'public') c.push(eb('posts.status', '=', 'publish'));
    else if (v.kind === 'own') c.push(eb.or([eb('posts.status', '=', 'publish'), eb('posts.author_id', '=', v.userId)]));
    if (f.startGte !== undefined) c.push(eb('events.start_date', '>=', f.startGte));
    if (f.endLte !== undefined) c.push(eb('events.end_date', '<=', f.endLte));
    if (f.startLt !== undefined) c.push(eb('events.start_date', '<', f.startLt));
    if (f.startGt !== undefined) c.push(eb('events.start_date', '>', f.startGt));
    if (f.endLt !== undefined) c.push(eb('events.end_date', '<', f.endLt));
    if (f.endGt !== undefined) c.push(eb('events.end_date', '>', f.endGt));
    if (f.featured !== undefined) c.push(eb('events.featured', '=', f.featured ? 1 : 0));
    if (f.include) c.push(f.include.length > 0 ? eb('posts.id', 'in', [...f.include]) : sql<SqlBool>`1 = 0`);
    if (f.postParent !== undefined) c.push(eb('posts.parent_id', '=', f.postParent));
    for (const group of f.termGroups ?? []) {
      c.push(
        group.length === 0
          ? sql<SqlBool>`1 = 0`
          : eb(
              'posts.id',
              'in',
              eb.selectFrom('term_relationships').select('term_relationships.post_id').where('term_relationships.term_id', 'in', [...group]),
            ),
      );
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

  /** One page of matching events and the total: two queries whatever the page size. */
  async list(filter: EventListFilter, limit: number, offset: number): Promise<{ events: EventRecord[]; total: number }> {
    const totalRow = await this.db
      .selectFrom('posts')
      .innerJoin('events', 'events.post_id', 'posts.id')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where((eb) => this.conditions(eb, filter))
      .executeTakeFirstOrThrow();
    const total = Number(totalRow.n);
    if (total === 0 || offset >= total) return { events: [], total };
    let q = this.base().where((eb) => this.conditions(eb, filter));
    q = filter.orderByDate ? q.orderBy('posts.date_utc').orderBy('posts.id') : q.orderBy('events.start_date').orderBy('posts.id');
    const rows = await q.limit(limit).offset(offset).execute();
    return { events: (rows as unknown as Row[]).map(toRecord), total };
  }
}
