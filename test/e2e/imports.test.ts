/**
 * iCalendar import (issue 13, FEATURES.md §3.5 cases 11–13): a Google-Calendar-shaped file with several zones,
 * idempotent re-imports, update authorities, malformed files, the SSRF guard, permissions and job resume.
 * Jobs are run by calling the runner's step (`runPending`) the service's loop calls.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress } from '../../src/domain/imports/fetch.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const FIXTURE = readFileSync(new URL('../../../test/fixtures/ics/google-export.ics', import.meta.url), 'utf8');
const LOOP_TZ = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//The Horde Project//Horde iCalendar Library//EN',
  'BEGIN:VTIMEZONE',
  'TZID:Horde Berlin',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'DTSTART:16010101T000000',
  'RRULE:FREQ=MINUTELY;BYMONTH=10',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'DTSTART:16010101T000000',
  'RRULE:FREQ=MINUTELY;BYMONTH=3',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
  'BEGIN:VEVENT',
  'UID:horde-loop-1',
  'DTSTART;TZID=Horde Berlin:20151009T063000',
  'DTEND;TZID=Horde Berlin:20151009T073000',
  'SUMMARY:Never parsed',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('iCalendar import', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: 'Europe/Paris', IMPORT_PARSE_TIMEOUT: '3' })));
  after(() => t.close());

  async function importText(text: string, query: Record<string, string> = {}, as: 'administrator' | 'editor' = 'administrator') {
    const res = await t.post('/imports', { as, raw: { type: 'text/calendar; charset=utf-8', body: text }, query });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.state, 'queued');
    await t.app.services.imports.runPending();
    const job = await t.get(`/imports/${res.body.id}`, { as });
    assert.equal(job.status, 200, job.text);
    return job.body;
  }

  async function events() {
    const res = await t.get('/events', {
      as: 'administrator',
      query: { start_date: '2026-01-01', end_date: '2026-12-31', per_page: 50, status: 'any' },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.events as any[];
  }

  it('imports the Google Calendar export: zones, floating, all-day, series with EXDATE, a moved and a cancelled instance (case 11)', async () => {
    const job = await importText(FIXTURE);
    assert.equal(job.state, 'done', JSON.stringify(job));
    // 6 masters/singles + 2 overrides
    assert.deepEqual(job.counts, { created: 8, updated: 0, skipped: 0, failed: 0 }, JSON.stringify(job.errors));
    assert.deepEqual(job.progress, { done: 8, total: 8 });

    const list = await events();
    const by = (title: string) => list.filter((e) => e.title === title);
    const board = by('Board meeting')[0];
    assert.equal(board.timezone, 'Europe/Berlin', 'the Windows zone name is mapped');
    assert.equal(board.start_date, '2026-04-15 09:30:00');
    assert.equal(board.utc_start_date, '2026-04-15 07:30:00');
    assert.match(board.description, /<strong>board<\/strong>/, 'X-ALT-DESC html is preferred');
    const webinar = by('Webinar: Städte & Kultur')[0];
    assert.equal(webinar.timezone, 'America/New_York');
    assert.equal(webinar.utc_start_date, '2026-05-01 22:00:00');
    // (the API writes URLs as WordPress' esc_url does)
    assert.equal(webinar.website, 'https://example.com/webinar?x=1&amp;y=2');
    const market = by('Flohmarkt (floating time)')[0];
    assert.equal(market.timezone, 'Europe/Paris', 'floating times are in the site zone');
    assert.equal(market.utc_start_date, '2026-06-01 08:00:00');
    const fest = by('Sommerfest 🎉')[0];
    assert.equal(fest.all_day, true);
    assert.equal(fest.start_date, '2026-07-20 00:00:00');
    assert.equal(fest.end_date, '2026-07-22 23:59:59', 'the exclusive DTEND becomes the last day');
    assert.equal(fest.venue.venue, 'Tempelhofer Feld');
    assert.equal(fest.image.url, 'https://images.example.org/fest.jpg');
    const utc = by('Call in UTC')[0];
    assert.equal(utc.utc_start_date, '2026-08-05 16:00:00');
    assert.equal(utc.timezone, 'Europe/Berlin', 'UTC times are shown in X-WR-TIMEZONE');

    // the weekly series: 6 Tuesdays from 10 March, 24 March excluded, 17 March moved, 31 March cancelled
    const choir = list.filter((e) => e.title.startsWith('Chorprobe'));
    assert.deepEqual(
      choir.map((e) => [e.start_date, e.title]),
      [
        ['2026-03-10 19:00:00', 'Chorprobe — weekly choir ♫'],
        ['2026-03-17 20:00:00', 'Chorprobe (one hour later)'],
        ['2026-04-07 19:00:00', 'Chorprobe — weekly choir ♫'],
        ['2026-04-14 19:00:00', 'Chorprobe — weekly choir ♫'],
      ],
    );
    const first = choir[0];
    assert.equal(first.description.includes('Bring your own score; sheet music: Bach, Händel.'), true, 'escaped text is unescaped');
    assert.equal(first.venue.venue, 'Gemeindehaus St. Marien');
    assert.equal(first.organizer[0].email, 'choir@example.org');
    assert.deepEqual(first.categories.map((c: any) => c.name).sort(), ['Music', 'Rehearsal']);
    assert.equal(first.website, 'https://example.org/choir');
    // the UIDs are the source's
    const uid = await t.storage.events.idByIcalUid('weekly-choir-7f3a@google.com');
    assert.equal(uid, first.series_id);
  });

  it('finds the occurrence a RECURRENCE-ID names by its start, in UTC or in the zone, moved out of a DST gap too (E12, E2)', async () => {
    // 02:30 New York does not exist on 2030-03-10: that instance starts 03:30 EDT, 07:30Z
    const file = (uid: string, recurrenceId: string) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//gap//EN',
        'BEGIN:VEVENT',
        `UID:${uid}`,
        'DTSTART;TZID=America/New_York:20300309T023000',
        'DTEND;TZID=America/New_York:20300309T030000',
        'RRULE:FREQ=DAILY;COUNT=3',
        'SUMMARY:Night shift',
        'END:VEVENT',
        'BEGIN:VEVENT',
        `UID:${uid}`,
        recurrenceId,
        'DTSTART;TZID=America/New_York:20300310T040000',
        'DTEND;TZID=America/New_York:20300310T043000',
        'SUMMARY:Night shift (late)',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
    for (const [uid, recurrenceId] of [
      ['gap-utc@test', 'RECURRENCE-ID:20300310T073000Z'],
      ['gap-moved@test', 'RECURRENCE-ID;TZID=America/New_York:20300310T033000'],
      ['gap-rule@test', 'RECURRENCE-ID;TZID=America/New_York:20300310T023000'],
    ]) {
      const job = await importText(file(uid, recurrenceId));
      assert.deepEqual(job.counts, { created: 2, updated: 0, skipped: 0, failed: 0 }, `${recurrenceId}: ${JSON.stringify(job.errors)}`);
      const listed = await t.get('/events', { as: 'administrator', query: { start_date: '2030-03-09', end_date: '2030-03-11', per_page: 50 } });
      const mine = listed.body.events.filter((e: any) => e.series_id !== undefined && e.title.startsWith('Night shift'));
      assert.deepEqual(
        mine.map((e: any) => [e.start_date, e.title, e.is_exception]),
        [
          ['2030-03-09 02:30:00', 'Night shift', false],
          ['2030-03-10 04:00:00', 'Night shift (late)', true],
          ['2030-03-11 02:30:00', 'Night shift', false],
        ],
        recurrenceId,
      );
      const series = mine[0].series_id;
      assert.equal((await t.del(`/events/${series}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    }
  });

  it('imports the same file again with nothing created or updated, and an edited SUMMARY updates in place (case 11)', async () => {
    const before = await events();
    const again = await importText(FIXTURE);
    assert.equal(again.state, 'done');
    assert.deepEqual(again.counts, { created: 0, updated: 0, skipped: 8, failed: 0 });
    const edited = await importText(FIXTURE.replace('SUMMARY:Board meeting', 'SUMMARY:Board meeting (moved room)'));
    assert.deepEqual(edited.counts, { created: 0, updated: 1, skipped: 7, failed: 0 });
    const after = await events();
    assert.deepEqual(
      after.map((e) => e.id),
      before.map((e) => e.id),
      'ids are stable',
    );
    assert.equal(after.find((e) => e.title === 'Board meeting (moved room)')?.id, before.find((e) => e.title === 'Board meeting')?.id);
  });

  it('retain leaves existing events alone; preserve_local_changes keeps the locally edited fields only (case 12)', async () => {
    const id = (await events()).find((e) => e.title === 'Webinar: Städte & Kultur').id;
    const local = await t.post(`/events/${id}`, { as: 'administrator', json: { title: 'Webinar (local title)' } });
    assert.equal(local.status, 200, local.text);
    // (the board meeting keeps the title the previous test gave it in the source)
    const changed = FIXTURE.replace('SUMMARY:Board meeting', 'SUMMARY:Board meeting (moved room)')
      .replace('SUMMARY:Webinar: Städte & Kultur', 'SUMMARY:Webinar: remote title')
      .replace('DTSTART;TZID=America/New_York:20260501T180000', 'DTSTART;TZID=America/New_York:20260501T170000');
    const retained = await importText(changed, { update_authority: 'retain' });
    assert.equal(retained.counts.updated, 0);
    let ev = (await t.get(`/events/${id}`, { as: 'administrator' })).body;
    assert.equal(ev.title, 'Webinar (local title)');
    assert.equal(ev.start_date, '2026-05-01 18:00:00');

    const preserved = await importText(changed, { update_authority: 'preserve_local_changes' });
    assert.equal(preserved.counts.updated, 1, JSON.stringify(preserved));
    ev = (await t.get(`/events/${id}`, { as: 'administrator' })).body;
    assert.equal(ev.title, 'Webinar (local title)', 'the local edit stays');
    assert.equal(ev.start_date, '2026-05-01 17:00:00', 'the remote change of a field not edited here arrives');

    const overwritten = await importText(changed.replace('Webinar: remote title', 'Webinar: remote title 2'), { update_authority: 'overwrite' });
    assert.equal(overwritten.counts.updated, 1);
    ev = (await t.get(`/events/${id}`, { as: 'administrator' })).body;
    assert.equal(ev.title, 'Webinar: remote title 2');
  });

  it('reports one bad VEVENT with its UID and line and imports the rest', async () => {
    const bad = FIXTURE.replace('RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TU', 'RRULE:FREQ=HOURLY;COUNT=6').replace(/weekly-choir-7f3a/g, 'hourly-x');
    const job = await importText(bad.replace('UID:utc-call-9@google.com', 'UID:utc-call-10@google.com'));
    assert.equal(job.state, 'done');
    const failure = job.errors.find((e: any) => e.uid === 'hourly-x@google.com' && e.recurrence_id === null);
    assert.ok(failure, JSON.stringify(job.errors));
    assert.equal(failure.line, 60);
    assert.match(failure.reason, /FREQ=HOURLY/);
    assert.ok(job.counts.created >= 1, 'the new UTC call is created');
    assert.equal(job.counts.failed, 3, 'the series and its two overrides');
  });

  it('reports a VEVENT whose RRULE the parser cannot read, or reads as another rule, as that item, and imports the others', async () => {
    const vevent = (uid: string, day: string, extra: string[]) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20260101T000000Z',
      `DTSTART:202606${day}T100000Z`,
      `DTEND:202606${day}T110000Z`,
      ...extra,
      `SUMMARY:Parser ${uid}`,
      'END:VEVENT',
    ];
    const file = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//calendar.test//unreadable//EN',
      ...vevent('parser-good-1@calendar.test', '02', []),
      ...vevent('parser-fortnightly@calendar.test', '03', ['RRULE:FREQ=FORTNIGHTLY;COUNT=3']),
      ...vevent('parser-good-2@calendar.test', '04', ['RRULE:FREQ=DAILY;COUNT=2']),
      ...vevent('parser-no-weekday@calendar.test', '05', ['RRULE:FREQ=WEEKLY;BYDAY=XX;COUNT=3']),
      // ical.js reads these two as FREQ=DAILY alone (a series without end): the rule as written is refused
      ...vevent('parser-interval-0@calendar.test', '06', ['RRULE:FREQ=DAILY;INTERVAL=0']),
      ...vevent('parser-count-0@calendar.test', '07', ['RRULE:FREQ=DAILY;COUNT=0']),
      // folded, in lower case (RFC 5545's rule parts are case-insensitive): read whole, as any rule
      ...vevent('parser-folded@calendar.test', '09', ['RRULE:freq=weekly;by', ' day=tu;count=2']),
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const job = await importText(file);
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.deepEqual(job.counts, { created: 3, updated: 0, skipped: 0, failed: 4 }, JSON.stringify(job.errors));
    const errors = [...job.errors].sort((a: any, b: any) => a.line - b.line);
    assert.deepEqual(
      errors.map((e: any) => [e.uid, e.recurrence_id, e.line]),
      [
        ['parser-fortnightly@calendar.test', null, 11],
        ['parser-no-weekday@calendar.test', null, 27],
        ['parser-interval-0@calendar.test', null, 35],
        ['parser-count-0@calendar.test', null, 43],
      ],
    );
    assert.match(errors[0].reason, /^line 16: .*FORTNIGHTLY/);
    assert.match(errors[1].reason, /^line 32: .*XX/);
    assert.match(errors[2].reason, /^rest_invalid_param: .*recurrence.*INTERVAL must be between 1 and 1000/);
    assert.match(errors[3].reason, /^rest_invalid_param: .*recurrence.*COUNT must be a positive integer/);
    const imported = (await events()).filter((e) => e.title.startsWith('Parser ')).map((e) => `${e.title} ${e.start_date}`);
    // (a single event in the site's zone, Paris; a series keeps its DTSTART's, UTC)
    assert.deepEqual(imported.sort(), [
      'Parser parser-folded@calendar.test 2026-06-09 10:00:00',
      'Parser parser-folded@calendar.test 2026-06-16 10:00:00',
      'Parser parser-good-1@calendar.test 2026-06-02 12:00:00',
      'Parser parser-good-2@calendar.test 2026-06-04 10:00:00',
      'Parser parser-good-2@calendar.test 2026-06-05 10:00:00',
    ]);
  });

  it("names the field of a VEVENT that the event write refused in the item's reason", async () => {
    const file = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//calendar.test//reasons//EN',
      'BEGIN:VEVENT',
      'UID:year-zero@calendar.test',
      'DTSTAMP:20260101T000000Z',
      'SUMMARY:Year zero',
      'DTSTART:00000000T000000Z',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const job = await importText(file);
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.deepEqual(job.counts, { created: 0, updated: 0, skipped: 0, failed: 1 });
    assert.deepEqual(job.errors, [
      { uid: 'year-zero@calendar.test', recurrence_id: null, line: 4, reason: 'rest_invalid_param: start_date: Invalid parameter.' },
    ]);
  });

  it('reads CATEGORIES as names, digits too (never as the id of another category), and finds them again on a re-import', async () => {
    const jazz = await t.post('/categories', { as: 'administrator', json: { name: 'Jazz (by id)' } });
    assert.equal(jazz.status, 201, jazz.text);
    const file = (summary: string, categories: string) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//calendar.test//categories//EN',
        'BEGIN:VEVENT',
        'UID:reunion-categories@calendar.test',
        'DTSTAMP:20260101T000000Z',
        `SUMMARY:${summary}`,
        'DTSTART:20260601T100000Z',
        'DTEND:20260601T110000Z',
        `CATEGORIES:${categories}`,
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
    const named = async () => {
      const event = (await events()).find((e) => e.title.startsWith('Reunion'));
      assert.ok(event, 'the event was imported');
      return event.categories.map((c: any) => [c.id, c.name]).sort((a: any, b: any) => String(a[1]).localeCompare(String(b[1])));
    };
    const first = await importText(file('Reunion', `${jazz.body.id},2024,Class of 99`));
    assert.deepEqual(first.counts, { created: 1, updated: 0, skipped: 0, failed: 0 }, JSON.stringify(first.errors));
    const made = await named();
    assert.deepEqual(made.map(([, name]: any) => name).sort(), [String(jazz.body.id), '2024', 'Class of 99'].sort());
    assert.ok(!made.some(([id]: any) => id === jazz.body.id), 'not linked to the category whose id the text is');
    // (in another order: the categories are sent again, and must find the terms the first run made)
    const again = await importText(file('Reunion (moved)', `Class of 99,2024,${jazz.body.id}`));
    assert.deepEqual(again.counts, { created: 0, updated: 1, skipped: 0, failed: 0 }, JSON.stringify(again.errors));
    assert.deepEqual(await named(), made, 'the same categories, none made twice');
  });

  it('fails a malformed file cleanly with the line, and a never-ending VTIMEZONE within the time limit (case 13)', async () => {
    const count = (await events()).length;
    const unterminated = FIXTURE.replace('END:VEVENT\r\nBEGIN:VEVENT\r\nDTSTART;TZID=W. Europe', 'BEGIN:VEVENT\r\nDTSTART;TZID=W. Europe');
    const job = await importText(unterminated);
    assert.equal(job.state, 'failed');
    assert.match(job.failure, /^line 99: BEGIN:VEVENT is never closed/);
    assert.deepEqual(job.counts, { created: 0, updated: 0, skipped: 0, failed: 0 });

    const started = Date.now();
    const loop = await importText(LOOP_TZ);
    assert.equal(loop.state, 'failed');
    assert.match(loop.failure, /took longer than 3 s/);
    assert.ok(Date.now() - started < 10_000);
    assert.equal((await events()).length, count, 'nothing was imported');
  });

  it('dry_run counts and writes nothing', async () => {
    const fresh = FIXTURE.replace(/UID:([^\r]+)/g, 'UID:dry-$1');
    const beforeIds = (await events()).map((e) => e.id);
    const job = await importText(fresh, { dry_run: '1' });
    assert.equal(job.state, 'done');
    assert.equal(job.dry_run, true);
    assert.deepEqual(job.counts, { created: 8, updated: 0, skipped: 0, failed: 0 }, JSON.stringify(job.errors));
    assert.deepEqual(
      (await events()).map((e) => e.id),
      beforeIds,
    );
    assert.equal(await t.storage.events.idByIcalUid('dry-weekly-choir-7f3a@google.com'), undefined);
  });

  it('answers 400 for text that is not iCalendar and 415 naming the types it takes for other bodies; author and anonymous are refused', async () => {
    // a file over the import's own limit (10 MB, not BODY_LIMIT) names that limit
    const huge = await t.post('/imports', { as: 'administrator', raw: { type: 'text/calendar', body: 'X'.repeat(10 * 1024 * 1024 + 1) } });
    assert.equal(huge.status, 413);
    assert.match(huge.body.message, /10485760 bytes/);
    const notIcs = await t.post('/imports', { as: 'administrator', raw: { type: 'text/calendar', body: '<html>nope</html>' } });
    assert.equal(notIcs.status, 400);
    assert.equal(notIcs.body.code, 'import-not-icalendar');
    // a file in another charset (Windows-1252: é is one byte, 0xE9) is refused whole, not imported with U+FFFD
    const jobsBefore = (await t.get('/imports', { as: 'administrator' })).body.total;
    const latin = Buffer.from(FIXTURE.replace('SUMMARY:', 'SUMMARY:Caf\u00e9 '), 'latin1');
    const notUtf8 = await t.post('/imports', { as: 'administrator', raw: { type: 'text/calendar', body: latin } });
    assert.equal(notUtf8.status, 400, notUtf8.text);
    assert.deepEqual(notUtf8.body, {
      code: 'import-not-icalendar',
      message: 'The body is not iCalendar: it is not UTF-8 text (RFC 5545 §3.1.4): convert it to UTF-8 and send it again',
      data: { status: 400 },
    });
    assert.equal((await t.get('/imports', { as: 'administrator' })).body.total, jobsBefore, 'no job was made');
    const plain = await t.post('/imports', { as: 'administrator', raw: { type: 'text/plain', body: FIXTURE } });
    assert.equal(plain.status, 415);
    assert.equal(plain.body.code, 'rest_unsupported_media_type');
    // the 415 names what this route takes (an .ics file or JSON), not the JSON-or-form of the other routes
    assert.equal(
      plain.body.message,
      'Unsupported content type "text/plain": send text/calendar (an .ics file) or application/json ({"source":"ics","url":…}).',
    );
    const elsewhere = await t.post('/events', { as: 'administrator', raw: { type: 'text/calendar', body: FIXTURE } });
    assert.equal(elsewhere.status, 415, 'text/calendar is taken by the imports route alone');
    assert.equal(
      elsewhere.body.message,
      'Unsupported content type "text/calendar": send application/json, application/x-www-form-urlencoded or multipart/form-data.',
    );
    const author = await t.post('/imports', { as: 'author', raw: { type: 'text/calendar', body: FIXTURE } });
    assert.equal(author.status, 403);
    assert.equal(author.body.code, 'rest_forbidden');
    const anonymous = await t.post('/imports', { json: { source: 'ics', url: 'https://example.org/a.ics' } });
    assert.equal(anonymous.status, 401);
    assert.equal((await t.get('/imports', { as: 'author' })).status, 403);
    const list = await t.get('/imports', { as: 'editor' });
    assert.equal(list.status, 200);
    assert.ok(list.body.total >= 5);
    assert.equal(list.body.imports[0].id > list.body.imports[1].id, true, 'newest first');
    assert.equal((await t.get('/imports/999999', { as: 'editor' })).body.code, 'import-not-found');
  });

  it('refuses loopback and private URLs without IMPORT_ALLOW_PRIVATE, at once or when a name resolves there', async () => {
    for (const url of [
      'http://127.0.0.1:1/a.ics',
      'http://[::1]/a.ics',
      'http://[::ffff:127.0.0.1]/a.ics',
      // IPv6 forms that reach IPv4 networks: 6to4 of 10.0.0.1, SIIT of 192.168.0.1, local-use NAT64, Teredo
      'http://[2002:a00:1::1]/a.ics',
      'http://[::ffff:0:c0a8:1]/a.ics',
      'http://[64:ff9b:1::a00:1]/a.ics',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/a.ics',
      'http://169.254.169.254/',
      'http://10.1.2.3/x',
      'file:///etc/passwd',
      'http://localhost/x',
    ]) {
      const res = await t.post('/imports', { as: 'administrator', json: { source: 'ics', url } });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.code, 'import-url-refused', url);
    }
    // a name that resolves to a private address passes the form check and is refused when connected to: this
    // machine's own name (which resolves to loopback or the machine's private address)
    const name = hostname();
    const { address } = await lookup(name);
    assert.ok(isPrivateAddress(address), `${name} resolves to ${address}: this check needs a machine whose name is private`);
    const res = await t.post('/imports', { as: 'administrator', json: { source: 'ics', url: `http://${name}:1/a.ics` } });
    assert.equal(res.status, 202);
    await t.app.services.imports.runPending();
    const job = (await t.get(`/imports/${res.body.id}`, { as: 'administrator' })).body;
    assert.equal(job.state, 'failed');
    assert.equal(job.failure, `the URL is refused: ${name} resolves to ${address}, a private or reserved address`);
  });

  it('resumes a job left running by a process whose lease ran out', async () => {
    const res = await t.post('/imports', {
      as: 'administrator',
      raw: { type: 'text/calendar', body: FIXTURE.replace(/UID:([^\r]+)/g, 'UID:resume-$1') },
    });
    assert.equal(res.status, 202);
    const id = res.body.id as number;
    // another process claimed it and died: running, its lease in the past
    await t.storage.db
      .updateTable('import_jobs')
      .set({ state: 'running', lease_owner: 'dead-host:1', lease_until: '2000-01-01 00:00:00', attempts: 1 })
      .where('id', '=', id)
      .execute();
    assert.equal(await t.app.services.imports.runPending(), 1);
    const job = (await t.get(`/imports/${id}`, { as: 'administrator' })).body;
    assert.equal(job.state, 'done');
    assert.equal(job.counts.created, 8);
    // a live lease is left alone
    const other = await t.post('/imports', { as: 'administrator', raw: { type: 'text/calendar', body: FIXTURE } });
    await t.storage.db
      .updateTable('import_jobs')
      .set({ state: 'running', lease_owner: 'live:1', lease_until: '2999-01-01 00:00:00' })
      .where('id', '=', other.body.id)
      .execute();
    assert.equal(await t.app.services.imports.runPending(), 0);
  });
});

const CP1252_FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//calendar.test//cp1252//EN',
  'BEGIN:VEVENT',
  'UID:cafe-1252@calendar.test',
  'DTSTAMP:20260101T000000Z',
  'DTSTART:20260710T180000Z',
  'DTEND:20260710T190000Z',
  'SUMMARY:Caf\u00e9 concert',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('iCalendar import from a URL with IMPORT_ALLOW_PRIVATE', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  before(async () => {
    t = await createTestApp({ IMPORT_ALLOW_PRIVATE: '1' });
    server = createServer((req, res) => {
      if (req.url === '/redirect') return res.writeHead(302, { location: '/cal.ics' }).end();
      // the same feed in windows-1252 (an é is one byte, 0xE9), with its charset named or not
      if (req.url === '/cp1252.ics' || req.url === '/cp1252-unnamed.ics')
        return res
          .writeHead(200, { 'content-type': req.url === '/cp1252.ics' ? 'text/calendar; charset="windows-1252"' : 'text/calendar' })
          .end(Buffer.from(CP1252_FEED, 'latin1'));
      res.writeHead(200, { 'content-type': 'text/calendar' }).end(FIXTURE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.close();
    await t.close();
  });

  it('imports the feed a local server serves, following a redirect, keyed by the URL', async () => {
    const res = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: `${base}/redirect` } });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.url, `${base}/redirect`);
    await t.app.services.imports.runPending();
    const job = (await t.get(`/imports/${res.body.id}`, { as: 'editor' })).body;
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.equal(job.counts.created, 8);
    const again = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: `${base}/redirect` } });
    await t.app.services.imports.runPending();
    assert.deepEqual((await t.get(`/imports/${again.body.id}`, { as: 'editor' })).body.counts, { created: 0, updated: 0, skipped: 8, failed: 0 });
  });

  it("takes a feed's webcal:// subscription link as its http:// URL, and keys the feed by that URL", async () => {
    const http = `${base}/cal.ics`;
    const res = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: http.replace(/^http:/, 'webcal:') } });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.url, http);
    await t.app.services.imports.runPending();
    const job = (await t.get(`/imports/${res.body.id}`, { as: 'editor' })).body;
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.equal(job.counts.failed, 0);
    // the same feed by its http:// URL is the same source: nothing new
    const again = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: http } });
    await t.app.services.imports.runPending();
    const second = (await t.get(`/imports/${again.body.id}`, { as: 'editor' })).body;
    assert.deepEqual(second.counts, { created: 0, updated: 0, skipped: job.counts.created + job.counts.updated + job.counts.skipped, failed: 0 });
    const refused = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: 'webcal:/no-host' } });
    assert.equal(refused.status, 400, refused.text);
  });

  it('reads a feed in the charset its Content-Type names, and fails one that is not UTF-8 and names none', async () => {
    const run = async (path: string) => {
      const res = await t.post('/imports', { as: 'editor', json: { source: 'ics', url: `${base}${path}` } });
      assert.equal(res.status, 202, res.text);
      await t.app.services.imports.runPending();
      return (await t.get(`/imports/${res.body.id}`, { as: 'editor' })).body;
    };
    const unnamed = await run('/cp1252-unnamed.ics');
    assert.equal(unnamed.state, 'failed', JSON.stringify(unnamed));
    assert.match(
      unnamed.failure,
      /cp1252-unnamed\.ics answered with text that is not UTF-8 \(RFC 5545 §3\.1\.4\), and its Content-Type names no other charset/,
    );
    assert.deepEqual(unnamed.counts, { created: 0, updated: 0, skipped: 0, failed: 0 });

    const named = await run('/cp1252.ics');
    assert.equal(named.state, 'done', JSON.stringify(named));
    assert.deepEqual(named.counts, { created: 1, updated: 0, skipped: 0, failed: 0 });
    const list = await t.get('/events', { query: { start_date: '2026-07-10', end_date: '2026-07-10' } });
    const titles = list.body.events.map((e: any) => e.title);
    assert.ok(titles.includes('Café concert'), JSON.stringify(titles));
    assert.ok(!titles.some((title: string) => title.includes('\ufffd')), 'no byte read as a replacement character');
  });
});
