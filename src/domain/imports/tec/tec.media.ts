/**
 * `--images download` (issue 15, FEATURES.md §6.3): each image a site shows — the full-size file and each size
 * the site lists (thumbnail, medium…: WordPress made them, we cannot, without an image library) — is fetched
 * once per remote URL and kept here by the sha256 of its bytes, so records that show the same image share one
 * copy, and identical bytes under two URLs are one copy too. A later run asks with `If-None-Match` /
 * `If-Modified-Since`: a 304 downloads nothing. A resumed pass does not ask again for what it fetched before it
 * stopped (the source row names the pass that asked, and is written before the records that use it).
 *
 * Fetched through the site client (its user agent, its requests-in-flight limit, Retry-After honoured, the SSRF
 * guard with its redirect checks), without the application password, at most 20 MB, and kept only when the bytes
 * are a JPEG, PNG, GIF, WebP or AVIF image (media.ts). Whatever goes wrong with one file — a 404, too large, not
 * an image, a timeout — is a warning in the report, never a failed import: the record gets no image (or, when an
 * earlier run kept a copy of that URL, that copy); a size that cannot be kept is left out of `sizes`.
 *
 * Fetching happens before a page of records is written, outside its transaction (a slow server must not hold
 * the database's write lock); the report lines wait for the page's turn to write (see BatchWriter).
 */

import type { Storage } from '../../../storage/storage.js';
import { MAX_MEDIA_BYTES, type MediaInfo, sniffImage } from '../../media/media.js';
import type { RawResponse } from '../fetch.js';
import { FetchError } from '../fetch.js';
import type { TecClient } from './tec.client.js';
import { type Json, list, obj, str } from './tec.mapper.js';
import { count, type TecReport, warn } from './tec.report.js';

/** What became of one remote file in this pass. */
export interface FetchedImage {
  /** The copy kept here (this pass's, or an earlier one's when the remote file could not be had now). */
  readonly copy?: MediaInfo;
  /** Why the remote file is not (or not now) ours, for the report. */
  readonly problem?: string;
}

/** Sizes of one image fetched at most (WordPress makes six by default; themes add a few). */
export const MAX_SIZES = 16;
const ATTEMPTS = 3;
const TIMEOUT_MS = 60_000;
const isHttp = (url: string) => /^https?:\/\//i.test(url);

/** The image objects a remote record shows: its own, its venue's and its organizers' (embedded ones too). */
export function imagesOf(remote: Json | undefined): Json[] {
  if (!remote) return [];
  const out: Json[] = [];
  const add = (value: unknown) => {
    const image = obj(value);
    if (image && isHttp(str(image, 'url'))) out.push(image);
  };
  add(remote.image);
  add((obj(remote.venue) ?? list(remote.venue)[0])?.image);
  for (const o of list(remote.organizer)) add(o.image);
  return out;
}

/** The sizes an image object lists, by name, with their URLs (at most MAX_SIZES). */
export function sizesOf(image: Json): [string, string][] {
  return Object.entries(obj(image.sizes) ?? {})
    .map(([name, size]): [string, string] => [name, str(obj(size), 'url')])
    .filter(([, url]) => isHttp(url))
    .slice(0, MAX_SIZES);
}

const header = (res: RawResponse, name: string): string | null => {
  const v = res.headers[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined || one === '' ? null : one.slice(0, 500);
};

export interface MediaSettings {
  readonly pass: string;
  readonly dryRun: boolean;
  readonly stamp: () => string;
}

export class TecMedia {
  private readonly running = new Map<string, Promise<FetchedImage>>();
  private readonly settled = new Map<string, FetchedImage>();
  /** Report lines waiting for the next page's turn (see `flush`). */
  private notes: { remoteId: string; reason: string; failed: boolean }[] = [];
  private readonly noted = new Set<string>();

  constructor(
    private readonly storage: Storage,
    private readonly client: TecClient,
    private readonly settings: MediaSettings,
  ) {}

  /**
   * Fetches every file the records' images name (once per URL in this pass), before the records are written:
   * the full size, then — when it could be had — the sizes the site lists.
   */
  async prepare(remotes: readonly (Json | undefined)[]): Promise<void> {
    await Promise.all(
      remotes.flatMap(imagesOf).map(async (image) => {
        const rid = str(image, 'id') || str(image, 'url');
        const full = str(image, 'url');
        const got = await this.once(full);
        if (got.problem)
          this.note(rid, full, `${full}: ${got.problem}; ${got.copy ? 'the copy kept before is used' : 'imported without an image'}`, !got.copy);
        if (!got.copy) return;
        await Promise.all(
          sizesOf(image).map(async ([name, url]) => {
            const size = await this.once(url);
            if (size.problem)
              this.note(rid, url, `size ${name} (${url}): ${size.problem}; ${size.copy ? 'the copy kept before is used' : 'left out'}`, false);
          }),
        );
      }),
    );
  }

  /** What became of a URL in this pass (undefined: not fetched). */
  result(url: string): FetchedImage | undefined {
    return this.settled.get(url);
  }

  /**
   * Writes the waiting report lines: a warning per file that could not be had, and a failed image per record
   * image left without one. Called in a page's turn, before the page's snapshot (a page that rolls back must
   * not take them along); a line a resumed pass already has is not repeated.
   */
  flush(report: TecReport): void {
    for (const n of this.notes) {
      if (report.warnings.some((w) => w.resource === 'images' && w.remote_id === n.remoteId && w.reason === n.reason)) continue;
      warn(report, 'image', n.remoteId, n.reason);
      if (n.failed) count(report, 'image', 'failed');
    }
    this.notes = [];
  }

  private note(remoteId: string, url: string, reason: string, failed: boolean): void {
    const key = `${remoteId}\u0000${url}`;
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.notes.push({ remoteId, reason, failed });
  }

  private once(url: string): Promise<FetchedImage> {
    let running = this.running.get(url);
    if (!running) {
      running = this.fetch(url).then((r) => {
        this.settled.set(url, r);
        return r;
      });
      this.running.set(url, running);
    }
    return running;
  }

  private async fetch(url: string): Promise<FetchedImage> {
    const known = await this.storage.media.findSource(url);
    // asked already in this pass, before the run stopped: not again
    if (known && known.checkedPass === this.settings.pass) return { copy: known.blob };
    // (`*/*`: the file as the site has it, not one a CDN would convert for a browser that takes WebP)
    const headers: Record<string, string> = { accept: '*/*' };
    if (known?.etag) headers['if-none-match'] = known.etag;
    if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
    const failed = (problem: string): FetchedImage => (known ? { copy: known.blob, problem } : { problem });
    let res: RawResponse;
    try {
      res = await this.client.get(url, false, { headers, maxBytes: MAX_MEDIA_BYTES, attempts: ATTEMPTS, timeoutMs: TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      if (error.code === 'too-large') return failed(`larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`);
      return failed(error.code === 'url-refused' ? `refused: ${error.message}` : `not fetched: ${error.message}`);
    }
    const validators = { etag: header(res, 'etag'), lastModified: header(res, 'last-modified') };
    if (res.status === 304 && known) {
      if (!this.settings.dryRun) await this.storage.media.markChecked(url, this.settings.pass, validators, this.settings.stamp());
      return { copy: known.blob };
    }
    if (res.status !== 200) return failed(`the site answered HTTP ${res.status}`);
    const sniffed = sniffImage(res.body);
    if (!sniffed.ok) return failed(sniffed.reason);
    if (!this.settings.dryRun) {
      const { info } = sniffed;
      await this.storage.transaction((tx) => tx.media.saveDownload(url, info, res.body, validators, this.settings.pass, this.settings.stamp()));
    }
    return { copy: sniffed.info };
  }
}
