/**
 * What webhooks send of an object (FEATURES.md §4.3): its single read's body as a user reads it now (the same
 * visibility rule as sync: visibility.ts through the sync sources), its ETag (the hash of that body, as sync
 * objects carry it) and its URL. Built here because bodies and URLs are the HTTP layer's.
 */
import type { Services } from '../domain/services.js';
import type { ResourceType } from '../domain/sync/change.js';
import { CATEGORIES, TAGS } from '../domain/terms/term.js';
import type { WebhookObjects } from '../domain/webhooks/webhook.service.js';
import { serializeEvent } from '../serializers/event.serializer.js';
import { serializeLinked } from '../serializers/linked.serializer.js';
import { serializeTerm } from '../serializers/term.serializer.js';
import { jsonEtag } from './conditional.js';
import type { Urls } from './urls.js';

const PATHS: Readonly<Record<ResourceType, string>> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};

export function webhookObjects(services: Services, urls: Urls): WebhookObjects {
  const render = async (type: ResourceType, id: number, actor: Parameters<WebhookObjects['render']>[2]): Promise<unknown> => {
    const cut = { ids: [id] };
    const s = services.syncSources;
    if (type === 'event') {
      const [view] = await s.events.records(actor, undefined, cut);
      return view && serializeEvent({ ...view, removedOccurrences: undefined }, urls, { single: true });
    }
    if (type === 'venue' || type === 'organizer') {
      const [view] = await (type === 'venue' ? s.venues : s.organizers).records(actor, undefined, cut);
      return view && serializeLinked(type, view as never, urls, { single: true });
    }
    const info = type === 'category' ? CATEGORIES : TAGS;
    const [term] = await (type === 'category' ? s.categories : s.tags).records(actor, undefined, cut);
    return term && serializeTerm(term, info, urls, info.hierarchical ? await services.categories.tree() : undefined);
  };
  return {
    async render(type, id, actor) {
      const object = await render(type, id, actor);
      return object === undefined ? undefined : { object, etag: jsonEtag(object) };
    },
    restUrl: (type, id) => urls.rest(`/${PATHS[type]}/${id}`),
  };
}
