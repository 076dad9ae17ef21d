/**
 * The original's paths. Clients of the original take only a site URL and append `/wp-json/tribe/events/v1/…`
 * themselves, so they cannot be pointed at `/calendar/events/v1` by configuration. Requests under that prefix
 * are rewritten to the canonical namespace before routing (Fastify's `rewriteUrl`), so every route, method,
 * hook and plugin (auth, rate limit, response cache, `_method`, `_envelope`, `_jsonp`, `_fields`) runs exactly
 * as on the canonical path, and the response cache shares its entries between both spellings (the answers
 * are the same bytes: emitted URLs always use the canonical namespace).
 */
import type { FastifyRequest } from 'fastify';
import { NAMESPACE } from '../../urls.js';

export const WP_ROOT = '/wp-json';
export const WP_NAMESPACE = 'tribe/events/v1';

// Repeated slashes are tolerated as on the canonical path (the router ignores duplicate slashes); the prefix
// must end at a segment boundary, so `/wp-json/tribe/events/v10` stays a 404.
const PREFIX = /^\/+wp-json\/+tribe\/+events\/+v1(?=[/?]|$)/;

/** `/wp-json/tribe/events/v1/events?x=1` → `/calendar/events/v1/events?x=1`; any other URL as it is. */
export function canonicalUrl(url: string): string {
  const m = PREFIX.exec(url);
  return m ? `/${NAMESPACE}${url.slice(m[0].length)}` : url;
}

/**
 * Pino's request serializer with the URL as the client sent it: after a rewrite `request.url` is the
 * canonical one, and the log should show which clients still use the original's paths.
 */
export function logRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.originalUrl ?? request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
