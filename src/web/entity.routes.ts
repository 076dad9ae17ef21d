/**
 * The pages of one thing: an event (`/event/<slug>/`), one occurrence of a series (`/event/<slug>/<YYYY-MM-DD>/`),
 * a venue or organizer (`/venue/<slug>/`, `/organizer/<slug>/`), and WordPress' `/?p=<id>` for what has no slug.
 * What the visitor may not read is the 404 page, as what does not exist.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventView } from '../domain/events/event.service.js';
import type { LinkedView } from '../domain/linked/linked.service.js';
import { asksForIcal, ICAL_DOWNLOAD } from '../http/routes/site/ical-aliases.js';
import { NAMESPACE } from '../http/urls.js';
import { chrome } from './chrome.js';
import { eventModel, organizerModel, upcoming, venueModel } from './entity.pages.js';
import { addDays } from './format.js';
import { type ViewBase, viewUrl } from './links.js';
import { parsePageFilters } from './page-filters.js';
import type { Pages } from './pages.routes.js';
import { validDay } from './pages.routes.js';
import { eta, sendPage } from './render.js';

/** The page of a post named by its id: an event's, a venue's or an organizer's; else the 404 page. */
export async function postPage(pages: Pages, request: FastifyRequest, reply: FastifyReply, id: number) {
  const ctx = pages.context(request);
  const event = await ctx.services.events.get(ctx.actor, id).catch(() => undefined);
  if (event) return renderEvent(pages, request, reply, event);
  for (const type of ['venue', 'organizer'] as const) {
    const found = await ctx.services
      .linked(type)
      .get(ctx.actor, id)
      .catch(() => undefined);
    if (found) return renderLinked(pages, request, reply, type, found);
  }
  return pages.notFound(request, reply);
}

export async function eventPage(pages: Pages, request: FastifyRequest, reply: FastifyReply, slug: string, day: string | undefined) {
  const ctx = pages.context(request);
  const events = ctx.services.events;
  if (day === undefined && asksForIcal(request.query as Record<string, unknown>)) return eventFile(pages, request, reply, slug);
  let view = await events.getBySlug(ctx.actor, slug).catch(() => undefined);
  if (!view || view.record.kind === 'occurrence') return pages.notFound(request, reply, 'This event');
  if (day !== undefined) {
    // one occurrence of a series: the one that starts that day (in the series' zone)
    if (view.record.kind !== 'series' || !validDay(day)) return pages.notFound(request, reply, 'This event');
    // the original's `?ical=1` here: the series' file (as on the series' own page)
    if (asksForIcal(request.query as Record<string, unknown>))
      return reply.redirect(ctx.urls.rest(`/events/by-slug/${encodeURIComponent(slug)}.ics?${new URLSearchParams(ICAL_DOWNLOAD)}`), 302);
    const list = await events.occurrences(ctx.actor, view.record.id, {
      page: 1,
      perPage: 1,
      strictDates: false,
      geolocDistance: 50,
      startsAfter: addDays(day, -1),
      startsBefore: day,
    });
    if (list.items.length === 0) return pages.notFound(request, reply, 'This occurrence');
    view = list.items[0];
  }
  return renderEvent(pages, request, reply, view);
}

/**
 * The original's `/event/<slug>/?ical=1`: the event's (or series') file, as its REST feed answers it to this
 * visitor, at this URL (200, as the original), as a download (as the original: see ical-aliases.ts). What the
 * feed does not give — no such slug, an event the visitor may not read — is the 404 page. Asked of the REST route in-process (app.inject), so that its conditional
 * answers (ETag, Last-Modified, 304) and headers are that route's own, not a second copy of them here.
 */
async function eventFile(pages: Pages, request: FastifyRequest, reply: FastifyReply, slug: string) {
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  for (const name of ['ical', 'outlook-ical']) query.delete(name);
  for (const [name, value] of Object.entries(ICAL_DOWNLOAD)) query.set(name, value);
  const rest = `/${NAMESPACE}/events/by-slug/${encodeURIComponent(slug)}.ics?${query}`;
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'if-none-match', 'if-modified-since', 'accept-encoding']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const res = await pages.app.inject({ method: request.method === 'HEAD' ? 'HEAD' : 'GET', url: rest, headers });
  if (res.statusCode !== 200 && res.statusCode !== 304) return pages.notFound(request, reply, 'This event');
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding' && name !== 'date')
      reply.header(name, value);
  }
  return reply.code(res.statusCode).send(res.rawPayload);
}

async function renderEvent(pages: Pages, request: FastifyRequest, reply: FastifyReply, view: EventView) {
  const ctx = pages.context(request);
  const model = await eventModel(ctx, view);
  const apiRoot = ctx.urls.rest(`/events/${view.record.id}`);
  const page = await chrome(ctx, pages.config, {
    title: model.item.title,
    base: { path: `${ctx.urls.home}/events` },
    filters: parsePageFilters({}),
    apiRoot,
  });
  const html = eta.render('./event', { ...page, event: model, jsonLd: model.jsonLd, zoneName: view.record.timezone });
  return sendPage(request, reply, html, pages.headers(apiRoot));
}

export async function linkedPage(pages: Pages, request: FastifyRequest, reply: FastifyReply, type: 'venue' | 'organizer', slug: string) {
  const ctx = pages.context(request);
  const service = ctx.services.linked(type);
  const id = await service.idForSlug(slug);
  // (the service refuses what the visitor may not read: a draft venue is not found, as an unknown one)
  const found = id === undefined ? undefined : await service.get(ctx.actor, id).catch(() => undefined);
  if (!found) return pages.notFound(request, reply, type === 'venue' ? 'This venue' : 'This organizer');
  return renderLinked(pages, request, reply, type, found);
}

async function renderLinked(pages: Pages, request: FastifyRequest, reply: FastifyReply, type: 'venue' | 'organizer', found: LinkedView) {
  const ctx = pages.context(request);
  // the original's `?ical=1` on this page: the feed of its events (a redirect: the slug is known only once
  // looked up, where the other pages' aliases are rewritten before routing, see ical-aliases.ts)
  if (asksForIcal(request.query as Record<string, unknown>)) {
    return reply.redirect(ctx.urls.rest(`/events.ics?${new URLSearchParams({ [type]: String(found.record.id), ...ICAL_DOWNLOAD })}`), 302);
  }
  const filter = type === 'venue' ? { venues: [found.record.id] } : { organizers: [found.record.id] };
  const { items, total } = await upcoming(ctx, filter, 20);
  const model = type === 'venue' ? venueModel(ctx, found as never) : organizerModel(ctx, found as never);
  const base: ViewBase = { path: `${ctx.urls.home}/events` };
  const apiRoot = ctx.urls.rest(`/events/?${type}=${found.record.id}`);
  const page = await chrome(ctx, pages.config, { title: model.name, base, filters: parsePageFilters({}), apiRoot });
  const filters = parsePageFilters({ [type]: String(found.record.id) });
  const html = eta.render(`./${type}`, { ...page, [type]: model, upcoming: items, total, allUrl: viewUrl(base, 'list', filters) });
  return sendPage(request, reply, html, pages.headers(apiRoot));
}
