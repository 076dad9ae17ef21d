/**
 * `GET /media/<sha256>.<ext>` (and HEAD): the image files this service keeps (a site import's `--images
 * download`), at the root of PUBLIC_URL beside the pages, whether the pages are on or not. A name is the hash of
 * the bytes, so an answer never changes: its ETag is the hash and any cache may keep it for a year. Served as
 * the type its bytes were read as, never sniffed again by a browser, under a policy that runs nothing
 * (`default-src 'none'; sandbox`: opened on its own, an image cannot be made a page of this origin). Any other
 * name is a 404 with the one error body.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../domain/services.js';
import { matchesEtag } from '../../conditional.js';

export const MEDIA_PREFIX = '/media/';

const CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function registerMediaRoutes(app: FastifyInstance, services: Services): void {
  app.route<{ Params: { name: string } }>({
    method: ['GET', 'HEAD'],
    url: `${MEDIA_PREFIX}:name`,
    // the same bytes for every caller: an authenticated one's no-cache headers and `Vary` (app.ts, the ETag
    // plugin) do not apply (route hooks run after the app's)
    onSend: async (_request, reply, payload) => {
      if (reply.statusCode === 200 || reply.statusCode === 304) {
        reply.header('Cache-Control', CACHE_CONTROL);
        reply.removeHeader('Expires');
        reply.removeHeader('Vary');
      }
      return payload;
    },
    handler: async (request, reply) => {
      const name = request.params.name;
      const head = request.method === 'HEAD';
      const conditional = matchesEtag(request.headers['if-none-match'], `"${name.split('.')[0]}"`);
      const { info, bytes } = head || conditional ? { info: await services.media.describe(name), bytes: undefined } : await services.media.read(name);
      reply
        .header('Content-Type', info.mimeType)
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .header('X-Content-Type-Options', 'nosniff')
        .header('ETag', `"${info.sha256}"`)
        .header('Cache-Control', CACHE_CONTROL);
      if (conditional) return reply.code(304).send();
      if (head) return reply.header('Content-Length', info.size).send();
      return reply.send(bytes);
    },
  });
}
