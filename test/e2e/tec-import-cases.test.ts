/**
 * The fidelity cases of FEATURES.md §6.4 on the recorded TEC 6.17 site: time zones (4), all-day days (5),
 * categories (6), the protected event (7), the draft venue an event embeds (8), one image for many records
 * (9), the frozen iCalendar UIDs in our export (14), and what an application password adds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localEvents, recordedList, recordedSite, runImport, zero } from '../helpers/tec-import.js';
import { ADMIN_APP_PASSWORD, FIXTURES, recordedBody, rewriteHost, TecSite } from '../helpers/tec-site.js';

describe('site import: fidelity (recorded TEC 6.17, anonymous)', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  let local: Map<string, any>;
  const ev = (id: number) => local.get(`127.0.0.1?id=${id}`);
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url });
    local = await localEvents(t);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('maps UTC+2 to Etc/GMT-2 keeping the UTC instants, reports the original local/UTC mismatch with both values, keeps DST-day instants (case 4)', () => {
    const offset = ev(36);
    assert.equal(offset.timezone, 'Etc/GMT-2');
    assert.equal(offset.utc_start_date, '2025-05-20 11:00:00', 'the UTC instant is kept');
    assert.equal(offset.start_date, '2025-05-20 13:00:00', 'the wall time is the instant in UTC+2');
    const warning = job.report.warnings.find((w: any) => w.remote_id === '36');
    assert.match(warning.reason, /2025-05-20 14:00:00/, 'the remote local time');
    assert.match(warning.reason, /2025-05-20 11:00:00/, 'the remote UTC time');
    const winter = ev(37);
    assert.deepEqual([winter.timezone, winter.start_date, winter.utc_start_date], ['Etc/GMT-2', '2026-01-15 23:00:00', '2026-01-15 21:00:00']);
    assert.equal(job.report.warnings.filter((w: any) => w.remote_id === '37').length, 0, 'no mismatch where there is none');
    // New York DST days: spring-forward night, a start in the gap (stored by the original as 03:30), fall back, ambiguous 01:30
    assert.deepEqual([ev(40).utc_start_date, ev(40).utc_end_date], ['2025-03-09 06:00:00', '2025-03-09 08:00:00']);
    assert.deepEqual([ev(41).start_date, ev(41).utc_start_date], ['2026-03-08 03:30:00', '2026-03-08 07:30:00']);
    assert.deepEqual([ev(42).utc_start_date, ev(42).utc_end_date], ['2025-11-02 04:30:00', '2025-11-02 08:30:00']);
    assert.deepEqual([ev(43).start_date, ev(43).utc_start_date, ev(43).timezone_abbr], ['2026-11-01 01:30:00', '2026-11-01 05:30:00', 'EDT']);
    // Berlin across the European change
    assert.deepEqual([ev(33).timezone, ev(33).utc_start_date, ev(33).utc_end_date], ['Europe/Berlin', '2024-03-30 09:00:00', '2024-04-01 16:00:00']);
  });

  it('keeps all-day days: multi-day, four months, across the new year (found by the sweep), and a cutoff-shifted form maps to the same days (case 5)', async () => {
    assert.deepEqual([ev(29).all_day, ev(29).start_date, ev(29).end_date], [true, '2019-07-12 00:00:00', '2019-07-14 23:59:59']);
    assert.deepEqual([ev(49).start_date, ev(49).end_date], ['2020-03-01 00:00:00', '2020-06-30 23:59:59']);
    assert.deepEqual(
      [ev(48).start_date, ev(48).end_date, ev(48).utc_start_date],
      ['2024-12-30 00:00:00', '2025-01-02 23:59:59', '2024-12-30 05:00:00'],
    );
    assert.ok(
      site.log.some((l) => l.path.includes('end_date=2029-12-31') && !l.path.includes('strict_dates')),
      'the sweep ran',
    );
    // the same event with the site's end-of-day cutoff at 04:00: 04:00:00 on the first day to 03:59:59 after the last
    let shifted = 0;
    site.transform = (e) => {
      const body = e.body
        .replace(/("id":35,[\s\S]*?"start_date":)"2025-10-20 00:00:00"/, '$1"2025-10-20 04:00:00"')
        .replace(/("id":35,[\s\S]*?"end_date":)"2025-10-21 23:59:59"/, '$1"2025-10-22 03:59:59"');
      if (body !== e.body) shifted++;
      return { ...e, body };
    };
    const again = await runImport(t, { url: site.url });
    site.transform = undefined;
    assert.ok(shifted > 0, 'the site answered the cutoff-shifted form');
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 151 }, 'the same days: nothing to update');
    const after = (await localEvents(t)).get('127.0.0.1?id=35');
    assert.deepEqual([after.all_day, after.start_date, after.end_date], [true, '2025-10-20 00:00:00', '2025-10-21 23:59:59']);
  });

  it('brings every category, the empty one too, with the hierarchy intact though children are listed before parents (case 6)', async () => {
    const res = await t.get('/categories', { query: { hide_empty: 'false', per_page: 50 } });
    const bySlug = new Map(res.body.categories.map((c: any) => [c.slug, c]));
    const remote = recordedList(site, 'anonymous/categories/hide_empty-false-per_page-50-p1.json', 'categories').map((c) => c.slug);
    assert.ok(remote.indexOf('bebop') < remote.indexOf('jazz') && remote.indexOf('jazz') < remote.indexOf('music'), 'the site lists children first');
    const parent = (slug: string) => (bySlug.get(slug) as any).parent;
    assert.equal(parent('bebop'), (bySlug.get('jazz') as any).id);
    assert.equal(parent('jazz'), (bySlug.get('music') as any).id);
    assert.equal(parent('coding-workshops'), (bySlug.get('workshops') as any).id);
    assert.equal((bySlug.get('archived-series') as any).count, 0);
    assert.equal((await t.get('/tags', { query: { hide_empty: 'false', slug: 'rain-or-shine' } })).body.tags.length, 1, 'the unused tag too');
  });

  it('imports the password-protected event as a draft flagged incomplete: nothing blanked is published (case 7)', async () => {
    const res = await t.get('/events/by-slug/members-only-preview', { as: 'administrator' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'draft');
    assert.equal(res.body.description, '');
    assert.equal((await t.get(`/events/${res.body.id}`)).status, 403, 'anonymous visitors do not see it');
    assert.ok(job.report.warnings.some((w: any) => w.remote_id === '77' && /incomplete/.test(w.reason)));
  });

  it('imports a draft venue and organizer that events embed (CVE-2026-84741 shape) as drafts, never published (case 8)', async () => {
    const rave = (await localEvents(t)).get('127.0.0.1?id=67');
    assert.equal(rave.venue.venue, 'Secret Warehouse (draft)');
    assert.equal(rave.venue.status, 'draft');
    assert.equal((await t.get(`/venues/${rave.venue.id}`)).status, 403, 'not visible anonymously');
    const market = ev(69);
    assert.equal(market.venue.id, rave.venue.id, 'one local venue for both events');
    const partner = market.organizer.find((o: any) => o.organizer === 'Pending Partner (draft)');
    assert.equal(partner.status, 'draft');
    assert.ok(job.report.warnings.some((w: any) => w.resource === 'venues' && w.remote_id === '18'));
  });

  it('links one image once for every record that shows it; a second run asks the site for no image (case 9)', async () => {
    const concert = (id: number) => ev(id).image;
    assert.equal(concert(47).url, `${site.url}/wp-content/uploads/2026/11/concert-m0wKga.png`);
    assert.equal(concert(93).id, concert(47).id, 'the same attachment on two events: one image');
    const hall = await t.get('/venues', { query: { search: 'Riverside Concert Hall' } });
    assert.equal(hall.body.venues[0].image.id, concert(47).id, 'and on a venue');
    assert.deepEqual([concert(47).width, concert(47).height], [800, 500]);
    assert.equal(job.report.resources.images.created, 5);
    assert.equal(site.count('/wp-content/'), 0, 'images are linked, never fetched');
  });

  it('exports the imported events with the original UIDs, so subscribers see no duplicates (case 14)', async () => {
    const feed = await t.get('/events.ics', { query: { start_date: '2014-01-01', end_date: '2029-12-31', limit: 5000 } });
    assert.equal(feed.status, 200);
    const ours = new Set([...feed.text.matchAll(/^UID:(.+)\r?$/gm)].map((m) => m[1]));
    const files = ['list.ics', 'month-2025-03.ics', 'month-2025-11.ics', ...[29, 32, 36, 42, 47, 48].map((id) => `single/${id}.ics`)];
    let checked = 0;
    for (const file of files) {
      const text = rewriteHost(readFileSync(new URL(`tec-6.17/ical/${file}`, FIXTURES), 'utf8'), site.url);
      for (const [, uid] of text.matchAll(/^UID:(.+)\r$/gm)) {
        assert.ok(ours.has(uid), `${file}: ${uid} is in our feed`);
        checked++;
      }
    }
    assert.ok(checked >= 30, `${checked} UIDs checked`);
  });
});

describe('site import with an application password (recorded TEC 6.17, administrator)', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url, app_password: ADMIN_APP_PASSWORD, event_password: 'letmein' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('brings drafts, pending, private and scheduled events and the draft venue with their statuses, asking only what was recorded', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(site.misses, []);
    assert.equal(job.tec_options.app_password, true);
    assert.deepEqual(job.report.listed, { total: 155, found: 155 });
    const local = await localEvents(t);
    const status = (id: number) => local.get(`127.0.0.1?id=${id}`)?.status;
    assert.deepEqual([78, 79, 80, 81, 82, 83].map(status), ['draft', 'draft', 'draft', 'pending', 'private', 'future']);
    assert.equal(local.get('127.0.0.1?id=84'), undefined, 'the trashed one stays behind');
    assert.equal(job.report.resources.events.created, 157);
    const stored = await t.storage.db.selectFrom('import_jobs').select('options').where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.doesNotMatch(stored.options, /abcd|letmein/, 'the credentials are forgotten when the job ends');
  });

  it('reads the protected event with the password given: the full content, kept private here (case 7)', async () => {
    const res = await t.get('/events/by-slug/members-only-preview', { as: 'administrator' });
    const remote = JSON.parse(rewriteHost(recordedBody('admin/events/single/77-protected-with-password.json'), site.url));
    assert.equal(res.body.status, 'private');
    assert.equal(res.body.description, remote.description);
    assert.equal(res.body.cost, remote.cost);
    assert.equal((await t.get(`/events/${res.body.id}`)).status, 403);
  });
});
