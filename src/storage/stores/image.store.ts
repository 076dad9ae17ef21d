import type { Kysely } from 'kysely';
import type { Database, ImageRow } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import { isStorableId } from './ids.js';
import { type PlannedRead, planned, runPlanned } from './planned.js';
import { idList, Statement, statementSet } from './statement.js';

export interface ImageRecord {
  readonly id: number;
  readonly url: string;
  readonly extension: string;
  readonly mimeType: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly filesize: number | null;
  readonly sizes: Record<string, { width: number; height: number; 'mime-type': string; filesize?: number; url: string }>;
}

const toRecord = (row: ImageRow): ImageRecord => ({
  id: Number(row.post_id),
  url: row.url,
  extension: row.extension,
  mimeType: row.mime_type,
  width: row.width,
  height: row.height,
  filesize: row.filesize,
  sizes: JSON.parse(row.sizes) as ImageRecord['sizes'],
});

/** The reads of every event's view (see Statement). */
const statements = statementSet((dialect: Dialect) => ({
  byIds: new Statement<ImageRow>(dialect, 'select * from images where post_id in :ids'),
  // every create sending an image URL (issue 17)
  byUrl: new Statement<ImageRow>(dialect, 'select * from images where url = ? order by post_id limit 1'),
  forViews: new Statement<ImageRow>(
    dialect,
    `select * from images where post_id in :ids
       or post_id in (select posts.image_id from posts where posts.id in :ids)
       or post_id in (select op.image_id from event_organizers eo inner join posts op on op.id = eo.organizer_id where eo.event_id in :ids)`,
  ),
}));

/** Stored images (posts of type image): external ones are a URL we never download. */
export class ImageStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async find(id: number): Promise<ImageRecord | undefined> {
    if (!isStorableId(id)) return undefined;
    const row = await this.db.selectFrom('images').selectAll().where('post_id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async findByUrl(url: string): Promise<ImageRecord | undefined> {
    const row = await statements(this.dialect).byUrl.first(this.db, [url]);
    return row ? toRecord(row) : undefined;
  }

  findMany(ids: readonly number[]): Promise<Map<number, ImageRecord>> {
    return runPlanned(this.db, this.forViewsPlan({ ids }));
  }

  /**
   * The images of what an event's view shows, planned (Storage.readTogether): these images, the featured images of
   * these posts (venues) and of the organizers linked to these events — read with them, not after them.
   */
  forViewsPlan(of: {
    readonly ids: readonly number[];
    readonly ofPosts?: readonly number[];
    readonly ofOrganizersOfEvents?: readonly number[];
  }): PlannedRead<Map<number, ImageRecord>> {
    const sources = [of.ids, of.ofPosts ?? [], of.ofOrganizersOfEvents ?? []];
    const query = sources.every((ids) => ids.length === 0)
      ? undefined
      : of.ofPosts === undefined && of.ofOrganizersOfEvents === undefined
        ? statements(this.dialect).byIds.compile([idList(this.dialect, of.ids)])
        : statements(this.dialect).forViews.compile(sources.map((ids) => idList(this.dialect, ids)));
    return planned(query, (rows) => new Map((rows as ImageRow[]).map((r) => [Number(r.post_id), toRecord(r)])));
  }

  /** A new image at a URL (its title: the URL's file name, or the one given). */
  async createExternal(url: string, authorId: number, now: { local: string; utc: string }, title?: string): Promise<ImageRecord> {
    const path = new URL(url).pathname;
    const extension = /\.([a-z0-9]{1,8})$/i.exec(path)?.[1]?.toLowerCase() ?? '';
    const mime = MIME[extension] ?? '';
    const { id } = await this.db
      .insertInto('posts')
      .values({
        type: 'image',
        status: 'inherit',
        author_id: authorId,
        title: (title ?? decodeURIComponent(path.split('/').pop() ?? '')).slice(0, 200),
        slug: '',
        date: now.local,
        date_utc: now.utc,
        modified: now.local,
        modified_utc: now.utc,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.db
      .insertInto('images')
      .values({ post_id: id, url, extension, mime_type: mime, sizes: '{}' })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row as ImageRow);
  }

  /** Rewrites what an image is (its post stays: what refers to it keeps referring to it). */
  async setContent(id: number, content: ImageContent): Promise<void> {
    await this.db
      .updateTable('images')
      .set({
        url: content.url,
        extension: content.extension,
        mime_type: content.mimeType,
        width: content.width,
        height: content.height,
        filesize: content.filesize,
        sizes: JSON.stringify(content.sizes),
      })
      .where('post_id', '=', id)
      .execute();
  }
}

/** Points an image at other bytes: a copy kept here (`/media/…`), or back at a remote URL. */
export interface ImageContent {
  readonly url: string;
  readonly extension: string;
  readonly mimeType: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly filesize: number | null;
  readonly sizes: ImageRecord['sizes'];
}

const MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
};
