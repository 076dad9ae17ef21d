/**
 * Validators on every read (FEATURES.md §2.3, issue 16): a GET or HEAD answered 200 carries a strong ETag of
 * the exact bytes this caller gets — so it differs with the caller's rights, a password, an embedded venue's
 * name — unless its route set one itself (the feeds, the pages). `If-None-Match` naming it answers 304 with
 * no body. Registered before the response cache, whose entries keep the tag: a cached answer is revalidated
 * without being hashed again. `_envelope` and `_jsonp` answers are rewritten after this, so they get none.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag, strongEtag } from '../conditional.js';

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

export function registerEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    if (reply.getHeader('etag') !== undefined || rewritten(request)) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const etag = strongEtag(payload);
    reply.header('ETag', etag);
    vary(reply, 'Authorization');
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      reply.code(304);
      reply.removeHeader('content-length');
      return '';
    }
    return payload;
  });
}
