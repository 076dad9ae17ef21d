/**
 * Recurring events through the API (FEATURES.md §1.6, issue 12): series, occurrences with stable ids,
 * exceptions, cancellations, whole-series edits, "this and following", expand_recurring, /occurrences, and a
 * v1 client's flow on a site with series.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

const NY = 'America/New_York';

describe('recurring events', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  async function series(fields: Record<string, unknown>) {
    const res = await t.post('/events', { as: 'administrator', json: { title: 'Series', ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  /** A series' occurrences (every status an editor sees), in order. */
  async function occurrencesOf(id: number, query: Record<string, string> = {}) {
    const res = await t.get(`/events/${id}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2000-01-01', end_date: '2099-12-31', per_page: '50', ...query },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.events as any[];
  }

  it('keeps 09:00 New York across the autumn change (case 1), with the new keys on recurring items only', async () => {
    const s = await series({
      timezone: NY,
      start_date: '2025-10-27 09:00:00',
      end_date: '2025-10-27 10:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    assert.deepEqual(s.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.equal(s.recurrence_text, 'every week on Monday at 9 AM for 3 times');
    assert.equal(s.series_id, undefined);
    const occ = await occurrencesOf(s.id);
    assert.deepEqual(
      occ.map((o) => [o.start_date, o.utc_start_date, o.timezone_abbr]),
      [
        ['2025-10-27 09:00:00', '2025-10-27 13:00:00', 'EDT'],
        ['2025-11-03 09:00:00', '2025-11-03 14:00:00', 'EST'],
        ['2025-11-10 09:00:00', '2025-11-10 14:00:00', 'EST'],
      ],
    );
    const first = occ[0];
    assert.equal(first.series_id, s.id);
    assert.equal(first.occurrence_key, `${s.id}_20251027T130000Z`);
    assert.equal(first.original_start_date, '2025-10-27 09:00:00');
    assert.equal(first.original_utc_start_date, '2025-10-27 13:00:00');
    assert.equal(first.is_exception, false);
    assert.equal(first.recurrence, undefined);
    assert.equal(first.title, 'Series');
    // the keys come after every key of the original's object
    const keys = Object.keys(first);
    assert.deepEqual(keys.slice(-5), ['series_id', 'occurrence_key', 'original_start_date', 'original_utc_start_date', 'is_exception']);
    const single = await t.get(`/events/${first.id}`);
    assert.equal(single.status, 200);
    assert.equal(single.body.json_ld['@type'], 'Event');
    assert.equal(single.body.json_ld.startDate, '2025-10-27T09:00:00-04:00');
    // what search engines read of the rule (schema.org Schedule) is on the series; an occurrence has none
    assert.equal(single.body.json_ld.eventSchedule, undefined);
    const master = await t.get(`/events/${s.id}`);
    assert.equal(master.body.json_ld.eventSchedule?.repeatFrequency, 'P1W');
    assert.equal(master.body.json_ld.eventSchedule?.scheduleTimezone, 'America/New_York');
    assert.equal(master.body.json_ld.eventSchedule?.startTime, '09:00:00');
  });

  it('moves a time in the spring gap forward and counts it (case 2), takes the first of an ambiguous one (case 3)', async () => {
    const gap = await series({
      timezone: NY,
      start_date: '2025-03-08 02:30:00',
      end_date: '2025-03-08 03:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    assert.deepEqual(
      (await occurrencesOf(gap.id)).map((o) => [o.start_date, o.utc_start_date]),
      [
        ['2025-03-08 02:30:00', '2025-03-08 07:30:00'],
        ['2025-03-09 03:30:00', '2025-03-09 07:30:00'],
        ['2025-03-10 02:30:00', '2025-03-10 06:30:00'],
      ],
    );
    const overlap = await series({
      timezone: NY,
      start_date: '2025-11-01 01:30:00',
      end_date: '2025-11-01 02:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    assert.equal((await occurrencesOf(overlap.id))[1].utc_start_date, '2025-11-02 05:30:00');
  });

  it('skips invalid dates (case 4) and keeps DTSTART as the first instance (case 5)', async () => {
    const monthly = await series({
      timezone: 'Europe/Berlin',
      start_date: '2025-01-31 10:00:00',
      end_date: '2025-01-31 11:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;COUNT=4'],
    });
    assert.deepEqual(
      (await occurrencesOf(monthly.id)).map((o) => [o.start_date.slice(0, 10), o.utc_start_date.slice(11)]),
      [
        ['2025-01-31', '09:00:00'],
        ['2025-03-31', '08:00:00'],
        ['2025-05-31', '08:00:00'],
        ['2025-07-31', '08:00:00'],
      ],
    );
    const lastFriday = await series({
      timezone: NY,
      start_date: '2025-10-02 18:00',
      end_date: '2025-10-02 19:00',
      recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3'],
    });
    assert.deepEqual(
      (await occurrencesOf(lastFriday.id)).map((o) => o.start_date.slice(0, 10)),
      ['2025-10-02', '2025-10-31', '2025-11-28'],
    );
  });

  it('counts an EXDATE before removing it (case 6), and includes UNTIL exactly (case 7)', async () => {
    const s = await series({
      timezone: NY,
      start_date: '2025-10-27 09:00',
      end_date: '2025-10-27 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', `EXDATE;TZID=${NY}:20251103T090000`],
    });
    const occ = await occurrencesOf(s.id);
    assert.deepEqual(
      occ.map((o) => o.start_date.slice(0, 10)),
      ['2025-10-27', '2025-11-10'],
    );
    const until = (u: string) =>
      series({ timezone: NY, start_date: '2025-10-27 09:00', end_date: '2025-10-27 10:00', recurrence: [`RRULE:FREQ=WEEKLY;UNTIL=${u}`] });
    assert.equal((await occurrencesOf((await until('20251110T140000Z')).id)).length, 3);
    assert.equal((await occurrencesOf((await until('20251110T135959Z')).id)).length, 2);
  });

  it('removes an instance moved out of the spring gap with an EXDATE of the time it starts at, as the feed does (E8, E2)', async () => {
    // 02:30 on 2030-03-10 does not exist in New York: that instance starts 03:30 EDT (07:30Z), and an EXDATE naming
    // that start, in UTC or as the zone's wall time, is the one a consumer of the feed's RRULE removes
    for (const exdate of ['EXDATE:20300310T073000Z', `EXDATE;TZID=${NY}:20300310T033000`]) {
      const s = await series({
        timezone: NY,
        start_date: '2030-03-09 02:30',
        end_date: '2030-03-09 03:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3', exdate],
      });
      assert.deepEqual(s.recurrence, ['RRULE:FREQ=DAILY;COUNT=3', `EXDATE;TZID=${NY}:20300310T033000`], exdate);
      assert.deepEqual(
        (await occurrencesOf(s.id)).map((o) => [o.start_date, o.utc_start_date]),
        [
          ['2030-03-09 02:30:00', '2030-03-09 07:30:00'],
          ['2030-03-11 02:30:00', '2030-03-11 06:30:00'],
        ],
        exdate,
      );
    }
    // added to a series, it removes that occurrence, which is reported and gone
    const s = await series({ timezone: NY, start_date: '2030-03-09 02:30', end_date: '2030-03-09 03:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrencesOf(s.id);
    assert.equal(occ[1].start_date, '2030-03-10 03:30:00');
    const res = await t.patch(`/events/${s.id}`, {
      as: 'administrator',
      json: { recurrence: ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20300310T073000Z'] },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.removed_occurrences, [occ[1].id]);
    const gone = await t.get(`/events/${occ[1].id}`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.code, 'event-occurrence-gone');
  });

  it('refuses what FEATURES.md §1.5 refuses, naming recurrence, and stores nothing (case 8)', async () => {
    const before = (await t.get('/events', { as: 'administrator', query: { status: 'any', start_date: '2000-01-01', end_date: '2099-01-01' } })).body
      .total;
    for (const lines of [
      ['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20251201T000000Z'],
      ['RRULE:FREQ=HOURLY;COUNT=3'],
      ['DTSTART:20251027T090000Z', 'RRULE:FREQ=DAILY'],
      ['RRULE:FREQ=WEEKLY;BYDAY=2TU'],
      ['EXRULE:FREQ=DAILY'],
      ['RRULE:FREQ=DAILY', 'RRULE:FREQ=WEEKLY'],
      ['RRULE:FREQ=DAILY;INTERVAL=0'],
      ['RRULE:FREQ=DAILY;INTERVAL=1001'],
      ['RRULE:FREQ=DAILY;COUNT=5001'],
      ['RRULE:FREQ=DAILY;UNTIL=20450101T000000Z'],
      ['RRULE:FREQ=DAILY;BYHOUR=9,10'],
      ['NOT A LINE'],
    ]) {
      const res = await t.post('/events', {
        as: 'administrator',
        json: { title: 'Refused', start_date: '2025-10-27 09:00', end_date: '2025-10-27 10:00', recurrence: lines },
      });
      assert.equal(res.status, 400, `${lines.join(' ')}: ${res.text}`);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.ok('recurrence' in res.body.data.params, lines.join(' '));
    }
    // dates that leave the years iCalendar can write (9999 at most) once placed in UTC or in the zone (was a 500)
    for (const [zone, line] of [
      [NY, 'RRULE:FREQ=YEARLY;INTERVAL=2;UNTIL=99991231'],
      [NY, 'RRULE:FREQ=YEARLY;INTERVAL=2;UNTIL=99991231T230000'],
      ['Europe/Berlin', 'RDATE:99991231T235959Z'],
    ]) {
      const res = await t.post('/events', {
        as: 'administrator',
        json: { title: 'Refused', timezone: zone, start_date: '2025-10-27 09:00', end_date: '2025-10-27 10:00', recurrence: [line] },
      });
      assert.equal(res.status, 400, `${line}: ${res.text}`);
      assert.ok('recurrence' in res.body.data.params, line);
    }
    // an UNTIL that is in year 10000 as a wall time east of UTC is still an instant of 9999 (was a 500 too)
    const late = await series({
      timezone: 'Europe/Berlin',
      start_date: '2025-10-27 09:00',
      end_date: '2025-10-27 10:00',
      recurrence: ['RRULE:FREQ=YEARLY;INTERVAL=2;UNTIL=99991231T235959Z'],
    });
    assert.deepEqual(late.recurrence, ['RRULE:FREQ=YEARLY;INTERVAL=2;UNTIL=99991231T235959Z']);
    assert.equal((await t.del(`/events/${late.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    const afterTotal = (await t.get('/events', { as: 'administrator', query: { status: 'any', start_date: '2000-01-01', end_date: '2099-01-01' } }))
      .body.total;
    assert.equal(afterTotal, before);
  });

  it('gives all-day occurrences whole days (case 9)', async () => {
    const s = await series({
      all_day: true,
      timezone: NY,
      start_date: '2025-10-27',
      end_date: '2025-10-27',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    assert.deepEqual(
      (await occurrencesOf(s.id)).map((o) => [o.start_date, o.end_date, o.all_day]),
      [
        ['2025-10-27 00:00:00', '2025-10-27 23:59:59', true],
        ['2025-11-03 00:00:00', '2025-11-03 23:59:59', true],
      ],
    );
    assert.equal((await occurrencesOf(s.id))[1].occurrence_key, `${s.id}_20251103`);
  });

  it("keeps an UNTIL rule's last day when a series turns all-day and back, in UNTIL's form for each (E5)", async () => {
    // the UTC date of UNTIL is a day off the local one east of UTC (Tokyo) and late in the day west of it (Los Angeles)
    for (const [zone, time, utcUntil] of [
      ['Asia/Tokyo', '08:00', '20330208T230000Z'],
      ['America/Los_Angeles', '20:00', '20330210T040000Z'],
    ]) {
      const s = await series({
        timezone: zone,
        start_date: `2033-02-07 ${time}`,
        end_date: `2033-02-07 ${time}`,
        recurrence: [`RRULE:FREQ=DAILY;UNTIL=20330209T${time.replace(':', '')}00`],
      });
      assert.deepEqual(s.recurrence, [`RRULE:FREQ=DAILY;UNTIL=${utcUntil}`]);
      const days = async () => (await occurrencesOf(s.id)).map((o) => o.start_date.slice(0, 10));
      assert.deepEqual(await days(), ['2033-02-07', '2033-02-08', '2033-02-09']);
      const allDay = await t.patch(`/events/${s.id}`, { as: 'administrator', json: { all_day: true } });
      assert.equal(allDay.status, 200, allDay.text);
      assert.deepEqual(allDay.body.recurrence, ['RRULE:FREQ=DAILY;UNTIL=20330209'], zone);
      assert.deepEqual(await days(), ['2033-02-07', '2033-02-08', '2033-02-09'], zone);
      const timed = await t.patch(`/events/${s.id}`, {
        as: 'administrator',
        json: { all_day: false, start_date: `2033-02-07 ${time}`, end_date: `2033-02-07 ${time}` },
      });
      assert.equal(timed.status, 200, timed.text);
      // a timed series' UNTIL is UTC (RFC 5545 §3.3.10): the end of that local day
      assert.match(timed.body.recurrence[0], /;UNTIL=\d{8}T\d{6}Z$/, zone);
      assert.deepEqual(await days(), ['2033-02-07', '2033-02-08', '2033-02-09'], zone);
      assert.match((await t.get(`/events/${s.id}.ics`)).text, /\r\nRRULE:FREQ=DAILY;UNTIL=\d{8}T\d{6}Z\r\n/);
    }
  });

  it('keeps occurrence ids through a rename and gives new ones when the rule moves them (case 11)', async () => {
    const s = await series({
      timezone: NY,
      start_date: '2030-01-07 09:00',
      end_date: '2030-01-07 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4'],
    });
    const ids = (await occurrencesOf(s.id)).map((o) => o.id);
    const renamed = await t.post(`/events/${s.id}`, { as: 'administrator', json: { title: 'Renamed' } });
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body.removed_occurrences, []);
    const after = await occurrencesOf(s.id);
    assert.deepEqual(
      after.map((o) => o.id),
      ids,
    );
    assert.ok(after.every((o) => o.title === 'Renamed'));
    const moved = await t.post(`/events/${s.id}`, {
      as: 'administrator',
      json: { start_date: '2030-01-08 09:00', end_date: '2030-01-08 10:00', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4'] },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([...moved.body.removed_occurrences].sort(), [...ids].sort());
    const fresh = (await occurrencesOf(s.id)).map((o) => o.id);
    assert.equal(fresh.length, 4);
    assert.ok(
      fresh.every((id) => !ids.includes(id) && id > Math.max(...ids)),
      'new ids, none given before',
    );
    for (const id of ids) {
      const gone = await t.get(`/events/${id}`);
      assert.equal(gone.status, 410);
      assert.equal(gone.body.code, 'event-occurrence-gone');
    }
    // a legacy client writing to an old id hears the same (it was a 404, as for an id that never was)
    for (const write of [
      () => t.post(`/events/${ids[0]}`, { as: 'administrator', json: { title: 'X' } }),
      () => t.put(`/events/${ids[1]}`, { as: 'administrator', json: { title: 'X' } }),
      () => t.patch(`/events/${ids[2]}`, { as: 'administrator', json: { title: 'X' } }),
      () => t.del(`/events/${ids[3]}`, { as: 'administrator' }),
    ]) {
      const gone = await write();
      assert.equal(gone.status, 410, gone.text);
      assert.equal(gone.body.code, 'event-occurrence-gone');
    }
    assert.equal((await t.del(`/events/${ids[3]}`)).status, 401);
  });

  it('lets a v1 client edit one occurrence, which becomes an exception (case 12), and cancel one (case 13)', async () => {
    const s = await series({ timezone: NY, start_date: '2030-02-04 09:00', end_date: '2030-02-04 10:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const list = await t.get('/events', { query: { start_date: '2030-02-01', end_date: '2030-02-28' } });
    const mine = list.body.events.filter((e: any) => e.series_id === s.id);
    assert.equal(mine.length, 4);
    const picked = mine[1];
    const edited = await t.post(`/events/${picked.id}`, { as: 'administrator', json: { title: 'X' } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.id, picked.id);
    assert.equal(edited.body.title, 'X');
    assert.equal(edited.body.slug, s.slug, 'an occurrence keeps its series slug');
    const relisted = (await occurrencesOf(s.id)).map((o) => [o.id, o.title, o.is_exception]);
    assert.deepEqual(relisted, [
      [mine[0].id, 'Series', false],
      [picked.id, 'X', true],
      [mine[2].id, 'Series', false],
      [mine[3].id, 'Series', false],
    ]);
    // a rename of the series leaves the exception's title alone
    await t.post(`/events/${s.id}`, { as: 'administrator', json: { title: 'All', featured: true } });
    const afterRename = await occurrencesOf(s.id);
    assert.deepEqual(
      afterRename.map((o) => [o.title, o.featured]),
      [
        ['All', true],
        ['X', true],
        ['All', true],
        ['All', true],
      ],
    );
    const first = await t.del(`/events/${mine[2].id}`, { as: 'administrator' });
    assert.equal(first.status, 200);
    assert.equal(first.body.status, 'trash');
    const second = await t.del(`/events/${mine[2].id}`, { as: 'administrator' });
    assert.equal(second.status, 410);
    const remaining = await t.get('/events', { query: { start_date: '2030-02-01', end_date: '2030-02-28' } });
    assert.deepEqual(
      remaining.body.events.filter((e: any) => e.series_id === s.id).map((e: any) => e.id),
      [mine[0].id, picked.id, mine[3].id],
    );
    // editors can list it with show_cancelled
    assert.equal((await occurrencesOf(s.id, { show_cancelled: 'true' })).length, 4);
    // read like a trashed event (v1 trash behaviour); a series rename does not bring it back
    assert.equal((await t.get(`/events/${mine[2].id}`, { as: 'administrator' })).body.code, 'event-no-longer-available');
    await t.post(`/events/${s.id}`, { as: 'administrator', json: { title: 'Again' } });
    const cancelled = (await occurrencesOf(s.id, { show_cancelled: 'true' })).find((o) => o.id === mine[2].id);
    assert.equal(cancelled.status, 'trash');
    assert.equal(cancelled.title, 'Again');
    assert.equal((await occurrencesOf(s.id)).length, 3);
  });

  it('splits at occurrence 4 of 10: COUNT shared, later ids and exceptions move (case 14)', async () => {
    const s = await series({
      timezone: NY,
      start_date: '2030-03-04 09:00',
      end_date: '2030-03-04 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'],
    });
    const occ = await occurrencesOf(s.id);
    await t.post(`/events/${occ[5].id}`, { as: 'administrator', json: { title: 'Sixth' } });
    const split = await t.post(`/events/${occ[3].id}/split`, { as: 'administrator', json: { title: 'Later' } });
    assert.equal(split.status, 201, split.text);
    assert.deepEqual(split.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=7']);
    assert.equal(split.body.split_from, s.id);
    assert.equal(split.body.start_date, '2030-03-25 09:00:00');
    const old = await t.get(`/events/${s.id}`);
    assert.deepEqual(old.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.deepEqual(
      (await occurrencesOf(s.id)).map((o) => o.id),
      occ.slice(0, 3).map((o) => o.id),
    );
    const moved = await occurrencesOf(split.body.id);
    assert.deepEqual(
      moved.map((o) => o.id),
      occ.slice(3).map((o) => o.id),
    );
    assert.deepEqual(
      moved.map((o) => o.title),
      ['Later', 'Later', 'Sixth', 'Later', 'Later', 'Later', 'Later'],
    );
    assert.ok(moved.every((o) => o.series_id === split.body.id));
  });

  it('splits an UNTIL rule 1 s before the occurrence (case 15); at the first occurrence it updates the series', async () => {
    const s = await series({
      timezone: NY,
      start_date: '2030-04-01 09:00',
      end_date: '2030-04-01 10:00',
      recurrence: ['RRULE:FREQ=DAILY;UNTIL=20300405T130000Z'],
    });
    const occ = await occurrencesOf(s.id);
    assert.equal(occ.length, 5);
    const split = await t.post(`/events/${occ[2].id}/split`, { as: 'administrator', json: {} });
    assert.equal(split.status, 201, split.text);
    assert.deepEqual((await t.get(`/events/${s.id}`)).body.recurrence, ['RRULE:FREQ=DAILY;UNTIL=20300403T125959Z']);
    assert.deepEqual(split.body.recurrence, ['RRULE:FREQ=DAILY;UNTIL=20300405T130000Z']);
    const atFirst = await t.post(`/events/${occ[0].id}/split`, { as: 'administrator', json: { title: 'Whole' } });
    assert.equal(atFirst.status, 200);
    assert.equal(atFirst.body.id, s.id);
    assert.equal((await occurrencesOf(s.id))[0].title, 'Whole');
    const notOccurrence = await t.post(`/events/${s.id}/split`, { as: 'administrator', json: {} });
    assert.equal(notOccurrence.status, 400);
    assert.equal(notOccurrence.body.code, 'event-not-occurrence');
  });

  it('answers a split of a venue id as the other event routes do (400 rest-invalid-event-id), and of no post 404', async () => {
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Not an occurrence hall' } });
    assert.equal(venue.status, 201, venue.text);
    for (const path of [`/events/${venue.body.id}`, `/events/${venue.body.id}/split`]) {
      const res = await t.post(path, { as: 'administrator', json: { title: 'x' } });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.deepEqual(res.body, { code: 'rest-invalid-event-id', message: 'The specified ID is not a valid event.', data: { status: 400 } });
    }
    const missing = await t.post('/events/99999999/split', { as: 'administrator', json: { title: 'x' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
    assert.equal((await t.get(`/venues/${venue.body.id}`)).body.venue, 'Not an occurrence hall');
  });

  it('refuses to split where the rule would restart on other dates or times (an RDATE, a DST gap), and changes nothing', async () => {
    for (const [rule, extra] of [
      // the weekday of a WEEKLY rule comes from DTSTART: from a Wednesday it would give Wednesdays (and COUNT one less)
      ['RRULE:FREQ=WEEKLY;COUNT=5', '20300313T090000'],
      ['RRULE:FREQ=WEEKLY;UNTIL=20300401T130000Z', '20300313T090000'],
      // so does a MONTHLY rule's day of the month
      ['RRULE:FREQ=MONTHLY', '20300320T090000'],
      // and every rule's time of day
      ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6', '20300312T150000'],
    ]) {
      const s = await series({
        timezone: NY,
        start_date: '2030-03-04 09:00',
        end_date: '2030-03-04 10:00',
        recurrence: [rule, `RDATE;TZID=${NY}:${extra}`],
      });
      const occ = await occurrencesOf(s.id, { end_date: '2030-12-31' });
      const at = occ.find((o) => o.start_date.slice(0, 10) === `${extra.slice(0, 4)}-${extra.slice(4, 6)}-${extra.slice(6, 8)}`);
      const res = await t.post(`/events/${at.id}/split`, { as: 'administrator', json: { title: 'Later' } });
      assert.equal(res.status, 400, `${rule}: ${res.text}`);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual((await t.get(`/events/${s.id}`)).body.recurrence, s.recurrence);
      assert.deepEqual(await occurrencesOf(s.id, { end_date: '2030-12-31' }), occ);
      // (the unbounded one would reach the later tests' windows)
      assert.equal((await t.del(`/events/${s.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    }
    // an RDATE the rule can restart from splits at it: with BYDAY given and an UNTIL, a Friday changes nothing after it
    const ok = await series({
      timezone: NY,
      start_date: '2030-03-04 09:00',
      end_date: '2030-03-04 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20300320T130000Z', `RDATE;TZID=${NY}:20300308T090000`],
    });
    const okOcc = await occurrencesOf(ok.id);
    const split = await t.post(`/events/${okOcc[2].id}/split`, { as: 'administrator', json: {} });
    assert.equal(split.status, 201, split.text);
    assert.deepEqual(
      [...(await occurrencesOf(ok.id)), ...(await occurrencesOf(split.body.id))].map((o) => [o.id, o.start_date]),
      okOcc.map((o) => [o.id, o.start_date]),
    );
    // with INTERVAL=2 a Monday RDATE in the week between is in the other weeks' cadence: refused
    const odd = await series({
      timezone: NY,
      start_date: '2030-03-04 09:00',
      end_date: '2030-03-04 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;INTERVAL=2;COUNT=4', `RDATE;TZID=${NY}:20300311T090000`],
    });
    const oddOcc = await occurrencesOf(odd.id);
    assert.equal((await t.post(`/events/${oddOcc[1].id}/split`, { as: 'administrator', json: {} })).status, 400);
    assert.equal((await t.post(`/events/${oddOcc[2].id}/split`, { as: 'administrator', json: {} })).status, 201);
    // nor from an occurrence moved out of the spring gap: its new series would be at 03:30 every day after it
    const gap = await series({
      timezone: NY,
      start_date: '2030-03-08 02:30',
      end_date: '2030-03-08 03:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
    });
    const gapOcc = await occurrencesOf(gap.id);
    assert.equal(gapOcc[2].start_date, '2030-03-10 03:30:00');
    const refused = await t.post(`/events/${gapOcc[2].id}/split`, { as: 'administrator', json: {} });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(await occurrencesOf(gap.id), gapOcc);
    const next = await t.post(`/events/${gapOcc[3].id}/split`, { as: 'administrator', json: {} });
    assert.equal(next.status, 201, next.text);
    assert.deepEqual(
      (await occurrencesOf(next.body.id)).map((o) => [o.id, o.start_date]),
      gapOcc.slice(3).map((o) => [o.id, o.start_date]),
    );
  });

  it('drops an exception whose start left the rule on a time change, and reports it (case 16)', async () => {
    const s = await series({ timezone: NY, start_date: '2030-05-06 09:00', end_date: '2030-05-06 10:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const occ = await occurrencesOf(s.id);
    await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { title: 'Exception' } });
    const res = await t.post(`/events/${s.id}`, { as: 'administrator', json: { start_date: '2030-05-06 11:00', end_date: '2030-05-06 12:00' } });
    assert.equal(res.status, 200);
    assert.ok(res.body.removed_occurrences.includes(occ[1].id));
    assert.equal((await t.get(`/events/${occ[1].id}`)).status, 410);
    assert.deepEqual(
      (await occurrencesOf(s.id)).map((o) => o.start_date.slice(11)),
      ['11:00:00', '11:00:00', '11:00:00'],
    );
  });

  it('lists series once with expand_recurring=false; singles unchanged (case 17)', async () => {
    const s = await series({ timezone: NY, start_date: '2031-06-02 09:00', end_date: '2031-06-02 10:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=5'] });
    const single = (
      await t.post('/events', { as: 'administrator', json: { title: 'Alone', start_date: '2031-06-03 09:00', end_date: '2031-06-03 10:00' } })
    ).body;
    const window = { start_date: '2031-06-01', end_date: '2031-06-30' };
    const expanded = await t.get('/events', { query: window });
    assert.equal(expanded.body.total, 6);
    assert.equal(String(expanded.headers['x-tec-total']), '6');
    const once = await t.get('/events', { query: { ...window, expand_recurring: 'false' } });
    assert.equal(once.status, 200);
    assert.deepEqual(
      once.body.events.map((e: any) => e.id),
      [s.id, single.id],
    );
    assert.deepEqual(once.body.events[0].recurrence, ['RRULE:FREQ=DAILY;COUNT=5']);
    assert.equal(once.body.total, 2);
    assert.match(once.body.rest_url, /expand_recurring=0/, "the list URLs carry it, as they carry the original's booleans");
    // a window that holds only its later occurrences still finds the series
    const later = await t.get('/events', { query: { start_date: '2031-06-05', end_date: '2031-06-30', expand_recurring: 'false' } });
    assert.deepEqual(
      later.body.events.map((e: any) => e.id),
      [s.id],
    );
    // a single event is the same object in both lists, to the byte
    assert.equal(JSON.stringify(once.body.events[1]), JSON.stringify(expanded.body.events.find((e: any) => e.id === single.id)));
    const plain = (await t.get(`/events/${single.id}`)).body;
    assert.equal(plain.recurrence, undefined);
    assert.equal(plain.series_id, undefined);
    // post_parent lists one series' occurrences (legacy Pro parity)
    const parent = await t.get('/events', { query: { ...window, post_parent: String(s.id) } });
    assert.equal(parent.body.total, 5);
  });

  it('hides a draft series with all its occurrences; a series counts once in its terms', async () => {
    const s = await series({
      status: 'draft',
      categories: ['Weekly Things'],
      start_date: '2031-07-01 09:00',
      end_date: '2031-07-01 10:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const window = { start_date: '2031-07-01', end_date: '2031-07-31' };
    assert.equal((await t.get('/events', { query: window })).body.total ?? 0, 0);
    const occ = await occurrencesOf(s.id);
    assert.equal((await t.get(`/events/${occ[0].id}`)).status, 403);
    await t.post(`/events/${s.id}`, { as: 'administrator', json: { status: 'publish' } });
    assert.equal((await t.get('/events', { query: window })).body.total, 4);
    const category = (await t.get('/categories', { query: { search: 'Weekly Things' } })).body.categories[0];
    assert.equal(category.count, 1);
    assert.equal((await t.get('/events', { query: { ...window, categories: String(category.id) } })).body.total, 4);
    await t.del(`/events/${s.id}`, { as: 'administrator' });
    assert.equal((await t.get('/events', { query: window })).body.total ?? 0, 0);
    assert.equal((await t.get('/categories', { query: { search: 'Weekly Things', hide_empty: 'false' } })).body.categories[0].count, 0);
  });

  it('turns a series back into a single event with recurrence: []', async () => {
    const s = await series({ start_date: '2031-08-01 09:00', end_date: '2031-08-01 10:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const ids = (await occurrencesOf(s.id)).map((o) => o.id);
    const res = await t.post(`/events/${s.id}`, { as: 'administrator', json: { recurrence: [] } });
    assert.equal(res.status, 200);
    assert.deepEqual([...res.body.removed_occurrences].sort(), [...ids].sort());
    assert.equal(res.body.recurrence, undefined);
    const list = await t.get('/events', { query: { start_date: '2031-08-01', end_date: '2031-08-31' } });
    assert.deepEqual(
      list.body.events.map((e: any) => e.id),
      [s.id],
    );
    const notRecurring = await t.get(`/events/${s.id}/occurrences`);
    assert.equal(notRecurring.status, 400);
    assert.equal(notRecurring.body.code, 'event-not-recurring');
  });

  it('refuses recurrence on an occurrence', async () => {
    const s = await series({ start_date: '2031-09-01 09:00', end_date: '2031-09-01 10:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] });
    const occ = await occurrencesOf(s.id);
    const res = await t.post(`/events/${occ[0].id}`, { as: 'administrator', json: { recurrence: ['RRULE:FREQ=DAILY;COUNT=5'] } });
    assert.equal(res.status, 400);
    assert.ok('recurrence' in res.body.data.params);
  });
});

describe('recurring events without an end', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('reaches the horizon of the day of each write: an edit of other fields the same day adds nothing, two days later two days', async () => {
    // (an app of its own, made on the test clock: the services keep the clock they were made with)
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-12-01T15:00:00Z') });
    const t = await createTestApp();
    try {
      const res = await t.post('/events', {
        as: 'administrator',
        json: { title: 'Daily', timezone: NY, start_date: '2026-12-01 18:00', end_date: '2026-12-01 19:00', recurrence: ['RRULE:FREQ=DAILY'] },
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body.id;
      const occurrences = async () =>
        (
          await t.storage.db
            .selectFrom('occurrences')
            .select(['occurrences.id', 'occurrences.original_start_utc'])
            .where('series_id', '=', id)
            .where('state', '<>', 'gone')
            .orderBy('original_start_utc')
            .execute()
        ).map((r) => ({ id: Number(r.id), start: r.original_start_utc }));
      // what the first and the last occurrence read as their title (through the API)
      const titles = async (list: { id: number }[]) =>
        Promise.all([list[0], list.at(-1)].map(async (o) => (await t.get(`/events/${o?.id}`)).body.title));
      const made = await occurrences();
      // the horizon is the end of the write's UTC day (2026-12-02 00:00), 60 months ahead: the 18:00 EST
      // instances (23:00 UTC) up to 2031-12-01's
      assert.equal(made.at(-1)?.start, '2031-12-01 23:00:00');
      mock.timers.tick(3_600_000);
      assert.equal((await t.post(`/events/${id}`, { as: 'administrator', json: { title: 'Daily renamed' } })).status, 200);
      const sameDay = await occurrences();
      assert.deepEqual(
        sameDay.map((o) => [o.id, o.start]),
        made.map((o) => [o.id, o.start]),
      );
      assert.deepEqual(await titles(sameDay), ['Daily renamed', 'Daily renamed']);
      mock.timers.tick(2 * 86_400_000);
      assert.equal((await t.post(`/events/${id}`, { as: 'administrator', json: { title: 'Daily again' } })).status, 200);
      const later = await occurrences();
      assert.deepEqual(
        later.slice(0, made.length).map((o) => o.id),
        made.map((o) => o.id),
      );
      assert.deepEqual(
        later.slice(made.length).map((o) => o.start),
        ['2031-12-02 23:00:00', '2031-12-03 23:00:00'],
      );
      assert.deepEqual(await titles(later), ['Daily again', 'Daily again']);
    } finally {
      mock.timers.reset();
      await t.close();
    }
  });

  it('materialises an unbounded series past its horizon when a window asks (case 10)', async () => {
    const res = await t.post('/events', {
      as: 'administrator',
      json: { title: 'Weekly', timezone: NY, start_date: '2026-12-07 18:00', end_date: '2026-12-07 19:00', recurrence: ['RRULE:FREQ=WEEKLY'] },
    });
    const s = res.body;
    const far = await t.get('/events', { query: { start_date: '2036-01-01', end_date: '2036-01-31' } });
    assert.equal(far.status, 200);
    const mine = far.body.events.filter((e: any) => e.series_id === s.id);
    assert.deepEqual(
      mine.map((e: any) => e.start_date.slice(0, 10)),
      ['2036-01-07', '2036-01-14', '2036-01-21', '2036-01-28'],
    );
    // and asking again finds the same occurrences, with the same ids
    const again = await t.get('/events', { query: { start_date: '2036-01-01', end_date: '2036-01-31' } });
    assert.deepEqual(
      again.body.events.filter((e: any) => e.series_id === s.id).map((e: any) => e.id),
      mine.map((e: any) => e.id),
    );
  });
});
