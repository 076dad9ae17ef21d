/**
 * The calendar's HTML pages at the original's permalinks (FEATURES.md §5.3, issue 14): `/events/` (the default
 * view), `/events/list/` (upcoming, paged; `?eventDisplay=past`), `/events/month/[YYYY-MM/]`, `/events/today/`
 * and `/events/YYYY-MM-DD/`, the same under `/events/category/<path>/` and `/events/tag/<slug>/`, `/event/<slug>/`
 * and `/event/<slug>/<YYYY-MM-DD>/`, `/venue/<slug>/`, `/organizer/<slug>/`; the embed; static assets. Handlers
 * read the URL, call the page builders and render; anything that names nothing is the 404 page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { ANONYMOUS } from '../domain/actor.js';
import { termText } from '../domain/content/html.js';
import type { Urls } from '../http/urls.js';
import { dayModel, listModel, monthModel, type PageContext, siteToday } from './calendar.pages.js';
import { type ChromeOptions, chrome } from './chrome.js';
import { embedHeaders, registerEmbed } from './embed.routes.js';
import { eventPage, linkedPage, postPage } from './entity.routes.js';
import { type ViewBase, type ViewName, viewUrl } from './links.js';
import { type PageFilters, parsePageFilters, resolveFilters } from './page-filters.js';
import { registerRedirects } from './redirects.routes.js';
import { ASSETS, eta, sendPage } from './render.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

/**
 * Years a view may show: a view reads the days around it (the month grid's weeks, a day either side, the next
 * month's link), which must still be four-digit years.
 */
const viewableYear = (year: string) => Number(year) >= 1001 && Number(year) <= 9998;

/** A real day of a viewable year, or undefined. */
export function validDay(s: string | undefined): string | undefined {
  const m = s === undefined ? null : DAY.exec(s);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return viewableYear(m[1]) && d.toISOString().slice(0, 10) === s ? s : undefined;
}

export function validMonth(s: string | undefined): string | undefined {
  const m = s === undefined ? null : MONTH.exec(s);
  return m && viewableYear(m[1]) && Number(m[2]) >= 1 && Number(m[2]) <= 12 ? s : undefined;
}

export interface ViewAt {
  readonly date?: string;
  readonly page?: number;
  readonly past?: boolean;
}

export class Pages {
  constructor(
    readonly app: FastifyInstance,
    readonly config: Config,
    readonly urls: Urls,
  ) {}

  context(request: FastifyRequest): PageContext {
    // (a request the router refused, a bad URL, has met no hook: its visitor is anonymous)
    return { actor: request.actor ?? ANONYMOUS, services: this.app.services, urls: this.urls, nowMs: Date.now() };
  }

  headers(apiRoot: string, frameAncestors = "'self'") {
    return { frameAncestors, apiRoot, apiOrigin: `${this.urls.home}/` };
  }

  /** The REST root of a view (CONTRACT.md §9.6): the namespace, or the events list with the view's filter. */
  viewApiRoot(base: ViewBase, filters: PageFilters): string {
    if (base.term) return this.urls.rest(`/events/?${base.term.kind === 'category' ? 'categories' : 'tags'}=${encodeURIComponent(base.term.slug)}`);
    if (filters.venue !== undefined) return this.urls.rest(`/events/?venue=${filters.venue}`);
    if (filters.featured) return this.urls.rest('/events/?featured=1');
    return `${this.urls.namespace}/`;
  }

  /** The 404 page; in the embed, one the embed's framers may frame, without the site's chrome. */
  notFound(request: FastifyRequest, reply: FastifyReply, what = 'This page', embed = false): Promise<FastifyReply> {
    return this.errorPage(request, reply, 404, 'Not found', './not-found', { what }, embed);
  }

  /** The 400 page: for a page URL the router could not read (`%zz`, a cut UTF-8 sequence). */
  badRequest(request: FastifyRequest, reply: FastifyReply, message: string): Promise<FastifyReply> {
    return this.errorPage(request, reply, 400, 'Bad request', './bad-request', { message });
  }

  /** An error page: the site's chrome (none in the embed) around its template. */
  private async errorPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    title: string,
    template: string,
    data: Record<string, string>,
    embed = false,
  ): Promise<FastifyReply> {
    const apiRoot = `${this.urls.namespace}/`;
    const page = await chrome(this.context(request), this.config, {
      title,
      base: { path: `${this.urls.home}/events` },
      filters: parsePageFilters({}),
      apiRoot,
      embed,
    });
    const html = eta.render(template, { ...page, ...data });
    return sendPage(request, reply, html, embed ? embedHeaders(this, apiRoot) : this.headers(apiRoot), status);
  }

  /** One of the three views, of the whole calendar or of a category's or tag's. */
  async view(request: FastifyRequest, reply: FastifyReply, base: ViewBase, view: ViewName, at: ViewAt, options: Partial<ChromeOptions> = {}) {
    const ctx = this.context(request);
    const query = parsePageFilters(request.query as Record<string, unknown>);
    // a category's or tag's view shows that term's events: a `categories` (or `tags`) in its query string is left
    // out, so that the heading, the events, the subscribe links and the API root say the same
    const given: PageFilters =
      base.term?.kind === 'category' ? { ...query, categories: [] } : base.term?.kind === 'tag' ? { ...query, tags: [] } : query;
    const filters: PageFilters =
      base.term?.kind === 'category'
        ? { ...given, categories: [base.term.slug] }
        : base.term?.kind === 'tag'
          ? { ...given, tags: [base.term.slug] }
          : given;
    const resolved = await resolveFilters(ctx.services, ctx.actor, filters);
    const today = siteToday(ctx);
    const apiRoot = this.viewApiRoot(base, filters);
    const page = await chrome(ctx, this.config, { base, filters, given, view, at, apiRoot, ...options });
    let html: string;
    if (view === 'month') {
      // (a ?date that names no month is left out, as every filter that does not parse)
      const month = at.date?.slice(0, 7) ?? validMonth(filters.date?.slice(0, 7)) ?? today.slice(0, 7);
      const model = await monthModel(ctx, month, resolved);
      html = eta.render('./month', {
        ...page,
        month: model,
        dayUrl: (d: string) => viewUrl(base, 'day', given, { date: d }),
        monthUrl: (m: string) => viewUrl(base, 'month', given, { date: m }),
      });
    } else if (view === 'day') {
      const day = at.date ?? (filters.date && validDay(filters.date) ? filters.date : today);
      const model = await dayModel(ctx, day, resolved);
      html = eta.render('./day', { ...page, day: model, dayUrl: (d: string) => viewUrl(base, 'day', given, { date: d }) });
    } else {
      // a date in the filter bar (`date`, the original's `tribe-bar-date`): the list from that day on (or, past, before it)
      const from = validDay(filters.date) ?? (validMonth(filters.date) ? `${filters.date}-01` : undefined);
      const model = await listModel(ctx, at.page ?? 1, at.past ?? false, resolved, from);
      if (model.page > 1 && model.page > model.pages) return this.notFound(request, reply, undefined, options.embed);
      html = eta.render('./list', {
        ...page,
        list: model,
        listUrl: (p: number, past: boolean) => viewUrl(base, 'list', given, { page: p, past, date: from }),
      });
    }
    const headers = options.embed ? embedHeaders(this, apiRoot) : this.headers(apiRoot);
    return sendPage(request, reply, html, headers);
  }

  /** A category or tag view: `/events/category/<slug path>/[list/|month/[YYYY-MM/]|today/|YYYY-MM-DD/|page/N/]`. */
  async termView(request: FastifyRequest, reply: FastifyReply, kind: 'category' | 'tag', rest: string) {
    const parts = rest.split('/').filter((p) => p !== '');
    let view: ViewName = this.config.pagesDefaultView;
    const at: { date?: string; page?: number } = {};
    // the view segments at the end; what is before them is the term's slug path
    const last = parts.at(-1);
    if (last && validDay(last)) {
      view = 'day';
      at.date = parts.pop();
    } else if (last === 'today' && parts.length > 1) {
      // (a lone `today`, `month` or `list` is the slug of a term of that name, as in the original's rewrite rules)
      view = 'day';
      parts.pop();
    } else if (last && validMonth(last) && parts.at(-2) === 'month' && parts.length > 2) {
      view = 'month';
      at.date = parts.pop();
      parts.pop();
    } else if ((last === 'month' || last === 'list') && parts.length > 1) {
      view = last;
      parts.pop();
    } else if (last && /^\d+$/.test(last) && parts.at(-2) === 'page' && parts.at(-3) === 'list') {
      view = 'list';
      at.page = Number(parts.pop());
      parts.splice(-2, 2);
    }
    const slug = parts.at(-1);
    if (!slug || parts.length > 10) return this.notFound(request, reply);
    const service = kind === 'category' ? this.app.services.categories : this.app.services.tags;
    // (the router has decoded the path: a `%` left in it is a character of the slug, not an escape)
    const term = (await service.list(request.actor, { page: 1, perPage: 1, order: 'asc', orderby: 'name', hideEmpty: false, slug })).terms[0];
    if (!term) return this.notFound(request, reply);
    const path = `${this.urls.home}/events/${kind}/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
    const past = (request.query as Record<string, unknown>).eventDisplay === 'past';
    return this.view(request, reply, { path, term: { kind, name: termText(term.name), slug: term.slug, id: term.id } }, view, { ...at, past });
  }
}

function param(request: FastifyRequest, name: string): string {
  return String((request.params as Record<string, string>)[name] ?? '');
}

/** The first segments of the pages' paths (a bad URL under them answers the 400 page, not the API's JSON). */
const PAGE_ROOTS = new Set(['events', 'event', 'venue', 'organizer', 'tag']);

/** Whether a request's URL (path and query, as received) is under the pages' paths. */
export function isPagePath(url: string): boolean {
  return PAGE_ROOTS.has(url.split(/[/?#]/, 2)[1] ?? '');
}

export function registerPages(app: FastifyInstance, config: Config, urls: Urls): Pages {
  const pages = new Pages(app, config, urls);
  const events: ViewBase = { path: `${urls.home}/events` };
  const past = (request: FastifyRequest) => (request.query as Record<string, unknown>).eventDisplay === 'past';

  app.get('/events', (req, reply) => pages.view(req, reply, events, config.pagesDefaultView, { past: past(req) }));
  app.get('/events/list', (req, reply) => pages.view(req, reply, events, 'list', { past: past(req) }));
  app.get('/events/list/page/:n', (req, reply) => {
    const n = param(req, 'n');
    if (!/^\d{1,6}$/.test(n) || Number(n) < 1) return pages.notFound(req, reply);
    return pages.view(req, reply, events, 'list', { page: Number(n), past: past(req) });
  });
  app.get('/events/month', (req, reply) => pages.view(req, reply, events, 'month', {}));
  app.get('/events/month/:month', (req, reply) => {
    const month = validMonth(param(req, 'month'));
    return month ? pages.view(req, reply, events, 'month', { date: month }) : pages.notFound(req, reply);
  });
  app.get('/events/today', (req, reply) => pages.view(req, reply, events, 'day', {}));
  app.get('/events/:day', (req, reply) => {
    const day = validDay(param(req, 'day'));
    return day ? pages.view(req, reply, events, 'day', { date: day }) : pages.notFound(req, reply);
  });
  app.get('/events/category/*', (req, reply) => pages.termView(req, reply, 'category', param(req, '*')));
  app.get('/events/tag/*', (req, reply) => pages.termView(req, reply, 'tag', param(req, '*')));
  // the API's tag links are WordPress' tag archive (`/tag/<slug>/`): on this site that is the tag's view
  app.get('/tag/:slug', (req, reply) => reply.redirect(`${urls.home}/events/tag/${encodeURIComponent(param(req, 'slug'))}/`, 301));

  app.get('/event/:slug', (req, reply) => eventPage(pages, req, reply, param(req, 'slug'), undefined));
  app.get('/event/:slug/:day', (req, reply) => eventPage(pages, req, reply, param(req, 'slug'), param(req, 'day')));
  app.get('/venue/:slug', (req, reply) => linkedPage(pages, req, reply, 'venue', param(req, 'slug')));
  app.get('/organizer/:slug', (req, reply) => linkedPage(pages, req, reply, 'organizer', param(req, 'slug')));

  app.get('/events/assets/:name', (req, reply) => {
    const asset = ASSETS.get(param(req, 'name'));
    if (!asset) return pages.notFound(req, reply);
    const versioned = (req.query as Record<string, unknown>).v === asset.version;
    return reply
      .header('Content-Type', asset.type)
      .header('Cache-Control', versioned ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .header('ETag', `"${asset.version}"`)
      .send(asset.body);
  });
  registerEmbed(app, pages);
  registerRedirects(app, urls);
  // any other path under the pages' prefixes names no page: the 404 page, not the API's JSON (the router
  // prefers every route above to these)
  for (const prefix of ['/events', '/event', '/venue', '/organizer']) app.get(`${prefix}/*`, (req, reply) => pages.notFound(req, reply));

  // WordPress' permalinks of drafts and of what has no slug: `/?post_type=<type>&p=<id>`, `/?p=<id>`, which the API's `url` fields name
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const m = /^\/\?(?:[^#]*&)?p=(\d{1,10})(?:&|$)/.exec(request.url);
    if (!m) return;
    await postPage(pages, request, reply, Number(m[1]));
    return reply;
  });
  return pages;
}
