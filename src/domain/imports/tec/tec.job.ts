/**
 * A site import as a job of the import system (issue 13's jobs): its options as stored, the checkpoint it
 * resumes from (its own after a lease ran out; else the newest one an earlier, unfinished job of the same site
 * and the same options left, which it takes over when it first saves its own), the checkpoint saved with every
 * heartbeat, and what a finished job forgets (the credentials it was given).
 */
import { hostname } from 'node:os';
import type { Storage } from '../../../storage/storage.js';
import type { ImportJob } from '../../../storage/stores/import.store.js';
import type { Actor } from '../../actor.js';
import { type Checkpoint, TecImporter, type TecOptions, type TecSettings } from './tec.importer.js';
import { type TecReport, totals } from './tec.report.js';
import type { TecServices } from './tec.writer.js';

export interface TecProgress {
  readonly done: number;
  readonly total: number;
  readonly stage: string;
  readonly report: TecReport;
}

/** What the options of a stored job say (the request's names, as `POST /imports` takes them). */
export function tecOptions(options: Readonly<Record<string, unknown>>, userId: number): TecOptions {
  const text = (k: string) => (typeof options[k] === 'string' && options[k] !== '' ? (options[k] as string) : undefined);
  return {
    dryRun: options.dry_run === true,
    since: text('since'),
    prune: options.prune === true,
    groupSeries: options.group_series === true,
    images: options.images === 'skip' || options.images === 'download' ? options.images : 'link',
    concurrency: Math.min(8, Math.max(1, Number(options.concurrency ?? 2) || 2)),
    appPassword: text('app_password'),
    eventPassword: text('event_password'),
    authorId: Number(options.author ?? userId) || userId,
    maxProbes: Math.max(0, Number(options.max_probes ?? 5000) || 0),
  };
}

/** Options that change what a pass does: a checkpoint is taken over only by a job with the same ones. */
const PASS_OPTIONS = ['dry_run', 'since', 'group_series', 'images'] as const;
const authenticated = (o: Readonly<Record<string, unknown>>) => typeof o.app_password === 'string' || o.app_password_given === true;

/** Whether the process that holds a lease is gone (same host, no such process): its lease need not run out. */
export function ownerGone(owner: string | null): boolean {
  if (!owner) return true;
  const [host, pid] = owner.split(':');
  if (host !== hostname() || !/^\d+$/.test(pid ?? '') || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** An earlier job of the same site that is still running, under a lease of a live process (or undefined). */
export async function runningJob(storage: Storage, url: string, beforeId: number, nowStamp: string): Promise<number | undefined> {
  const earlier = await storage.importMap.unfinished('tec', url, beforeId);
  return earlier.find((j) => j.state === 'running' && (j.leaseUntil ?? '') > nowStamp && !ownerGone(j.leaseOwner))?.id;
}

export class ImportRunningError extends Error {
  constructor(readonly jobId: number) {
    super(`import ${jobId} of this site is still running`);
  }
}

type Earlier = { readonly id: number; readonly options: Record<string, unknown>; readonly checkpoint: unknown };

export async function runTecJob(
  deps: { storage: Storage; servicesIn: (tx: Storage) => TecServices; settings: TecSettings; owner: string; clock: () => number },
  job: ImportJob,
  actor: Actor,
  nowStamp: () => string,
  heartbeat: (p: TecProgress) => Promise<void>,
): Promise<TecReport> {
  const { storage } = deps;
  const options = tecOptions(job.options, job.userId);
  let checkpoint = (await storage.importMap.jobExtras(job.id)).checkpoint as Checkpoint | null;
  // earlier unfinished jobs of the same options, which this one replaces (taking over the newest checkpoint)
  let replaced: Earlier[] = [];
  if (!checkpoint) {
    const running = await runningJob(storage, job.payload, job.id, nowStamp());
    if (running !== undefined) throw new ImportRunningError(running);
    const same = (o: Record<string, unknown>) =>
      PASS_OPTIONS.every((k) => (o[k] ?? null) === (job.options[k] ?? null)) && authenticated(o) === authenticated(job.options);
    // (a job of other options — a dry run, another --since — leaves them and their checkpoints as they are)
    replaced = (await storage.importMap.unfinished('tec', job.payload, job.id)).filter((j) => same(j.options));
    const resumable = replaced.find((j) => j.checkpoint !== null);
    if (resumable) checkpoint = resumable.checkpoint as Checkpoint;
  }
  const importer = new TecImporter(storage, deps.servicesIn, deps.settings, deps.clock);
  const progressOf = (cp: Checkpoint): TecProgress => {
    const r = cp.report;
    const sum = (c: TecReport['resources'][keyof TecReport['resources']]) => c.created + c.updated + c.unchanged + c.failed;
    const done = Object.values(r.resources).reduce((n, c) => n + sum(c), 0);
    const events = sum(r.resources.events);
    const total = done - events + Math.max(events, r.listed.total);
    return { done, total, stage: cp.stage, report: r };
  };
  return importer.run(actor, job.payload, options, checkpoint, {
    async save(cp) {
      await heartbeat(progressOf(cp));
      if (replaced.length === 0) {
        if (!(await storage.importMap.checkpoint(job.id, deps.owner, cp, cp.report))) throw new LostTecLease();
        return;
      }
      // the earlier jobs are closed in the transaction that stores the checkpoint taken over: a run that stops
      // before it saved anything leaves theirs to be resumed, and no checkpoint is ever resumed twice
      await storage.transaction(async (tx) => {
        if (!(await tx.importMap.checkpoint(job.id, deps.owner, cp, cp.report))) throw new LostTecLease();
        for (const j of replaced) await retire(tx, j, job.id, nowStamp());
      });
      replaced = [];
    },
  });
}

/** Closes an earlier job this one took over; a killed run never got to forget its credentials: it does now. */
async function retire(tx: Storage, earlier: Earlier, byJob: number, now: string): Promise<void> {
  await tx.importMap.supersede(earlier.id, byJob, now);
  const { app_password, event_password, ...kept } = earlier.options;
  if (app_password !== undefined || event_password !== undefined) {
    await tx.importMap.setOptions(earlier.id, {
      ...kept,
      app_password_given: app_password !== undefined,
      event_password_given: event_password !== undefined,
    });
  }
}

export class LostTecLease extends Error {}

export { totals };
