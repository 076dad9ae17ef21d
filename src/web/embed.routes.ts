/**
 * The embed (FEATURES.md §5.3): `/events/embed?view=month|list|day&categories=…&tags=…&venue=…&organizer=…
 * &featured=1&past=1&filter_bar=1&date=…` is a view without the site's chrome, for an iframe; `EMBED_ORIGINS`
 * says who may frame it (`frame-ancestors`). `/events/embed.js` is the snippet a site pastes: it makes the
 * iframe and sizes it to its content from the height the framed page posts (no fixed heights, unlike the
 * original's embeds).
 */
import type { FastifyInstance } from 'fastify';
import type { ViewName } from './links.js';
import type { Pages } from './pages.routes.js';
import { validDay, validMonth } from './pages.routes.js';
import { ASSETS, type PageHeaders } from './render.js';

export function embedHeaders(pages: Pages, apiRoot: string): PageHeaders {
  const origins = pages.config.embedOrigins;
  const ancestors = origins.includes('*') ? '*' : origins.length === 0 ? "'none'" : ["'self'", ...origins].join(' ');
  return pages.headers(apiRoot, ancestors);
}

export function registerEmbed(app: FastifyInstance, pages: Pages): void {
  app.get('/events/embed', (request, reply) => {
    const q = request.query as Record<string, unknown>;
    const view: ViewName = q.view === 'month' || q.view === 'day' ? q.view : 'list';
    const date = typeof q.date === 'string' ? q.date : undefined;
    const at = {
      date: view === 'month' ? validMonth(date?.slice(0, 7)) : view === 'day' ? validDay(date) : undefined,
      past: q.past === '1' || q.past === 'true',
    };
    const filterBar = q.filter_bar === '1' || q.filter_bar === 'true';
    const page = typeof q.page === 'string' && /^\d{1,6}$/.test(q.page) && Number(q.page) > 0 ? Number(q.page) : undefined;
    const base = { path: `${pages.urls.home}/events`, embed: { filterBar } };
    return pages.view(request, reply, base, view, { ...at, page }, { embed: true, filterBar });
  });

  app.get('/events/embed.js', (_request, reply) => {
    const asset = ASSETS.get('embed.js');
    return reply
      .header('Content-Type', 'text/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .header('ETag', `"${asset?.version}"`)
      .send(asset?.body);
  });
}
