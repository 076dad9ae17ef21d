/**
 * Venues and organizers of a site import are matched by remote id (FEATURES.md §6.3): two remote venues of the
 * same name stay two here, and a local venue or organizer that has the name already is neither reused nor
 * written over (the API's own create still reuses a same-named one, as the original does).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localEvents, recordedSite, runImport, zero } from '../helpers/tec-import.js';
import { TecSite } from '../helpers/tec-site.js';

describe('site import: venues and organizers that share a name', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  let mine: { venue: any; organizer: any };
  before(async () => {
    site = await TecSite.start(recordedSite());
    // venue 11 is named as venue 9, organizer 22 as organizer 21, on the lists and inside the events
    site.transform = (e) => ({
      ...e,
      body: e.body.replaceAll('Queen West Studio', 'The Loft Coworking').replaceAll('Jazz Society of Brooklyn', 'NYC Developers Guild'),
    });
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'The Loft Coworking', city: 'Hometown', address: '1 Local Rd' } });
    assert.equal(venue.status, 201, venue.text);
    const organizer = await t.post('/organizers', { as: 'administrator', json: { organizer: 'NYC Developers Guild', email: 'me@local.example' } });
    assert.equal(organizer.status, 201, organizer.text);
    mine = { venue: venue.body, organizer: organizer.body };
    job = await runImport(t, { url: site.url });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('makes one local venue per remote venue, and leaves the local one of that name as it was', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(job.report.resources.venues, { ...zero, created: 12 });
    const local = await localEvents(t);
    const loft = local.get('127.0.0.1?id=31').venue;
    const queenWest = local.get('127.0.0.1?id=39').venue;
    assert.deepEqual([loft.venue, loft.city], ['The Loft Coworking', 'New York']);
    assert.deepEqual([queenWest.venue, queenWest.city], ['The Loft Coworking', 'Toronto']);
    assert.notEqual(loft.id, queenWest.id, 'two remote venues, two local ones');
    assert.ok(![loft.id, queenWest.id].includes(mine.venue.id), 'the local venue of that name is not reused');
    const kept = await t.get(`/venues/${mine.venue.id}`, { as: 'administrator' });
    assert.deepEqual([kept.body.city, kept.body.address, kept.body.modified], ['Hometown', '1 Local Rd', mine.venue.modified]);
    assert.equal(job.report.warnings.filter((w: any) => /same name/.test(w.reason)).length, 0);
  });

  it('makes one local organizer per remote organizer, and leaves the local one of that name as it was', async () => {
    assert.deepEqual(job.report.resources.organizers, { ...zero, created: 8 });
    const local = await localEvents(t);
    const guild = local.get('127.0.0.1?id=31').organizer.find((o: any) => o.organizer === 'NYC Developers Guild');
    const jazz = local.get('127.0.0.1?id=47').organizer.find((o: any) => o.organizer === 'NYC Developers Guild');
    assert.deepEqual([guild.email, jazz.email], ['hello@nycdevs.example.com', 'bookings@jazz-bk.example.org']);
    assert.notEqual(guild.id, jazz.id);
    assert.ok(![guild.id, jazz.id].includes(mine.organizer.id));
    const kept = await t.get(`/organizers/${mine.organizer.id}`, { as: 'administrator' });
    assert.equal(kept.body.email, 'me@local.example');
  });

  it('a second run finds each by its remote id: nothing created or updated', async () => {
    const again = await runImport(t, { url: site.url });
    assert.deepEqual(again.report.resources.venues, { ...zero, unchanged: 12 });
    assert.deepEqual(again.report.resources.organizers, { ...zero, unchanged: 8 });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 151 });
  });

  it("the API's own create still reuses a same-named venue, as the original does", async () => {
    const res = await t.post('/venues', { as: 'administrator', json: { venue: 'Harbor Conference Center' } });
    assert.equal(res.status, 201, res.text);
    const listed = await t.get('/venues', { as: 'administrator', query: { search: 'Harbor Conference Center', per_page: 50 } });
    assert.equal(listed.body.venues.length, 1, 'one venue of that name');
    assert.equal(res.body.id, listed.body.venues[0].id);
  });
});
