import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { MediaExtension, MediaInfo } from '../../domain/media/media.js';
import type { Database } from '../database.js';

/** What a remote image URL gave when it was last fetched (migration 0014). */
export interface MediaSource {
  readonly url: string;
  readonly blob: MediaInfo;
  readonly etag: string | null;
  readonly lastModified: string | null;
  /** The import pass that last asked the remote server (a resumed pass does not ask again). */
  readonly checkedPass: string | null;
}

const urlKey = (url: string) => createHash('sha256').update(url).digest('hex');

const INFO_COLUMNS = ['sha256', 'mime_type', 'extension', 'size', 'width', 'height'] as const;

const toInfo = (r: { sha256: string; mime_type: string; extension: string; size: number; width: number; height: number }): MediaInfo => ({
  sha256: r.sha256,
  mimeType: r.mime_type,
  extension: r.extension as MediaExtension,
  size: Number(r.size),
  width: Number(r.width),
  height: Number(r.height),
});

/** Image files kept here, once per distinct bytes, and where remote ones came from. */
export class MediaStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** A kept file's description (not its bytes). */
  async find(sha256: string): Promise<MediaInfo | undefined> {
    const row = await this.db.selectFrom('media_blobs').select(INFO_COLUMNS).where('sha256', '=', sha256).executeTakeFirst();
    return row ? toInfo(row) : undefined;
  }

  /** A kept file with its bytes. */
  async read(sha256: string): Promise<{ info: MediaInfo; bytes: Buffer } | undefined> {
    const row = await this.db
      .selectFrom('media_blobs')
      .select([...INFO_COLUMNS, 'bytes'])
      .where('sha256', '=', sha256)
      .executeTakeFirst();
    return row ? { info: toInfo(row), bytes: Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes) } : undefined;
  }

  /** What a remote URL gave last time, with the kept file. */
  async findSource(url: string): Promise<MediaSource | undefined> {
    const row = await this.db
      .selectFrom('media_sources as s')
      .innerJoin('media_blobs as b', 'b.sha256', 's.blob_sha256')
      .select(['s.url', 's.etag', 's.last_modified', 's.checked_pass', 'b.sha256', 'b.mime_type', 'b.extension', 'b.size', 'b.width', 'b.height'])
      .where('s.url_sha256', '=', urlKey(url))
      .executeTakeFirst();
    if (!row || row.url !== url) return undefined;
    return { url: row.url, blob: toInfo(row), etag: row.etag, lastModified: row.last_modified, checkedPass: row.checked_pass };
  }

  /** Keeps a file (once: the same bytes again are the row there is) and records what the URL gave. */
  async saveDownload(
    url: string,
    info: MediaInfo,
    bytes: Buffer,
    validators: { etag: string | null; lastModified: string | null },
    pass: string,
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('media_blobs')
      .values({
        sha256: info.sha256,
        mime_type: info.mimeType,
        extension: info.extension,
        size: info.size,
        width: info.width,
        height: info.height,
        bytes,
        created_at: now,
        modified_at: now,
      })
      .onConflict((oc) => oc.column('sha256').doNothing())
      .execute();
    await this.db
      .insertInto('media_sources')
      .values({
        url_sha256: urlKey(url),
        url,
        blob_sha256: info.sha256,
        etag: validators.etag,
        last_modified: validators.lastModified,
        checked_pass: pass,
        created_at: now,
        modified_at: now,
      })
      .onConflict((oc) =>
        oc.column('url_sha256').doUpdateSet({
          blob_sha256: info.sha256,
          etag: validators.etag,
          last_modified: validators.lastModified,
          checked_pass: pass,
          modified_at: now,
        }),
      )
      .execute();
  }

  /**
   * A remote URL answered that what we have is current (a 304): the pass that asked is noted, and the validators
   * the answer carried, if it carried any (a server may move an ETag on without a change of the bytes).
   */
  async markChecked(url: string, pass: string, validators: { etag: string | null; lastModified: string | null }, now: string): Promise<void> {
    await this.db
      .updateTable('media_sources')
      .set({
        checked_pass: pass,
        ...(validators.etag !== null ? { etag: validators.etag } : {}),
        ...(validators.lastModified !== null ? { last_modified: validators.lastModified } : {}),
        modified_at: now,
      })
      .where('url_sha256', '=', urlKey(url))
      .execute();
  }
}
