/**
 * Writes remote records through our services (every rule of a write holds: policy, slugs with `-2` on
 * collisions, term counts, links) and keeps the import map: each record is created once, updated in place when
 * what would be written changed (a hash of it), left alone when it did not. A dry run decides the same way and
 * writes nothing (new records get stand-in ids so the records that refer to them decide as in a real run).
 * References (venue, organizers, terms, image) resolve through the map; a venue or organizer an event embeds
 * that the lists did not give is created from the embedded object, as a draft.
 */
import type { Storage } from '../../../storage/storage.js';
import type { MapRow, MapScope } from '../../../storage/stores/import-map.store.js';
import type { Actor } from '../../actor.js';
import type { EventInput } from '../../events/event.js';
import type { EventService } from '../../events/event.service.js';
import type { LinkedService } from '../../linked/linked.service.js';
import { postStamp } from '../../posts/post-writes.js';
import type { TermService } from '../../terms/term.service.js';
import type { Site } from './tec.discovery.js';
import {
  decodeSlug,
  eventDates,
  eventFields,
  hashOf,
  isBlankedLinked,
  type Json,
  lineageOf,
  linkedFields,
  list,
  obj,
  oldPath,
  str,
  tecUid,
} from './tec.mapper.js';
import { count, type Outcome, type TecReport, warn } from './tec.report.js';

export interface TecServices {
  readonly events: EventService;
  readonly categories: TermService;
  readonly tags: TermService;
  readonly venues: LinkedService<'venue'>;
  readonly organizers: LinkedService<'organizer'>;
}

export interface WriterSettings {
  readonly scope: MapScope;
  readonly site: Site;
  readonly actor: Actor;
  /** The local author of what is created. */
  readonly authorId: number;
  readonly dryRun: boolean;
  readonly images: 'link' | 'skip';
  readonly pass: string;
  readonly siteZone: string;
}

type Kind = 'category' | 'tag' | 'venue' | 'organizer' | 'event' | 'image' | 'series';

/**
 * The map of one site, in memory (loaded once). Rows of a batch in progress are staged: visible to the records
 * after them in the batch (a child category finds its parent), kept when the batch commits, dropped if not.
 */
export class MapCache {
  private readonly rows = new Map<string, Map<string, MapRow>>();
  private staged = new Map<string, MapRow>();
  private fake = -1;

  load(kind: string, rows: readonly MapRow[]): void {
    this.rows.set(kind, new Map(rows.map((r) => [r.remoteId, r])));
  }
  get(kind: string, remoteId: string): MapRow | undefined {
    return this.staged.get(`${kind}\u0000${remoteId}`) ?? this.rows.get(kind)?.get(remoteId);
  }
  stage(row: MapRow): void {
    this.staged.set(`${row.kind}\u0000${row.remoteId}`, row);
  }
  commit(): void {
    for (const row of this.staged.values()) {
      if (!this.rows.has(row.kind)) this.rows.set(row.kind, new Map());
      this.rows.get(row.kind)?.set(row.remoteId, row);
    }
    this.staged = new Map();
  }
  rollback(): void {
    this.staged = new Map();
  }
  all(kind: string): MapRow[] {
    const out = new Map(this.rows.get(kind) ?? []);
    for (const row of this.staged.values()) if (row.kind === kind) out.set(row.remoteId, row);
    return [...out.values()];
  }
  /** A stand-in id for what a dry run would create. */
  nextFakeId(): number {
    return this.fake--;
  }
}

const TERM_KIND = { category: 'categories', tag: 'tags' } as const;

export class TecWriter {
  /** Cache changes of the item being written: applied when it commits, dropped when it rolls back. */
  private pending: MapRow[] = [];
  /** Records found unchanged (marked seen in one statement per batch). */
  private unchanged: { kind: string; remoteId: string }[] = [];

  constructor(
    readonly settings: WriterSettings,
    readonly cache: MapCache,
    private readonly report: TecReport,
    private readonly servicesIn: (tx: Storage) => TecServices,
    private readonly clock: () => number = Date.now,
  ) {}

  /** What the current item would put in the cache (see `pending`). */
  takePending(): { rows: MapRow[]; unchanged: { kind: string; remoteId: string }[] } {
    const out = { rows: this.pending, unchanged: this.unchanged };
    this.pending = [];
    this.unchanged = [];
    return out;
  }

  private now(): string {
    return postStamp(this.clock(), 'UTC').utc;
  }

  /** Decides and records one record: the map row saved (not in a dry run) and the cache change pending. */
  /** (tec.series.ts too) */
  async remember(tx: Storage, row: Omit<MapRow, 'seenPass'>, lineage?: readonly string[]): Promise<void> {
    const full: MapRow = { ...row, seenPass: this.settings.pass };
    if (!this.settings.dryRun) {
      await tx.importMap.save(this.settings.scope, full, this.now());
      if (lineage && lineage.length > 0 && row.kind !== 'image') await tx.importMap.setLineage(row.localId, lineage);
    }
    this.pending.push(full);
  }

  /** (tec.series.ts too) */
  same(kind: Kind, remoteId: string, hash: string, modified: string | null): MapRow | undefined {
    const known = this.cache.get(kind, remoteId);
    if (known && known.hash === hash && known.localId > 0) {
      this.unchanged.push({ kind, remoteId });
      this.pending.push({ ...known, remoteModified: modified ?? known.remoteModified, seenPass: this.settings.pass });
      return known;
    }
    return undefined;
  }

  // ---- terms --------------------------------------------------------------------------------------------

  async term(tx: Storage, kind: 'category' | 'tag', remote: Json): Promise<number | undefined> {
    const rid = str(remote, 'id');
    const service = this.servicesIn(tx)[TERM_KIND[kind]];
    const parentRid = kind === 'category' ? str(remote, 'parent') : '0';
    let parent = 0;
    if (parentRid !== '' && parentRid !== '0') {
      const p = this.cache.get('category', parentRid);
      if (p) parent = p.localId;
      else warn(this.report, kind, rid, `its parent category ${parentRid} is not on the site's list: imported at the top level`);
    }
    const input = {
      name: str(remote, 'name').trim(),
      slug: decodeSlug(str(remote, 'slug')),
      description: str(remote, 'description'),
      ...(kind === 'category' ? { parent } : {}),
    };
    const hash = hashOf(input);
    const known = this.same(kind, rid, hash, null);
    if (known) return this.done(kind, 'unchanged', known.localId);
    const row = {
      kind,
      remoteId: rid,
      remoteModified: null,
      hash,
      remoteGlobalId: null,
      incomplete: false,
      oldPath: oldPath(str(remote, 'url'), this.settings.site.home),
    };
    const mapped = this.cache.get(kind, rid);
    const taxonomy = service.info.taxonomy;
    let localId = mapped && mapped.localId > 0 && (await tx.terms.find(taxonomy, mapped.localId)) ? mapped.localId : undefined;
    // a term of that slug or name that exists here already is the same term
    localId ??=
      (await tx.terms.findBySlug(taxonomy, input.slug))?.id ??
      (await tx.terms.findByName(taxonomy, input.name, kind === 'category' ? parent : undefined))?.id;
    const current = localId === undefined ? undefined : await tx.terms.find(taxonomy, localId);
    const patch = {
      ...(current?.name !== input.name ? { name: input.name } : {}),
      ...(current?.description !== input.description ? { description: input.description } : {}),
      ...(kind === 'category' && current?.parentId !== parent ? { parent } : {}),
    };
    let outcome: Outcome = localId === undefined ? 'created' : Object.keys(patch).length === 0 && mapped === undefined ? 'unchanged' : 'updated';
    if (this.settings.dryRun) {
      localId ??= mapped?.localId ?? this.cache.nextFakeId();
      if (mapped && localId === mapped.localId && localId < 0) outcome = 'created';
    } else if (localId === undefined) {
      localId = (await service.create(this.settings.actor, input)).id;
    } else if (Object.keys(patch).length > 0) {
      await service.update(this.settings.actor, localId, patch);
    }
    await this.remember(tx, { ...row, localId });
    return this.done(kind, outcome, localId);
  }

  private done(kind: Kind, outcome: Outcome, localId: number): number {
    count(this.report, kind, outcome);
    return localId;
  }

  // ---- images ---------------------------------------------------------------------------------------------

  /** The local image of a remote featured image: linked by URL, once per remote attachment. */
  async image(tx: Storage, value: unknown): Promise<number | undefined> {
    const image = obj(value);
    if (this.settings.images === 'skip' || !image) return undefined;
    const url = str(image, 'url');
    if (!/^https?:\/\//i.test(url)) return undefined;
    const rid = str(image, 'id') || url;
    const met = this.cache.get('image', rid);
    if (met && met.seenPass === this.settings.pass && met.localId !== 0) return met.localId;
    const sizes = obj(image.sizes) ?? {};
    const first = obj(Object.values(sizes)[0]);
    const meta = {
      width: Number(image.width) || null,
      height: Number(image.height) || null,
      filesize: Number(image.filesize) || null,
      mimeType: str(first, 'mime-type'),
      sizes,
    };
    const hash = hashOf({ url, meta });
    const known = this.same('image', rid, hash, null);
    if (known) return this.done('image', 'unchanged', known.localId);
    let localId: number;
    if (this.settings.dryRun) {
      localId = (await tx.images.findByUrl(url))?.id ?? this.cache.nextFakeId();
    } else {
      const existing = await tx.images.findByUrl(url);
      localId = existing?.id ?? (await tx.images.createExternal(url, this.settings.authorId, postStamp(this.clock(), this.settings.siteZone))).id;
      await tx.importMap.setImageMeta(localId, meta);
    }
    const outcome: Outcome = this.cache.get('image', rid) ? 'updated' : 'created';
    await this.remember(tx, {
      kind: 'image',
      remoteId: rid,
      localId,
      remoteModified: null,
      hash,
      remoteGlobalId: null,
      incomplete: false,
      oldPath: null,
    });
    return this.done('image', outcome, localId);
  }

  // ---- venues and organizers ------------------------------------------------------------------------------

  /**
   * A venue or organizer. `embedded`: met inside an event but not on the site's list (a draft the original
   * leaked, or one the lists hide): created as a draft, never published.
   */
  async linked(tx: Storage, kind: 'venue' | 'organizer', remote: Json, embedded = false): Promise<number | undefined> {
    const rid = str(remote, 'id');
    if (isBlankedLinked(kind, remote)) {
      warn(this.report, kind, rid, 'protected by a password: its fields came blanked, so it is not imported');
      count(this.report, kind, 'failed');
      return undefined;
    }
    const mapped = this.cache.get(kind, rid);
    const status = embedded ? 'draft' : str(remote, 'status') || 'publish';
    if (embedded)
      warn(this.report, kind, rid, `not on the site's ${kind} list (${str(remote, 'status') || 'status unknown'} there): imported as a draft`);
    const fields = linkedFields(kind, remote, status, this.settings.site.zone);
    const image = await this.image(tx, remote.image);
    const input: Record<string, unknown> = { ...fields, author: this.settings.authorId, ...(image !== undefined ? { image } : {}) };
    const hash = hashOf(input);
    const known = this.same(kind, rid, hash, str(remote, 'modified_utc') || null);
    if (known) return this.done(kind, 'unchanged', known.localId);
    const service = this.servicesIn(tx)[kind === 'venue' ? 'venues' : 'organizers'] as LinkedService<'venue'>;
    const row = {
      kind,
      remoteId: rid,
      remoteModified: str(remote, 'modified_utc') || null,
      hash,
      remoteGlobalId: str(remote, 'global_id') || null,
      incomplete: false,
      oldPath: oldPath(str(remote, 'url'), this.settings.site.home),
    };
    const exists = mapped && mapped.localId > 0 ? await tx.linked(kind).find(mapped.localId) : undefined;
    let localId: number;
    let outcome: Outcome;
    if (this.settings.dryRun) {
      localId = exists?.id ?? this.cache.nextFakeId();
      outcome = exists ? 'updated' : 'created';
    } else if (exists && exists.status !== 'trash') {
      const { slug, ...rest } = input;
      const sameSlug = row.oldPath === mapped?.oldPath;
      localId = (await service.update(this.settings.actor, exists.id, (sameSlug ? rest : input) as never)).record.id;
      outcome = 'updated';
    } else {
      localId = (await service.create(this.settings.actor, input as never)).record.id;
      outcome = 'created';
      const other = this.cache.all(kind).find((r) => r.localId === localId && r.remoteId !== rid);
      if (other) warn(this.report, kind, rid, `has the same name as remote ${kind} ${other.remoteId}: both are the one local ${kind} ${localId}`);
    }
    await this.remember(tx, { ...row, localId }, lineageOf(remote));
    return this.done(kind, outcome, localId);
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** The local ids an event refers to, creating what the site's lists did not give. */
  /** (tec.series.ts too) */
  async references(tx: Storage, remote: Json) {
    // seen in this pass (on the site's lists, or already met in another event): known; else met here first
    const current = (kind: string, rid: string) => {
      const row = this.cache.get(kind, rid);
      return row && row.seenPass === this.settings.pass ? row.localId : undefined;
    };
    const venueObj = obj(remote.venue) ?? list(remote.venue)[0];
    let venue: number | null = null;
    if (venueObj) venue = current('venue', str(venueObj, 'id')) ?? (await this.linked(tx, 'venue', venueObj, true)) ?? null;
    const organizers: number[] = [];
    for (const o of list(remote.organizer)) {
      const id = current('organizer', str(o, 'id')) ?? (await this.linked(tx, 'organizer', o, true));
      if (id !== undefined) organizers.push(id);
    }
    const terms = async (kind: 'category' | 'tag', items: Json[]) => {
      const ids: number[] = [];
      for (const t of items) {
        const id = current(kind, str(t, 'id')) ?? (await this.term(tx, kind, t));
        if (id !== undefined) ids.push(id);
      }
      return ids;
    };
    return {
      venue,
      organizers,
      categories: await terms('category', list(remote.categories)),
      tags: await terms('tag', list(remote.tags)),
      image: await this.image(tx, remote.image),
    };
  }

  /**
   * An event. `incomplete`: what an anonymous importer was given blanked (a password-protected event): it
   * becomes a draft with what could be read, flagged in the map, never published. `status` overrides the
   * remote one (a protected event read with its password is kept private: we have no post passwords).
   */
  async event(tx: Storage, remote: Json, o: { incomplete?: boolean; status?: string } = {}): Promise<Outcome> {
    const rid = str(remote, 'id');
    const site = this.settings.site;
    const dates = eventDates(remote, site.zone, (reason) => warn(this.report, 'event', rid, reason));
    const status = o.incomplete ? 'draft' : (o.status ?? (str(remote, 'status') || 'publish'));
    const refs = await this.references(tx, remote);
    const input: EventInput = {
      ...eventFields(remote, dates, status, site.zone),
      author: this.settings.authorId,
      venue: refs.venue === null ? null : { id: refs.venue },
      organizers: refs.organizers.map((id) => ({ id })),
      categories: refs.categories,
      tags: refs.tags,
      image: refs.image ?? null,
    };
    if (this.settings.images === 'skip') delete (input as { image?: unknown }).image;
    const hash = hashOf({ input, incomplete: o.incomplete === true });
    const modified = str(remote, 'modified_utc') || null;
    const known = this.same('event', rid, hash, modified);
    if (known) return this.outcome('event', 'unchanged');
    const uid = tecUid(Number(remote.id), str(remote, 'start_date'), str(remote, 'end_date') || str(remote, 'start_date'), site.host);
    const row = {
      kind: 'event',
      remoteId: rid,
      remoteModified: modified,
      hash,
      remoteGlobalId: str(remote, 'global_id') || null,
      incomplete: o.incomplete === true,
      oldPath: oldPath(str(remote, 'url'), site.home),
    };
    const mapped = this.cache.get('event', rid);
    let local = mapped && mapped.localId > 0 ? await tx.events.find(mapped.localId) : undefined;
    if (!local) {
      // an event with the UID this one has on the site (an earlier iCalendar import of its feed) is this event
      const byUid = await tx.events.idByIcalUid(uid);
      local = byUid === undefined ? undefined : await tx.events.find(byUid);
    }
    if (local?.status === 'trash') {
      warn(this.report, 'event', rid, `its local event ${local.id} is in the trash: left there`);
      await this.remember(tx, { ...row, localId: local.id });
      return this.outcome('event', 'unchanged');
    }
    const events = this.servicesIn(tx).events;
    let localId: number;
    if (this.settings.dryRun) {
      localId = local?.id ?? this.cache.nextFakeId();
    } else if (local) {
      const { slug, ...rest } = input;
      const sameSlug = mapped !== undefined && row.oldPath === mapped.oldPath;
      localId = (await events.update(this.settings.actor, local.id, sameSlug ? rest : input)).record.id;
    } else {
      localId = (await events.create(this.settings.actor, { ...input, icalUid: uid })).record.id;
    }
    await this.remember(tx, { ...row, localId }, lineageOf(remote));
    return this.outcome('event', local ? 'updated' : 'created');
  }

  outcome(kind: Kind, outcome: Outcome): Outcome {
    count(this.report, kind, outcome);
    return outcome;
  }
}
