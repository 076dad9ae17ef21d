/**
 * How a route is declared: methods, a path under the namespace, its arguments (TypeBox schemas with
 * WordPress-style checks), its response schemas per status, an optional permission check, and a thin handler.
 * The registry turns declarations into Fastify routes and into the namespace index (and, later, /doc).
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../domain/actor.js';
import { isAuthenticated } from '../domain/actor.js';
import { errors } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { resolveArgs, type Args } from './params.js';
import { NAMESPACE, type Urls } from './urls.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const UPDATE_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];

export interface RouteContext {
  readonly args: Record<string, any>;
  readonly actor: Actor;
  readonly services: Services;
  readonly urls: Urls;
  readonly request: FastifyRequest;
}

export interface RouteResponse {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string | number>>;
}

export interface RouteSpec {
  readonly methods: readonly HttpMethod[];
  /** Path under the namespace; `:id` matches digits, any other `:name` one path segment. */
  readonly path: string;
  readonly summary: string;
  readonly args: Args<Services>;
  /** Response body schema per status code (documentation and serialisation). */
  readonly responses?: Readonly<Record<number, TSchema>>;
  /** WordPress' permission_callback: runs after validation; false → 401/403 `rest_forbidden`. */
  readonly permission?: (actor: Actor, args: Record<string, any>) => boolean;
  readonly handler: (ctx: RouteContext) => Promise<RouteResponse>;
}

/** WordPress' route pattern for a path: `/events/:id` → `/events/(?P<id>\d+)`. */
export function wpPattern(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? `(?P<id>\\d+)` : `(?P<${name}>[^/]+)`));
}

function fastifyPath(path: string): string {
  return path.replace(/:id\b/g, ':id(^\\d+$)');
}

function bodyObject(body: unknown): Record<string, unknown> | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The routes of the namespace, in registration order (the order the index and the documentation show). */
export class RouteRegistry {
  readonly specs: RouteSpec[] = [];

  add(...specs: RouteSpec[]): this {
    this.specs.push(...specs);
    return this;
  }

  mount(app: FastifyInstance, services: Services, urls: Urls): void {
    for (const spec of this.specs) {
      // Response schemas document the routes, but do not drive serialisation: the serializers fix every key's
      // order (fast-json-stringify would move optional keys behind the required ones).
      app.route({
        method: [...spec.methods],
        url: `/${NAMESPACE}${fastifyPath(spec.path)}`.replace(/\/$/, '') || '/',
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const args = await resolveArgs(
            spec.args,
            {
              path: (request.params ?? {}) as Record<string, unknown>,
              body: bodyObject(request.body),
              query: (request.query ?? {}) as Record<string, unknown>,
            },
            services,
            request.actor,
          );
          const actor = request.actor;
          if (spec.permission && !spec.permission(actor, args)) throw errors.forbidden(isAuthenticated(actor));
          const result = await spec.handler({ args, actor, services, urls, request });
          reply.code(result.status ?? 200);
          if (result.headers) for (const [k, v] of Object.entries(result.headers)) reply.header(k, v);
          return result.body;
        },
      });
    }
  }
}
