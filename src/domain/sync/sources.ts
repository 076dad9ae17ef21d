/**
 * What each list route shows a caller in a sync (FEATURES.md §2.3), by id: the same visibility rule as the
 * lists (visibility.ts), every date, no search; events series-level (singles, masters, occurrences edited alone
 * or cancelled), none hidden from listings; terms all of them, empty ones too.
 */
import type { Storage } from '../../storage/storage.js';
import type { EventService, EventView } from '../events/event.service.js';
import type { LinkedType, RecordOf } from '../linked/linked.js';
import type { LinkedService, LinkedView } from '../linked/linked.service.js';
import { statusFilter } from '../posts/status.js';
import type { Term } from '../terms/term.js';
import type { TermService } from '../terms/term.service.js';
import { listVisibility } from '../visibility.js';
import type { SyncSource } from './sync.service.js';

/** Posts that exist outside the trash (the others are `deleted`). */
async function livePosts(storage: Storage, ids: readonly number[]): Promise<Set<number>> {
  const rows = await storage.posts.findAccessMany(ids);
  return new Set(rows.filter((r) => r.status !== 'trash').map((r) => r.id));
}

export function eventSource(storage: Storage, events: EventService): SyncSource<EventView> {
  return {
    type: 'event',
    async records(actor, statuses, cut) {
      const records = await storage.events.syncRecords({ visibility: listVisibility(actor), statuses: statusFilter(statuses) }, cut);
      return events.views(records, actor);
    },
    idOf: (view) => view.record.id,
    alive: (ids) => livePosts(storage, ids),
  };
}

export function linkedSource<T extends LinkedType>(storage: Storage, type: T, service: LinkedService<T>): SyncSource<LinkedView<RecordOf<T>>> {
  return {
    type,
    async records(actor, statuses, cut) {
      const records = await storage.linked(type).syncRecords({ visibility: listVisibility(actor), statuses: statusFilter(statuses) }, cut);
      return service.views(records);
    },
    idOf: (view) => view.record.id,
    alive: (ids) => livePosts(storage, ids),
  };
}

export function termSource(storage: Storage, service: TermService): SyncSource<Term> {
  return {
    type: service.resource,
    records: (_actor, _statuses, cut) => storage.terms.syncTerms(service.info.taxonomy, cut),
    idOf: (term) => term.id,
    // every term is visible to everyone: one not found is gone
    alive: async () => new Set(),
  };
}
