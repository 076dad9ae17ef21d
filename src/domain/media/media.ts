/**
 * Image files this service keeps (migration 0014): what is kept is decided by the bytes, never by a URL's
 * extension or the Content-Type a remote server sent. JPEG, PNG, GIF, WebP and AVIF are kept — what every
 * browser shows in an `<img>` and what cannot run script. SVG is refused (it is XML that can carry script and
 * links, served from our origin it would be an attack surface), and so is everything else: HTML error pages
 * answered with a 200, other image formats, damaged files. Width and height are read from the bytes
 * (`image-size`, pure JavaScript, reading headers only: nothing is decoded).
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';

/** The types kept, by the extension the served name carries. */
export const MEDIA_TYPES = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
} as const;
export type MediaExtension = keyof typeof MEDIA_TYPES;

/** The largest file kept (FEATURES.md §6.3). */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024;

/** A kept file, without its bytes. */
export interface MediaInfo {
  readonly sha256: string;
  readonly mimeType: string;
  readonly extension: MediaExtension;
  readonly size: number;
  readonly width: number;
  readonly height: number;
}

export type Sniffed = { readonly ok: true; readonly info: MediaInfo } | { readonly ok: false; readonly reason: string };

const ascii = (bytes: Buffer, from: number, to: number) => bytes.subarray(from, to).toString('latin1');

/** The ISO-BMFF brands of an `ftyp` box at the start (AVIF, HEIC…): the major one, then the compatible ones. */
function brands(bytes: Buffer): string[] {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return [];
  const size = Math.min(bytes.readUInt32BE(0), bytes.length, 4096);
  const out = [ascii(bytes, 8, 12)];
  for (let at = 16; at + 4 <= size; at += 4) out.push(ascii(bytes, at, at + 4));
  return out;
}

/** Which kept type the bytes' signature says, or undefined. */
function signature(bytes: Buffer): MediaExtension | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.length >= 6 && (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')) return 'gif';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  const b = brands(bytes);
  // (`avis`, an AVIF image sequence, is an animation browsers handle unevenly: not kept)
  if (b[0] === 'avif' || (b[0] === 'mif1' && b.slice(1).includes('avif'))) return 'avif';
  return undefined;
}

/** Why bytes that are not a kept image are refused, in words for the import report. */
function refusal(bytes: Buffer): string {
  if (bytes.length === 0) return 'the answer was empty';
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (/^<svg[\s>]/.test(head) || (/^<\?xml/.test(head) && head.includes('<svg'))) return 'an SVG image (SVG can carry script): not kept';
  if (/^<!doctype html|^<html[\s>]|^<head[\s>]|^<body[\s>]/.test(head)) return 'an HTML page, not an image';
  let other: string | undefined;
  try {
    other = imageSize(bytes).type;
  } catch {
    other = undefined;
  }
  if (other === 'svg') return 'an SVG image (SVG can carry script): not kept';
  if (other) return `a ${other.toUpperCase()} image: only JPEG, PNG, GIF, WebP and AVIF are kept`;
  return 'not an image (only JPEG, PNG, GIF, WebP and AVIF are kept)';
}

/** What the bytes are, with their width and height, or why they are not kept. */
export function sniffImage(bytes: Buffer): Sniffed {
  const extension = signature(bytes);
  if (!extension) return { ok: false, reason: refusal(bytes) };
  let width = 0;
  let height = 0;
  try {
    const size = imageSize(bytes);
    width = Number(size.width) || 0;
    height = Number(size.height) || 0;
  } catch {
    // (a header cut short or damaged: refused below)
  }
  if (!(width > 0 && height > 0))
    return { ok: false, reason: `its bytes begin as ${MEDIA_TYPES[extension]} but its size cannot be read (a damaged file)` };
  return {
    ok: true,
    info: {
      sha256: createHash('sha256').update(bytes).digest('hex'),
      mimeType: MEDIA_TYPES[extension],
      extension,
      size: bytes.length,
      width,
      height,
    },
  };
}

/** The path a kept file is served at, below the public URL: `/media/<sha256>.<ext>`. */
export function mediaPath(info: Pick<MediaInfo, 'sha256' | 'extension'>): string {
  return `/media/${info.sha256}.${info.extension}`;
}

const NAME = /^([0-9a-f]{64})\.(jpg|png|gif|webp|avif)$/;

/** The sha256 and extension a served name gives, or undefined when it is not one this service gives out. */
export function parseMediaName(name: string): { sha256: string; extension: MediaExtension } | undefined {
  const m = NAME.exec(name);
  return m ? { sha256: m[1], extension: m[2] as MediaExtension } : undefined;
}
