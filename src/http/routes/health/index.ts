/** Outside the namespace: `GET /healthz` (200 while the database answers) and the root index `GET /`. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../domain/services.js';
import type { RouteRegistry } from '../../route.js';
import { NAMESPACE, type Urls } from '../../urls.js';
import { describeRoutes } from '../namespace/namespace.index.js';
import { type SiteFacts, wordpressTimezone } from '../wordpress/wordpress.index.js';

export function registerServiceRoutes(app: FastifyInstance, services: Services, registry: RouteRegistry, urls: Urls, site: SiteFacts) {
  app.get('/healthz', async (request, reply) => {
    const health = await services.health();
    if (health.ok) return { status: 'ok', database: health.database };
    request.log.error({ err: health.error }, 'health check: database not answering');
    return reply.code(503).send({ status: 'unavailable', database: health.database });
  });

  // the same site facts as WordPress' root index at /wp-json/ (routes/wordpress), for our own namespace
  app.get('/', async () => ({
    name: site.name,
    description: site.description,
    url: urls.home,
    home: urls.home,
    ...wordpressTimezone(site.timezone, Date.now()),
    namespaces: [NAMESPACE],
    routes: describeRoutes(registry, urls),
    _links: { help: [{ href: `${urls.namespace}/doc` }] },
  }));
}
