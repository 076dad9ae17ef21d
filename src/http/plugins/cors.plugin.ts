/**
 * CORS, off unless `CORS_ORIGINS` names origins (or `*`), done by @fastify/cors. Its hook runs on `onRequest`
 * before authentication and the rate limit, so a preflight is answered 204 whatever credentials or limits the
 * caller has. Responses expose what WordPress exposes (`X-WP-Total, X-WP-TotalPages, Link`) and also the paging
 * headers this API actually sends (`X-TEC-Total`, `X-TEC-TotalPages`), which the original forgot, `Allow` and
 * `X-Request-Id`; requests may send WordPress' headers plus ours.
 *
 * The options are given per request (the library's `delegator`) for one reason: only an OPTIONS request that
 * carries `Access-Control-Request-Method` is a preflight. Any other OPTIONS request is WordPress' route
 * description (CONTRACT.md §0) and must reach its route, with CORS headers but not swallowed as a preflight
 * (the library's fixed options would answer it 204, or 400 in its strict mode). A side effect of per-request
 * options is `Vary: Origin` on every response once CORS is on, which a shared cache needs anyway: whether
 * `Access-Control-Allow-Origin` is sent depends on the request's `Origin`.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOW_HEADERS = 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-Request-Id';
const EXPOSE_HEADERS = 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, Allow, X-Request-Id';
/** Seconds a browser may keep a preflight's answer. */
const MAX_AGE = 600;

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const any = origins.includes('*');
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
        origin: origin === undefined ? false : any ? '*' : listed.has(origin) ? origin : false,
        preflight: request.headers['access-control-request-method'] !== undefined,
      });
    },
  });
}
