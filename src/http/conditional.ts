/**
 * Validators of answers (RFC 9110 §8.8, §13): a strong ETag of the exact bytes a caller gets, and the
 * If-None-Match check that turns a current copy into a 304.
 */
import { createHash } from 'node:crypto';

/** A strong validator of these bytes. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Whether an If-None-Match header names this tag, or `*` (weak comparison, as §13.1.2 asks for GET). */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}
