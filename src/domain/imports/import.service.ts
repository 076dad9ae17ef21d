/**
 * Import jobs (FEATURES.md §3.4): made by a request (or the CLI), stored, and run by a runner in the service —
 * one process per job (ImportStore.claim), resumed after a crash when the lease of the process that ran it
 * runs out. The .ics source fetches its URL (SSRF-guarded), parses the text off-thread under a time limit,
 * and hands the items to the IcsImporter.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Storage } from '../../storage/storage.js';
import type { ImportJob } from '../../storage/stores/import.store.js';
import { type Actor, isAuthenticated, isRole } from '../actor.js';
import { errors } from '../errors.js';
import type { EventService } from '../events/event.service.js';
import { can } from '../policies.js';
import { checkUrl, FetchError, feedUrl, fetchText } from './fetch.js';
import { IcsImporter, type ImportOptions, type ImportProgress, type UpdateAuthority } from './ics.importer.js';
import { parseInWorker } from './ics.sandbox.js';
import { IcsFormatError, looksLikeICalendar } from './ics.structure.js';
import { TecAbort } from './tec/tec.client.js';
import { DiscoveryError } from './tec/tec.discovery.js';
import { isDay, type TecSettings } from './tec/tec.importer.js';
import { ImportRunningError, LostTecLease, runningJob, runTecJob, type TecProgress, totals } from './tec/tec.job.js';
import { addressOf, type Permalinks, type Redirect, redirectsOf } from './tec/tec.redirects.js';
import type { TecServices } from './tec/tec.writer.js';

export const UPDATE_AUTHORITIES: readonly UpdateAuthority[] = ['overwrite', 'retain', 'preserve_local_changes'];
export const IMPORT_STATUSES = ['publish', 'draft', 'pending', 'private'] as const;

/** A lease a running job's process renews; a job whose lease ran out is resumed by another process. */
export const LEASE_MS = 60_000;

export interface ImportRequest {
  readonly source: 'ics' | 'tec';
  readonly text?: string;
  readonly url?: string;
  readonly dryRun: boolean;
  readonly defaultStatus: string;
  readonly updateAuthority: UpdateAuthority;
  /** A site import's own options (tec.job.ts names them), stored with the job. */
  readonly tec?: Readonly<Record<string, unknown>>;
}

/** A job's progress as runPending reports it; a site import adds its stage and report. */
export type JobProgress = ImportProgress & { readonly tec?: TecProgress };

/** Who may import: editors and administrators (they may write everyone's events and create terms). */
export function canImport(actor: Actor): boolean {
  return can(actor, 'edit_others_posts') && can(actor, 'manage_categories');
}

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export interface ImportSettings {
  readonly siteZone: string;
  readonly allowPrivate: boolean;
  readonly parseTimeoutMs: number;
  /** Site imports: the client's first backoff, failures in a row before stopping, and its user agent. */
  readonly tec?: Omit<TecSettings, 'allowPrivate' | 'siteZone'>;
}

export class ImportService {
  /** This process, as a lease owner. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly importer: IcsImporter;

  constructor(
    private readonly storage: Storage,
    eventsIn: (tx: Storage) => EventService,
    private readonly settings: ImportSettings,
    private readonly clock: () => number = Date.now,
    /** The services a site import writes through, bound to a transaction. */
    private readonly servicesIn?: (tx: Storage) => TecServices,
  ) {
    this.importer = new IcsImporter(storage, eventsIn, clock);
  }

  /** A new queued job (the runner picks it up). Refuses what can be refused at once: no calendar, a bad URL. */
  async create(actor: Actor, sent: ImportRequest): Promise<ImportJob> {
    if (!canImport(actor) || actor.kind !== 'user') throw errors.forbidden(isAuthenticated(actor));
    // a feed's webcal:// subscription link is its http:// URL (kept so: the job and its items are keyed by it)
    const request = sent.source === 'ics' && sent.url !== undefined ? { ...sent, url: feedUrl(sent.url) } : sent;
    if (request.text !== undefined && !looksLikeICalendar(request.text)) throw errors.notICalendar('it does not start with BEGIN:VCALENDAR');
    if (request.url !== undefined) {
      try {
        checkUrl(request.url, this.settings.allowPrivate);
      } catch (error) {
        throw errors.importUrlRefused(error instanceof Error ? error.message : String(error));
      }
    }
    if (request.source === 'tec') {
      // (a day that does not exist would make every yearly window of the walk start on a day that is not one)
      const since = request.tec?.since;
      if (typeof since === 'string' && !isDay(since)) throw errors.invalidParam('since');
      const running = await runningJob(this.storage, request.url ?? '', 2 ** 31 - 1, stamp(this.clock()));
      if (running !== undefined) throw errors.importRunning(running);
    }
    const payloadKind = request.text !== undefined ? 'text' : 'url';
    const options =
      request.source === 'tec'
        ? { ...request.tec, dry_run: request.dryRun }
        : { dry_run: request.dryRun, default_status: request.defaultStatus, update_authority: request.updateAuthority };
    return this.storage.imports.create({
      source: request.source,
      options,
      payloadKind,
      payload: request.text ?? request.url ?? '',
      userId: actor.id,
      now: stamp(this.clock()),
    });
  }

  async get(actor: Actor, id: number): Promise<ImportJob> {
    if (!canImport(actor)) throw errors.forbidden(isAuthenticated(actor));
    const job = await this.storage.imports.find(id);
    if (!job) throw errors.importNotFound(id);
    return job;
  }

  /**
   * Where an old permalink of an imported site leads here (the pages' redirects): the record it names and its
   * address now; undefined when no import knows the path or the record has no address.
   */
  async redirectFor(path: string, links: Permalinks): Promise<{ kind: string; localId: number; to: string } | undefined> {
    const hit = await this.storage.importMap.byOldPath(path);
    if (!hit) return undefined;
    const to = await addressOf(this.storage, links, hit.kind, hit.localId);
    return to === undefined ? undefined : { ...hit, to };
  }

  /** The redirect map of every site imported from whose API root starts with `site` (a site URL or API root). */
  async redirects(site: string, links: Permalinks): Promise<{ sourceKey: string; redirects: Redirect[] }[]> {
    const base = site.replace(/\/+$/, '');
    const keys = (await this.storage.importMap.sourceKeys('tec')).filter((k) => k === base || k.startsWith(`${base}/`) || k.startsWith(`${base}?`));
    return Promise.all(keys.map(async (sourceKey) => ({ sourceKey, redirects: await redirectsOf(this.storage, links, sourceKey) })));
  }

  /** A site import's report (null for other jobs, and before it has one). */
  async report(job: ImportJob): Promise<unknown> {
    return job.source === 'tec' ? (await this.storage.importMap.jobExtras(job.id)).report : null;
  }

  async list(actor: Actor, page: number, perPage: number): Promise<{ items: ImportJob[]; total: number }> {
    if (!canImport(actor)) throw errors.forbidden(isAuthenticated(actor));
    const { jobs, total } = await this.storage.imports.list(perPage, (page - 1) * perPage);
    return { items: jobs, total };
  }

  /** Claims and runs jobs until none is left; returns how many ran. `only`: that job alone (the CLI). */
  async runPending(only?: number, onProgress?: (job: ImportJob, p: JobProgress) => void): Promise<number> {
    let ran = 0;
    for (;;) {
      const now = this.clock();
      if (only === undefined && !(await this.storage.imports.hasClaimable(stamp(now)))) return ran;
      const job = await this.storage.transaction((tx) => tx.imports.claim(this.owner, stamp(now), stamp(now + LEASE_MS), only));
      if (!job) return ran;
      await this.run(job, onProgress);
      ran++;
      if (only !== undefined) return ran;
    }
  }

  /** Runs a claimed job to its end: done, or failed with the reason (a malformed file, a refused URL). */
  private async run(job: ImportJob, onProgress?: (job: ImportJob, p: JobProgress) => void): Promise<void> {
    // the latest progress: what the keep-alive below writes again (it must not move the counts back)
    let last: JobProgress = { done: job.progressDone, total: job.progressTotal, counts: job, errors: job.errors };
    const renew = async (p: JobProgress) => {
      const now = this.clock();
      last = p;
      onProgress?.(job, p);
      const mine = await this.storage.imports.heartbeat(job.id, this.owner, {
        now: stamp(now),
        leaseUntil: stamp(now + LEASE_MS),
        progressDone: p.done,
        progressTotal: p.total,
        counts: p.counts,
        errors: p.errors.slice(0, 1000),
      });
      if (!mine) throw new LostLease();
    };
    // the lease is kept while the text is fetched and parsed too (those may take a while)
    const keepAlive = setInterval(() => {
      const now = this.clock();
      void this.storage.imports
        .heartbeat(job.id, this.owner, {
          now: stamp(now),
          leaseUntil: stamp(now + LEASE_MS),
          progressDone: last.done,
          progressTotal: last.total,
          counts: last.counts,
          errors: last.errors,
        })
        .catch(() => undefined);
    }, LEASE_MS / 3);
    keepAlive.unref();
    try {
      const user = await this.storage.users.findById(job.userId);
      if (!user || !isRole(user.role)) throw new JobFailure('the user who asked for the import no longer exists');
      const actor: Actor = { kind: 'user', id: user.id, login: user.login, role: user.role };
      if (job.source === 'tec') {
        await this.runTec(job, actor, renew);
        await this.storage.imports.finish(job.id, this.owner, 'done', stamp(this.clock()), null);
        return;
      }
      const { text, sourceKey } = await this.document(job);
      const calendar = await parseInWorker(text, this.settings.siteZone, this.settings.parseTimeoutMs).catch((error: unknown) => {
        if (error instanceof IcsFormatError) throw new JobFailure(error.message);
        throw error;
      });
      clearInterval(keepAlive);
      const options: ImportOptions = {
        dryRun: job.options.dry_run === true,
        defaultStatus: String(job.options.default_status ?? 'publish'),
        updateAuthority: (job.options.update_authority as UpdateAuthority) ?? 'overwrite',
      };
      await this.importer.run(actor, calendar, sourceKey ?? `file:${calendar.identity}`, job.id, options, renew);
      await this.storage.imports.finish(job.id, this.owner, 'done', stamp(this.clock()), null);
    } catch (error) {
      if (error instanceof LostLease || error instanceof LostTecLease) return;
      const reason = error instanceof JobFailure ? error.message : `the import stopped: ${error instanceof Error ? error.message : String(error)}`;
      await this.storage.imports.finish(job.id, this.owner, 'failed', stamp(this.clock()), reason);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** A site import (tec/): its report is the job's; the credentials it was given are forgotten when it ends. */
  private async runTec(job: ImportJob, actor: Actor, renew: (p: JobProgress) => Promise<void>): Promise<void> {
    if (!this.servicesIn) throw new JobFailure('site imports are not set up in this process');
    const settings: TecSettings = {
      allowPrivate: this.settings.allowPrivate,
      siteZone: this.settings.siteZone,
      retryBaseMs: this.settings.tec?.retryBaseMs ?? 1000,
      maxFailures: this.settings.tec?.maxFailures ?? 5,
      userAgent: this.settings.tec?.userAgent ?? 'calendar-events-service-importer',
      mediaBase: this.settings.tec?.mediaBase ?? '',
    };
    // what a job was given to reach the site is forgotten when it stops, however it stops
    const forget = () => {
      const { app_password, event_password, ...kept } = job.options;
      if (app_password === undefined && event_password === undefined) return Promise.resolve();
      return this.storage.importMap.setOptions(job.id, {
        ...kept,
        app_password_given: app_password !== undefined,
        event_password_given: event_password !== undefined,
      });
    };
    try {
      const deps = { storage: this.storage, servicesIn: this.servicesIn, settings, owner: this.owner, clock: this.clock };
      await runTecJob(
        deps,
        job,
        actor,
        () => stamp(this.clock()),
        (p) => renew({ done: p.done, total: p.total, counts: totals(p.report), errors: [], tec: p }),
      );
    } catch (error) {
      if (error instanceof TecAbort) throw new JobFailure(`the import stopped: ${error.message}; run it again to resume from its checkpoint`);
      if (error instanceof DiscoveryError) throw new JobFailure(error.message);
      if (error instanceof ImportRunningError) throw new JobFailure(`${error.message}: this run did nothing`);
      throw error;
    } finally {
      await forget();
    }
  }

  /** The job's text, and the items' source key when it is a URL (files take their calendar's identity). */
  private async document(job: ImportJob): Promise<{ text: string; sourceKey?: string }> {
    if (job.payloadKind === 'text') return { text: job.payload };
    try {
      const { text } = await fetchText(job.payload, { allowPrivate: this.settings.allowPrivate });
      if (text === undefined)
        throw new JobFailure(`${job.payload} answered with text that is not UTF-8 (RFC 5545 §3.1.4), and its Content-Type names no other charset`);
      if (!looksLikeICalendar(text)) throw new JobFailure(`${job.payload} did not answer with iCalendar (no BEGIN:VCALENDAR)`);
      return { text, sourceKey: job.payload };
    } catch (error) {
      if (error instanceof FetchError)
        throw new JobFailure(`${error.code === 'url-refused' ? 'the URL is refused' : 'the fetch failed'}: ${error.message}`);
      throw error;
    }
  }
}

class JobFailure extends Error {}
class LostLease extends Error {}
