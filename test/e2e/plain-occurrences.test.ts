/**
 * Plain occurrences (migration 0023): an occurrence that follows its series in all but its dates is a row of
 * `occurrences` only, reading its series' post, details and links; one edited alone or cancelled gets `posts` and
 * `events` rows of its own. These tests hold the storage to that, the day counts to a recount of both kinds, the
 * migration of the old shape (every occurrence with rows) to reads that do not change, new ids to ones nothing
 * else holds, and the reads that look through a series for its venue, organizers and terms.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory, makeEvent, makeLinked } from '../helpers/factories.js';
import { monthsOfDayCounts, storedMonthCounts } from '../helpers/snapshot.js';

const NY = 'America/New_York';

describe('plain occurrences', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  async function series(fields: Record<string, unknown>) {
    const res = await t.post('/events', { as: 'administrator', json: { title: 'Series', timezone: NY, ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  /** A series' occurrence ids that exist, in the order of their instances. */
  async function idsOf(seriesId: number): Promise<number[]> {
    const rows = await t.storage.db
      .selectFrom('occurrences')
      .select('id')
      .where('series_id', '=', seriesId)
      .where('state', '<>', 'gone')
      .orderBy('original_start_utc')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** How many of these ids have a `posts` row and an `events` row. */
  async function rowsOf(ids: readonly number[]) {
    const posts = await t.storage.db
      .selectFrom('posts')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    const events = await t.storage.db
      .selectFrom('events')
      .select('post_id')
      .where('post_id', 'in', [...ids])
      .execute();
    return { posts: posts.length, events: events.length };
  }

  /** A series' occurrences as an editor lists them (cancelled ones too). */
  async function listed(seriesId: number) {
    const res = await t.get(`/events/${seriesId}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2000-01-01', end_date: '2099-12-31', per_page: 50, show_cancelled: 'true' },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.events as any[];
  }

  /** `event_day_counts` against the same figures counted from `events` (masters left out) and plain occurrences. */
  async function assertDayCounts(label: string) {
    const kept = await t.storage.db.selectFrom('event_day_counts').selectAll().where('n', '>', 0).execute();
    const { rows } = await sql<{ status: string; hidden: number; start_day: string; end_day: string; n: number }>`
      select status, hidden, start_day, end_day, sum(n) as n from (
        select status, hide_from_listings as hidden, substr(start_date, 1, 10) as start_day, substr(end_date, 1, 10) as end_day, count(*) as n
        from events where kind <> 'series' group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)
        union all
        select status, hidden, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*)
        from occurrences where own_rows = 0 and state = 'active' group by status, hidden, substr(start_date, 1, 10), substr(end_date, 1, 10)
      ) c group by status, hidden, start_day, end_day`.execute(t.storage.db);
    const key = (r: { status: string; hidden: number; start_day: string; end_day: string; n: number | string }) =>
      `${r.status}|${Number(r.hidden)}|${r.start_day}|${r.end_day}=${Number(r.n)}`;
    assert.deepEqual(kept.map(key).sort(), rows.map(key).sort(), label);
    assert.deepEqual(await storedMonthCounts(t.storage.db), await monthsOfDayCounts(t.storage.db), `${label}: month counts sum the day counts`);
  }

  /** The total of an anonymous list of 2031 (from the day counts) against the events it lists, page by page. */
  async function assertTotal(label: string) {
    const query = { start_date: '2031-01-01', end_date: '2031-12-31', per_page: 50 };
    const first = await t.get('/events', { query });
    assert.equal(first.status, 200, first.text);
    let seen = first.body.events.length;
    for (let page = 2; page <= Number(first.body.total_pages ?? 1); page++)
      seen += (await t.get('/events', { query: { ...query, page } })).body.events.length;
    assert.equal(Number(first.headers['x-tec-total']), seen, label);
  }

  it('keeps occurrences as rows of `occurrences` only, with their series in all but their dates, until one is edited alone or cancelled', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Plain Hall' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Plain Organizer' });
    const category = await makeCategory(t, { name: 'Plain category' });
    const s = await series({
      start_date: '2031-03-03 09:00:00',
      end_date: '2031-03-03 10:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
    });
    const ids = await idsOf(s.id);
    assert.equal(ids.length, 5);
    assert.deepEqual(await rowsOf(ids), { posts: 0, events: 0 });
    const before = await listed(s.id);
    assert.deepEqual(
      before.map((e) => [e.id, e.title, e.venue.id, e.organizer.map((o: any) => o.id), e.categories.map((c: any) => c.id), e.series_id]),
      ids.map((id) => [id, 'Series', venue.id, [organizer.id], [category.id], s.id]),
    );

    assert.equal((await t.post(`/events/${s.id}`, { as: 'administrator', json: { title: 'Renamed series' } })).status, 200);
    assert.deepEqual(await rowsOf(ids), { posts: 0, events: 0 }, 'a whole-series edit writes no occurrence rows');
    assert.equal((await t.post(`/events/${ids[1]}`, { as: 'administrator', json: { title: 'Its own title' } })).status, 200);
    assert.equal((await t.del(`/events/${ids[2]}`, { as: 'administrator' })).status, 200);
    assert.deepEqual(await rowsOf([ids[1]]), { posts: 1, events: 1 }, 'an occurrence edited alone has rows');
    assert.deepEqual(await rowsOf([ids[2]]), { posts: 1, events: 1 }, 'a cancelled occurrence has rows');
    assert.deepEqual(await rowsOf([ids[0], ids[3], ids[4]]), { posts: 0, events: 0 });

    assert.equal((await t.post(`/events/${s.id}`, { as: 'administrator', json: { title: 'Renamed again' } })).status, 200);
    const after = await listed(s.id);
    assert.deepEqual(
      after.map((e) => [e.id, e.title, e.status, e.is_exception, e.venue.id, e.organizer.map((o: any) => o.id)]),
      [
        [ids[0], 'Renamed again', 'publish', false, venue.id, [organizer.id]],
        [ids[1], 'Its own title', 'publish', true, venue.id, [organizer.id]],
        [ids[2], 'Renamed again', 'trash', false, venue.id, [organizer.id]],
        [ids[3], 'Renamed again', 'publish', false, venue.id, [organizer.id]],
        [ids[4], 'Renamed again', 'publish', false, venue.id, [organizer.id]],
      ],
    );
    assert.equal((await t.get(`/events/${ids[3]}`)).body.title, 'Renamed again');
  });

  it('keeps the day counts equal to a recount of events and plain occurrences through every write of a series', async () => {
    await assertDayCounts('before');
    const s = await series({ start_date: '2031-05-04 09:00:00', end_date: '2031-05-04 10:00:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=20'] });
    await makeEvent(t, { start_date: '2031-05-06 12:00:00', end_date: '2031-05-06 13:00:00' });
    await assertDayCounts('created');
    await assertTotal('created');
    const steps: [string, () => Promise<unknown>][] = [
      ['drafted', () => t.post(`/events/${s.id}`, { as: 'administrator', json: { status: 'draft' } })],
      ['published', () => t.post(`/events/${s.id}`, { as: 'administrator', json: { status: 'publish' } })],
      ['hidden', () => t.post(`/events/${s.id}`, { as: 'administrator', json: { hide_from_listings: true } })],
      ['shown', () => t.post(`/events/${s.id}`, { as: 'administrator', json: { hide_from_listings: false } })],
      [
        'moved to 23:30, across midnight',
        () => t.post(`/events/${s.id}`, { as: 'administrator', json: { start_date: '2031-05-04 23:30:00', end_date: '2031-05-05 00:30:00' } }),
      ],
      ['cut to 10', () => t.post(`/events/${s.id}`, { as: 'administrator', json: { recurrence: ['RRULE:FREQ=DAILY;COUNT=10'] } })],
    ];
    for (const [label, step] of steps) {
      const res = (await step()) as { status: number; text: string };
      assert.equal(res.status, 200, `${label}: ${res.text}`);
      await assertDayCounts(label);
      await assertTotal(label);
    }
    const ids = await idsOf(s.id);
    assert.equal((await t.post(`/events/${ids[2]}`, { as: 'administrator', json: { title: 'Alone' } })).status, 200);
    await assertDayCounts('an occurrence edited alone');
    assert.equal((await t.del(`/events/${ids[3]}`, { as: 'administrator' })).status, 200);
    await assertDayCounts('an occurrence cancelled');
    await assertTotal('an occurrence cancelled');
    const split = await t.post(`/events/${ids[5]}/split`, { as: 'administrator', json: { title: 'Second half' } });
    assert.equal(split.status, 201, split.text);
    await assertDayCounts('split');
    await assertTotal('split');
    assert.equal((await t.post(`/events/${split.body.id}`, { as: 'administrator', json: { recurrence: [] } })).status, 200);
    await assertDayCounts('the second half a single event again');
    await assertTotal('the second half a single event again');
    assert.equal((await t.del(`/events/${s.id}`, { as: 'administrator' })).status, 200);
    await assertDayCounts('the first half trashed');
    await assertTotal('the first half trashed');

    const future = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
    const scheduled = await series({
      start_date: '2031-06-01 09:00:00',
      end_date: '2031-06-01 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
      date_utc: future,
    });
    assert.equal(scheduled.status, 'future');
    await assertDayCounts('scheduled');
    assert.equal(await t.app.services.events.publishDue(Date.now() + 3 * 86_400_000), 1);
    await assertDayCounts('published when due');
    await assertTotal('published when due');
    const due = (await t.get('/events', { query: { start_date: '2031-06-01', end_date: '2031-06-05', per_page: 50 } })).body.events;
    assert.deepEqual(
      due.map((e: any) => [e.series_id, e.status]),
      Array.from({ length: 5 }, () => [scheduled.id, 'publish']),
      'its occurrences are listed from then on',
    );
  });

  it('migrates occurrences that had rows of their own to plain ones (migration 0023), reads unchanged', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Migrated Hall' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Migrated Organizer' });
    const s = await series({
      start_date: '2032-02-02 18:00:00',
      end_date: '2032-02-02 19:30:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=6'],
      venue: venue.id,
      organizer: [organizer.id],
      categories: ['Migrated'],
    });
    const ids = await idsOf(s.id);
    assert.equal((await t.post(`/events/${ids[1]}`, { as: 'administrator', json: { title: 'Exception', tags: ['own'] } })).status, 200);
    assert.equal((await t.del(`/events/${ids[2]}`, { as: 'administrator' })).status, 200);
    const reads = async () => ({
      list: await listed(s.id),
      singles: await Promise.all(ids.map(async (id) => (await t.get(`/events/${id}`, { as: 'administrator' })).body)),
      anonymous: (await t.get('/events', { query: { start_date: '2032-02-01', end_date: '2032-02-10' } })).body,
    });
    const before = await reads();

    // the shape before migration 0023: every occurrence with rows of its own, `occurrences` without its columns
    await t.storage.transaction((tx) => tx.series.materialize(ids));
    assert.deepEqual(await rowsOf(ids), { posts: 6, events: 6 });
    const db = t.storage.db;
    for (const name of ['occurrences_insert_day_count', 'occurrences_delete_day_count', 'occurrences_update_day_count']) {
      await sql`drop trigger if exists ${sql.id(name)}`.execute(db).catch(() => undefined);
    }
    if (DIALECT === 'postgres') {
      for (const name of ['occurrences_day_counts_insert', 'occurrences_day_counts_delete', 'occurrences_day_counts_update']) {
        await sql`drop trigger if exists ${sql.id(name)} on occurrences`.execute(db);
      }
    }
    await sql`drop index occurrences_listing`.execute(db);
    await sql`drop index occurrences_series_start`.execute(db);
    for (const column of ['own_rows', 'status', 'hidden', 'start_date', 'end_date', 'start_utc', 'end_utc', 'timezone_abbr']) {
      await sql`alter table occurrences drop column ${sql.id(column)}`.execute(db);
    }
    await db.deleteFrom('schema_migrations').where('name', '=', '0023-plain-occurrences').execute();

    await t.storage.migrate();
    assert.deepEqual(await rowsOf([ids[0], ids[3], ids[4], ids[5]]), { posts: 0, events: 0 }, 'plain ones lose their rows');
    assert.deepEqual(await rowsOf([ids[1], ids[2]]), { posts: 2, events: 2 }, 'the exception and the cancelled one keep theirs');
    const links = await db.selectFrom('event_organizers').select('event_id').where('event_id', 'in', ids).execute();
    assert.deepEqual(
      links.map((l) => Number(l.event_id)).sort((a, b) => a - b),
      [ids[1], ids[2]],
    );
    assert.deepEqual(await reads(), before);
    await assertDayCounts('after the migration');
  });

  it('gives new occurrences ids that no post or other occurrence holds, and later posts ids after theirs', async () => {
    const first = await series({ start_date: '2033-01-01 09:00:00', end_date: '2033-01-01 10:00:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=30'] });
    const firstIds = await idsOf(first.id);
    const single = await makeEvent(t, { start_date: '2033-01-02 12:00:00', end_date: '2033-01-02 13:00:00' });
    const venue = await makeLinked(t, 'venue');
    const second = await series({ start_date: '2033-01-01 11:00:00', end_date: '2033-01-01 12:00:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=30'] });
    const secondIds = await idsOf(second.id);
    const all = [first.id, ...firstIds, single.id, venue.id, second.id, ...secondIds];
    assert.equal(new Set(all).size, all.length, 'no id given twice');
    assert.deepEqual(
      all,
      [...all].sort((a, b) => a - b),
      'each after the ones before it',
    );
    assert.equal(
      (await t.get(`/venues/${firstIds[3]}`)).text,
      (await t.get(`/venues/${single.id}`)).text.replaceAll(String(single.id), String(firstIds[3])),
      'an occurrence id is an event id to the other routes',
    );
  });

  it('finds the venues, organizers and terms of plain occurrences through their series', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Only upcoming through a series' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Only upcoming through a series' });
    const category = await makeCategory(t, { name: 'Through a series' });
    // a series that began ten days ago: its master's start is past, its later occurrences are upcoming
    const start = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const s = await series({
      start_date: `${start} 09:00:00`,
      end_date: `${start} 10:00:00`,
      recurrence: ['RRULE:FREQ=DAILY;COUNT=30'],
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
    });
    const ids = await idsOf(s.id);
    const upcomingVenues = await t.get('/venues', { query: { only_with_upcoming: 'true', per_page: 50 } });
    assert.ok(
      upcomingVenues.body.venues.some((v: any) => v.id === venue.id),
      'the venue has upcoming events',
    );
    const upcomingOrganizers = await t.get('/organizers', { query: { only_with_upcoming: 'true', per_page: 50 } });
    assert.ok(upcomingOrganizers.body.organizers.some((o: any) => o.id === organizer.id));
    const ofOccurrence = await t.get('/venues', { query: { event: ids[20] } });
    assert.deepEqual(
      ofOccurrence.body.venues.map((v: any) => v.id),
      [venue.id],
    );
    const terms = await t.get('/categories', { query: { post: ids[20] } });
    assert.deepEqual(
      terms.body.categories.map((c: any) => c.id),
      [category.id],
    );
    const byVenue = await t.get('/events', { query: { venue: venue.id, per_page: 50 } });
    assert.ok(byVenue.body.events.length > 0 && byVenue.body.events.every((e: any) => e.series_id === s.id));
    assert.equal(Number(byVenue.headers['x-tec-total']), byVenue.body.events.length);
  });

  it('answers a conditional write to a plain occurrence against the ETag it was read with', async () => {
    const s = await series({ start_date: '2034-04-04 09:00:00', end_date: '2034-04-04 10:00:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    const ids = await idsOf(s.id);
    const read = await t.get(`/events/${ids[1]}`, { as: 'administrator' });
    const etag = String(read.headers.etag);
    const written = await t.post(`/events/${ids[1]}`, { as: 'administrator', json: { title: 'Conditional' }, headers: { 'if-match': etag } });
    assert.equal(written.status, 200, written.text);
    const stale = await t.post(`/events/${ids[1]}`, { as: 'administrator', json: { title: 'Stale' }, headers: { 'if-match': etag } });
    assert.equal(stale.status, 412, stale.text);
    const other = await t.get(`/events/${ids[3]}`, { as: 'administrator' });
    const split = await t.post(`/events/${ids[3]}/split`, {
      as: 'administrator',
      json: { title: 'Split conditionally' },
      headers: { 'if-match': String(other.headers.etag) },
    });
    assert.equal(split.status, 201, split.text);
    assert.equal((await t.get(`/events/${ids[1]}`)).body.title, 'Conditional');
  });
});
