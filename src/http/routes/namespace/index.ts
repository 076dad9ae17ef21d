/** `GET /calendar/events/v1`: the namespace index (spec §4.2, CONTRACT.md §1.1). */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import { arg } from '../../params.js';
import { type RouteRegistry, type RouteSpec, route } from '../../route.js';
import { NAMESPACE } from '../../urls.js';
import { describeRoutes } from './namespace.index.js';

export function namespaceRoutes(registry: RouteRegistry): RouteSpec[] {
  return [
    route({
      methods: ['GET'],
      path: '',
      summary: 'Describe the namespace: every route, its methods and arguments.',
      errors: [404],
      args: {
        namespace: arg(Type.String(), { default: NAMESPACE }),
        context: arg(Type.String(), { default: 'view' }),
      },
      async handler(ctx) {
        if (ctx.args.namespace !== NAMESPACE) throw errors.invalidNamespace();
        return {
          body: {
            namespace: NAMESPACE,
            routes: describeRoutes(registry, ctx.urls),
            _links: { up: [{ href: `${ctx.urls.home}/` }] },
          },
        };
      },
    }),
  ];
}
