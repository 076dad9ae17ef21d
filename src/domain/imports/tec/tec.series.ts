/**
 * `--group-series` (FEATURES.md §6.3): the occurrences of a recurring event of The Events Calendar Pro come as
 * separate events with dated URLs (`/event/<slug>/<YYYY-MM-DD>/`) and no rule. Occurrences that share their
 * slug, title, venue, organizers, duration and description become one series here, with the explicit list of
 * their dates (RDATE lines: never a guessed rule); each remote occurrence id maps to its local occurrence.
 * An occurrence alone in its group stays a single event.
 */
import type { Storage } from '../../../storage/storage.js';
import { parseWall, wallToMs } from '../../../time/zones.js';
import type { EventInput, EventRecord } from '../../events/event.js';
import type { TecRun } from './tec.importer.js';
import { customFields, decodeSlug, eventDates, eventFields, hashOf, type Json, lineageOf, list, obj, oldPath, str, tecUid } from './tec.mapper.js';
import { warn } from './tec.report.js';

const DATED = /\/event\/[^/]+\/\d{4}-\d{2}-\d{2}\/?$/;

export function isOccurrenceUrl(url: string): boolean {
  try {
    return DATED.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

function groupKey(e: Json): string {
  const venue = obj(e.venue) ? str(obj(e.venue), 'id') : '';
  const duration =
    wallToMs(parseWall(str(e, 'utc_end_date') || str(e, 'end_date'))) - wallToMs(parseWall(str(e, 'utc_start_date') || str(e, 'start_date')));
  return hashOf([
    str(e, 'slug'),
    str(e, 'title'),
    venue,
    list(e.organizer).map((o) => str(o, 'id')),
    duration,
    hashOf(str(e, 'description')),
    e.all_day === true,
    str(e, 'timezone'),
  ]);
}

const compact = (wall: string) => wall.replace(/[-:]/g, '').replace(' ', 'T');

/** Groups the occurrences and writes each group: a series, or a single event when alone. */
export async function groupOccurrences(run: TecRun, occurrences: readonly Json[]): Promise<void> {
  const groups = new Map<string, Json[]>();
  for (const o of occurrences) groups.set(groupKey(o), [...(groups.get(groupKey(o)) ?? []), o]);
  const items = [...groups.values()].map((members) => {
    const sorted = [...members].sort((a, b) => (str(a, 'utc_start_date') < str(b, 'utc_start_date') ? -1 : 1));
    const remote = sorted[0];
    if (sorted.length === 1) return { kind: 'event', remoteId: str(remote, 'id'), remote, write: (tx: Storage) => run.writer.event(tx, remote) };
    return { kind: 'event', remoteId: str(remote, 'id'), remote, write: (tx: Storage) => writeSeries(run, tx, sorted) };
  });
  await run.batch.write(items);
}

async function writeSeries(run: TecRun, tx: Storage, members: readonly Json[]): Promise<void> {
  const { writer, site } = run;
  const first = members[0];
  const rid = `slug:${decodeSlug(str(first, 'slug'))}`;
  const dates = eventDates(first, site.zone, (reason) => warn(run.report, 'event', str(first, 'id'), reason));
  const starts = members.map((m) => eventDates(m, site.zone, () => undefined).startDate);
  const rdates = dates.allDay
    ? starts.map((s) => `RDATE;VALUE=DATE:${compact(s).slice(0, 8)}`)
    : members.map((m) => `RDATE:${compact(str(m, 'utc_start_date'))}Z`);
  const refs = await writer.references(tx, first);
  const fields = eventFields(first, dates, str(first, 'status') || 'publish', site.zone, (reason) =>
    warn(run.report, 'event', str(first, 'id'), reason),
  );
  // Pro keeps additional fields on the recurring event, so its occurrences share them: the series takes the first's
  const sameFields = hashOf(fields.customFields ?? []);
  for (const m of members.slice(1)) {
    if (hashOf(customFields(m, () => undefined) ?? []) !== sameFields) {
      warn(run.report, 'event', str(m, 'id'), `its additional fields differ from those of ${str(first, 'id')}, which its series took`);
    }
  }
  const input: EventInput = {
    ...fields,
    author: writer.settings.authorId,
    venue: refs.venue === null ? null : { id: refs.venue },
    organizers: refs.organizers.map((id) => ({ id })),
    categories: refs.categories,
    tags: refs.tags,
    image: refs.image ?? null,
    recurrence: rdates,
  };
  const hash = hashOf({ input, members: members.map((m) => str(m, 'id')) });
  const base = { remoteModified: null, hash, remoteGlobalId: null, incomplete: false };
  const known = writer.same('series', rid, hash, null);
  if (known) {
    for (const m of members) if (writer.same('event', str(m, 'id'), hash, str(m, 'modified_utc') || null)) writer.outcome('event', 'unchanged');
    return;
  }
  const mapped = writer.cache.get('series', rid);
  let local = mapped && mapped.localId > 0 ? await tx.events.find(mapped.localId) : undefined;
  // occurrences an earlier run imported one by one (without grouping): the first one's event becomes the series
  // (it has the series' UID and slug already), the others' go to the trash as their remote ids move to the
  // series' occurrences
  const singles = await importedSingles(run, tx, members);
  const adopted = local ? undefined : singles.get(str(first, 'id'));
  local ??= adopted;
  const events = run.servicesIn(tx).events;
  let seriesId: number;
  if (writer.settings.dryRun) seriesId = local?.id ?? writer.cache.nextFakeId();
  else if (local && local.status !== 'trash') {
    const { slug, ...rest } = input;
    // additional fields gone from the site are cleared
    seriesId = (await events.update(run.actor, local.id, { ...rest, customFields: rest.customFields ?? null })).record.id;
  } else {
    const uid = tecUid(Number(first.id), str(first, 'start_date'), str(first, 'end_date'), site.host);
    seriesId = (await events.create(run.actor, { ...input, icalUid: uid })).record.id;
  }
  await writer.remember(tx, { kind: 'series', remoteId: rid, localId: seriesId, ...base, oldPath: `/event/${decodeSlug(str(first, 'slug'))}/` });
  // each remote occurrence → the local occurrence that starts when it does
  const byStart = new Map<string, number>();
  if (!writer.settings.dryRun) {
    const rows = await tx.series.occurrencesOf(seriesId);
    const records = await tx.events.findMany(rows.filter((r) => r.state === 'active').map((r) => r.id));
    for (const r of records) byStart.set(r.startDate, r.id);
  }
  const trashed: number[] = [];
  for (const [i, m] of members.entries()) {
    const mid = str(m, 'id');
    const before = writer.cache.get('event', mid);
    const occurrence = writer.settings.dryRun ? (before?.localId ?? writer.cache.nextFakeId()) : byStart.get(starts[i]);
    if (occurrence === undefined) {
      warn(run.report, 'event', mid, `no occurrence of the series starts at ${starts[i]}: not mapped`);
      writer.outcome('event', 'failed');
      continue;
    }
    const single = singles.get(mid);
    if (single && single.id !== seriesId) {
      if (!writer.settings.dryRun) await events.remove(run.actor, single.id);
      trashed.push(single.id);
    }
    await writer.remember(
      tx,
      {
        kind: 'event',
        remoteId: mid,
        localId: occurrence,
        ...base,
        remoteModified: str(m, 'modified_utc') || null,
        oldPath: oldPath(str(m, 'url'), site.home),
      },
      lineageOf(m),
    );
    writer.outcome('event', before && (before.localId === occurrence || single) ? 'updated' : 'created');
  }
  if (trashed.length > 0) {
    warn(
      run.report,
      'event',
      members.map((m) => str(m, 'id')).join(', '),
      `grouped into the series ${seriesId}${adopted ? ' (the event an earlier run made of the first occurrence)' : ''}: the events ${trashed.join(', ')} an earlier run made of the others went to the trash, their remote ids now map to the series' occurrences`,
    );
  }
}

/** The members mapped to a single event here (an earlier run without grouping), by remote id. */
async function importedSingles(run: TecRun, tx: Storage, members: readonly Json[]): Promise<Map<string, EventRecord>> {
  const out = new Map<string, EventRecord>();
  for (const m of members) {
    const row = run.writer.cache.get('event', str(m, 'id'));
    const record = row && row.localId > 0 ? await tx.events.find(row.localId) : undefined;
    if (record && record.kind === 'single' && record.status !== 'trash') out.set(str(m, 'id'), record);
  }
  return out;
}
