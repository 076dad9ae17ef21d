import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

/**
 * Every page of a location search, in order: the nearest venue's events first (by start, then id), venues at
 * the same distance together. EventStore reads the nearest venues' events venue by venue and ranks what is
 * left in one statement; these pages cross both, and a venue whose events are a recurring series (plain
 * occurrences) and one with a private event.
 */
describe('events near a point, page after page', () => {
  let t: TestApp;
  /** The events a reader may list, in the order a location search must give them. */
  const expected: { id: number; rank: number; start: string }[] = [];
  const near = { geoloc_lat: 45, geoloc_lng: 5, geoloc_distance: 200 };
  const window = { start_date: '2031-01-01', end_date: '2031-12-31' };

  before(async () => {
    t = await createTestApp();
    // 12 distances (more than the venues the store walks one by one), two venues at the fourth; one venue out of range
    const offsets = [0.05, 0.1, 0.15, 0.2, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65];
    let rank = 0;
    for (const [i, d] of offsets.entries()) {
      if (i > 0 && d !== offsets[i - 1]) rank++;
      const venue = await makeLinked(t, 'venue', { city: 'Near', geo_lat: 45 + d, geo_lng: 5 });
      // starts out of creation order, two at the same time (then by id)
      for (const day of [14, 3, 9, 9].slice(0, 2 + (i % 3))) {
        const start = `2031-03-${String(day).padStart(2, '0')} 10:00:00`;
        const e = await makeEvent(t, { venue: venue.id, start_date: start, end_date: `2031-03-${String(day).padStart(2, '0')} 11:00:00` });
        expected.push({ id: e.id, rank, start });
      }
      if (i === 2) {
        await makeEvent(t, { venue: venue.id, status: 'private', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00' });
      }
      if (i === 5) {
        const series = await makeEvent(t, {
          venue: venue.id,
          start_date: '2031-03-05 18:00:00',
          end_date: '2031-03-05 19:00:00',
          recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
        });
        const occurrences = await t.get(`/events/${series.id}/occurrences`, { query: { ...window, per_page: 50 } });
        assert.equal(occurrences.status, 200, JSON.stringify(occurrences.body));
        for (const o of occurrences.body.events) expected.push({ id: o.id, rank, start: o.start_date });
      }
    }
    const far = await makeLinked(t, 'venue', { city: 'Far', geo_lat: 60, geo_lng: 5 });
    await makeEvent(t, { venue: far.id, start_date: '2031-03-02 10:00:00', end_date: '2031-03-02 11:00:00' });
    expected.sort((a, b) => a.rank - b.rank || a.start.localeCompare(b.start) || a.id - b.id);
  });
  after(() => t.close());

  for (const perPage of [1, 3, 7, 50]) {
    it(`gives every event once, nearest venue first, in pages of ${perPage}`, async () => {
      const seen: number[] = [];
      for (let page = 1; ; page++) {
        const res = await t.get('/events', { query: { ...near, ...window, per_page: perPage, page } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.total, expected.length, JSON.stringify({ q: res.body.rest_url, n: res.body.total }));
        assert.equal(res.body.total_pages, Math.ceil(expected.length / perPage));
        seen.push(...res.body.events.map((e: { id: number }) => e.id));
        if (page >= res.body.total_pages) break;
      }
      assert.deepEqual(
        seen,
        expected.map((e) => e.id),
      );
    });
  }

  it('lists the private event to an administrator, in its place', async () => {
    const res = await t.get('/events', { query: { ...near, ...window, per_page: 50, status: 'publish,private' }, as: 'administrator' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.total, expected.length + 1);
    const ids = res.body.events.map((e: { id: number }) => e.id);
    // the third venue's events start on the 3rd and 14th (and the 9th): the private one, on the 1st, comes first of them
    const third = expected.filter((e) => e.rank === 2).map((e) => e.id);
    const privateId = ids.find((id: number) => !expected.some((e) => e.id === id));
    assert.equal(ids.indexOf(privateId), ids.indexOf(third[0]) - 1);
  });
});
