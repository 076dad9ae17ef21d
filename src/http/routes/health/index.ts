/** Outside the namespace: `GET /healthz` (200 while the database answers) and the root index `GET /`. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../domain/services.js';
import type { RouteRegistry } from '../../route.js';
import { NAMESPACE, type Urls } from '../../urls.js';
import { describeRoutes } from '../namespace/namespace.index.js';

export function registerServiceRoutes(app: FastifyInstance, services: Services, registry: RouteRegistry, urls: Urls) {
  app.get('/healthz', async (request, reply) => {
    const health = await services.health();
    if (health.ok) return { status: 'ok', database: health.database };
    request.log.error({ err: health.error }, 'health check: database not answering');
    return reply.code(503).send({ status: 'unavailable', database: health.database });
  });

  app.get('/', async () => ({
    name: 'Events Calendar',
    description: 'Events, venues, organizers, event categories and tags over HTTP.',
    url: urls.home,
    home: urls.home,
    timezone_string: services.siteTimezone,
    namespaces: [NAMESPACE],
    routes: describeRoutes(registry, urls),
    _links: { help: [{ href: `${urls.namespace}/doc` }] },
  }));
}
