/**
 * buildApp(config, storage) → a Fastify instance with every plugin and route. It never listens: server.ts does,
 * and tests call `app.inject()`.
 */

import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { ServerOptions as HttpsOptions } from 'node:https';
import type { BusboyHeaders } from '@fastify/busboy';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import qs from 'qs';
import type { Config } from './config/config.js';
import { isAuthenticated } from './domain/actor.js';
import { ApiError, errors } from './domain/errors.js';
import { MAX_DOCUMENT_BYTES } from './domain/imports/fetch.js';
import { icsText, NOT_UTF8 } from './domain/imports/ics.structure.js';
import { canImport } from './domain/imports/import.service.js';
import { createServices, type Services } from './domain/services.js';
import { CATEGORIES, TAGS } from './domain/terms/term.js';
import type { WebhookObjects } from './domain/webhooks/webhook.service.js';
import { Fragments } from './http/fragments.js';
import { JSON_TYPE, parseJsonBody, registerGetJsonBodies } from './http/json-body.js';
import { multipartAsForm } from './http/multipart.js';
import { registerAuth } from './http/plugins/auth.plugin.js';
import { registerResponseCache } from './http/plugins/cache.plugin.js';
import { registerCors } from './http/plugins/cors.plugin.js';
import { registerEnvelope } from './http/plugins/envelope.plugin.js';
import { CALENDAR_TYPE, registerErrorHandling } from './http/plugins/errors.plugin.js';
import { registerEtags } from './http/plugins/etag.plugin.js';
import { registerFastRevalidation } from './http/plugins/fast-revalidation.js';
import { clientErrorHandler, registerRateLimit, socketTimeoutHandler } from './http/plugins/limits.plugin.js';
import { RouteRegistry } from './http/route.js';
import { termRoutes } from './http/routes/categories-tags/index.js';
import { docRoutes } from './http/routes/doc/index.js';
import { feedRoutes } from './http/routes/events/feed.routes.js';
import { icalRoutes } from './http/routes/events/ical.routes.js';
import { eventRoutes } from './http/routes/events/index.js';
import { registerServiceRoutes } from './http/routes/health/index.js';
import { IMPORTS_PATH, importRoutes } from './http/routes/imports/index.js';
import { registerMediaRoutes } from './http/routes/media/index.js';
import { namespaceRoutes } from './http/routes/namespace/index.js';
import { describeRoutes } from './http/routes/namespace/namespace.index.js';
import { icalAliasUrl } from './http/routes/site/ical-aliases.js';
import { linkedRoutes } from './http/routes/venues-organizers/index.js';
import { webhookRoutes } from './http/routes/webhooks/index.js';
import { canonicalUrl, logRequest, registerWordPressRoutes } from './http/routes/wordpress/index.js';
import { Turns } from './http/turns.js';
import { Urls } from './http/urls.js';
import { webhookObjects } from './http/webhook-objects.js';
import type { Storage } from './storage/storage.js';
import { getZone, utcMsToZonedWall } from './time/zones.js';
import { isPagePath, type Pages, registerPages } from './web/pages.routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    registry: RouteRegistry;
    /** What webhooks send of objects (the runner in server.ts takes it). */
    webhookObjects: WebhookObjects;
  }
}

export interface BuildOptions {
  /** Pino options, or false for no logging (tests). Defaults to the configured level. */
  logger?: FastifyServerOptions['logger'];
  /** Serve HTTPS with this certificate and key (TLS_CERT / TLS_KEY). */
  https?: { cert: Buffer; key: Buffer };
}

const QUERY_OPTIONS: qs.IParseOptions = {
  // a `%` that starts no escape is a `%`, as PHP reads it (qs would leave every escape of that text undecoded)
  decoder: (text, decode, charset) => decode(text.includes('%') ? text.replace(/%(?![0-9a-fA-F]{2})/g, '%25') : text, decode, charset),
  depth: 5,
  arrayLimit: 200,
  parameterLimit: 1000,
  duplicates: 'last',
  allowPrototypes: false,
};
const FORM_OPTIONS: qs.IParseOptions = { ...QUERY_OPTIONS, parameterLimit: 10_000 };

/**
 * A form-encoded body's parameters. UTF-8 or nothing, as JSON bodies: raw bytes and percent-escapes alike (qs
 * keeps a `%FF` it cannot decode as written, and a lenient decoding would store U+FFFD); the error names the
 * parameter.
 */
function formFields(body: Buffer): Record<string, unknown> | ApiError {
  const raw = body.toString('latin1');
  const field = raw === '' ? undefined : raw.split('&').find((pair) => !isUtf8(Buffer.from(percentDecodedBytes(pair), 'latin1')));
  if (field !== undefined) {
    const name = field.split('=', 1)[0];
    const key = isUtf8(Buffer.from(percentDecodedBytes(name), 'latin1')) ? qs.parse(name, FORM_OPTIONS) : {};
    return errors.invalidParam(Object.keys(key)[0] ?? 'body', 'Not valid UTF-8.');
  }
  return qs.parse(body.toString('utf8'), FORM_OPTIONS);
}

/** A form pair's bytes as a latin1 string: its `%XX` escapes decoded, everything else as sent. */
function percentDecodedBytes(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Every route of the namespace. Registration order is the order the index and /doc show, as in the original. */
export function createRegistry(): RouteRegistry {
  const registry = new RouteRegistry();
  registry.add(...namespaceRoutes(registry));
  registry.add(...docRoutes(registry));
  registry.add(...eventRoutes());
  registry.add(...linkedRoutes('venue'));
  registry.add(...linkedRoutes('organizer'));
  registry.add(...termRoutes(CATEGORIES));
  registry.add(...termRoutes(TAGS));
  // features the original lacks, after its own routes (FEATURES.md §0 C3)
  registry.add(...icalRoutes());
  registry.add(...feedRoutes());
  registry.add(...importRoutes());
  registry.add(...webhookRoutes());
  return registry;
}

export async function buildApp(config: Config, storage: Storage, options: BuildOptions = {}): Promise<FastifyInstance> {
  const http = { maxHeaderSize: 16 * 1024, connectionsCheckingInterval: Math.min(5000, Math.max(250, config.requestTimeoutMs / 2)) };
  // Fastify hands only `https` to the server it creates for TLS, so the HTTP options go in there too. The
  // https.Server has everything of the http.Server this app is typed with (timeouts, closeIdleConnections).
  const transport: { http?: typeof http; https?: HttpsOptions } = options.https ? { https: { ...http, ...options.https } } : { http };
  // before routing: the original's paths, `/wp-json/tribe/events/v1/…`, become the canonical ones, and its
  // iCalendar URLs (`/events/?ical=1`, `/event/<slug>/?ical=1`…) the REST feeds they stand for
  /** The HTML pages, once registered (PAGES on): the router's errors under their paths answer a page. */
  let pages: Pages | undefined;
  const rewriteUrl = (req: IncomingMessage) => {
    const url = icalAliasUrl(req.url ?? '/', () => utcMsToZonedWall(Date.now(), getZone(config.siteTimezone)), config.pages);
    return config.wpPaths ? canonicalUrl(url) : url;
  };
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, serializers: { req: logRequest } },
    rewriteUrl,
    bodyLimit: config.bodyLimit,
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
    // slow clients: the whole request must arrive in time; idle keep-alive sockets go after a while
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs * 2,
    keepAliveTimeout: 30_000,
    clientErrorHandler,
    // a URL the router cannot decode (`%zz`, a cut multi-byte sequence) gets the one error body too
    frameworkErrors: (error, request, reply) => {
      const e =
        error.code === 'FST_ERR_BAD_URL'
          ? errors.badRequest('The URL is not validly percent-encoded.')
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? errors.badRequest('A segment of the URL is longer than the 1,000 characters a parameter may hold.')
            : errors.badRequest(error.message);
      const json = () => void (reply as unknown as FastifyReply).code(e.status).type('application/json; charset=UTF-8').send(e.toBody());
      // under the pages' paths, the HTML 400 page (the API's JSON if that page cannot be built)
      if (pages && isPagePath(request.url)) {
        pages.badRequest(request as unknown as FastifyRequest, reply as unknown as FastifyReply, e.message).catch(json);
        return;
      }
      json();
    },
    ...transport,
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: 1000,
      querystringParser: (text: string) => qs.parse(text, QUERY_OPTIONS),
    },
  });

  // a request whose body stalls gets its 408 when its socket times out (limits.plugin.ts)
  app.server.on('timeout', socketTimeoutHandler);

  const urls = new Urls(config.publicUrl);
  const services = createServices(config, storage);
  const registry = createRegistry();
  app.decorate('services', services);
  app.decorate('registry', registry);
  app.decorate('webhookObjects', webhookObjects(services, urls));

  // Bodies: JSON and forms (form-encoded and multipart), like the original; anything else is a 415.
  app.removeAllContentTypeParsers();
  // (the media type may carry parameters: `application/json; charset=utf-8`)
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'buffer' }, (req, body, done) => {
    // no route: answered 404 whatever the body (the route is matched first)
    if (req.is404) return done(null, {});
    try {
      return done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      return done(error as Error, undefined);
    }
  });
  // .ics files, for the imports route alone (up to 10 MB whatever BODY_LIMIT says); elsewhere still a 415
  app.addContentTypeParser(CALENDAR_TYPE, { parseAs: 'buffer', bodyLimit: MAX_DOCUMENT_BYTES }, (req, body, done) => {
    if (req.is404) return done(null, {});
    const route = req.routeOptions.url ?? '';
    if (!route.endsWith(IMPORTS_PATH)) return done(errors.unsupportedMediaType(String(req.headers['content-type'] ?? '')), undefined);
    // UTF-8, as JSON and form bodies are (see icsText)
    const text = icsText(body as Buffer);
    return text === undefined ? done(errors.notICalendar(NOT_UTF8), undefined) : done(null, text);
  });
  // …and refused before it is read where it cannot be taken (another route, a caller who may not import): the
  // parser above runs only once all of it has arrived, which would hold 10 MB for anyone, on any route
  // (a callback hook: every request passes here, a promise apiece would be a cost for nothing)
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const type = request.headers['content-type'];
    if (request.is404 || type === undefined || !CALENDAR_TYPE.test(type)) return done(null, payload);
    if (!(request.routeOptions.url ?? '').endsWith(IMPORTS_PATH)) return done(errors.unsupportedMediaType(type));
    if (!canImport(request.actor)) return done(errors.forbidden(isAuthenticated(request.actor)));
    done(null, payload);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
    const form = formFields(body as Buffer);
    if (form instanceof ApiError) return done(form, undefined);
    done(null, form);
  });
  // multipart/form-data (curl -F, a browser's FormData): its fields are a form body as PHP reads one, files dropped
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (req, body, done) => {
    if (req.is404) return done(null, {});
    multipartAsForm(body as Buffer, req.headers as BusboyHeaders, config.bodyLimit).then(
      (encoded) => {
        const form = formFields(encoded);
        if (form instanceof ApiError) return done(form, undefined);
        done(null, form);
      },
      (error: unknown) => done(errors.invalidParam('body', `Not a multipart/form-data body: ${(error as Error).message}.`), undefined),
    );
  });

  registerErrorHandling(app, storage, config.bodyLimit, IMPORTS_PATH);
  // Fastify's 404 router parses query strings with its own parser, not the one above: parse them the same
  // way, so that `_envelope[x]` or `_jsonp[]` mean on an unknown path what they mean on a known one.
  app.addHook('onRequest', async (request) => {
    if (!request.is404) return;
    const at = request.url.indexOf('?');
    request.query = at < 0 ? {} : qs.parse(request.url.slice(at + 1), QUERY_OPTIONS);
  });
  await registerCors(app, config.corsOrigins);
  await registerRateLimit(app, config.rateLimit, config.redis);
  registerAuth(app, services.users, storage);
  registerEtags(app);
  registerGetJsonBodies(app, config.bodyLimit);
  const cache = registerResponseCache(app, services, config.cacheBytes);
  // a current copy's revalidation answered before the framework (not where a rate limit counts every request)
  if (cache && !config.rateLimit) registerFastRevalidation(app, cache, services, rewriteUrl);
  // reads that do work take turns of the event loop when they crowd it (turns.ts); the cache's answers are sent before this
  const turns = new Turns();
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const turn = turns.take();
    if (turn) await turn;
  });

  // WordPress' API discovery: its root index, which lists the namespaces (the original's `/wp-json/`, where a
  // client that discovers the API this way finds `tribe/events/v1`; without WP_PATHS, this service's root)
  const apiLink = `<${urls.home}/${config.wpPaths ? 'wp-json/' : ''}>; rel="https://api.w.org/"`;
  app.addHook('onSend', async (request, reply, payload) => {
    // the API is not for search engines; the calendar's pages are
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) reply.header('X-Robots-Tag', 'noindex');
    reply.header('X-Content-Type-Options', 'nosniff');
    // WordPress' no-cache headers for logged-in users
    if (request.actor?.kind === 'user') {
      reply.header('Cache-Control', 'no-cache, must-revalidate, max-age=0, no-store, private');
      reply.header('Expires', 'Wed, 11 Jan 1984 05:00:00 GMT');
    }
    reply.header('Link', apiLink);
    reply.header('X-Request-Id', request.id);
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) {
      reply.header('content-type', 'application/json; charset=UTF-8');
    }
    return payload;
  });

  registerEnvelope(app);

  registry.mount(app, services, urls, (path) => Object.values(describeRoutes(registry, urls, path))[0], {
    requireIfMatch: config.requireIfMatch,
    fragments: new Fragments(config.fragmentBytes),
  });
  registerServiceRoutes(app, services, registry, urls, { name: config.siteName, description: config.siteDescription, timezone: config.siteTimezone });
  // image files a site import downloaded, pages or not (their URLs are in the API's `image` objects)
  registerMediaRoutes(app, services);
  if (config.wpPaths) registerWordPressRoutes(app, registry, urls, config);
  if (config.pages) pages = registerPages(app, config, urls);

  return app;
}
