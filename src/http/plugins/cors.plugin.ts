/**
 * CORS, off unless `CORS_ORIGINS` names origins (or `*`). Preflights are answered before authentication.
 * Responses expose what WordPress exposes (`X-WP-Total, X-WP-TotalPages, Link`) and also the paging headers
 * this API actually sends (`X-TEC-Total`, `X-TEC-TotalPages`), which the original forgot, `Allow` and
 * `X-Request-Id`; requests may send WordPress' headers plus ours.
 */
import type { FastifyInstance } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOW_HEADERS = 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-Request-Id';
const EXPOSE_HEADERS = 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, Allow, X-Request-Id';

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (any || origins.includes(origin));

  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!allowed(origin)) return;
    reply.header('Access-Control-Allow-Origin', any ? '*' : origin);
    if (!any) reply.header('Vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      return reply
        .code(204)
        .header('Access-Control-Allow-Methods', ALLOW_METHODS)
        .header('Access-Control-Allow-Headers', ALLOW_HEADERS)
        .header('Access-Control-Max-Age', '600')
        .send();
    }
    reply.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  });
}
