/**
 * Revalidation in front of the framework (issue 16: "a 304 must cost far less than a 200"). A poller whose copy
 * is current sends `If-None-Match` with the tag it holds; when the response cache has that URL's answer for
 * anonymous callers, still current (the data version it was computed under, within its time), the raw server
 * answers 304 itself — no routing, no hooks, no body — with the headers the framework's own 304 for that entry
 * carried (learnt from the first one it sent). Anything else goes to the framework as usual: callers with
 * credentials or cookies, cross-origin requests (their CORS headers are the framework's), a rate limit (its
 * counts are too), a URL the cache does not hold, a tag that does not match.
 *
 * Written here rather than taken from a library: what decides is the response cache's own entry and version.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import { matchesEtag } from '../conditional.js';
import { jsonBodyOnGet } from '../json-body.js';
import { markAnsweredBeforeTheFramework } from '../quiet.js';
import type { ResponseCache } from './cache.plugin.js';

/** Headers of a framework 304 that belong to that one answer, not to the entry. */
const PER_ANSWER = new Set(['x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The response cache answered this request from this key (see cache.plugin.ts). */
    cacheHitKey?: string;
  }
}

export function registerFastRevalidation(
  app: FastifyInstance,
  cache: ResponseCache,
  services: Services,
  rewrite: (req: IncomingMessage) => string,
): void {
  // learn, from the framework's own 304s out of the cache, the headers (as sent, every hook's) a 304 of that entry carries
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 304 || request.cacheHitKey === undefined || request.actor?.kind === 'user') return;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined && !PER_ANSWER.has(name.toLowerCase())) headers[name] = String(value);
    }
    cache.setNotModified(request.cacheHitKey, headers);
  });

  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  let answered = 0;
  const server = app.server as Server;
  const framework = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of framework) listener.call(server, req, res);
  };
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tag = req.headers['if-none-match'];
    if (closing || tag === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return pass(req, res);
    if (req.headers.authorization !== undefined || req.headers.cookie !== undefined || req.headers.origin !== undefined) return pass(req, res);
    if (jsonBodyOnGet(req.method, req.headers)) return pass(req, res);
    let key: string;
    try {
      key = `public ${rewrite(req)}`;
    } catch {
      return pass(req, res);
    }
    const known = cache.peekNotModified(key);
    if (!known || !matchesEtag(tag, known.etag)) return pass(req, res);
    // answered here in microseconds: the count of requests in flight (quiet.ts, a listener after this one) skips it
    markAnsweredBeforeTheFramework(req);
    services.dataVersion().then(
      (version) => {
        // the entry current now must be the one the tag matched: while the version was read, a write may have
        // committed and another request answered the URL anew (a new entry under the same key, another tag)
        if (cache.get(key, version, Date.now())?.headers.etag !== known.etag) return passLater(req, res);
        // the entry's flat headers, its last value this answer's id (writeHead copies them at once)
        const headers = known.headers;
        headers[headers.length - 1] = `req-r${++answered}`;
        res.writeHead(304, headers);
        res.end();
      },
      () => passLater(req, res),
    );
  });

  // after the wait, a client gone meanwhile is not handed on: the framework would start work on a request
  // whose end it never hears of (the response cache's leader for that URL would never settle)
  function passLater(req: IncomingMessage, res: ServerResponse): void {
    if (req.destroyed || res.destroyed || req.socket.destroyed) {
      res.destroy();
      return;
    }
    pass(req, res);
  }
}
