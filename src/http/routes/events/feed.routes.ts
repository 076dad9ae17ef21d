/**
 * The FullCalendar feed (FEATURES.md §5.3): `GET /events/feed?start=…&end=…&timeZone=…` with the list's filters
 * answers the plain JSON array of event objects a FullCalendar `events: '<url>'` source reads. A strong ETag of
 * the exact bytes, with 304 for a copy that is current.
 */
import { Type } from '@sinclair/typebox';
import { serializeFeedEvent } from '../../../serializers/fullcalendar.serializer.js';
import { matchesEtag, strongEtag } from '../../conditional.js';
import { filterFields, parseFields } from '../../fields.js';
import { type RouteSpec, route } from '../../route.js';
import { feedArgs } from './events.args.js';
import { FeedEventSchema } from './events.schemas.js';

export function feedRoutes(): RouteSpec[] {
  return [
    route({
      methods: ['GET'],
      path: '/events/feed',
      summary:
        'The events the caller may read that overlap [start, end), occurrences of series one by one, as a JSON array of FullCalendar event objects (an `events` source URL); by start, at most `limit` (X-TEC-Total: how many overlap).',
      errors: [400],
      args: feedArgs,
      responses: { 200: Type.Array(FeedEventSchema) },
      async handler(ctx) {
        const page = await ctx.services.events.feed(ctx.actor, ctx.args);
        const items = page.items.map((view) => serializeFeedEvent(view, ctx.urls, page.zone));
        // `_fields` applied here, so that the tag is of the bytes sent
        const fields = parseFields((ctx.request.query as Record<string, unknown>)._fields);
        const body = JSON.stringify(fields ? filterFields(items, fields) : items);
        const etag = strongEtag(body);
        const headers = { 'Content-Type': 'application/json; charset=UTF-8', ETag: etag, 'X-TEC-Total': page.total };
        if (matchesEtag(ctx.request.headers['if-none-match'], etag)) return { status: 304, body: '', headers };
        return { body, headers };
      },
    }),
  ];
}
