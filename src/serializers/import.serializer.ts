import type { ImportJobBody } from '../http/routes/imports/imports.schemas.js';
import type { Urls } from '../http/urls.js';
import type { ImportJob } from '../storage/stores/import.store.js';

/** An import job on the wire: every field written out. */
export function serializeImport(job: ImportJob, urls: Urls, report: unknown = null): ImportJobBody {
  const o = job.options;
  return {
    id: job.id,
    source: job.source,
    state: job.state,
    url: job.payloadKind === 'url' ? job.payload : null,
    dry_run: job.options.dry_run === true,
    default_status: String(job.options.default_status ?? 'publish'),
    update_authority: String(job.options.update_authority ?? 'overwrite'),
    progress: { done: job.progressDone, total: job.progressTotal },
    counts: { created: job.created, updated: job.updated, skipped: job.skipped, failed: job.failed },
    errors: job.errors.map((e) => ({ uid: e.uid, recurrence_id: e.recurrenceId, line: e.line, reason: e.reason })),
    failure: job.failure,
    user: job.userId,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    rest_url: urls.rest(`/imports/${job.id}`),
    tec_options:
      job.source === 'tec'
        ? {
            since: typeof o.since === 'string' ? o.since : null,
            prune: o.prune === true,
            group_series: o.group_series === true,
            images: String(o.images ?? 'link'),
            concurrency: Number(o.concurrency ?? 2),
            app_password: typeof o.app_password === 'string' || o.app_password_given === true,
            event_password: typeof o.event_password === 'string' || o.event_password_given === true,
            author: typeof o.author === 'number' ? o.author : null,
            max_probes: Number(o.max_probes ?? 5000),
          }
        : null,
    report: (report ?? null) as ImportJobBody['report'],
  };
}
