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
import { ifMatchHolds, noneMatchFails, type WriteConditions, writeConditions } from './conditional.js';
import { filterFields, parseFields } from './fields.js';
import { Fragments, RawJson } from './fragments.js';
import { type Args, type Resolved, resolveArgs } from './params.js';
import { NAMESPACE, type Urls } from './urls.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The data version read for this request when neither the response cache nor the credentials' check had (requestVersion). */
    versionRead?: Promise<number>;
  }
}

/**
 * The data version a request's kept answers are checked against: the one the response cache or the check of a
 * caller's credentials read (before anything else), else one read now, once per request — what the arguments'
 * checks (a category filter's tree) and the route (kept fragments) share.
 */
export function requestVersion(request: FastifyRequest, services: Services): Promise<number> {
  if (request.cacheVersion !== undefined) return Promise.resolve(request.cacheVersion);
  request.versionRead ??= services.dataVersion();
  return request.versionRead;
}

/** The Content-Type of a JSON answer (WordPress' spelling; app.ts writes it on every JSON answer). */
const JSON_TYPE = 'application/json; charset=UTF-8';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const UPDATE_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];

export interface RouteContext<R = Readonly<Record<string, unknown>>> {
  /** The route's arguments, resolved and typed from its declarations, by domain name. */
  readonly args: R;
  readonly actor: Actor;
  readonly services: Services;
  readonly urls: Urls;
  readonly request: FastifyRequest;
  /** The declaration being served (collections read how each argument is carried into emitted URLs). */
  readonly spec: RouteSpec;
  /** What the request sent, by wire name: the query string and the body's fields (for `carry: 'given'/'raw'`). */
  readonly sent: Readonly<Record<string, unknown>>;
  /** Whether the request body (not the path or query) has this field: by-slug renames, tags' `parent`. */
  bodyHas(name: string): boolean;
  /**
   * A conditional write's (If-Match or If-Unmodified-Since held, see RouteSpec.item): the version of the item
   * the condition was checked against, which the service's write must find unchanged. Undefined otherwise.
   */
  readonly ifVersion: number | undefined;
  /** Serialised items of lists, kept per item (see fragments.ts). */
  readonly fragments: Fragments;
}

/** What an item lookup gets: the caller, and the path's parameters as sent. */
export interface ItemContext {
  readonly actor: Actor;
  readonly services: Services;
  readonly urls: Urls;
  readonly params: Readonly<Record<string, string>>;
}

/** The item a write route names, as a GET of it answers this caller now (conditional requests). */
export interface ItemState {
  /** The ETag of that GET; undefined when it is not a 200 (the caller may not read the item, or it is in the trash). */
  readonly etag: string | undefined;
  /** Its Last-Modified, in ms. */
  readonly modifiedMs: number;
  /** The version of its row when it was read (read before anything else of it). */
  readonly version: number;
}

export interface RouteResponse {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string | number>>;
}

export interface RouteSpec<A extends Args = Args> {
  readonly methods: readonly HttpMethod[];
  /** Path under the namespace; `:id` matches digits, any other `:name` one path segment. */
  readonly path: string;
  readonly summary: string;
  readonly args: A;
  /** Response body schema per status code (documentation and serialisation). */
  readonly responses?: Readonly<Record<number, TSchema>>;
  /** Body fields a handler reads itself, beside the arguments (documentation only). */
  readonly bodyOnly?: Args;
  /** A body taken as it is, beside JSON and form bodies (documentation; the app parses that type for the route). */
  readonly rawBody?: { readonly type: string; readonly description: string };
  /** Error statuses the route can answer besides 400 and 401 (documentation). */
  readonly errors?: readonly number[];
  /** OpenAPI callbacks: requests the service makes because of this call (documentation; webhooks' deliveries). */
  readonly callbacks?: Readonly<Record<string, unknown>>;
  /** WordPress' permission_callback: runs after validation; false → 401/403 `rest_forbidden`. */
  readonly permission?: (actor: Actor, args: Resolved<A>) => boolean;
  /**
   * Whether this caller may call the route's methods on what the path names (its raw path parameters), for
   * the `Allow` header, which lists only those. Absent: anyone may.
   */
  readonly allowed?: (actor: Actor, params: Readonly<Record<string, string>>, services: Services) => boolean | Promise<boolean>;
  /**
   * Writes of an item (FEATURES.md §2.3): the item the path names as its GET answers the caller now, undefined
   * when there is none. Declared, `If-Match` and `If-Unmodified-Since` count on the route's writes (412 when they
   * do not hold, 428 under REQUIRE_IF_MATCH when neither is sent), and the handler gets `ifVersion`.
   */
  readonly item?: (ctx: ItemContext) => Promise<ItemState | undefined>;
  /** A read whose 200 carries `Last-Modified` (an item, a feed): documented so in `/doc`. */
  readonly lastModified?: true;
  readonly handler: (ctx: RouteContext<Resolved<A>>) => Promise<RouteResponse>;
}

/**
 * Declares a route: `args` types the handler's `ctx.args` (and `permission`'s), so a misspelt argument or a
 * wrong type fails to compile. The registry keeps routes without their argument types.
 */
export function route<A extends Args>(spec: RouteSpec<A>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** WordPress' route pattern for a path: `/events/:id` → `/events/(?P<id>\d+)`. */
export function wpPattern(path: string): string {
  return path.replace(/\./g, '\\.').replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? `(?P<id>\\d+)` : `(?P<${name}>[^/]+)`));
}

function fastifyPath(path: string): string {
  // (a suffix in the same segment, `:id.ics`, follows the pattern, so it cannot end it)
  return path.replace(/:id\b(\.\w+)?/g, (_, suffix?: string) => (suffix ? `:id(^\\d+)${suffix}` : ':id(^\\d+$)'));
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

  /** The specs of each path, in registration order. */
  byPath(): Map<string, RouteSpec[]> {
    const paths = new Map<string, RouteSpec[]>();
    for (const spec of this.specs) paths.set(spec.path, [...(paths.get(spec.path) ?? []), spec]);
    return paths;
  }

  /**
   * One Fastify route per path: it picks the spec by method (`_method` / `X-HTTP-Method-Override` turn a POST
   * into another method, as in WordPress), runs the argument rules, the permission check and the handler,
   * applies `_fields`, and sends `Allow`. OPTIONS answers with the route's description.
   */
  mount(
    app: FastifyInstance,
    services: Services,
    urls: Urls,
    describe: (path: string) => unknown,
    /** REQUIRE_IF_MATCH: writes of an existing item without a condition answer 428. */
    options: { requireIfMatch?: boolean; fragments?: Fragments } = {},
  ): void {
    const fragments = options.fragments ?? new Fragments(0);
    for (const [path, specs] of this.byPath()) {
      const byMethod = new Map<string, RouteSpec>();
      for (const spec of specs) for (const m of spec.methods) byMethod.set(m, spec);
      // WordPress' Allow: the methods whose permission check this caller passes, on what the path names
      const allow = async (request: FastifyRequest) => {
        const params = (request.params ?? {}) as Record<string, string>;
        const verdicts = new Map<RouteSpec, boolean>();
        for (const spec of specs) verdicts.set(spec, spec.allowed ? await spec.allowed(request.actor, params, services) : true);
        return [...byMethod]
          .filter(([, spec]) => verdicts.get(spec))
          .map(([m]) => m)
          .join(', ');
      };
      const url = `/${NAMESPACE}${fastifyPath(path)}`.replace(/\/$/, '') || '/';

      // the arguments, the permission, the conditions and the handler: the answer of a request the path and method matched
      const answer = async (request: FastifyRequest, reply: FastifyReply, method: string, spec: RouteSpec) => {
        const query = (request.query ?? {}) as Record<string, unknown>;
        const body = bodyObject(request.body);
        const actor = request.actor;
        const params = (request.params ?? {}) as Record<string, string>;
        const conditional = spec.item !== undefined && method !== 'GET';
        const conditions = conditional ? writeConditions(request.headers) : undefined;
        const itemContext: ItemContext = { actor, services, urls, params };
        const args = await resolveArgs(spec.args, { path: params, body, query }, services, actor, () => requestVersion(request, services)).catch(
          async (error: unknown) => {
            // a path that names no item (an unknown id or slug is an invalid argument) fails If-Match (RFC 9110 §13.1.1)
            if (conditions?.ifMatch !== undefined && (await spec.item?.(itemContext)) === undefined) throw errors.preconditionFailed();
            throw error;
          },
        );
        if (spec.permission && !spec.permission(actor, args)) throw errors.forbidden(isAuthenticated(actor));
        const ifVersion =
          conditional && (conditions || options.requireIfMatch)
            ? await precondition(spec, conditions, itemContext, options.requireIfMatch === true)
            : undefined;
        const sent = { ...query, ...body };
        const bodyHas = (name: string) => body !== undefined && Object.hasOwn(body, name);
        const result = await spec.handler({ args, actor, services, urls, request, spec, sent, bodyHas, ifVersion, fragments });
        reply.code(result.status ?? 200);
        reply.header('Allow', await allow(request));
        if (result.headers) for (const [k, v] of Object.entries(result.headers)) reply.header(k, v);
        const fields = parseFields(query._fields);
        if (result.body instanceof RawJson) {
          if (fields) return filterFields(JSON.parse(result.body.json), fields);
          // (a string is sent as it is, typed as JSON here: the answer of the object it stands for; its known
          // ETag saves hashing it again, unless `_envelope` or `_jsonp` will rewrite it, which then has none)
          reply.type(JSON_TYPE);
          if (result.body.etag !== undefined && query._envelope === undefined && query._jsonp === undefined) reply.header('ETag', result.body.etag);
          return result.body.json;
        }
        return fields ? filterFields(result.body, fields) : result.body;
      };
      // Response schemas document the routes, but do not drive serialisation: the serializers fix every key's
      // order (fast-json-stringify would move optional keys behind the required ones).
      app.route({
        method: [...byMethod.keys()] as HttpMethod[],
        url,
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const method = effectiveMethod(request);
          const spec = byMethod.get(method);
          if (!spec) throw errors.noRoute();
          try {
            return await answer(request, reply, method, spec);
          } catch (error) {
            // WordPress sends Allow on every answer of a matched route, its errors too (rest_send_allow_header)
            const allowed = await allow(request).catch(() => undefined);
            if (allowed !== undefined) reply.header('Allow', allowed);
            throw error;
          }
        },
      });
      app.route({
        method: 'OPTIONS',
        url,
        handler: async (request, reply) => {
          reply.header('Allow', await allow(request));
          // (WordPress filters this answer by `_fields` as any other: rest_filter_response_fields)
          const fields = parseFields((request.query as Record<string, unknown> | undefined)?._fields);
          return fields ? filterFields(describe(path), fields) : describe(path);
        },
      });
    }
  }
}

/**
 * A write's conditions (RFC 9110 §13.2.2), after its arguments and permission: a caller who may not write gets
 * that answer, not a verdict on the condition; an item that does not exist fails If-Match (else the write
 * answers as without conditions); If-Match holds when one of its tags is the item's ETag now (strong comparison)
 * or is `*`; If-Unmodified-Since, when there is no If-Match, when the item was not modified after it; neither
 * sent is a 428 under REQUIRE_IF_MATCH. Answers the version the write must find unchanged.
 */
async function precondition(
  spec: RouteSpec,
  conditions: WriteConditions | undefined,
  ctx: ItemContext,
  requireIfMatch: boolean,
): Promise<number | undefined> {
  if (spec.allowed && !(await spec.allowed(ctx.actor, ctx.params, ctx.services))) throw errors.forbidden(isAuthenticated(ctx.actor));
  const current = await spec.item?.(ctx);
  if (!current) {
    if (conditions?.ifMatch !== undefined) throw errors.preconditionFailed();
    return undefined;
  }
  if (conditions?.ifMatch !== undefined) {
    if (!ifMatchHolds(conditions.ifMatch, current.etag, true)) throw errors.preconditionFailed();
  } else if (conditions?.ifUnmodifiedSince !== undefined) {
    if (current.modifiedMs > conditions.ifUnmodifiedSince) throw errors.preconditionFailed();
  } else if (requireIfMatch) throw errors.preconditionRequired();
  // the item is there: a write that must not overwrite it (`*`), or this state of it, does not
  if (conditions?.ifNoneMatch !== undefined && noneMatchFails(conditions.ifNoneMatch, current.etag)) throw errors.preconditionFailed();
  // (the write then holds the version it checked: it fails if another writes first)
  return conditions?.ifMatch !== undefined || conditions?.ifUnmodifiedSince !== undefined ? current.version : undefined;
}

/**
 * POST with `_method` or `X-HTTP-Method-Override` acts as that method; HEAD runs the GET route. As in WordPress
 * (WP_REST_Server::serve_request), `_method` is read first and the header only without it.
 */
function effectiveMethod(request: FastifyRequest): string {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (method !== 'POST') return method;
  const query = (request.query as Record<string, unknown> | undefined)?._method;
  const header = request.headers['x-http-method-override'];
  const override = typeof query === 'string' && query !== '' ? query : typeof header === 'string' ? header : undefined;
  return override ? override.toUpperCase() : method;
}
