/**
 * iCalendar feeds (FEATURES.md §3.4): `/events.ics` with the list's filters, `/events/{id}.ics` and
 * `/events/by-slug/{slug}.ics` for one event or a whole series. The same URLs work as `webcal://` subscriptions.
 * A strong ETag of the exact bytes, with 304 for a poller whose copy is current.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import type { CalendarEntry } from '../../../domain/events/event.service.js';
import { serializeCalendar } from '../../../serializers/ical/calendar.serializer.js';
import { httpDate, matchesEtag, storedUtcMs, strongEtag } from '../../conditional.js';
import { arg } from '../../params.js';
import { type RouteContext, type RouteResponse, type RouteSpec, route } from '../../route.js';
import { icalDownloadArg, icalFeedArgs } from './events.args.js';
import { lastModifiedStamp } from './index.js';

const VERSION = '0.1.0';
/** How often subscribers are asked to poll (RFC 7986 REFRESH-INTERVAL). */
const REFRESH = 'PT1H';

const idArg = arg(Type.Integer({ description: 'The event id (an occurrence gives its whole series).' }), { required: true });
const slugArg = arg(Type.String({ description: 'The event slug.' }), { required: true, as: 'pathSlug' });

const calendarResponse = { 200: Type.String({ description: 'An iCalendar stream (RFC 5545), `text/calendar`.' }) };

/**
 * A feed's answer. Its Last-Modified: the latest write of what it shows (each event, or what it embeds: venue,
 * organizers, terms) and, for the list feed, `lastChangeUtc` — the log's newest event change, so that an event
 * that left the feed moves it on too.
 */
function answer(
  ctx: RouteContext<{ readonly download?: boolean | null }>,
  entries: readonly CalendarEntry[],
  filename: string,
  lastChangeUtc?: string,
): RouteResponse {
  const body = serializeCalendar(entries, ctx.urls, {
    name: ctx.services.site.name,
    description: ctx.services.site.description,
    siteZone: ctx.services.siteTimezone,
    version: VERSION,
    refresh: REFRESH,
  });
  const etag = strongEtag(body);
  // (stored stamps compared as text, parsed once; a loop: a feed's entries and exceptions may be many)
  let latest = lastChangeUtc ?? '';
  for (const entry of entries) {
    if (entry.cancelledModifiedUtc !== undefined && entry.cancelledModifiedUtc > latest) latest = entry.cancelledModifiedUtc;
    for (const view of [entry.view, ...(entry.exceptions ?? [])]) {
      const stamp = lastModifiedStamp(view);
      if (stamp > latest) latest = stamp;
    }
  }
  const modified = latest === '' ? Number.NEGATIVE_INFINITY : storedUtcMs(latest);
  const headers: Record<string, string> = {
    'Content-Type': 'text/calendar; charset=utf-8',
    'Content-Disposition': `${ctx.args.download ? 'attachment' : 'inline'}; filename="${filename.replace(/[^\w.-]/g, '-')}.ics"`,
    ETag: etag,
    'Cache-Control': 'public, max-age=300',
  };
  if (Number.isFinite(modified)) headers['Last-Modified'] = httpDate(modified);
  if (matchesEtag(ctx.request.headers['if-none-match'], etag)) return { status: 304, body: '', headers };
  return { body, headers };
}

export function icalRoutes(): RouteSpec[] {
  return [
    route({
      methods: ['GET'],
      path: '/events.ics',
      lastModified: true,
      summary:
        "An iCalendar feed of the events the caller may read (subscribe with the same URL as webcal://): the list's filters, by default from 30 days ago to 24 months ahead; a series is one VEVENT with its rule, exceptions and cancelled occurrences.",
      errors: [400],
      args: icalFeedArgs,
      responses: calendarResponse,
      async handler(ctx) {
        const [entries, lastChange] = await Promise.all([ctx.services.events.calendar(ctx.actor, ctx.args), ctx.services.events.lastChangeUtc()]);
        return answer(ctx, entries, 'events', lastChange);
      },
    }),
    route({
      methods: ['GET'],
      path: '/events/:id.ics',
      lastModified: true,
      summary: 'One event as iCalendar (a series, or an occurrence of one: the whole series).',
      errors: [403, 404, 410],
      args: { id: idArg, ...icalDownloadArg },
      responses: calendarResponse,
      async handler(ctx) {
        const entry = await ctx.services.events.calendarOf(ctx.actor, ctx.args.id);
        return answer(ctx, [entry], entry.view.record.slug || `event-${entry.view.record.id}`);
      },
    }),
    route({
      methods: ['GET'],
      path: '/events/by-slug/:slug.ics',
      lastModified: true,
      summary: 'One event, found by its slug, as iCalendar (a series: the whole series).',
      errors: [400, 403],
      args: { slug: slugArg, ...icalDownloadArg },
      responses: calendarResponse,
      async handler(ctx) {
        const id = await ctx.services.events.idForSlug(ctx.args.pathSlug);
        // as the JSON route: an unknown slug is an invalid parameter (CONTRACT.md)
        if (id === undefined) throw errors.invalidParam('slug');
        const entry = await ctx.services.events.calendarOf(ctx.actor, id);
        return answer(ctx, [entry], entry.view.record.slug);
      },
    }),
  ];
}
