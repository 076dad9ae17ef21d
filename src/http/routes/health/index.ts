/** Outside the namespace: `GET /healthz` (200 while the database answers) and the root index `GET /`. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../domain/services.js';
import type { RouteRegistry } from '../../route.js';
import { NAMESPACE, type Urls } from '../../urls.js';
import { describeRoutes } from '../namespace/namespace.index.js';

export function registerServiceRoutes(app: FastifyInstance, services: Services, registry: RouteRegistry, urls: Urls) {
  app.get('/healthz', async (request, reply) => {
    try {
      await services.storage.ping();
      return { status: 'ok', database: services.storage.dialect.name };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database not answering');
      return reply.code(503).send({ status: 'unavailable', database: services.storage.dialect.name });
    }
  });

  app.get('/', async () => ({
    name: 'Events Calendar',
    description: 'Events, venues, organizers, event categories and tags over HTTP.',
    url: urls.home,
    home: urls.home,
    timezone_string: services.config.siteTimezone,
    namespaces: [NAMESPACE],
    routes: describeRoutes(registry, urls),
    _links: { help: [{ href: `${urls.namespace}/doc` }] },
  }));
}
