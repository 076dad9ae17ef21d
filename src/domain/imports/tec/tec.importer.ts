/**
 * A site import from The Events Calendar (issue 15, FEATURES.md §6): discover the site, then categories
 * (parents first), tags, venues, organizers, events (see tec.events.ts), the ids hidden from listings, and at
 * the end the prune. Every stage saves a checkpoint: a run that was killed, lost its lease or stopped after
 * repeated failures resumes where it was, and ends in the state an uninterrupted run would have reached.
 */
import { randomUUID } from 'node:crypto';
import type { Storage } from '../../../storage/storage.js';
import { parseIsoBound } from '../../../time/iso-bound.js';
import type { Actor } from '../../actor.js';
import { BatchWriter } from './tec.batch.js';
import { TecClient } from './tec.client.js';
import { apiUrl, discover, type Site } from './tec.discovery.js';
import { eventStage, probeStage } from './tec.events.js';
import { type Json, str } from './tec.mapper.js';
import { TecMedia } from './tec.media.js';
import { count, emptyReport, type TecReport, warn } from './tec.report.js';
import { encodeQuery, fetchPage, linkedQuery, nextPageUrl, termQuery } from './tec.walk.js';
import { type ImagesMode, MapCache, type TecServices, TecWriter } from './tec.writer.js';

export interface TecOptions {
  readonly dryRun: boolean;
  /** YYYY-MM-DD: events from that day on (and what they refer to). */
  readonly since?: string;
  readonly prune: boolean;
  readonly groupSeries: boolean;
  readonly images: ImagesMode;
  readonly concurrency: number;
  /** `login:password`: drafts, pending, private and scheduled posts come too. */
  readonly appPassword?: string;
  /** The post password of protected events, when the operator knows it. */
  readonly eventPassword?: string;
  readonly authorId: number;
  /** How many ids between the listed ones may be read one by one (events hidden from listings). */
  readonly maxProbes: number;
}

/** Whether `since` is a day that exists, YYYY-MM-DD (2020-02-31 does not), by the rule of every date bound here. */
export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && parseIsoBound(value) !== undefined;
}

export interface TecSettings {
  readonly allowPrivate: boolean;
  readonly siteZone: string;
  readonly retryBaseMs: number;
  readonly maxFailures: number;
  readonly userAgent: string;
  /** The public URL of this service (no trailing slash): where images downloaded are served, under `/media/`. */
  readonly mediaBase: string;
}

export const STAGES = ['terms', 'linked', 'events', 'probes', 'finish', 'done'] as const;
export type Stage = (typeof STAGES)[number];

export interface WindowState {
  next: string | null;
  page: number;
  done: boolean;
}

export interface Checkpoint {
  version: 1;
  /** Which pass the map's `seen_pass` marks belong to (a resumed run continues the pass). */
  pass: string;
  stage: Stage;
  span?: { since: string; total: number; fromYear: number; toYear: number };
  windows: Record<string, WindowState>;
  /** Ids probed so far (the next probe starts after it). */
  probedUpTo?: number;
  /** Remote attachment ids (images): not events, never probed. */
  attachments: string[];
  report: TecReport;
}

export function freshCheckpoint(): Checkpoint {
  return { version: 1, pass: randomUUID().slice(0, 18), stage: 'terms', windows: {}, attachments: [], report: emptyReport() };
}

export interface TecHooks {
  /** Stores the checkpoint and the report (throws when the job is no longer ours). */
  save(checkpoint: Checkpoint): Promise<void>;
}

/** What the stages share. */
export interface TecRun {
  readonly storage: Storage;
  readonly actor: Actor;
  readonly servicesIn: (tx: Storage) => TecServices;
  readonly client: TecClient;
  readonly site: Site;
  readonly options: TecOptions;
  readonly writer: TecWriter;
  readonly batch: BatchWriter;
  readonly cp: Checkpoint;
  readonly report: TecReport;
  save(): Promise<void>;
}

const KINDS = ['category', 'tag', 'venue', 'organizer', 'event', 'image', 'series'] as const;
const after = (cp: Checkpoint, stage: Stage) => STAGES.indexOf(cp.stage) > STAGES.indexOf(stage);

export class TecImporter {
  constructor(
    private readonly storage: Storage,
    private readonly servicesIn: (tx: Storage) => TecServices,
    private readonly settings: TecSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  async run(actor: Actor, url: string, options: TecOptions, checkpoint: Checkpoint | null, hooks: TecHooks): Promise<TecReport> {
    const cp = checkpoint ?? freshCheckpoint();
    const report = cp.report;
    const client = new TecClient({
      allowPrivate: this.settings.allowPrivate,
      concurrency: options.concurrency,
      userAgent: this.settings.userAgent,
      appPassword: options.appPassword,
      retryBaseMs: this.settings.retryBaseMs,
      maxFailures: this.settings.maxFailures,
    });
    const requestsBefore = report.requests;
    const waitedBefore = report.waited_ms;
    const save = async () => {
      report.requests = requestsBefore + client.requests;
      report.waited_ms = waitedBefore + client.waitedMs;
      await hooks.save(cp);
    };
    try {
      const site = await discover(client, url, this.settings.siteZone);
      report.site = { api_root: site.apiRoot, name: site.name, timezone: site.zone };
      const scope = { source: 'tec', sourceKey: site.apiRoot };
      const cache = new MapCache();
      for (const kind of KINDS) cache.load(kind, await this.storage.importMap.all(scope, kind));
      const writer = new TecWriter(
        {
          scope,
          site,
          actor,
          authorId: options.authorId,
          dryRun: options.dryRun,
          images: options.images,
          pass: cp.pass,
          siteZone: this.settings.siteZone,
          mediaBase: this.settings.mediaBase,
        },
        cache,
        report,
        this.servicesIn,
        this.clock,
        options.images === 'download'
          ? new TecMedia(this.storage, client, {
              pass: cp.pass,
              dryRun: options.dryRun,
              stamp: () => new Date(this.clock()).toISOString().slice(0, 19).replace('T', ' '),
            })
          : undefined,
      );
      const batch = new BatchWriter(this.storage, writer, report, options.dryRun, scope, cp.pass);
      const run: TecRun = { storage: this.storage, actor, servicesIn: this.servicesIn, client, site, options, writer, batch, cp, report, save };
      if (!after(cp, 'terms')) {
        await this.terms(run, 'category', '/categories', 'categories');
        await this.terms(run, 'tag', '/tags', 'tags');
        cp.stage = 'linked';
        await save();
      }
      if (!after(cp, 'linked')) {
        await this.linked(run, 'venue');
        await this.linked(run, 'organizer');
        cp.stage = 'events';
        await save();
      }
      if (!after(cp, 'events')) {
        await eventStage(run);
        cp.stage = 'probes';
        await save();
      }
      if (!after(cp, 'probes')) {
        await probeStage(run);
        cp.stage = 'finish';
        await save();
      }
      if (!after(cp, 'finish')) {
        report.complete = report.resources.events.failed === 0 && !report.probes.limit_reached;
        if (options.prune) await this.prune(run);
        report.redirects = KINDS.reduce((n, k) => n + cache.all(k).filter((r) => r.oldPath !== null && r.localId > 0).length, 0);
        cp.stage = 'done';
        await save();
      }
      return report;
    } finally {
      client.close();
    }
  }

  /** Every category or tag, empty ones too, categories with their parents first. */
  private async terms(run: TecRun, kind: 'category' | 'tag', path: string, key: string): Promise<void> {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const got = await fetchPage(run.client, apiUrl(run.site, path, encodeQuery(termQuery(page))), key);
      if (!got || got.items.length === 0) break;
      items.push(...got.items);
      if (page >= got.totalPages) break;
    }
    const ordered: Json[] = [];
    const placed = new Set<string>();
    const ids = new Set(items.map((t) => str(t, 'id')));
    // parents before children, whatever order the site lists them in (a parent the list lacks: at the top)
    for (let round = 0; ordered.length < items.length && round <= items.length; round++) {
      for (const t of items) {
        const parent = str(t, 'parent');
        if (placed.has(str(t, 'id'))) continue;
        if (parent === '' || parent === '0' || placed.has(parent) || !ids.has(parent) || round === items.length) {
          ordered.push(t);
          placed.add(str(t, 'id'));
        }
      }
    }
    await run.batch.write(ordered.map((t) => ({ kind, remoteId: str(t, 'id'), write: (tx) => run.writer.term(tx, kind, t) })));
  }

  /** Every venue or organizer on the site's list (with an application password, unpublished ones too). */
  private async linked(run: TecRun, kind: 'venue' | 'organizer'): Promise<void> {
    const path = `/${kind}s`;
    let url: string | null = apiUrl(run.site, path, encodeQuery(linkedQuery));
    for (let page = 1; url !== null; page++) {
      const got = await fetchPage(run.client, url, `${kind}s`);
      if (!got) break;
      for (const item of got.items) {
        const image = item.image as Json | false | undefined;
        if (image && image.id !== undefined && !run.cp.attachments.includes(String(image.id))) run.cp.attachments.push(String(image.id));
      }
      await run.batch.write(got.items.map((v) => ({ kind, remoteId: str(v, 'id'), remote: v, write: (tx) => run.writer.linked(tx, kind, v) })));
      url = nextPageUrl(run.site, path, linkedQuery, got, page, true);
    }
  }

  /**
   * `prune`: what a complete pass did not see goes to the trash here (events, venues, organizers; terms have no
   * trash and stay). With `since`, only events from that day on can have gone.
   */
  private async prune(run: TecRun): Promise<void> {
    if (!run.report.complete) {
      warn(run.report, 'event', '-', 'the pass was not complete (failures, or the probe limit): nothing is pruned');
      return;
    }
    const services = this.servicesIn(this.storage);
    for (const kind of ['event', 'venue', 'organizer'] as const) {
      const kept: string[] = [];
      for (const row of run.writer.cache.all(kind)) {
        if (row.seenPass === run.cp.pass || row.localId <= 0) continue;
        const local = kind === 'event' ? await this.storage.events.find(row.localId) : await this.storage.linked(kind).find(row.localId);
        if (!local || local.status === 'trash') continue;
        if (kind === 'event' && run.options.since && 'startDate' in local && local.startDate < `${run.options.since} 00:00:00`) continue;
        // a venue or organizer no list or event showed this pass may still be on the site (a draft or private one
        // an earlier run read with an application password, linked to no event this run could read): asked by id,
        // it is gone only when the site says so (400 or 404: no such post; 200 in its trash)
        if (kind !== 'event' && (await this.stillOnSite(run, kind, row.remoteId))) {
          kept.push(row.remoteId);
          continue;
        }
        if (!run.options.dryRun) {
          if (kind === 'event') await services.events.remove(run.actor, row.localId);
          else await services[kind === 'venue' ? 'venues' : 'organizers'].remove(run.actor, row.localId);
        }
        count(run.report, kind, 'trashed');
      }
      if (kept.length > 0) {
        const shown = kept.slice(0, 50).join(', ');
        warn(run.report, kind, shown, `${kept.length} ${kind}s not seen by this run are still on the site (they answer 401 or 403): never pruned`);
      }
    }
  }

  /** Whether the site still has a venue or organizer (asked by id; a failed request counts as still there). */
  private async stillOnSite(run: TecRun, kind: 'venue' | 'organizer', remoteId: string): Promise<boolean> {
    try {
      const res = await run.client.getJson(apiUrl(run.site, `/${kind}s/${encodeURIComponent(remoteId)}`));
      if (res.status === 200) return str(res.json as Json, 'status') !== 'trash';
      return res.status !== 400 && res.status !== 404 && res.status !== 410;
    } catch {
      return true;
    }
  }
}
