/**
 * Export → import into an empty database → export again gives the same events (issue 13): UIDs, instants, rules,
 * exceptions, cancelled occurrences, text, places and categories survive the trip through an .ics file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type ICAL from 'ical.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { lintIcal, parseIcal } from '../helpers/ical-lint.js';

const WINDOW = { start_date: '2027-01-01', end_date: '2027-12-31' };

/** What must survive, per VEVENT: everything but the stamps, URLs (ids differ between sites) and SEQUENCE. */
function essence(text: string) {
  const calendar = parseIcal(text);
  const out = calendar.getAllSubcomponents('vevent').map((e: ICAL.Component) => {
    const value = (name: string) => {
      const p = e.getFirstProperty(name);
      if (!p) return undefined;
      const v = p.getFirstValue();
      return typeof v === 'object' && v !== null && 'toJSDate' in v ? `${String(v)} ${(v as ICAL.Time).toJSDate().toISOString()}` : String(v);
    };
    return {
      uid: value('uid'),
      recurrenceId: value('recurrence-id'),
      start: value('dtstart'),
      end: value('dtend'),
      rrule: value('rrule'),
      exdates: e
        .getAllProperties('exdate')
        .flatMap((p) => p.getValues().map(String))
        .sort(),
      summary: value('summary'),
      description: value('description'),
      location: value('location'),
      geo: value('geo'),
      categories: e
        .getAllProperties('categories')
        .flatMap((p) => p.getValues().map(String))
        .sort(),
      status: value('status'),
    };
  });
  return out.sort((a, b) => `${a.uid} ${a.recurrenceId ?? ''}`.localeCompare(`${b.uid} ${b.recurrenceId ?? ''}`));
}

describe('iCalendar round trip', () => {
  let source: TestApp;
  let target: TestApp;
  before(async () => {
    source = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin' });
    target = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin' });
  });
  after(async () => {
    await source.close();
    await target.close();
  });

  async function create(fields: Record<string, unknown>) {
    const res = await source.post('/events', { as: 'administrator', json: fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  it('gives the same events after export, import into an empty database and export again', async () => {
    await create({
      title: 'Jazz; night, with \\ and “quotes” 🎷',
      description: '<p>First line &amp; more</p><p>Second line</p>',
      timezone: 'America/New_York',
      start_date: '2027-03-13 20:00:00',
      end_date: '2027-03-13 23:30:00',
      venue: { venue: 'Blue Note', address: '131 W 3rd St', city: 'New York', country: 'United States', geo_lat: 40.7308, geo_lng: -74.0005 },
      categories: ['Music', 'Jazz'],
    });
    await create({ title: 'Festival', all_day: true, start_date: '2027-07-01', end_date: '2027-07-03', categories: ['Festivals'] });
    await create({ title: 'Kolkata talk', timezone: 'Asia/Kolkata', start_date: '2027-05-05 18:30:00', end_date: '2027-05-05 19:30:00' });
    const series = await create({
      title: 'Choir',
      timezone: 'Europe/Berlin',
      start_date: '2027-03-22 19:00:00',
      end_date: '2027-03-22 21:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=8', 'EXDATE;TZID=Europe/Berlin:20270412T190000'],
    });
    const occurrences = (await source.get(`/events/${series.id}/occurrences`, { query: { ...WINDOW, per_page: '50' } })).body.events;
    assert.equal(occurrences.length, 7);
    const moved = await source.post(`/events/${occurrences[1].id}`, {
      as: 'administrator',
      json: { title: 'Choir (guest conductor)', start_date: '2027-03-30 19:30:00', end_date: '2027-03-30 21:30:00' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await source.del(`/events/${occurrences[4].id}`, { as: 'administrator' })).status, 200);

    const exported = await source.get('/events.ics', { query: WINDOW });
    assert.equal(exported.status, 200);
    assert.deepEqual(lintIcal(exported.text), []);

    const posted = await target.post('/imports', { as: 'administrator', raw: { type: 'text/calendar; charset=utf-8', body: exported.text } });
    assert.equal(posted.status, 202, posted.text);
    await target.app.services.imports.runPending();
    const job = (await target.get(`/imports/${posted.body.id}`, { as: 'administrator' })).body;
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.deepEqual(job.counts, { created: 5, updated: 0, skipped: 0, failed: 0 }, JSON.stringify(job.errors));

    const again = await target.get('/events.ics', { query: WINDOW });
    assert.equal(again.status, 200);
    assert.deepEqual(lintIcal(again.text), []);
    const before = essence(exported.text);
    assert.equal(before.length, 5, 'four events and one override');
    assert.deepEqual(essence(again.text), before);

    // and the API agrees: the same occurrences, at the same instants, on both sites
    const instants = async (t: TestApp) =>
      (await t.get('/events', { query: { ...WINDOW, per_page: '50' } })).body.events.map((e: any) => `${e.utc_start_date} ${e.title}`).sort();
    assert.deepEqual(await instants(target), await instants(source));

    // a second import of the same file changes nothing
    const second = await target.post('/imports', { as: 'administrator', raw: { type: 'text/calendar; charset=utf-8', body: exported.text } });
    await target.app.services.imports.runPending();
    const secondJob = (await target.get(`/imports/${second.body.id}`, { as: 'administrator' })).body;
    assert.deepEqual(secondJob.counts, { created: 0, updated: 0, skipped: 5, failed: 0 }, JSON.stringify(secondJob));
  });
});
