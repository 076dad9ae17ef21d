/** `GET /doc`: the OpenAPI document, generated once from the registered routes (spec §4.1, CONTRACT.md §1.2). */
import { Type } from '@sinclair/typebox';
import { buildOpenApiDocument } from '../../openapi.js';
import { type RouteRegistry, type RouteSpec, route } from '../../route.js';

export function docRoutes(registry: RouteRegistry): RouteSpec[] {
  let cached: { server: string; document: unknown } | undefined;
  return [
    route({
      methods: ['GET'],
      path: '/doc',
      summary: 'This API as an OpenAPI 3 document.',
      args: {},
      responses: { 200: Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.0 document.' }) },
      async handler(ctx) {
        const server = `${ctx.urls.namespace}/`;
        if (cached?.server !== server) cached = { server, document: buildOpenApiDocument(registry, { serverUrl: server }) };
        return { body: cached.document };
      },
    }),
  ];
}
