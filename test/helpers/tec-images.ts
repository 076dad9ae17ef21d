/**
 * The image files of the recorded TEC site, written here (the recording has the records, not the uploads): for
 * every file an image object of the recording names — full sizes and each size listed — a real PNG of the
 * recorded width and height, served by the fixture site at its path with an ETag and a Last-Modified, answering
 * 304 to a request that names either. A file's bytes depend on its width and height only, so files of the same
 * dimensions (every 150×150 thumbnail) are identical bytes under different URLs.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { crc32, deflateSync } from 'node:zlib';
import { recordedEntries, type SiteEntry, type TecSite } from './tec-site.js';

/** A valid PNG: 8-bit greyscale, every pixel one shade. */
export function png(width: number, height: number, shade = 128): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const row = Buffer.alloc(width + 1, shade);
  row[0] = 0; // filter: none
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every uploaded file the recording's image objects name: path → recorded width and height. */
export function recordedImageFiles(): Map<string, { width: number; height: number }> {
  const out = new Map<string, { width: number; height: number }>();
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.url === 'string' && o.url.includes('/wp-content/uploads/') && typeof o.width === 'number' && typeof o.height === 'number') {
      out.set(new URL(o.url).pathname, { width: o.width, height: o.height });
    }
    for (const x of Object.values(o)) walk(x);
  };
  for (const e of recordedEntries()) {
    if (!e.headers['content-type']?.includes('json')) continue;
    try {
      walk(JSON.parse(e.body));
    } catch {
      // (not JSON after all)
    }
  }
  return out;
}

/** What a file path answers: bytes (with validators), or a whole answer of the test's own. */
export type ImageAnswer = { bytes: Buffer; type?: string } | SiteEntry;

export class ImageFiles {
  /** The files as served now, by path (a test may change or replace one). */
  readonly answers = new Map<string, ImageAnswer>();
  readonly dimensions = recordedImageFiles();
  private readonly lastModified = 'Mon, 23 Nov 2026 12:00:00 GMT';

  constructor() {
    for (const [path, { width, height }] of this.dimensions) this.answers.set(path, { bytes: png(width, height, (width * 7 + height) % 251) });
  }

  /** The bytes served at a path (the test's own answers aside). */
  bytes(path: string): Buffer {
    const a = this.answers.get(path);
    if (!a || !('bytes' in a) || !Buffer.isBuffer(a.bytes)) throw new Error(`no bytes at ${path}`);
    return a.bytes;
  }

  /** Answers the files' paths on the site (before its 404), keeping what the site answered otherwise. */
  serve(site: TecSite): void {
    const before = site.extra;
    site.extra = (req) => this.answer(req.path, req.headers) ?? before?.(req);
  }

  private answer(path: string, headers: IncomingHttpHeaders): SiteEntry | undefined {
    const a = this.answers.get(path.split('?')[0]);
    if (!a) return undefined;
    if ('status' in a) return a;
    const etag = `"${sha256(a.bytes).slice(0, 16)}"`;
    const base = { method: 'GET', path, auth: 'anonymous', body: '' };
    const validators = { etag, 'last-modified': this.lastModified };
    if (headers['if-none-match'] === etag || (!headers['if-none-match'] && headers['if-modified-since'] === this.lastModified)) {
      return { ...base, status: 304, headers: validators };
    }
    return { ...base, status: 200, headers: { ...validators, 'content-type': a.type ?? 'image/png' }, bytes: a.bytes };
  }
}
