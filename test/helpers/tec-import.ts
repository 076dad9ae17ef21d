/** Running a site import through the API, and reading what it made. */
import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { recordedBody, recordedEntries, rewriteHost, type SiteEntry, type TecSite, writtenEntries } from './tec-site.js';

/** The recorded site, with the span probe we wrote for it. */
export const recordedSite = (): SiteEntry[] => [...recordedEntries(), ...writtenEntries('span-probes')];

/** The records of a recorded list answer (host rewritten to the fixture server's). */
export function recordedList(site: TecSite, file: string, key = 'events'): any[] {
  return JSON.parse(rewriteHost(recordedBody(file), site.url))[key];
}

/** POST /imports with source=tec, runs the job as the service's runner would, and answers the job. */
export async function runImport(t: TestApp, json: Record<string, unknown>, as: 'administrator' | 'editor' = 'administrator') {
  const res = await t.post('/imports', { as, json: { source: 'tec', ...json } });
  assert.equal(res.status, 202, res.text);
  await t.app.services.imports.runPending();
  const job = await t.get(`/imports/${res.body.id}`, { as });
  assert.equal(job.status, 200, job.text);
  return job.body;
}

/** The local id an import mapped a remote record to. */
export async function localIdOf(t: TestApp, kind: string, remoteId: number | string): Promise<number> {
  const row = await t.storage.db
    .selectFrom('import_map')
    .select('local_id')
    .where('kind', '=', kind)
    .where('remote_id', '=', String(remoteId))
    .executeTakeFirstOrThrow();
  return Number(row.local_id);
}

/** Every event listed here (any status but trash), by global id. */
export async function localEvents(t: TestApp): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (let page = 1; ; page++) {
    const res = await t.get('/events', {
      as: 'administrator',
      query: { start_date: '2010-01-01', end_date: '2035-12-31', per_page: 50, page, status: 'publish,future,draft,pending,private' },
    });
    if (res.status === 404) break;
    assert.equal(res.status, 200, res.text);
    for (const e of res.body.events) out.set(e.global_id, e);
    if (page >= res.body.total_pages) break;
  }
  return out;
}

/** Row counts of what an import writes. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['posts', 'events', 'venues', 'organizers', 'terms', 'term_relationships', 'images', 'import_map', 'occurrences'] as const) {
    const row = await t.storage.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

export const zero = { created: 0, updated: 0, unchanged: 0, trashed: 0, failed: 0 };

/** What the site answers for the URL of an event it no longer lists: a WordPress error. */
export interface EventGone {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** Deleted: an id no post has. */
export const DELETED: EventGone = { status: 404, code: 'rest-event-not-found', message: 'Event with ID {id} does not exist.' };
/** In the site's trash: what TEC answers to everyone (CONTRACT.md §6). */
export const TRASHED: EventGone = { status: 403, code: 'event-no-longer-available', message: 'This event is no longer available' };

/**
 * The recorded site without one listed event on any list — its window, the sweep, the span probe (the totals
 * one less; the probe's last page is then the recorded last one) — and its own URL answering `own`: an error,
 * or its recorded answer changed (an event now hidden from listings).
 */
export function unlist(site: TecSite, id: number, own: EventGone | ((entry: SiteEntry) => SiteEntry)): void {
  site.transform = (entry) => {
    if (entry.path.endsWith(`/events/${id}`)) {
      if (typeof own === 'function') return own(entry);
      const body = { code: own.code, message: own.message.replace('{id}', String(id)), data: { status: own.status } };
      return { ...entry, status: own.status, body: JSON.stringify(body) };
    }
    if (!entry.path.includes('/events?') && !entry.path.includes('/events/?')) return entry;
    const body = JSON.parse(entry.body);
    if (!Array.isArray(body.events)) return entry;
    const span = entry.path.includes('per_page=1');
    const had = body.events.some((e: any) => e.id === id);
    if (!had && !span) return entry;
    body.events = body.events.filter((e: any) => e.id !== id);
    body.total -= 1;
    if (span) body.total_pages = body.total;
    return {
      ...entry,
      body: JSON.stringify(body),
      headers: { ...entry.headers, 'x-tec-total': String(body.total), 'x-tec-totalpages': String(body.total_pages) },
    };
  };
  const last = recordedSite().find((e) => e.auth === 'anonymous' && e.path.endsWith('per_page=1&page=149'));
  site.extra = ({ path, auth }) => (auth === 'anonymous' && path.endsWith('per_page=1&page=148') && last ? { ...last, path } : undefined);
}

/** The recorded site as it was recorded again. */
export function relist(site: TecSite): void {
  site.transform = undefined;
  site.extra = undefined;
}
