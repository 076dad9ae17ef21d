/**
 * The WordPress root index `GET /wp-json/` (HEAD too, and OPTIONS as WordPress answers it). The namespace
 * itself is served under `/wp-json/tribe/events/v1` by the URL rewrite in `wordpress.paths.ts`. Both are
 * registered only with `WP_PATHS` on.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config/config.js';
import { filterFields, parseFields } from '../../fields.js';
import type { RouteRegistry } from '../../route.js';
import type { Urls } from '../../urls.js';
import { rootRouteEntry, wordpressRootIndex, wordpressRoutes } from './wordpress.index.js';
import { WP_ROOT } from './wordpress.paths.js';

export { canonicalUrl, logRequest } from './wordpress.paths.js';

export function registerWordPressRoutes(app: FastifyInstance, registry: RouteRegistry, urls: Urls, config: Config): void {
  const site = { name: config.siteName, description: config.siteDescription, timezone: config.siteTimezone };
  // the registry is complete once routes are mounted; the gmt_offset is computed per request (DST)
  let routes: ReturnType<typeof wordpressRoutes> | undefined;

  // (the router's ignoreTrailingSlash serves `/wp-json/` as well)
  app.get(WP_ROOT, async (request, reply) => {
    routes ??= wordpressRoutes(registry, urls);
    const body = wordpressRootIndex(site, urls, routes, Date.now());
    reply.header('Allow', 'GET');
    const fields = parseFields((request.query as Record<string, unknown> | undefined)?._fields);
    return fields ? filterFields(body, fields) : body;
  });

  app.options(WP_ROOT, async (request, reply) => {
    reply.header('Allow', 'GET');
    const fields = parseFields((request.query as Record<string, unknown> | undefined)?._fields);
    return fields ? filterFields(rootRouteEntry(urls), fields) : rootRouteEntry(urls);
  });
}
