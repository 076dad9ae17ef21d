import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { LinkedListFilter, LinkedRecord, LinkedType, OrganizerRecord, VenueRecord } from '../../domain/linked/linked.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { likeContains } from './like.js';

type Table = 'venues' | 'organizers';

const SEARCHED: Record<Table, readonly string[]> = {
  venues: ['posts.title', 'posts.content', 'posts.excerpt', 'd.address', 'd.city', 'd.province', 'd.state', 'd.stateprovince', 'd.zip', 'd.phone'],
  organizers: ['posts.title', 'posts.content', 'posts.excerpt', 'd.phone', 'd.email', 'd.website'],
};

function base(row: Record<string, any>, type: LinkedType): LinkedRecord {
  return {
    id: row.id,
    type,
    authorId: row.author_id,
    status: row.status,
    statusBeforeTrash: row.status_before_trash,
    title: row.title,
    content: row.content,
    excerpt: row.excerpt,
    slug: row.slug,
    imageId: row.image_id,
    date: row.date,
    dateUtc: row.date_utc,
    modified: row.modified,
    modifiedUtc: row.modified_utc,
  };
}

function toVenue(row: Record<string, any>): VenueRecord {
  return {
    ...base(row, 'venue'),
    type: 'venue',
    address: row.address,
    city: row.city,
    country: row.country,
    province: row.province,
    state: row.state,
    zip: row.zip,
    phone: row.phone,
    website: row.website,
    stateprovince: row.stateprovince,
    showMap: row.show_map === 1,
    showMapLink: row.show_map_link === 1,
    geoLat: row.geo_lat === null ? null : Number(row.geo_lat),
    geoLng: row.geo_lng === null ? null : Number(row.geo_lng),
  };
}

function toOrganizer(row: Record<string, any>): OrganizerRecord {
  return { ...base(row, 'organizer'), type: 'organizer', phone: row.phone, website: row.website, email: row.email };
}

export interface LinkedPostFields {
  status: string;
  status_before_trash: string | null;
  author_id: number;
  title: string;
  content: string;
  slug: string;
  image_id: number | null;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
}

/**
 * Venues or organizers: a `posts` row of that type and its details row, read and written together.
 * One class serves both; the table decides which.
 */
export class LinkedStore<R extends LinkedRecord> {
  private readonly table: Table;
  private readonly map: (row: Record<string, any>) => R;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    readonly type: LinkedType,
  ) {
    this.table = type === 'venue' ? 'venues' : 'organizers';
    this.map = (type === 'venue' ? toVenue : toOrganizer) as unknown as (row: Record<string, any>) => R;
  }

  /** Driven from the details table: a row there exists only for this type, found by its primary key. */
  private select() {
    return (this.db as Kysely<any>)
      .selectFrom(`${this.table} as d`)
      .innerJoin('posts', 'posts.id', 'd.post_id')
      .selectAll('posts')
      .selectAll('d');
  }

  async find(id: number): Promise<R | undefined> {
    const row = await this.select().where('d.post_id', '=', id).executeTakeFirst();
    return row ? this.map(row) : undefined;
  }

  async findMany(ids: readonly number[]): Promise<Map<number, R>> {
    if (ids.length === 0) return new Map();
    const rows = await this.select().where('d.post_id', 'in', [...new Set(ids)]).execute();
    return new Map(rows.map((r: any) => [r.id, this.map(r)]));
  }

  /** By slug, any status; a published one first. */
  async findBySlug(slug: string): Promise<R | undefined> {
    const row = await this.select()
      .where('posts.slug', '=', slug)
      .orderBy(sql`case when posts.status = 'publish' then 0 else 1 end`)
      .orderBy('posts.id')
      .executeTakeFirst();
    return row ? this.map(row) : undefined;
  }

  /** Not-trashed records whose name (and description, when given) match case-insensitively, oldest first. */
  async findDuplicates(name: string, description?: string): Promise<R[]> {
    let q = this.select()
      .where('posts.status', 'not in', ['trash', 'auto-draft'])
      .where(this.dialect.lower(sql.ref('posts.title')), '=', name.toLowerCase());
    if (description !== undefined) q = q.where(this.dialect.lower(sql.ref('posts.content')), '=', description.toLowerCase());
    return (await q.orderBy('posts.id').execute()).map(this.map);
  }

  async insert(post: LinkedPostFields, details: Record<string, unknown>): Promise<number> {
    const { id } = await this.db
      .insertInto('posts')
      .values({ ...post, type: this.type, excerpt: '', password: '', parent_id: 0, menu_order: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await (this.db as Kysely<any>).insertInto(this.table).values({ ...details, post_id: id }).execute();
    return id;
  }

  async update(id: number, post: Partial<LinkedPostFields>, details: Record<string, unknown>): Promise<void> {
    if (Object.keys(post).length > 0) await this.db.updateTable('posts').set(post).where('id', '=', id).execute();
    if (Object.keys(details).length > 0) {
      await (this.db as Kysely<any>).updateTable(this.table).set(details).where('post_id', '=', id).execute();
    }
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


  private conditions(eb: ExpressionBuilder<any, any>, f: LinkedListFilter): Expression<SqlBool> {
    const c: Expression<SqlBool>[] = [];
    if (f.statuses) c.push(eb('posts.status', 'in', [...f.statuses]));
    else c.push(eb('posts.status', 'not in', ['trash', 'auto-draft']));
    const v = f.visibility;
    if (v.kind === 'public') c.push(eb('posts.status', '=', 'publish'));
    else if (v.kind === 'own') c.push(eb.or([eb('posts.status', '=', 'publish'), eb('posts.author_id', '=', v.userId)]));
    if (f.searchTokens && f.searchTokens.length > 0) {
      const tokens = f.searchTokens.map((t) => t.toLowerCase());
      c.push(
        eb.or(
          SEARCHED[this.table].map((col) =>
            eb.and(tokens.map((token) => likeContains(this.dialect.lower(sql.ref(col)), token, 'contains'))),
          ),
        ),
      );
    }
    const linked = (events: (qb: any) => any) =>
      this.type === 'venue'
        ? // (no NULLs in the list: `not in` a list holding NULL is never true, and has_events=false needs it)
          eb('posts.id', 'in', events(eb.selectFrom('events as le').innerJoin('posts as lp', 'lp.id', 'le.post_id').select('le.venue_id').where('le.venue_id', 'is not', null)))
        : eb(
            'posts.id',
            'in',
            events(
              eb
                .selectFrom('event_organizers as lo')
                .innerJoin('posts as lp', 'lp.id', 'lo.event_id')
                .innerJoin('events as le', 'le.post_id', 'lo.event_id')
                .select('lo.organizer_id'),
            ),
          );
    if (f.event !== undefined) c.push(linked((q) => q.where('lp.id', '=', f.event)));
    if (f.hasEvents !== undefined) {
      const having = linked((q) => q.where('lp.status', 'not in', ['draft', 'pending', 'auto-draft']));
      c.push(f.hasEvents ? having : eb.not(having));
    }
    if (f.upcomingFrom !== undefined) {
      c.push(
        linked((q) => {
          let r = q.where('le.start_utc', '>=', f.upcomingFrom).where('le.hide_from_listings', '=', 0);
          if (v.kind === 'public') r = r.where('lp.status', '=', 'publish');
          else if (v.kind === 'own') r = r.where((e: any) => e.or([e('lp.status', '=', 'publish'), e('lp.author_id', '=', v.userId)]));
          else r = r.where('lp.status', 'not in', ['trash', 'auto-draft']);
          return r;
        }),
      );
    }
    return eb.and(c);
  }

  /** A page of matching records (newest publication first) and the total count of matches. */
  async list(filter: LinkedListFilter, limit: number, offset: number): Promise<{ records: R[]; total: number }> {
    const totalRow = await (this.db as Kysely<any>)
      .selectFrom('posts')
      .innerJoin(`${this.table} as d`, 'd.post_id', 'posts.id')
      .select((e: any) => e.fn.countAll().as('n'))
      .where('posts.type', '=', this.type)
      .where((eb: any) => this.conditions(eb, filter))
      .executeTakeFirstOrThrow();
    const total = Number((totalRow as { n: number }).n);
    if (total === 0 || offset >= total) return { records: [], total };
    const rows = await this.select()
      .where((eb: any) => this.conditions(eb, filter))
      .orderBy('posts.date_utc', 'desc')
      .orderBy('posts.id', 'asc')
      .limit(limit)
      .offset(offset)
      .execute();
    return { records: rows.map(this.map), total };
  }
}
