/**
 * Sync (issue 16, FEATURES.md §2.3): a full copy of what a caller may see, in pages, then exactly what changed
 * since, from the change log. Each list route has a source (what the caller sees, by id); this service walks
 * the log and the sources and signs the tokens.
 *
 * A sync's range is fixed when it starts — the change log's snapshot then, kept in the page tokens — so what is
 * written while a client pages is in its next sync, never lost and never in two. An object is read as it is
 * when its page is read: one changed again meanwhile comes as it is now, and once more in the next sync.
 */
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../actor.js';
import { errors } from '../errors.js';
import type { ChangedResource, ResourceType, SyncCut } from './change.js';
import { type PagePosition, type SyncPosition, syncTokens } from './sync-token.js';

/** What a list route shows a caller, for sync: its records by id, and which ids still exist outside the trash. */
export interface SyncSource<V> {
  readonly type: ResourceType;
  records(actor: Actor, statuses: readonly string[] | undefined, cut: SyncCut): Promise<V[]>;
  idOf(view: V): number;
  /** Of these ids, those that exist and are not in the trash (a record gone or trashed is `deleted`, else `not_visible`). */
  alive(ids: readonly number[]): Promise<Set<number>>;
}

export type SyncItem<V> =
  | { readonly view: V }
  | { readonly removed: { readonly id: number; readonly reason: 'deleted' | 'not_visible'; readonly at: string } };

export interface SyncRequest {
  /** `start`, or the `next_sync_token` of the last sync. */
  readonly syncToken?: string;
  readonly pageToken?: string;
  readonly perPage: number;
  /** Editors' status filter (part of what the tokens are bound to). */
  readonly statuses?: readonly string[];
}

export interface SyncPage<V> {
  readonly items: readonly SyncItem<V>[];
  readonly nextPageToken?: string;
  readonly nextSyncToken?: string;
}

export const SYNC_MAX_PER_PAGE = 500;
export const SYNC_DEFAULT_PER_PAGE = 100;

export class SyncService {
  private secret: Promise<string> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly retentionDays: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async sync<V>(actor: Actor, source: SyncSource<V>, req: SyncRequest): Promise<SyncPage<V>> {
    const secret = await this.tokenSecret();
    const who = {
      route: source.type,
      principal: actor.kind === 'user' ? `u${actor.id}` : 'anon',
      grant: actor.kind === 'user' ? actor.role : 'anon',
      filter: req.statuses ? [...req.statuses].sort().join(',') : '',
    };
    let page: PagePosition;
    if (req.pageToken !== undefined) {
      const p = syncTokens.readPage(secret, req.pageToken);
      if (!p) throw errors.invalidSyncToken('page_token', 'it was not issued by this service, or it was changed.');
      this.assertSameCaller('page_token', p, who);
      await this.assertCurrent(p.from, p.at);
      page = p;
    } else if (req.syncToken === 'start') {
      page = { ...who, snapshot: await this.storage.changes.snapshot(), at: this.clock(), from: null, after: 0 };
    } else {
      const s = syncTokens.readSync(secret, req.syncToken ?? '');
      if (!s) throw errors.invalidSyncToken('sync_token', 'it was not issued by this service, or it was changed.');
      this.assertSameCaller('sync_token', s, who);
      await this.assertCurrent(s.snapshot, s.at);
      page = { ...who, snapshot: await this.storage.changes.snapshot(), at: this.clock(), from: s.snapshot, after: 0 };
    }

    const limit = req.perPage;
    let items: SyncItem<V>[];
    let last: number | undefined;
    if (page.from === null) {
      const views = await source.records(actor, req.statuses, { afterId: page.after, limit: limit + 1 });
      const shown = views.slice(0, limit);
      // what was created after the sync began is in the next one, not in both
      const later = await this.storage.changes.createdAfter(
        source.type,
        page.snapshot,
        shown.map((v) => source.idOf(v)),
      );
      items = shown.filter((v) => !later.has(source.idOf(v))).map((view) => ({ view }));
      last = views.length > limit ? source.idOf(shown[shown.length - 1]) : undefined;
    } else {
      const changed = await this.storage.changes.changed(source.type, page.from, page.snapshot, page.after, limit + 1);
      const shown = changed.slice(0, limit);
      items = await this.resolve(actor, source, req.statuses, shown);
      last = changed.length > limit ? shown[shown.length - 1].seq : undefined;
    }
    if (last !== undefined) return { items, nextPageToken: syncTokens.page(secret, { ...page, after: last }) };
    const done: SyncPosition = { ...who, snapshot: page.snapshot, at: page.at };
    return { items, nextSyncToken: syncTokens.sync(secret, done) };
  }

  /**
   * The tombstones of what changed after `afterUtc` (and before `beforeUtc`) and is not there for this caller
   * now: deleted, trashed, or out of their view (`modified_after` with `include_removed`).
   */
  async removed<V>(actor: Actor, source: SyncSource<V>, afterUtc: string, beforeUtc: string | undefined) {
    const changed = await this.storage.changes.changedSince(source.type, afterUtc, beforeUtc);
    const items = await this.resolve(actor, source, undefined, changed);
    return items.flatMap((item) => ('removed' in item ? [item.removed] : []));
  }

  /** Changed resources → what the caller gets: the object when they may see it, else why not. */
  private async resolve<V>(
    actor: Actor,
    source: SyncSource<V>,
    statuses: readonly string[] | undefined,
    changed: readonly ChangedResource[],
  ): Promise<SyncItem<V>[]> {
    const ids = changed.map((c) => c.id);
    const views = new Map((await source.records(actor, statuses, { ids })).map((v) => [source.idOf(v), v]));
    const missing = ids.filter((id) => !views.has(id));
    const alive = missing.length > 0 ? await source.alive(missing) : new Set<number>();
    return changed.map((c) => {
      const view = views.get(c.id);
      if (view !== undefined) return { view };
      return { removed: { id: c.id, reason: alive.has(c.id) ? 'not_visible' : 'deleted', at: c.at } };
    });
  }

  private assertSameCaller(param: 'sync_token' | 'page_token', p: SyncPosition, who: Omit<SyncPosition, 'snapshot' | 'at'>): void {
    if (p.route !== who.route) throw errors.invalidSyncToken(param, `it belongs to the ${p.route} list.`);
    if (p.principal !== who.principal) throw errors.invalidSyncToken(param, 'it belongs to another caller.');
    if (p.filter !== who.filter) throw errors.invalidSyncToken(param, 'it was issued for another status filter.');
    if (!this.storage.dialect.isChangeSnapshot(p.snapshot)) throw errors.invalidSyncToken(param, 'it was issued by another database.');
    if (p.grant !== who.grant) throw errors.syncTokenExpired('the caller’s role changed');
  }

  /** A copy complete up to `snapshot` (taken at `at`) can be brought up to date while the log still has every change after it. */
  private async assertCurrent(snapshot: string | null, at: number): Promise<void> {
    if (snapshot === null) return;
    if (this.clock() - at > this.retentionDays * 86_400_000) throw errors.syncTokenExpired('older than the change log’s retention');
    if (!this.storage.dialect.isChangeSnapshot(snapshot)) throw errors.invalidSyncToken('sync_token', 'it was issued by another database.');
    // a copy taken after the retention last ran has everything it removed; one taken before must have seen it all
    const purged = await this.storage.changes.purged();
    if (at <= purged.at && !this.storage.dialect.snapshotCovers(snapshot, purged)) {
      throw errors.syncTokenExpired('changes after it have left the change log');
    }
  }

  /** Removes changes older than the retention (the scheduler calls it); answers how many went. */
  async purge(): Promise<number> {
    const cutoff = new Date(this.clock() - this.retentionDays * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
    return this.storage.transaction((tx) => tx.changes.purge(cutoff, this.clock()));
  }

  private tokenSecret(): Promise<string> {
    this.secret ??= this.storage.changes.secret().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }
}
