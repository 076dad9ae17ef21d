/**
 * The old site's permalinks, answered (issue 15, FEATURES.md §6.3): a site imported from The Events
 * Calendar had `/event/<slug>/`, Pro's `/event/<slug>/<date>/`, `/venue/<slug>/` and `/organizer/<slug>/`;
 * when such a path names an imported record that lives at another address here (a slug that became `-2`, an
 * occurrence imported as its own event), the visitor is sent there (301). What the pages serve at a path
 * themselves wins: a path taken here by another record shows that record; records the visitor may not read
 * are not redirected to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Urls } from '../http/urls.js';

const OLD = /^\/(event|venue|organizer)\/([^/]+)\/(?:(\d{4}-\d{2}-\d{2})\/)?$/;

function decoded(url: string): string | undefined {
  try {
    const path = decodeURIComponent(url.split('?')[0]);
    return path.endsWith('/') ? path : `${path}/`;
  } catch {
    return undefined;
  }
}

/** Whether the pages serve this path with a record of their own (then it is not redirected). */
async function servedHere(request: FastifyRequest, type: string, slug: string, day: string | undefined, target: number): Promise<boolean> {
  const services = request.server.services;
  if (type === 'event') {
    const id = await services.events.idForSlug(slug);
    if (id === undefined || id === target) return false;
    if (day === undefined) return true;
    const view = await services.events.get(request.actor, id).catch(() => undefined);
    return view?.record.kind === 'series';
  }
  const id = await services.linked(type as 'venue' | 'organizer').idForSlug(slug);
  return id !== undefined && id !== target;
}

async function readable(request: FastifyRequest, kind: string, id: number): Promise<boolean> {
  const services = request.server.services;
  if (kind === 'event' || kind === 'series') return (await services.events.get(request.actor, id).catch(() => undefined)) !== undefined;
  if (kind === 'venue' || kind === 'organizer')
    return (
      (await services
        .linked(kind)
        .get(request.actor, id)
        .catch(() => undefined)) !== undefined
    );
  return false;
}

export function registerRedirects(app: FastifyInstance, urls: Urls): void {
  const base = new URL(`${urls.home}/`).pathname.replace(/\/$/, '');
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const full = decoded(request.url);
    if (full === undefined || !full.startsWith(`${base}/`)) return;
    const path = full.slice(base.length);
    const m = OLD.exec(path);
    if (!m) return;
    const hit = await request.server.services.imports.redirectFor(path, urls);
    if (!hit || decoded(new URL(hit.to).pathname) === full) return;
    if (await servedHere(request, m[1], m[2], m[3], hit.localId)) return;
    if (!(await readable(request, hit.kind, hit.localId))) return;
    // the query goes along: the original's `?ical=1` on an event page is answered there too
    const query = request.url.indexOf('?');
    return reply.redirect(query < 0 ? hit.to : `${hit.to}${request.url.slice(query)}`, 301);
  });
}
