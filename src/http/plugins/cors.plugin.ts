/**
 * CORS. By default every origin may call the API (`CORS_ORIGINS` `*`), as WordPress answers every origin: a
 * browser client of the original on another site keeps working. `CORS_ORIGINS` may list origins instead, or be
 * `none` (no CORS header at all). Either way the hook runs on `onRequest`, before authentication and the rate
 * limit, so a preflight is answered 204 whatever credentials or limits the caller has, and the browser may read
 * a 401 or a 429. Responses expose what WordPress exposes (`X-WP-Total, X-WP-TotalPages, Link`) and also the
 * paging headers this API actually sends (`X-TEC-Total`, `X-TEC-TotalPages`), which the original forgot, `Allow`,
 * `X-Request-Id` and what a script needs of this API's own (`ETag`, `Location`, `X-Sync-Token`, the rate limit's);
 * requests may send WordPress' headers plus ours and the conditions (`If-Match`, …). No credentials are asked for: no cookies
 * are used, clients send `Authorization` themselves (WordPress reflects the origin with credentials, for its
 * cookie logins).
 *
 * Only an OPTIONS request that carries `Access-Control-Request-Method` is a preflight. Any other OPTIONS request
 * is WordPress' route description (CONTRACT.md §0) and must reach its route, with CORS headers but not
 * swallowed as a preflight.
 *
 * Any origin: the headers are the same for every request, Origin or not (`Access-Control-Allow-Origin: *` also
 * without one, so the answer does not depend on Origin and needs no `Vary: Origin`). They are set by a hook of
 * our own rather than by @fastify/cors, whose per-request options (needed for the preflight rule above) copy
 * its options twice and rewrite `Vary` on every request, which is a measurable share of a cached answer's cost.
 *
 * Listed origins: @fastify/cors with options given per request (the library's `delegator`): the origin is
 * reflected when listed; `Vary: Origin` on every response, which a shared cache needs, since whether
 * `Access-Control-Allow-Origin` is sent depends on the request's `Origin`.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
// WordPress' list, then ours: the method override, a request id, and the conditions of conditional requests (a
// browser script that sends If-Match must be allowed to)
const ALLOW_HEADERS =
  'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-Request-Id, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since';
// WordPress' list, then what this API sends that a browser script may need and CORS hides by default: the
// paging headers the original forgot, Allow, the request id, ETag (for If-Match), Location (of a create), the sync
// token, and the rate limit's
const EXPOSE_HEADERS =
  'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, Allow, X-Request-Id, ETag, Location, X-Sync-Token, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
/** Seconds a browser may keep a preflight's answer. */
const MAX_AGE = 600;

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  if (origins.includes('*')) {
    registerAnyOrigin(app);
    return;
  }
  const listed = new Set(origins);
  const common: FastifyCorsOptions = {
    methods: ALLOW_METHODS,
    allowedHeaders: ALLOW_HEADERS,
    exposedHeaders: EXPOSE_HEADERS,
    maxAge: MAX_AGE,
    credentials: false,
    strictPreflight: false,
  };
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      callback(null, {
        ...common,
        // false: no CORS headers at all (no Origin, or one not listed)
        origin: origin !== undefined && listed.has(origin) ? origin : false,
        preflight: request.headers['access-control-request-method'] !== undefined,
      });
    },
  });
}

/** Every origin: the same headers on every answer; a preflight answered 204 here. */
function registerAnyOrigin(app: FastifyInstance): void {
  const always = {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSE_HEADERS,
    'access-control-allow-headers': ALLOW_HEADERS,
  };
  const preflight = { 'access-control-allow-methods': ALLOW_METHODS, 'access-control-max-age': String(MAX_AGE), 'content-length': '0' };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(always);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.code(204).headers(preflight).send();
      return;
    }
    done();
  });
}
