/**
 * What a site import reports (issue 15): per resource how many records were created, updated, unchanged,
 * trashed or failed; warnings naming the remote id and the reason (what could not be seen, what disagreed);
 * what the id probes found; how polite it was (requests, time the site asked us to wait).
 */
export const RESOURCES = ['categories', 'tags', 'venues', 'organizers', 'events', 'images'] as const;
export type Resource = (typeof RESOURCES)[number];
export const OUTCOMES = ['created', 'updated', 'unchanged', 'trashed', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface ReportWarning {
  readonly resource: string;
  readonly remote_id: string;
  readonly reason: string;
}

export interface TecReport {
  site: { api_root: string; name: string; timezone: string } | null;
  resources: Record<Resource, Record<Outcome, number>>;
  warnings: ReportWarning[];
  /** Events the site lists (its X-TEC-Total over the whole span), and how many of them came across. */
  listed: { total: number; found: number };
  /** Post ids between the listed ones read one by one (events hidden from listings are found so). */
  probes: { probed: number; found: number; not_readable: number; not_events: number; limit_reached: boolean };
  requests: number;
  waited_ms: number;
  /** Whether the pass saw everything (only then may `prune` trash what it did not see). */
  complete: boolean;
  redirects: number;
}

/** At most this many warnings are kept (the count of all of them is in the last one when cut). */
export const MAX_WARNINGS = 1000;

export function emptyReport(): TecReport {
  const counts = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  return {
    site: null,
    resources: Object.fromEntries(RESOURCES.map((r) => [r, counts()])) as Record<Resource, Record<Outcome, number>>,
    warnings: [],
    listed: { total: 0, found: 0 },
    probes: { probed: 0, found: 0, not_readable: 0, not_events: 0, limit_reached: false },
    requests: 0,
    waited_ms: 0,
    complete: false,
    redirects: 0,
  };
}

export const RESOURCE_OF: Record<string, Resource> = {
  category: 'categories',
  tag: 'tags',
  venue: 'venues',
  organizer: 'organizers',
  event: 'events',
  image: 'images',
  series: 'events',
};

export function count(report: TecReport, kind: string, outcome: Outcome, n = 1): void {
  report.resources[RESOURCE_OF[kind] ?? 'events'][outcome] += n;
}

export function warn(report: TecReport, kind: string, remoteId: string | number, reason: string): void {
  if (report.warnings.length >= MAX_WARNINGS) return;
  report.warnings.push({ resource: RESOURCE_OF[kind] ?? kind, remote_id: String(remoteId), reason });
}

/** Totals over every resource (the job's created/updated/skipped/failed columns). */
export function totals(report: TecReport): { created: number; updated: number; skipped: number; failed: number } {
  const sum = (o: Outcome) => RESOURCES.reduce((n, r) => n + report.resources[r][o], 0);
  return { created: sum('created'), updated: sum('updated') + sum('trashed'), skipped: sum('unchanged'), failed: sum('failed') };
}
