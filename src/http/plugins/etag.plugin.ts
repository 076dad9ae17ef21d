/**
 * Validators on every read (FEATURES.md §2.3, issue 16): a GET or HEAD answered 200 carries a strong ETag of
 * the exact bytes this caller gets — so it differs with the caller's rights, a password, an embedded venue's
 * name — unless its route set one itself (the feeds, the pages). `If-None-Match` naming it answers 304 with
 * no body; without If-None-Match, an answer with a `Last-Modified` (items, feeds) not modified after
 * `If-Modified-Since` does too. Every answer with an ETag, 304s and response-cache hits included, varies on
 * `Authorization, Cookie, Accept-Encoding`, and one to an anonymous caller may be kept but must be revalidated
 * (`Cache-Control: public, max-age=0, must-revalidate`) unless its route says otherwise; authenticated callers
 * get WordPress' no-cache headers (app.ts). Registered before the response cache, whose entries keep the tag: a
 * cached answer is revalidated without being hashed again. `_envelope` and `_jsonp` answers are rewritten after
 * this, so they get none.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notModified, strongEtag } from '../conditional.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body of a 200 this plugin answered as a 304 (the response cache keeps it). */
    revalidatedBody?: string;
  }
}

function rewritten(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return query?._envelope !== undefined || query?._jsonp !== undefined;
}

/** Adds a name to the Vary header without repeating one already there. */
export function vary(reply: FastifyReply, name: string): void {
  const current = String(reply.getHeader('vary') ?? '');
  const names = current.split(',').map((n) => n.trim().toLowerCase());
  if (names.includes(name.toLowerCase()) || names.includes('*')) return;
  reply.header('Vary', current ? `${current}, ${name}` : name);
}

/** What an answer with a validator depends on besides its URL: the caller, and the encoding asked for. */
const VARY = ['Authorization', 'Cookie', 'Accept-Encoding'];
const VARY_ALL = VARY.join(', ');
/** Anonymous answers: any cache may keep them, and must ask again (If-None-Match) before each use. */
const ANONYMOUS_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

export function registerEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if ((reply.statusCode !== 200 && reply.statusCode !== 304) || rewritten(request)) return payload;
    let etag = reply.getHeader('etag');
    if (etag === undefined && reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      etag = strongEtag(payload);
      reply.header('ETag', etag);
    }
    if (etag === undefined) return payload;
    // (most answers have no Vary yet: the three names at once)
    if (reply.hasHeader('vary')) for (const name of VARY) vary(reply, name);
    else reply.header('Vary', VARY_ALL);
    if (request.actor?.kind !== 'user' && reply.getHeader('cache-control') === undefined) reply.header('Cache-Control', ANONYMOUS_CACHE_CONTROL);
    if (reply.statusCode === 200 && notModified(request.headers, String(etag), reply.getHeader('last-modified'))) {
      // (the response cache keeps the answer it stands for: pollers with a current copy fill it too)
      if (typeof payload === 'string') request.revalidatedBody = payload;
      reply.code(304);
      reply.removeHeader('content-length');
      return '';
    }
    return payload;
  });
}
