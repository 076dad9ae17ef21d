/**
 * iCalendar export (issue 13, FEATURES.md §3.5 cases 1–8 and 10): `/events.ics`, `/events/{id}.ics`,
 * `/events/by-slug/{slug}.ics`. Every feed is linted (test/helpers/ical-lint.ts) and parsed back with ical.js,
 * and its instants are compared with the API's own answers for the same events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import ICAL from 'ical.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { lintIcal, parseIcal } from '../helpers/ical-lint.js';

const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';

describe('iCalendar export', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: BERLIN })));
  after(() => t.close());

  async function create(fields: Record<string, unknown>) {
    const res = await t.post('/events', { as: 'administrator', json: { title: 'Event', ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  /** A feed or file, linted; its VEVENTs parsed. */
  async function feed(path: string, query: Record<string, string> = {}, as: 'anonymous' | 'administrator' | 'editor' = 'anonymous') {
    const res = await t.get(path, { query, as });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
    assert.deepEqual(lintIcal(res.text), []);
    const calendar = parseIcal(res.text);
    return { res, calendar, events: calendar.getAllSubcomponents('vevent') };
  }

  const byUid = (events: ICAL.Component[], uid: string) => events.filter((e) => e.getFirstPropertyValue('uid') === uid);
  const utc = (time: ICAL.Time) => time.toJSDate().toISOString().replace('T', ' ').slice(0, 19);

  /** The UID the feed gives an event (the API does not show it: found by its URL). */
  function uidOf(events: ICAL.Component[], url: string): string {
    const found = events.find((e) => e.getFirstPropertyValue('url') === url);
    assert.ok(found, `no VEVENT for ${url}`);
    return String(found.getFirstPropertyValue('uid'));
  }

  it('writes one RRULE-style VTIMEZONE per zone used, CRLF everywhere and lines of at most 75 octets (case 1)', async () => {
    await create({ title: 'Case 1 a', timezone: NY, start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00' });
    await create({ title: 'Case 1 b', timezone: NY, start_date: '2027-03-02 10:00:00', end_date: '2027-03-02 11:00:00' });
    await create({ title: 'Case 1 c', timezone: BERLIN, start_date: '2027-03-03 10:00:00', end_date: '2027-03-03 11:00:00' });
    const { calendar, events } = await feed('/events.ics', { search: 'Case 1', start_date: '2027-03-01', end_date: '2027-03-31' });
    assert.equal(events.length, 3);
    const zones = calendar.getAllSubcomponents('vtimezone');
    assert.deepEqual(zones.map((z) => z.getFirstPropertyValue('tzid')).sort(), [NY, BERLIN].sort());
    for (const zone of zones) {
      for (const part of ['standard', 'daylight']) {
        const sub = zone.getFirstSubcomponent(part);
        assert.ok(sub, `${zone.getFirstPropertyValue('tzid')} has no ${part}`);
        assert.ok(sub.getFirstProperty('rrule'), 'the rules are yearly RRULEs (what Outlook reads)');
      }
    }
    // the instants are the API's
    const api = await t.get('/events', { query: { search: 'Case 1', start_date: '2027-03-01', end_date: '2027-03-31' } });
    const fromFeed = events.map((e) => utc(e.getFirstPropertyValue('dtstart') as ICAL.Time)).sort();
    assert.deepEqual(fromFeed, api.body.events.map((e: any) => e.utc_start_date).sort());
  });

  it('writes a UTC±N event in UTC, without a VTIMEZONE, and without a word on the console', async () => {
    const e = await create({ title: 'Offset zone', timezone: 'UTC+2', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00' });
    const said: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void said.push(args);
    try {
      const { res, events } = await feed(`/calendar/events/v1/events/${e.id}.ics`);
      assert.doesNotMatch(res.text, /BEGIN:VTIMEZONE/);
      assert.equal(utc(events[0].getFirstPropertyValue('dtstart') as ICAL.Time), '2027-04-01 08:00:00');
    } finally {
      console.error = original;
    }
    assert.deepEqual(said, []);
  });

  it('escapes text so that it round-trips exactly, and folds without splitting a character (case 2)', async () => {
    const title = `Jazz; blues, and \\ backslash\nsecond line 🎷 — ${'é'.repeat(60)}`;
    const e = await create({ title, start_date: '2027-04-01 20:00:00', end_date: '2027-04-01 22:00:00' });
    const { events, res } = await feed(`/events/${e.id}.ics`);
    assert.equal(events.length, 1);
    assert.equal(events[0].getFirstPropertyValue('summary'), title);
    assert.ok(
      res.text.split('\r\n').some((l) => l.startsWith(' ')),
      'the long title is folded',
    );
  });

  it('never lets CR/LF or control characters inject a property (case 3)', async () => {
    const e = await create({
      title: 'Evil\r\nX-EVIL:1\r\nATTENDEE:mailto:x@example.org\u0007',
      start_date: '2027-04-02 20:00:00',
      end_date: '2027-04-02 22:00:00',
    });
    const { events, res } = await feed(`/events/${e.id}.ics`);
    assert.equal(events[0].getFirstProperty('x-evil'), null);
    assert.equal(events[0].getFirstProperty('attendee'), null);
    assert.equal(events[0].getFirstPropertyValue('summary'), 'Evil\nX-EVIL:1\nATTENDEE:mailto:x@example.org');
    assert.ok(!/^X-EVIL/m.test(res.text));
  });

  it('writes all-day events as dates with an exclusive end (case 4)', async () => {
    const e = await create({ title: 'Three days', all_day: true, start_date: '2027-01-01', end_date: '2027-01-03' });
    const { res, events } = await feed(`/events/${e.id}.ics`);
    assert.match(res.text, /\r\nDTSTART;VALUE=DATE:20270101\r\n/);
    assert.match(res.text, /\r\nDTEND;VALUE=DATE:20270104\r\n/);
    assert.equal((events[0].getFirstPropertyValue('dtstart') as ICAL.Time).isDate, true);
  });

  it('writes an all-day series as dates with an exclusive end, its EXDATEs as dates too (case 9)', async () => {
    const s = await create({
      title: 'All-day weekly',
      all_day: true,
      timezone: NY,
      start_date: '2027-05-03',
      end_date: '2027-05-04',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;VALUE=DATE:20270510'],
    });
    const { res, events } = await feed(`/events/${s.id}.ics`);
    const master = byUid(events, uidOf(events, s.url))[0];
    assert.match(res.text, /\r\nDTSTART;VALUE=DATE:20270503\r\n/);
    assert.match(res.text, /\r\nDTEND;VALUE=DATE:20270505\r\n/);
    assert.match(res.text, /\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n/);
    assert.match(res.text, /\r\nEXDATE;VALUE=DATE:20270510\r\n/);
    assert.equal((master.getFirstPropertyValue('dtstart') as ICAL.Time).isDate, true);
  });

  it('writes no DTEND for an event that ends when it starts (RFC 5545 §3.8.2.2: DTEND must be later; §3.6.1: none means that)', async () => {
    const e = await create({ title: 'Deadline', timezone: NY, start_date: '2027-01-05 17:00:00', end_date: '2027-01-05 17:00:00' });
    const s = await create({
      title: 'Deadlines',
      timezone: NY,
      start_date: '2027-01-06 17:00:00',
      end_date: '2027-01-06 17:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    for (const id of [e.id, s.id]) {
      const { res, events } = await feed(`/events/${id}.ics`);
      assert.doesNotMatch(res.text, /\r\nDTEND/);
      const event = new ICAL.Event(events[0]);
      assert.equal(event.endDate.compare(event.startDate), 0);
    }
  });

  it('writes GEO as RFC 5545 FLOATs (no exponent), to six decimal places', async () => {
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Near Null Island', geo_lat: 0.0000001, geo_lng: -12.34567891 } });
    assert.equal(venue.status, 201, venue.text);
    const e = await create({ title: 'Geo', venue: venue.body.id, start_date: '2027-01-07 10:00:00', end_date: '2027-01-07 11:00:00' });
    const { res } = await feed(`/events/${e.id}.ics`);
    assert.match(res.text, /\r\nGEO:0;-12\.345679\r\n/);
  });

  it('writes image URLs as URIs (RFC 3986): spaces, quotes and non-ASCII characters encoded', async () => {
    const e = await create({
      title: 'Image',
      image: 'https://exämple.org/bild ü"1".png',
      start_date: '2027-01-08 10:00:00',
      end_date: '2027-01-08 11:00:00',
    });
    const { events } = await feed(`/events/${e.id}.ics`);
    for (const name of ['image', 'attach']) {
      assert.equal(events[0].getFirstPropertyValue(name), 'https://xn--exmple-cua.org/bild%20%C3%BC%221%22.png', name);
    }
  });

  it('exports a series as one VEVENT with its rule, EXDATE for a cancelled occurrence and an override with RECURRENCE-ID (case 5)', async () => {
    const s = await create({
      title: 'Weekly',
      timezone: NY,
      start_date: '2027-02-01 09:00:00',
      end_date: '2027-02-01 10:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    const occ = (await t.get(`/events/${s.id}/occurrences`, { query: { start_date: '2027-01-01', end_date: '2027-12-31', per_page: '50' } })).body
      .events;
    assert.equal(occ.length, 6);
    const moved = await t.post(`/events/${occ[1].id}`, {
      as: 'administrator',
      json: { start_date: '2027-02-08 11:30:00', end_date: '2027-02-08 12:30:00', title: 'Moved' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await t.del(`/events/${occ[3].id}`, { as: 'administrator' })).status, 200);

    const { res, events } = await feed(`/events/${s.id}.ics`);
    const uid = uidOf(events, s.url);
    const mine = byUid(events, uid);
    assert.equal(mine.length, 2, 'the master and one override');
    const master = mine.find((e) => !e.getFirstProperty('recurrence-id')) as ICAL.Component;
    const override = mine.find((e) => e.getFirstProperty('recurrence-id')) as ICAL.Component;
    assert.equal(String(master.getFirstPropertyValue('rrule')), 'FREQ=WEEKLY;COUNT=6');
    assert.match(res.text, /\r\nDTSTART;TZID=America\/New_York:20270201T090000\r\n/);
    assert.match(res.text, /\r\nEXDATE;TZID=America\/New_York:20270222T090000\r\n/);
    assert.match(res.text, /\r\nRECURRENCE-ID;TZID=America\/New_York:20270208T090000\r\n/);
    assert.equal(override.getFirstPropertyValue('summary'), 'Moved');

    // a consumer expanding the feed gets the API's occurrences (the cancelled one left out, the moved one moved)
    const expansion = new ICAL.RecurExpansion({ component: master, dtstart: master.getFirstPropertyValue('dtstart') as ICAL.Time });
    const overrides = new Map([[String(override.getFirstPropertyValue('recurrence-id')), override]]);
    const fromFeed: string[] = [];
    for (let next = expansion.next(); next; next = expansion.next()) {
      const replaced = overrides.get(String(next));
      fromFeed.push(utc(replaced ? (replaced.getFirstPropertyValue('dtstart') as ICAL.Time) : next));
    }
    const api = (await t.get(`/events/${s.id}/occurrences`, { query: { start_date: '2027-01-01', end_date: '2027-12-31', per_page: '50' } })).body
      .events;
    assert.deepEqual(fromFeed.sort(), api.map((e: any) => e.utc_start_date).sort());
    assert.equal(fromFeed.length, 5);

    // an occurrence's file is its whole series
    const viaOccurrence = await t.get(`/events/${occ[0].id}.ics`);
    assert.equal(viaOccurrence.text, res.text);
  });

  it("gives a series across a DST gap the API's wall times, in a consumer that shifts gap times forward (case 6)", async () => {
    const s = await create({
      title: 'Gap',
      timezone: NY,
      start_date: '2027-03-12 02:30:00',
      end_date: '2027-03-12 03:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const { events } = await feed(`/events/${s.id}.ics`);
    const master = events[0];
    const expansion = new ICAL.RecurExpansion({ component: master, dtstart: master.getFirstPropertyValue('dtstart') as ICAL.Time });
    const walls: string[] = [];
    for (let next = expansion.next(); next; next = expansion.next()) walls.push(next.toString().replace('T', ' '));
    const api = (await t.get(`/events/${s.id}/occurrences`, { query: { start_date: '2027-01-01', end_date: '2027-12-31', per_page: '50' } })).body
      .events;
    // the rule's wall times are the occurrences' original starts; 2027-03-14 02:30 does not exist and moved to 03:30
    assert.deepEqual(
      walls,
      api.map((e: any) => e.original_start_date),
    );
    assert.deepEqual(
      api.map((e: any) => e.start_date),
      ['2027-03-12 02:30:00', '2027-03-13 02:30:00', '2027-03-14 03:30:00', '2027-03-15 02:30:00'],
    );
  });

  it('keeps the UID when an event moves and counts the move in SEQUENCE; an unchanged feed is byte-identical and answers 304 (case 7)', async () => {
    const e = await create({ title: 'Mover', timezone: NY, start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00' });
    const first = await feed(`/events/${e.id}.ics`);
    const again = await t.get(`/events/${e.id}.ics`);
    assert.equal(again.text, first.res.text);
    assert.equal(again.headers.etag, first.res.headers.etag);
    const notModified = await t.get(`/events/${e.id}.ics`, { headers: { 'if-none-match': String(first.res.headers.etag) } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');

    const renamed = await t.post(`/events/${e.id}`, { as: 'administrator', json: { title: 'Mover renamed' } });
    assert.equal(renamed.status, 200);
    const afterRename = await feed(`/events/${e.id}.ics`);
    assert.equal(afterRename.events[0].getFirstPropertyValue('sequence'), 0, 'a rename is not a change of time');

    await t.post(`/events/${e.id}`, { as: 'administrator', json: { start_date: '2027-05-02 10:00:00', end_date: '2027-05-02 11:00:00' } });
    const moved = await feed(`/events/${e.id}.ics`);
    assert.equal(moved.events[0].getFirstPropertyValue('uid'), first.events[0].getFirstPropertyValue('uid'));
    assert.equal(moved.events[0].getFirstPropertyValue('sequence'), 1);
    assert.notEqual(moved.res.headers.etag, first.res.headers.etag);
    const stale = await t.get(`/events/${e.id}.ics`, { headers: { 'if-none-match': String(first.res.headers.etag) } });
    assert.equal(stale.status, 200);
  });

  it('shows anonymous callers neither drafts nor private events, and protected events as their title and times (case 8)', async () => {
    const draft = await create({ title: 'Case 8 draft', status: 'draft', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00' });
    const hidden = await create({ title: 'Case 8 private', status: 'private', start_date: '2027-06-02 10:00:00', end_date: '2027-06-02 11:00:00' });
    const locked = await create({
      title: 'Case 8 locked',
      description: '<p>secret</p>',
      start_date: '2027-06-03 10:00:00',
      end_date: '2027-06-03 11:00:00',
      venue: { venue: 'Hall', city: 'Paris' },
    });
    await t.storage.db.updateTable('posts').set({ password: 'letmein' }).where('id', '=', locked.id).execute();
    const window = { search: 'Case 8', start_date: '2027-06-01', end_date: '2027-06-30' };
    const anonymous = await feed('/events.ics', window);
    assert.deepEqual(
      anonymous.events.map((e) => e.getFirstPropertyValue('summary')),
      ['Case 8 locked'],
    );
    assert.equal(anonymous.events[0].getFirstPropertyValue('description'), 'Content is protected.');
    assert.equal(anonymous.events[0].getFirstProperty('location'), null);
    // a draft's file is refused as its JSON is
    const draftFile = await t.get(`/events/${draft.id}.ics`);
    const draftJson = await t.get(`/events/${draft.id}`);
    assert.equal(draftFile.status, draftJson.status);
    assert.equal(draftFile.body.code, draftJson.body.code);

    // a caller with an application password gets their own view
    const admin = await feed('/events.ics', { ...window }, 'administrator');
    const titles = admin.events.map((e) => e.getFirstPropertyValue('summary')).sort();
    assert.ok(titles.includes('Case 8 private'));
    const privateEvent = admin.events.find((e) => e.getFirstPropertyValue('summary') === 'Case 8 private') as ICAL.Component;
    assert.equal(privateEvent.getFirstPropertyValue('class'), 'PRIVATE');
    assert.equal(hidden.status, 'private');
    assert.notEqual(admin.res.headers.etag, anonymous.res.headers.etag);
  });

  it("answers the original's ?ical=1 URLs with the same bytes as the REST feeds (case 9)", async () => {
    const e = await create({ title: 'Case 9', categories: ['Case nine'], start_date: '2027-09-01 10:00:00', end_date: '2027-09-01 11:00:00' });
    const raw = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
      return res.body;
    };
    assert.equal(await raw('/events/?ical=1'), await raw('/calendar/events/v1/events.ics'));
    assert.equal(await raw('/?post_type=tribe_events&ical=1'), await raw('/calendar/events/v1/events.ics'));
    assert.equal(await raw(`/event/${e.slug}/?ical=1`), await raw(`/calendar/events/v1/events/by-slug/${e.slug}.ics`));
    const month = await raw('/events/month/2027-09/?ical=1');
    assert.equal(month, await raw('/calendar/events/v1/events.ics?start_date=2027-09-01&end_date=2027-09-30'));
    assert.match(month, /\r\nSUMMARY:Case 9\r\n/);
    const category = await raw(`/events/category/${e.categories[0].slug}/?ical=1`);
    assert.match(category, /\r\nSUMMARY:Case 9\r\n/);
    assert.equal((category.match(/BEGIN:VEVENT/g) ?? []).length, 1);
    // without ical=1 these are the HTML pages
    const page = await t.app.inject({ method: 'GET', url: '/events/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
  });

  it("sends the original's ?ical=1 files as attachments, as the original does, and the REST feeds inline", async () => {
    // the original answers every `?ical=1` with `Content-Disposition: attachment` (fixtures/tec-6.17/index.json):
    // its "Export .ics file" link downloads the file
    const e = await create({ title: 'Case 9 download', start_date: '2027-09-02 10:00:00', end_date: '2027-09-02 11:00:00' });
    const get = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8', url);
      assert.deepEqual(lintIcal(res.body), [], url);
      const summaries = parseIcal(res.body)
        .getAllSubcomponents('vevent')
        .map((v) => v.getFirstPropertyValue('summary'));
      return { disposition: res.headers['content-disposition'], summaries, etag: res.headers.etag };
    };
    const month = '/calendar/events/v1/events.ics?start_date=2027-09-01&end_date=2027-09-30';
    for (const [alias, feed] of [
      ['/events/month/2027-09/?ical=1', month],
      ['/?post_type=tribe_events&ical=1&eventDisplay=month&eventDate=2027-09', month],
      ['/events/month/2027-09/?outlook-ical=1', month],
      ['/events/?ical=1', '/calendar/events/v1/events.ics'],
      [`/event/${e.slug}/?ical=1`, `/calendar/events/v1/events/by-slug/${e.slug}.ics`],
    ]) {
      const original = await get(alias);
      const rest = await get(feed);
      assert.match(String(original.disposition), /^attachment; filename="[\w.-]+\.ics"$/, alias);
      assert.match(String(rest.disposition), /^inline; /, feed);
      assert.deepEqual(original.summaries, rest.summaries, alias);
      assert.ok(original.summaries.includes('Case 9 download'), alias);
      assert.equal(original.etag, rest.etag, `${alias}: the same bytes`);
    }
  });

  it('refuses a limit above 5,000 and honours limit (case 10)', async () => {
    const res = await t.get('/events.ics', { query: { limit: '5001' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.ok(res.body.data.params.limit);
    const one = await feed('/events.ics', { limit: '1', start_date: '2027-01-01', end_date: '2027-12-31' });
    assert.equal(one.events.filter((e) => !e.getFirstProperty('recurrence-id')).length, 1);
  });

  it('takes a UID from the client, keeps it unique, and never shows it in event bodies', async () => {
    const e = await create({
      title: 'Imported',
      ical_uid: '1234-1700000000-1700003600@old.example.org',
      start_date: '2027-07-01 10:00:00',
      end_date: '2027-07-01 11:00:00',
    });
    assert.equal(e.ical_uid, undefined);
    assert.equal((await t.get(`/events/${e.id}`)).body.ical_uid, undefined);
    const { events } = await feed(`/events/${e.id}.ics`);
    assert.equal(events[0].getFirstPropertyValue('uid'), '1234-1700000000-1700003600@old.example.org');
    const taken = await t.post('/events', {
      as: 'administrator',
      json: {
        title: 'Twin',
        ical_uid: '1234-1700000000-1700003600@old.example.org',
        start_date: '2027-07-01 10:00:00',
        end_date: '2027-07-01 11:00:00',
      },
    });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'event-ical-uid-taken');
    const bad = await t.post(`/events/${e.id}`, { as: 'administrator', json: { ical_uid: 'a\r\nX-EVIL:1' } });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.params.ical_uid);
    const cleared = await t.post(`/events/${e.id}`, { as: 'administrator', json: { ical_uid: null } });
    assert.equal(cleared.status, 400);
    const changed = await t.post(`/events/${e.id}`, { as: 'administrator', json: { ical_uid: 'new-uid@example.org' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await feed(`/events/${e.id}.ics`)).events[0].getFirstPropertyValue('uid'), 'new-uid@example.org');
    const s = await create({
      title: 'S',
      start_date: '2027-07-05 10:00:00',
      end_date: '2027-07-05 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=2'],
    });
    const occ = (await t.get(`/events/${s.id}/occurrences`, { query: { start_date: '2027-07-01', end_date: '2027-07-31', per_page: '50' } })).body
      .events;
    const onOccurrence = await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { ical_uid: 'x@example.org' } });
    assert.equal(onOccurrence.status, 400);
  });

  it('answers with the headers a subscription needs: inline or attachment, caching for anonymous callers', async () => {
    const e = await create({ title: 'Headers', start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' });
    const inline = await t.get(`/events/by-slug/${e.slug}.ics`);
    assert.equal(inline.status, 200);
    assert.equal(inline.headers['content-disposition'], `inline; filename="${e.slug}.ics"`);
    assert.equal(inline.headers['cache-control'], 'public, max-age=300');
    assert.ok(inline.headers['last-modified']);
    assert.equal(inline.headers['x-robots-tag'], 'noindex');
    const download = await t.get(`/events/by-slug/${e.slug}.ics`, { query: { download: 'true' } });
    assert.equal(download.headers['content-disposition'], `attachment; filename="${e.slug}.ics"`);
    assert.equal((await t.get('/events/by-slug/no-such-event.ics')).status, 400);
    const missing = await t.get('/events/999999.ics');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
    const feedHeaders = await t.get('/events.ics');
    assert.equal(feedHeaders.headers['content-disposition'], 'inline; filename="events.ics"');
    assert.match(feedHeaders.text, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n/);
  });
});

describe('iCalendar export: SEQUENCE and DTSTAMP of a series whose occurrences are cancelled', () => {
  it('a cancel, a restore and a split each raise the master VEVENT SEQUENCE; its DTSTAMP and the Last-Modified follow the cancel', async () => {
    // (an app of its own, made on the test clock: the services keep the clock they were made with)
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-12-01T15:00:00Z') });
    const t = await createTestApp();
    try {
      const made = await t.post('/events', {
        as: 'administrator',
        json: {
          title: 'Weekly',
          timezone: NY,
          start_date: '2027-03-01 09:00',
          end_date: '2027-03-01 10:00',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
        },
      });
      assert.equal(made.status, 201, made.text);
      const id = made.body.id;
      const occ = (await t.get(`/events/${id}/occurrences`, { query: { start_date: '2027-01-01', end_date: '2027-12-31', per_page: '50' } })).body
        .events;
      assert.equal(occ.length, 6, JSON.stringify(occ.map((o: any) => o.start_date)));
      const master = async () => {
        const res = await t.get(`/events/${id}.ics`);
        assert.equal(res.status, 200, res.text);
        const vevent = parseIcal(res.text)
          .getAllSubcomponents('vevent')
          .find((e) => !e.getFirstProperty('recurrence-id')) as ICAL.Component;
        const stamp = (name: string) => (vevent.getFirstPropertyValue(name) as ICAL.Time).toJSDate().toISOString();
        return {
          sequence: Number(vevent.getFirstPropertyValue('sequence')),
          dtstamp: stamp('dtstamp'),
          lastModified: stamp('last-modified'),
          header: res.headers['last-modified'],
          exdates: vevent.getAllProperties('exdate').length,
        };
      };
      assert.deepEqual(await master(), {
        sequence: 0,
        dtstamp: '2026-12-01T15:00:00.000Z',
        lastModified: '2026-12-01T15:00:00.000Z',
        header: 'Tue, 01 Dec 2026 15:00:00 GMT',
        exdates: 0,
      });

      mock.timers.tick(3_600_000);
      assert.equal((await t.del(`/events/${occ[2].id}`, { as: 'administrator' })).status, 200);
      assert.deepEqual(await master(), {
        sequence: 1,
        dtstamp: '2026-12-01T16:00:00.000Z',
        lastModified: '2026-12-01T16:00:00.000Z',
        header: 'Tue, 01 Dec 2026 16:00:00 GMT',
        exdates: 1,
      });
      // the v1 body of the series does not change with it
      assert.equal((await t.get(`/events/${id}`)).body.modified_utc, '2026-12-01 15:00:00');

      mock.timers.tick(3_600_000);
      const restored = await t.post(`/events/${occ[2].id}`, { as: 'administrator', json: { status: 'publish' } });
      assert.equal(restored.status, 200, restored.text);
      const back = await master();
      assert.equal(back.sequence, 2);
      assert.equal(back.exdates, 0);

      // an edit that does not cancel or restore leaves it
      mock.timers.tick(3_600_000);
      assert.equal((await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { title: 'Renamed' } })).status, 200);
      assert.equal((await master()).sequence, 2);

      // a split ends the rule earlier: a change of the master's times
      const split = await t.post(`/events/${occ[4].id}/split`, { as: 'administrator', json: {} });
      assert.equal(split.status, 201, split.text);
      assert.equal((await master()).sequence, 3);
    } finally {
      await t.close();
      mock.timers.reset();
    }
  });
});
