import { type Kysely, type SqlBool, sql } from 'kysely';
import type { PostFields, PostType } from '../../domain/posts/post.js';
import type { Database, PostsTable } from '../database.js';
import { type Codec, columnMap } from './columns.js';
import { storableIds } from './ids.js';
import { PLAIN_BY_ID } from './plain-occurrences.js';

/** A lineage of global ids as a JSON array; null (and an empty list) as SQL null. */
const lineage: Codec<readonly string[] | null | undefined, string | null> = {
  toRow: (v) => (v && v.length > 0 ? JSON.stringify(v) : null),
  fromRow: (v) => (typeof v === 'string' && v !== '' ? (JSON.parse(v) as string[]) : null),
};

/** The columns of `posts` every kind shares (see columns.ts). */
export const postColumns = columnMap<PostsTable>()<PostFields>({
  status: 'status',
  statusBeforeTrash: 'status_before_trash',
  authorId: 'author_id',
  title: 'title',
  content: 'content',
  excerpt: 'excerpt',
  slug: 'slug',
  password: 'password',
  parentId: 'parent_id',
  menuOrder: 'menu_order',
  imageId: 'image_id',
  date: 'date',
  dateUtc: 'date_utc',
  modified: 'modified',
  modifiedUtc: 'modified_utc',
  globalIdLineage: ['global_id_lineage', lineage],
});

/** A post's fields and its version, from a row of `posts` (any query that reads posts for records selects `version`). */
export function postFromRow(row: Readonly<Record<string, unknown>>): PostFields & { readonly version: number } {
  // (the mapped object given its version, not `{ ...fields, version }`: on Node 20 a key written after a leading
  // spread costs ~1 µs, and every post read goes through here)
  return Object.assign(postColumns.fromRow(row), { version: Number(row.version) });
}

/** What permission checks need to know about any post, whatever its type. */
export interface PostAccessRow {
  readonly id: number;
  readonly type: PostType;
  readonly authorId: number;
  readonly status: string;
  readonly statusBeforeTrash: string | null;
}

/** What all post types share: the row of `posts` (events, venues, organizers, images). */
export class PostStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The type of the post with this id (a plain occurrence's is its series'), or undefined when there is none. */
  async typeOf(id: number): Promise<PostType | undefined> {
    return (await this.findAccess(id))?.type;
  }

  async findAccess(id: number): Promise<PostAccessRow | undefined> {
    return (await this.findAccessMany([id]))[0];
  }

  async findAccessMany(ids: readonly number[]): Promise<PostAccessRow[]> {
    const these = [...new Set(storableIds(ids))];
    if (these.length === 0) return [];
    const rows = await this.db
      .selectFrom('posts')
      .select(['id', 'type', 'author_id', 'status', 'status_before_trash'])
      .where('id', 'in', these)
      .unionAll(
        // a plain occurrence (migration 0023) is its series' post with its own id and status
        this.db
          .selectFrom('occurrences as o')
          .innerJoin('posts as p', 'p.id', 'o.series_id')
          .select(['o.id', 'p.type', 'p.author_id', 'o.status', 'p.status_before_trash'])
          .where('o.id', 'in', these)
          .where(sql<SqlBool>`${sql.raw(PLAIN_BY_ID)}`),
      )
      .execute();
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      authorId: row.author_id,
      status: row.status,
      statusBeforeTrash: row.status_before_trash,
    }));
  }

  /**
   * A conditional write's claim on a post it rewrites without updating its row itself (see VersionGuard): moves
   * its version on while it is at `version`, holding its other writers off until the commit. False: it was not.
   */
  async claim(id: number, version: number): Promise<boolean> {
    const claimed = await this.db
      .updateTable('posts')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) > 0;
  }

  /**
   * Publishes scheduled posts whose date has come (WordPress' cron does this). Each row is claimed by its own
   * update, so two processes doing this at once never publish one post twice. Returns the ids published.
   */
  async publishDue(type: PostType, nowUtc: string): Promise<number[]> {
    const rows = await this.db
      .updateTable('posts')
      .set((eb) => ({ status: 'publish', version: eb('version', '+', 1) }))
      .where('type', '=', type)
      .where('status', '=', 'future')
      .where('date_utc', '<=', nowUtc)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }
}
