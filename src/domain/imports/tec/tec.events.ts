/**
 * The events of a site (FEATURES.md §6.3; the windows and traps are in tec.walk.ts): the span probe, yearly
 * windows walked N at a time with a checkpoint per page, the sweep for events that cross a year edge, the
 * password-protected ones (read with the post password when the operator gave it, else drafts flagged
 * incomplete), and the probes of ids between the listed ones and just above them, which find events hidden
 * from listings.
 */
import type { Storage } from '../../../storage/storage.js';
import type { BatchItem } from './tec.batch.js';
import { wpErrorCode } from './tec.client.js';
import { apiUrl } from './tec.discovery.js';
import type { TecRun } from './tec.importer.js';
import { isBlanked, type Json, obj, str } from './tec.mapper.js';
import { warn } from './tec.report.js';
import { groupOccurrences, isOccurrenceUrl } from './tec.series.js';
import { encodeQuery, fetchPage, nextPageUrl, spanUrl, sweepWindow, type WindowSpec, yearlyWindows } from './tec.walk.js';

const yearOf = (wall: string) => (/^\d{4}-/.test(wall) ? Number(wall.slice(0, 4)) : undefined);

/**
 * Runs `fn` over the items, at most `n` at once. After a failure the other workers finish what they are doing
 * (a page written is a page checkpointed) and start nothing new; then the first error is thrown.
 */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      try {
        await fn(items[next++]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  if (failure) throw failure.error;
}

function remember(run: TecRun, events: readonly Json[]): void {
  for (const e of events) {
    const image = obj(e.image);
    if (image && image.id !== undefined && !run.cp.attachments.includes(String(image.id))) run.cp.attachments.push(String(image.id));
  }
}

/** Listed events → written (protected ones as they can be; Pro occurrences kept aside with `groupSeries`). */
async function writeListed(run: TecRun, events: readonly Json[], occurrences: Json[]): Promise<void> {
  const items: BatchItem[] = [];
  for (const remote of events) {
    const rid = str(remote, 'id');
    if (run.options.groupSeries && isOccurrenceUrl(str(remote, 'url'))) {
      occurrences.push(remote);
      continue;
    }
    if (isBlanked(remote)) {
      const full = run.options.eventPassword ? await readProtected(run, rid) : undefined;
      if (full) {
        warn(run.report, 'event', rid, 'password-protected: read with the password given, imported private (posts have no passwords here)');
        items.push({ kind: 'event', remoteId: rid, remote: full, write: (tx: Storage) => run.writer.event(tx, full, { status: 'private' }) });
      } else if (run.writer.complete('event', rid)) {
        // the site did not change, only what this run may read of it: the complete copy is not blanked
        warn(
          run.report,
          'event',
          rid,
          `password-protected: its content is hidden from this run (${run.options.eventPassword ? 'the password given did not open it' : 'no event password given'}); the complete copy an earlier run imported is kept as it was`,
        );
        items.push({ kind: 'event', remoteId: rid, write: async () => run.writer.keep('event', rid) });
      } else {
        warn(
          run.report,
          'event',
          rid,
          'password-protected: its content is hidden from an anonymous importer, imported as a draft flagged incomplete',
        );
        items.push({ kind: 'event', remoteId: rid, remote, write: (tx: Storage) => run.writer.event(tx, remote, { incomplete: true }) });
      }
      continue;
    }
    items.push({ kind: 'event', remoteId: rid, remote, write: (tx: Storage) => run.writer.event(tx, remote) });
  }
  await run.batch.write(items);
}

async function readProtected(run: TecRun, rid: string): Promise<Json | undefined> {
  const res = await run.client.getJson(apiUrl(run.site, `/events/${rid}`, encodeQuery([['password', run.options.eventPassword ?? '']])));
  const body = obj(res.json);
  return res.status === 200 && body && !isBlanked(body) ? body : undefined;
}

/** One window, page by page from where its checkpoint says. */
async function walk(run: TecRun, w: WindowSpec, listed: Set<string>, occurrences: Json[]): Promise<void> {
  if (!run.cp.windows[w.key]) run.cp.windows[w.key] = { next: apiUrl(run.site, '/events', encodeQuery(w.params)), page: 1, done: false };
  const state = run.cp.windows[w.key];
  const total = run.cp.span?.total ?? 0;
  while (!state.done && state.next !== null) {
    if (w.key === 'sweep' && listed.size >= total) break;
    const page = await fetchPage(run.client, state.next, 'events');
    if (!page) break;
    const fresh = page.items.filter((e) => !listed.has(str(e, 'id')));
    for (const e of fresh) listed.add(str(e, 'id'));
    remember(run, fresh);
    await writeListed(run, fresh, occurrences);
    state.next = nextPageUrl(run.site, '/events', w.params, page, state.page, true);
    state.page++;
    run.report.listed.found = listed.size;
    if (state.next !== null) await run.save();
  }
  state.done = true;
  await run.save();
}

export async function eventStage(run: TecRun): Promise<void> {
  const { cp, client, site, options, report } = run;
  const since = options.since ?? '1970-01-01';
  if (!cp.span) {
    const first = await fetchPage(client, spanUrl(site, since), 'events');
    const total = first?.total ?? 0;
    const last = total > 1 ? await fetchPage(client, spanUrl(site, since, total), 'events') : first;
    const ends = [first?.items[0], last?.items[0]].filter((e): e is Json => e !== undefined);
    const years = ends
      .flatMap((e) => ['utc_start_date', 'utc_end_date', 'start_date', 'end_date'].map((k) => yearOf(str(e, k))))
      .filter((y): y is number => y !== undefined);
    // a year either side: the windows are UTC years, the events' own days may be a day off them
    const fromYear = Math.max(Number(since.slice(0, 4)), Math.min(...years) - 1);
    cp.span = years.length === 0 ? { since, total, fromYear: 0, toYear: -1 } : { since, total, fromYear, toYear: Math.max(...years) + 1 };
    report.listed.total = total;
    await run.save();
  }
  const span = cp.span;
  if (span.total === 0) return;
  const start = Number(since.slice(0, 4)) === span.fromYear ? since : `${span.fromYear}-01-01`;
  // the events already written in this pass (a resumed run) are not written again
  const listed = new Set(
    run.writer.cache
      .all('event')
      .filter((r) => r.seenPass === cp.pass)
      .map((r) => r.remoteId),
  );
  const occurrences: Json[] = [];
  // occurrences are grouped once all are known: a resumed grouping run reads every window again
  if (options.groupSeries) {
    cp.windows = {};
    listed.clear();
  }
  await pool(yearlyWindows(start, span.fromYear, span.toYear), options.concurrency, (w) => walk(run, w, listed, occurrences));
  if (listed.size < span.total) await walk(run, sweepWindow(start, span.toYear, options.appPassword !== undefined), listed, occurrences);
  if (listed.size < span.total) {
    warn(run.report, 'event', '-', `the site lists ${span.total} events and ${listed.size} were found in its windows`);
  }
  report.listed.found = listed.size;
  if (occurrences.length > 0) await groupOccurrences(run, occurrences);
}

/** Numeric ids between the listed ones, in runs of nearby ids (Pro's occurrence ids, far above, are their own run). */
function gaps(known: Set<number>, listed: readonly number[]): number[] {
  const sorted = [...new Set(listed)].sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] - sorted[i - 1] > RUN_GAP) continue;
    for (let id = sorted[i - 1] + 1; id < sorted[i]; id++) if (!known.has(id)) out.push(id);
  }
  return out;
}

/** Ids more than this apart are in different runs (Pro's provisional occurrence ids start at 10,000,000). */
const RUN_GAP = 1000;

/**
 * How many ids above the top of a run are read. An event hidden from listings that was made after the last
 * listed one has an id above them all, which no gap holds; WordPress gives its next posts (events, revisions,
 * attachments) the next ids, so the few just above are where such events are. 50 requests a run of ids (one on
 * most sites, two on a Pro site), counted with the other probes against `--max-probes`; more only when the run
 * saw a venue, organizer or image with a higher id (then the ids up to it too, at most RUN_GAP more).
 */
export const PROBES_ABOVE = 50;

/**
 * Ids just above each run of listed ids: up to PROBES_ABOVE above its top, or above the highest other post the
 * run saw near it (a venue, an organizer, an image made after the last listed event), whichever is higher.
 */
function above(known: Set<number>, listed: readonly number[]): number[] {
  const sorted = [...new Set(listed)].sort((a, b) => a - b);
  const others = [...known].filter(Number.isInteger);
  const out: number[] = [];
  for (const [i, top] of sorted.entries()) {
    if (i < sorted.length - 1 && sorted[i + 1] - top <= RUN_GAP) continue;
    const last = Math.max(top, ...others.filter((id) => id > top && id - top <= RUN_GAP));
    for (let id = top + 1; id <= last + PROBES_ABOVE; id++) if (!known.has(id)) out.push(id);
  }
  return out;
}

/** Reads the ids no list gave, one by one: events hidden from listings answer; drafts and others do not. */
export async function probeStage(run: TecRun): Promise<void> {
  const { cp, report, writer } = run;
  const seen = (kind: string) =>
    writer.cache
      .all(kind)
      .map((r) => Number(r.remoteId))
      .filter(Number.isInteger);
  const listed = writer.cache
    .all('event')
    .filter((r) => r.seenPass === cp.pass)
    .map((r) => Number(r.remoteId))
    .filter(Number.isInteger);
  const known = new Set([...listed, ...seen('venue'), ...seen('organizer'), ...cp.attachments.map(Number), ...seen('image')]);
  // (in order: a resumed run goes on after the last id read)
  let candidates = [...new Set([...gaps(known, listed), ...above(known, listed)])].sort((a, b) => a - b).filter((id) => id > (cp.probedUpTo ?? 0));
  const left = Math.max(0, run.options.maxProbes - report.probes.probed);
  if (candidates.length > left) {
    report.probes.limit_reached = true;
    warn(report, 'event', '-', `${candidates.length} ids lie between and just above the listed events; ${left} were read (the probe limit)`);
    candidates = candidates.slice(0, left);
  }
  const unreadable: number[] = [];
  const keptAll: string[] = [];
  for (let i = 0; i < candidates.length; i += 25) {
    const chunk = candidates.slice(i, i + 25);
    const found: Json[] = [];
    const kept: string[] = [];
    await pool(chunk, run.options.concurrency, async (id) => {
      const res = await run.client.getJson(apiUrl(run.site, `/events/${id}`));
      const body = obj(res.json);
      report.probes.probed++;
      // (a series' own record, on a site that is this service: its occurrences were listed already)
      if (res.status === 200 && body && Array.isArray(body.recurrence) && body.recurrence.length > 0) report.probes.not_events++;
      else if (res.status === 200 && body && str(body, 'id') !== '') found.push(body);
      else if (res.status === 401 || res.status === 403) {
        unreadable.push(id);
        // still on the site, only not readable by this run (a draft, private, protected and hidden): an event
        // imported earlier is not gone, and `prune` must not trash it; one in the site's trash is gone
        if (wpErrorCode(res.json) !== 'event-no-longer-available' && (writer.cache.get('event', String(id))?.localId ?? 0) > 0) kept.push(String(id));
      } else report.probes.not_events++;
    });
    await run.batch.write(kept.map((rid) => ({ kind: 'event', remoteId: rid, write: async () => writer.keep('event', rid) })));
    keptAll.push(...kept);
    found.sort((a, b) => Number(a.id) - Number(b.id));
    // (with `since`, what starts before it stays out, as it does from the windows)
    const since = run.options.since;
    if (since) found.splice(0, found.length, ...found.filter((e) => str(e, 'start_date') >= `${since} 00:00:00`));
    report.probes.found += found.length;
    remember(run, found);
    await writeListed(run, found, []);
    cp.probedUpTo = chunk[chunk.length - 1];
    await run.save();
  }
  report.probes.not_readable += unreadable.length;
  if (unreadable.length > 0) {
    const shown = unreadable.slice(0, 50).join(', ');
    warn(
      report,
      'event',
      shown,
      `${unreadable.length} ids answer 403 (drafts, pending, private, scheduled or trashed events; or protected and hidden): not readable${run.options.appPassword ? '' : ' without an application password'}`,
    );
  }
  if (keptAll.length > 0) {
    warn(
      report,
      'event',
      keptAll.slice(0, 50).join(', '),
      `${keptAll.length} events imported by an earlier run answer 401 or 403 to this one (still on the site): left as they were, never pruned`,
    );
  }
}
