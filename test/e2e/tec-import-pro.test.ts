/**
 * Occurrences of a recurring event on a TEC Pro site (FEATURES.md §6.4 case 11, on a site we wrote:
 * test/fixtures/tec-written/pro-occurrences.json), and the redirect map (case 10): by default one event per
 * occurrence with the original's dated URLs redirected; with `group_series` one series with the explicit list
 * of dates, each remote occurrence mapped to its local occurrence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROBES_ABOVE } from '../../src/domain/imports/tec/tec.events.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { recordedSite, rowCounts, runImport, zero } from '../helpers/tec-import.js';
import { rewriteHost, TecSite, writtenEntries } from '../helpers/tec-site.js';

const occurrences = () =>
  writtenEntries('pro-occurrences')
    .flatMap((e) => JSON.parse(e.body).events ?? [])
    .filter((e: any) => e.id >= 10_000_000);

describe('a Pro site: one event per occurrence by default', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  before(async () => {
    site = await TecSite.start(writtenEntries('pro-occurrences'));
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('imports the 10 occurrences (ids from 10,000,000) as 10 events, with WordPress-style slugs (case 11)', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(site.misses, []);
    assert.deepEqual(job.report.resources.events, { ...zero, created: 12 });
    // the ids just above each run of ids (the site's posts up to 102, the occurrences), none across the gap
    assert.equal(job.report.probes.probed, 2 * PROBES_ABOVE);
    const probed = site.log.map((l) => Number(/\/events\/(\d+)$/.exec(l.path)?.[1])).filter(Number.isInteger);
    assert.deepEqual(
      probed.filter((id) => id > 102 + PROBES_ABOVE && id < 10_000_000),
      [],
      'no probes across the gap up to the provisional ids',
    );
    const list = await t.get('/events', { query: { start_date: '2026-10-01', end_date: '2026-12-31', search: 'Weekly Yoga', per_page: 50 } });
    assert.equal(list.body.events.length, 10);
    assert.deepEqual(
      list.body.events.map((e: any) => e.slug),
      ['weekly-yoga', ...Array.from({ length: 9 }, (_, i) => `weekly-yoga-${i + 2}`)],
    );
    for (const [i, o] of occurrences().entries()) {
      assert.equal(list.body.events[i].utc_start_date, o.utc_start_date);
      assert.equal(list.body.events[i].global_id, rewriteHost(o.global_id, site.url));
    }
  });

  it("sends the original's dated occurrence URLs to the events they became (301), from the pages (case 10)", async () => {
    const list = await t.get('/events', { query: { start_date: '2026-10-01', end_date: '2026-12-31', search: 'Weekly Yoga', per_page: 50 } });
    const third = list.body.events[2];
    const res = await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-20/' });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, `http://calendar.test/event/${third.slug}/`);
    const ical = await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-20/?ical=1' });
    assert.equal(ical.headers.location, `http://calendar.test/event/${third.slug}/?ical=1`, 'the query goes along');
    const first = await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-06/' });
    assert.equal(first.headers.location, 'http://calendar.test/event/weekly-yoga/');
    assert.equal((await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-07/' })).statusCode, 404, 'no occurrence that day');
    assert.equal((await t.app.inject({ method: 'GET', url: '/event/open-day/' })).statusCode, 200, 'an unchanged permalink is just served');
  });
});

describe('a Pro site with group_series', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  before(async () => {
    site = await TecSite.start(writtenEntries('pro-occurrences'));
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url, group_series: true });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('makes one series with the explicit list of 10 dates (no guessed rule); each occurrence matches the remote one (case 11)', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(job.report.resources.events, { ...zero, created: 12 });
    const series = await t.get('/events/by-slug/weekly-yoga', { as: 'administrator' });
    assert.equal(series.status, 200, series.text);
    const lines: string[] = series.body.recurrence;
    assert.equal(lines.filter((l) => l.startsWith('RRULE')).length, 0, 'no rule');
    const dates = lines.flatMap((l) => l.replace(/^RDATE[^:]*:/, '').split(','));
    assert.equal(dates.length, 10);
    const occ = await t.get(`/events/${series.body.id}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2026-01-01', end_date: '2026-12-31', per_page: 50 },
    });
    assert.equal(occ.status, 200, occ.text);
    assert.equal(occ.body.events.length, 10);
    const remote = occurrences();
    for (const [i, o] of remote.entries()) {
      const mine = occ.body.events[i];
      assert.equal(mine.global_id, rewriteHost(o.global_id, site.url), 'the remote occurrence maps to this one');
      const single = await t.get(`/events/${mine.id}`);
      assert.deepEqual(
        [single.body.start_date, single.body.utc_start_date, single.body.utc_end_date],
        [o.start_date, o.utc_start_date, o.utc_end_date],
      );
    }
    // the old dated URL of an occurrence is served by the series' own occurrence page
    assert.equal((await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-20/' })).statusCode, 200);
  });

  it('a second run changes nothing', async () => {
    const again = await runImport(t, { url: site.url, group_series: true });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 12 });
  });
});

describe('a Pro site imported one event per occurrence, then with group_series', () => {
  let t: TestApp;
  let site: TecSite;
  let singles: any[];
  before(async () => {
    site = await TecSite.start(writtenEntries('pro-occurrences'));
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    const first = await runImport(t, { url: site.url });
    assert.equal(first.state, 'done', first.failure);
    const list = await t.get('/events', { query: { start_date: '2026-10-01', end_date: '2026-12-31', search: 'Weekly Yoga', per_page: 50 } });
    singles = list.body.events;
    assert.equal(singles.length, 10);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('groups the occurrences imported as single events: the first one becomes the series, each remote occurrence maps to its occurrence', async () => {
    const before = await rowCounts(t);
    const dry = await runImport(t, { url: site.url, group_series: true, dry_run: true });
    assert.deepEqual(await rowCounts(t), before, 'a dry run writes nothing');
    const job = await runImport(t, { url: site.url, group_series: true });
    assert.equal(job.state, 'done', job.failure);
    assert.equal(job.report.complete, true, JSON.stringify(job.report.warnings));
    assert.deepEqual(job.report.resources.events, { ...zero, updated: 10, unchanged: 2 });
    assert.deepEqual(dry.report.resources, job.report.resources, 'and plans what the real run does');
    const series = await t.get('/events/by-slug/weekly-yoga', { as: 'administrator' });
    assert.equal(series.status, 200, series.text);
    assert.equal(series.body.id, singles[0].id, "the first occurrence's event, with its id");
    assert.equal(series.body.recurrence.flatMap((l: string) => l.replace(/^RDATE[^:]*:/, '').split(',')).length, 10);
    const occ = await t.get(`/events/${series.body.id}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2026-01-01', end_date: '2026-12-31', per_page: 50 },
    });
    assert.equal(occ.body.events.length, 10);
    for (const [i, o] of occurrences().entries()) {
      assert.equal(occ.body.events[i].global_id, rewriteHost(o.global_id, site.url), 'the remote occurrence maps to this one');
      assert.equal(occ.body.events[i].utc_start_date, o.utc_start_date);
    }
    // the other single events went to the trash, and the report says so
    for (const single of singles.slice(1)) {
      assert.equal((await t.get(`/events/${single.id}`, { as: 'administrator' })).body.code, 'event-no-longer-available');
    }
    assert.ok(job.report.warnings.some((w: any) => /went to the trash/.test(w.reason)));
    const list = await t.get('/events', { query: { start_date: '2026-10-01', end_date: '2026-12-31', search: 'Weekly Yoga', per_page: 50 } });
    assert.equal(list.body.events.length, 10, 'ten occurrences listed, no single left');
    assert.ok(list.body.events.every((e: any) => e.series_id === series.body.id));
    // the dated URL of an occurrence is served by the series' occurrence page
    assert.equal((await t.app.inject({ method: 'GET', url: '/event/weekly-yoga/2026-10-20/' })).statusCode, 200);
  });

  it('a second grouped run changes nothing', async () => {
    const again = await runImport(t, { url: site.url, group_series: true });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 12 });
    assert.equal(again.report.complete, true);
  });
});

describe('a slug taken here already (case 10)', () => {
  let t: TestApp;
  let site: TecSite;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('gives the imported event -2, lists its old permalink in the redirect map, and redirects it once the path is free', async () => {
    const mine = await t.post('/events', {
      as: 'administrator',
      json: { title: 'Summer Arts Festival', start_date: '2030-07-01 10:00:00', end_date: '2030-07-01 12:00:00' },
    });
    assert.equal(mine.body.slug, 'summer-arts-festival');
    const job = await runImport(t, { url: site.url });
    assert.equal(job.state, 'done', job.failure);
    const imported = await t.get('/events/by-slug/summer-arts-festival-2');
    assert.equal(imported.body.title, 'Summer Arts Festival');
    assert.equal(imported.body.global_id, '127.0.0.1?id=29');
    const maps = await t.app.services.imports.redirects(site.url, {
      permalink: (type, slug) => `http://calendar.test/${type}/${slug}/`,
      categoryLink: (p) => `/c/${p.join('/')}/`,
      tagLink: (s) => `/t/${s}/`,
    });
    const entry = maps[0].redirects.find((r) => r.from === '/event/summer-arts-festival/');
    assert.equal(entry?.to, 'http://calendar.test/event/summer-arts-festival-2/');
    // the path is ours while our event has it
    assert.equal((await t.app.inject({ method: 'GET', url: '/event/summer-arts-festival/' })).statusCode, 200);
    await t.del(`/events/${mine.body.id}`, { as: 'administrator' });
    const moved = await t.app.inject({ method: 'GET', url: '/event/summer-arts-festival/' });
    assert.equal(moved.statusCode, 301);
    assert.equal(moved.headers.location, 'http://calendar.test/event/summer-arts-festival-2/');
    // a subscription to the old site's file of the event follows it too
    const file = await t.app.inject({ method: 'GET', url: '/event/summer-arts-festival/?ical=1' });
    assert.equal(file.statusCode, 301);
    assert.equal(file.headers.location, 'http://calendar.test/event/summer-arts-festival-2/?ical=1');
    const followed = await t.app.inject({ method: 'GET', url: '/event/summer-arts-festival-2/?ical=1' });
    assert.equal(followed.statusCode, 200);
    assert.match(followed.body, /SUMMARY:Summer Arts Festival/);
  });
});
