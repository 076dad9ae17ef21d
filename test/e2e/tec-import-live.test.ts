/**
 * Our own service as a live source (issue 15): it speaks the original's API (under `/wp-json/tribe/events/v1`
 * too), so one instance with data is imported into a second and both are compared through the API — events
 * past and future, in several zones, all-day across a new year, hidden from listings, a draft (with an
 * application password), a category tree, venues, organizers, and a recurring series grouped back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createListeningTestApp, createTestApp, type ListeningTestApp, type TestApp } from '../helpers/app.js';
import { compareEvent, compareFlat } from '../helpers/tec-compare.js';
import { localEvents, runImport, zero } from '../helpers/tec-import.js';

describe('importing from our own service', () => {
  let source: ListeningTestApp;
  let target: TestApp;
  let job: any;
  const made: Record<string, any> = {};
  before(async () => {
    source = await createListeningTestApp({ SITE_TIMEZONE: 'Europe/Berlin' });
    target = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    const post = async (path: string, json: Record<string, unknown>) => {
      const res = await source.post(path, { as: 'administrator', json });
      assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.text}`);
      return res.body;
    };
    const music = await post('/categories', { name: 'Music', description: 'Concerts &amp; more' });
    await post('/categories', { name: 'Jazz', parent: music.id });
    await post('/categories', { name: 'Unused', description: 'empty' });
    await post('/tags', { name: 'live' });
    const venue = { venue: 'Kesselhaus', address: 'Knaackstraße 97', city: 'Berlin', country: 'Germany', zip: '10435', phone: '+49 30 1234' };
    const organizer = { organizer: 'Jazz e.V.', email: 'jazz@example.de', website: 'https://jazz.example.de' };
    made.jazz = await post('/events', {
      title: 'Berlin Jazz Night',
      description: '<p>Three bands &amp; a bar.</p>',
      start_date: '2026-06-10 20:00:00',
      end_date: '2026-06-10 23:00:00',
      timezone: 'Europe/Berlin',
      categories: ['Jazz'],
      tags: ['live'],
      venue,
      organizer: [organizer],
      cost: '€12',
      featured: true,
      sticky: true,
      website: 'https://tickets.example.de/?a=1&b=2',
    });
    made.ny = await post('/events', {
      title: 'Fall-back Night (NY)',
      start_date: '2025-11-02 00:30:00',
      end_date: '2025-11-02 03:30:00',
      timezone: 'America/New_York',
      cost: '5 - 15',
    });
    made.fair = await post('/events', {
      title: 'Summer Fair',
      start_date: '2026-07-01',
      end_date: '2026-07-03',
      all_day: true,
      venue: { venue: 'Tempelhofer Feld' },
      cost: 'Free',
    });
    made.winter = await post('/events', {
      title: 'Winter Break',
      start_date: '2025-12-30',
      end_date: '2026-01-02',
      all_day: true,
      categories: ['Music'],
    });
    made.old = await post('/events', { title: 'Old Times', start_date: '2016-04-04 10:00:00', end_date: '2016-04-04 12:00:00' });
    made.hidden = await post('/events', {
      title: 'Staff Training',
      start_date: '2026-03-03 09:00:00',
      end_date: '2026-03-03 12:00:00',
      hide_from_listings: true,
    });
    made.draft = await post('/events', { title: 'Draft Plan', start_date: '2026-05-05 09:00:00', end_date: '2026-05-05 10:00:00', status: 'draft' });
    made.yoga = await post('/events', {
      title: 'Weekly Yoga',
      start_date: '2026-10-13 18:00:00',
      end_date: '2026-10-13 19:30:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      venue,
    });
    job = await runImport(target, { url: source.base, group_series: true });
  });
  after(async () => {
    await target.close();
    await source.close();
  });

  it('brings every event a visitor can see across, each answering what the source answers', async () => {
    assert.equal(job.state, 'done', job.failure);
    const r = job.report;
    assert.equal(r.listed.total, 9, 'five singles and four occurrences are listed');
    assert.equal(r.probes.found, 1, 'the hidden one, by its id');
    assert.deepEqual(r.resources.events, { ...zero, created: 10 });
    const theirs = await localEvents(source as TestApp);
    const ours = await localEvents(target);
    const diffs: string[] = [];
    for (const key of ['jazz', 'ny', 'fair', 'winter', 'old']) {
      const e = theirs.get(`127.0.0.1?id=${made[key].id}`);
      const mine = ours.get(e.global_id);
      assert.ok(mine, `${key} came across`);
      assert.deepEqual(mine.global_id_lineage, [e.global_id, `calendar.test?id=${mine.id}`]);
      diffs.push(...compareEvent(e, mine));
    }
    assert.deepEqual(diffs, []);
    const hidden = await target.get('/events/by-slug/staff-training', { as: 'administrator' });
    assert.equal(hidden.body.hide_from_listings, true);
    assert.equal(ours.size, 9, 'five events and four occurrences; no draft: it is not seen anonymously');
  });

  it('regroups the occurrences of the series into one series with their dates', async () => {
    const series = await target.get('/events/by-slug/weekly-yoga', { as: 'administrator' });
    assert.equal(series.body.recurrence.length, 4);
    const occ = await target.get(`/events/${series.body.id}/occurrences`, { query: { start_date: '2026-10-01', end_date: '2026-12-31' } });
    const theirs = await source.get(`/events/${made.yoga.id}/occurrences`, { query: { start_date: '2026-10-01', end_date: '2026-12-31' } });
    assert.deepEqual(
      occ.body.events.map((e: any) => [e.start_date, e.utc_start_date, e.utc_end_date]),
      theirs.body.events.map((e: any) => [e.start_date, e.utc_start_date, e.utc_end_date]),
    );
  });

  it('answers venues, organizers, categories and tags as the source does', async () => {
    const diffs: string[] = [];
    for (const [route, key] of [
      ['/venues', 'venues'],
      ['/organizers', 'organizers'],
    ]) {
      const mine = new Map((await target.get(route, { query: { per_page: 50 } })).body[key].map((v: any) => [v.global_id, v]));
      for (const v of (await source.get(route, { query: { per_page: 50 } })).body[key]) diffs.push(...compareFlat(v, mine.get(v.global_id)));
    }
    for (const key of ['categories', 'tags']) {
      const mine = (await target.get(`/${key}`, { query: { hide_empty: 'false', per_page: 50 } })).body[key];
      const theirs = (await source.get(`/${key}`, { query: { hide_empty: 'false', per_page: 50 } })).body[key];
      const slugs = (list: any[]) => new Map(list.map((c) => [c.id, c.slug]));
      const [ms, ts] = [slugs(mine), slugs(theirs)];
      assert.equal(mine.length, theirs.length);
      for (const c of theirs) {
        const m = mine.find((x: any) => x.slug === c.slug);
        diffs.push(...compareFlat({ ...c, parent: ts.get(c.parent) ?? 0 }, { ...m, parent: ms.get(m.parent) ?? 0 }, ['url']));
      }
    }
    assert.deepEqual(diffs, []);
  });

  it('with an application password, the draft comes too; a second run changes nothing', async () => {
    const login = `${source.users.administrator.login}:${source.users.administrator.password}`;
    const second = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    try {
      const authed = await runImport(second, { url: source.base, app_password: login });
      assert.equal(authed.state, 'done', authed.failure);
      // (a draft has no slug yet, here as there)
      const drafts = await second.get('/events', { as: 'administrator', query: { status: 'draft', search: 'Draft Plan', start_date: '2026-01-01' } });
      assert.deepEqual(
        drafts.body.events.map((e: any) => [e.title, e.status, e.global_id]),
        [['Draft Plan', 'draft', `127.0.0.1?id=${made.draft.id}`]],
      );
      assert.equal(authed.report.resources.events.created, 11, 'ten listed (the draft and four occurrences among them) and the hidden one');
      const again = await runImport(second, { url: source.base, app_password: login });
      assert.equal(again.report.resources.events.created + again.report.resources.events.updated, 0);
    } finally {
      await second.close();
    }
  });

  // (last: it trashes an event at the source)
  it('with since, only events from that day on; prune then trashes only among those', async () => {
    const later = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    try {
      const part = await runImport(later, { url: source.base, since: '2026-01-01' });
      assert.equal(part.state, 'done', part.failure);
      const titles = [...(await localEvents(later)).values()].map((e) => e.title).sort();
      assert.deepEqual(titles, ['Berlin Jazz Night', 'Summer Fair', ...Array(4).fill('Weekly Yoga')]);
      assert.equal(part.report.resources.events.created, 7, 'and the hidden one of March');
      const whole = await runImport(later, { url: source.base });
      assert.equal(whole.report.resources.events.created, 3, 'the earlier ones on a run without since');
      await source.del(`/events/${made.jazz.id}`, { as: 'administrator' });
      const pruned = await runImport(later, { url: source.base, since: '2026-01-01', prune: true });
      assert.equal(pruned.report.resources.events.trashed, 1, 'the one gone from the source; the earlier ones, not seen, stay');
      assert.equal((await localEvents(later)).size, 8);
    } finally {
      await later.close();
    }
  });
});
