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
import type { TermService } from '../../terms/term.service.js';
import type { BatchItem } from './tec.batch.js';
import type { MapCache } from './tec.cache.js';
import type { Site } from './tec.discovery.js';
import { eventDates, eventFields, hashOf, type Json, lineageOf, list, obj, oldPath, str, tecUid } from './tec.mapper.js';
import type { TecMedia } from './tec.media.js';
import { writeImage, writeLinked, writeTerm } from './tec.records.js';
import { count, type Outcome, type TecReport, warn } from './tec.report.js';

export { MapCache } from './tec.cache.js';

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
  readonly images: ImagesMode;
  readonly pass: string;
  readonly siteZone: string;
  /** The public URL of this service (no trailing slash): kept copies are served at `<it>/media/…`. */
  readonly mediaBase: string;
}

/** Featured images: linked by their remote URL, downloaded and served here, or left out. */
export type ImagesMode = 'link' | 'download' | 'skip';

export type Kind = 'category' | 'tag' | 'venue' | 'organizer' | 'event' | 'image' | 'series';

export class TecWriter {
  /** Cache changes of the item being written: applied when it commits, dropped when it rolls back. */
  private pending: MapRow[] = [];
  /** Records found unchanged (marked seen in one statement per batch). */
  private unchanged: { kind: string; remoteId: string }[] = [];

  constructor(
    readonly settings: WriterSettings,
    readonly cache: MapCache,
    readonly report: TecReport,
    readonly servicesIn: (tx: Storage) => TecServices,
    readonly clock: () => number = Date.now,
    /** With `images: download`: the files fetched for the records (see `prepare`). */
    readonly media?: TecMedia,
  ) {}

  /** Before a page of records is written, outside its transaction: fetches the images they show (download). */
  async prepare(items: readonly BatchItem[]): Promise<void> {
    if (this.media) await this.media.prepare(items.map((i) => i.remote));
  }

  /** Map rows and lineages of the current item, to be written with its batch (see BatchWriter). */
  private writes: { rows: MapRow[]; lineages: [number, readonly string[]][] } = { rows: [], lineages: [] };

  /** What the current item would put in the cache and the map (see `pending`). */
  takePending(): { rows: MapRow[]; unchanged: { kind: string; remoteId: string }[]; writes: TecWriter['writes'] } {
    const out = { rows: this.pending, unchanged: this.unchanged, writes: this.writes };
    this.pending = [];
    this.unchanged = [];
    this.writes = { rows: [], lineages: [] };
    return out;
  }

  /**
   * Decides and records one record: its map row (and the lineage of global ids it came with) to be written with
   * the batch, in one statement for all (not in a dry run), and the cache change pending. (tec.series.ts too)
   */
  async remember(_tx: Storage, row: Omit<MapRow, 'seenPass'>, lineage?: readonly string[]): Promise<void> {
    const full: MapRow = { ...row, seenPass: this.settings.pass };
    if (!this.settings.dryRun) {
      this.writes.rows.push(full);
      if (lineage && lineage.length > 0 && row.kind !== 'image' && row.localId > 0) this.writes.lineages.push([row.localId, lineage]);
    }
    this.pending.push(full);
  }

  /** (tec.series.ts too) */
  same(kind: Kind, remoteId: string, hash: string, modified: string | null): MapRow | undefined {
    const known = this.cache.get(kind, remoteId);
    if (known && known.hash === hash && known.localId > 0) {
      this.seen(known, modified ?? known.remoteModified);
      return known;
    }
    return undefined;
  }

  private seen(known: MapRow, modified: string | null): void {
    this.unchanged.push({ kind: known.kind, remoteId: known.remoteId });
    this.pending.push({ ...known, remoteModified: modified, seenPass: this.settings.pass });
  }

  /** The map row of a record an earlier run imported with all its content (not flagged incomplete). */
  complete(kind: Kind, remoteId: string): MapRow | undefined {
    const known = this.cache.get(kind, remoteId);
    return known && known.localId > 0 && !known.incomplete ? known : undefined;
  }

  /**
   * Leaves a record as an earlier run wrote it, seen by this pass (so `prune` keeps it): what this run read of
   * it is less than that run had (a protected event read without its password, a draft that answers 403 to a
   * run without the application password), not a change on the site.
   */
  keep(kind: Kind, remoteId: string): Outcome {
    const known = this.cache.get(kind, remoteId);
    if (!known || known.localId <= 0) throw new Error(`${kind} ${remoteId} has no local record to keep`);
    this.seen(known, known.remoteModified);
    return this.outcome(kind, 'unchanged');
  }

  // ---- what the events refer to (tec.records.ts) ------------------------------------------------------------

  term(tx: Storage, kind: 'category' | 'tag', remote: Json): Promise<number | undefined> {
    return writeTerm(this, tx, kind, remote);
  }

  image(tx: Storage, value: unknown): Promise<number | undefined> {
    return writeImage(this, tx, value);
  }

  /**
   * A venue or organizer. `embedded`: met inside an event but not on the site's list (a draft the original
   * leaked, or one the lists hide): created as a draft, never published.
   */
  linked(tx: Storage, kind: 'venue' | 'organizer', remote: Json, embedded = false): Promise<number | undefined> {
    return writeLinked(this, tx, kind, remote, embedded);
  }

  /** Counts the outcome and answers the local id. */
  done(kind: Kind, outcome: Outcome, localId: number): number {
    count(this.report, kind, outcome);
    return localId;
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
    const warnHere = (reason: string) => warn(this.report, 'event', rid, reason);
    const dates = eventDates(remote, site.zone, warnHere);
    const status = o.incomplete ? 'draft' : (o.status ?? (str(remote, 'status') || 'publish'));
    const refs = await this.references(tx, remote);
    const input: EventInput = {
      ...eventFields(remote, dates, status, site.zone, warnHere),
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
      // a website gone from the site is cleared here (our writes cannot set "none" back: it becomes empty)
      const website = input.website === undefined && local.website ? { website: null } : {};
      // and so are additional fields gone from it
      const fields = input.customFields === undefined && local.customFields.length > 0 ? { customFields: null } : {};
      localId = (await events.update(this.settings.actor, local.id, { ...(sameSlug ? rest : input), ...website, ...fields })).record.id;
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
