/**
 * What webhooks send of an object (FEATURES.md §4.3): its single read's body as a user reads it now (events as
 * their single read answers that user — hidden from listings or not, an occurrence alone too; the others through
 * the sync sources, the same visibility rule), its ETag (the hash of that body, the single read's) and its URL. Built here because bodies and URLs are the HTTP layer's.
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
      // as its single read answers the owner: events hidden from listings and occurrences too (sync shows neither)
      const view = (await services.events.item(actor, id))?.view;
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
