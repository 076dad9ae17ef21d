/**
 * The calendar's HTML pages (issue 14, FEATURES.md §5.3): the views at the original's permalinks, what they
 * show and to whom, their headers, escaping, 404s, the embed, and the original's `?ical=1` on them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { all, attr, byClass, byTag, dayCell, eventIds, hasClass, parseHtml, text } from '../helpers/html-doc.js';

const NY = 'America/New_York';

async function page(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, html: res.body, doc: parseHtml(res.body) };
}

describe('calendar pages: views', () => {
  let t: TestApp;
  let fair: any;
  let newYear: any;
  let music: any;
  const busy: any[] = [];
  before(async () => {
    t = await createTestApp({ SITE_TIMEZONE: NY });
    music = await makeCategory(t, { name: 'Music' });
    await makeEvent(t, {
      title: 'Weekly standup',
      start_date: '2025-10-27 09:00:00',
      end_date: '2025-10-27 10:00:00',
      timezone: NY,
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20251231T235959Z'],
      categories: [music.id],
    });
    fair = await makeEvent(t, { title: 'Winter fair', start_date: '2026-01-30 10:00:00', end_date: '2026-02-02 17:00:00', timezone: NY });
    newYear = await makeEvent(t, { title: 'New year', start_date: '2026-01-01', end_date: '2026-01-01', all_day: true, timezone: NY });
    for (let i = 1; i <= 5; i++) {
      busy.push(await makeEvent(t, { title: `Busy ${i}`, start_date: `2025-11-12 1${i}:00:00`, end_date: `2025-11-12 1${i}:30:00`, timezone: NY }));
    }
    await makeEvent(t, { title: 'Secret draft', status: 'draft', start_date: '2025-11-12 08:00:00', end_date: '2025-11-12 09:00:00', timezone: NY });
  });
  after(() => t.close());

  it('month view: a table of six weeks of seven days from Monday; a weekly 09:00 New York series stays at 9:00 am across the DST change', async () => {
    const res = await page(t, '/events/month/2025-11/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    const table = byClass(res.doc, 'month-grid')[0];
    assert.equal(table.name, 'table');
    const rows = byTag(byTag(table, 'tbody')[0], 'tr');
    assert.equal(rows.length, 6);
    for (const row of rows) assert.equal(byTag(row, 'td').length, 7);
    assert.equal(attr(byTag(rows[0], 'td')[0], 'data-date'), '2025-10-27', 'the grid starts on the Monday before the 1st');
    for (const day of ['2025-11-03', '2025-11-10', '2025-11-17', '2025-11-24']) {
      const cell = dayCell(res.doc, day);
      const entry = all(cell, (e) => e.name === 'li' && text(e).includes('Weekly standup'))[0];
      assert.ok(entry, `the series on ${day}`);
      assert.match(text(entry), /^9:00 am Weekly standup$/, day);
      // the instant behind it, for the visitor's-zone switch: 14:00Z after the change (EST), 13:00Z before it
      assert.equal(attr(byTag(entry, 'time')[0], 'datetime'), `${day}T14:00:00.000Z`);
    }
    assert.equal(attr(byTag(all(dayCell(res.doc, '2025-10-27'), (e) => e.name === 'li')[0], 'time')[0], 'datetime'), '2025-10-27T13:00:00.000Z');
    for (const day of ['2025-11-04', '2025-11-11']) assert.deepEqual(eventIds(dayCell(res.doc, day)), [], day);
    assert.doesNotMatch(res.html, /Secret draft/, 'drafts never appear to visitors');
  });

  it('month view: a multi-day event is a bar in every cell it covers across the month edge; an all-day event sits on its one day', async () => {
    const res = await page(t, '/events/month/2026-01/');
    const cells = all(res.doc, (e) => e.name === 'td' && eventIds(e).includes(fair.id)).map((e) => attr(e, 'data-date'));
    assert.deepEqual(cells, ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
    const piece = (day: string) => all(dayCell(res.doc, day), (e) => attr(e, 'data-event-id') === String(fair.id))[0];
    assert.ok(hasClass(piece('2026-01-30'), 'bar-start') && !hasClass(piece('2026-01-30'), 'bar-end'));
    assert.ok(!hasClass(piece('2026-01-31'), 'bar-start') && !hasClass(piece('2026-01-31'), 'bar-end'));
    assert.ok(hasClass(piece('2026-02-02'), 'bar-end'));
    // the week row changes on Monday Feb 2: the bar is labelled again there, with a link
    assert.equal(byTag(piece('2026-02-02'), 'a').length, 1);
    assert.equal(byTag(piece('2026-01-31'), 'a').length, 0, 'continued pieces carry no second link');
    const allDay = all(res.doc, (e) => e.name === 'td' && eventIds(e).includes(newYear.id)).map((e) => attr(e, 'data-date'));
    assert.deepEqual(allDay, ['2026-01-01']);
    // February's view shows the same bar from its first grid day
    const feb = await page(t, '/events/month/2026-02/');
    const febCells = all(feb.doc, (e) => e.name === 'td' && eventIds(e).includes(fair.id)).map((e) => attr(e, 'data-date'));
    assert.deepEqual(febCells, ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
  });

  it('month view: a full day shows three and "+2 more" linking to the day, which lists all five; navigation links the months around', async () => {
    const res = await page(t, '/events/month/2025-11/');
    const cell = dayCell(res.doc, '2025-11-12');
    assert.deepEqual(eventIds(cell).sort(), busy.map((b) => b.id).sort(), 'every event is written, the overflow hidden');
    assert.equal(byClass(cell, 'overflow').length, 2);
    const more = byClass(cell, 'more')[0];
    assert.match(text(more), /^\+2 more/);
    assert.equal(attr(more, 'href'), `${PUBLIC_URL}/events/2025-11-12/`);
    const day = await page(t, '/events/2025-11-12/');
    assert.equal(day.status, 200);
    assert.deepEqual(
      byClass(day.doc, 'card-title').map((e) => text(e)),
      ['Busy 1', 'Busy 2', 'Busy 3', 'Busy 4', 'Busy 5'],
    );
    const links = all(res.doc, (e) => e.name === 'a' && (attr(e, 'rel') === 'prev' || attr(e, 'rel') === 'next')).map((e) => attr(e, 'href'));
    assert.deepEqual(links, [`${PUBLIC_URL}/events/month/2025-10/`, `${PUBLIC_URL}/events/month/2025-12/`]);
  });

  it("the view switch of a month (by path or by the filter bar's month) leads to a day of that month, which exists", async () => {
    for (const url of ['/events/month/2025-11/', '/events/month/?date=2025-11']) {
      const res = await page(t, url);
      const day = all(res.doc, (e) => e.name === 'a' && text(e) === 'Day' && attr(e, 'data-view-link') !== undefined)[0];
      assert.equal(attr(day, 'href'), `${PUBLIC_URL}/events/2025-11-01/`, url);
      assert.equal((await page(t, new URL(attr(day, 'href') ?? '').pathname)).status, 200, url);
    }
  });

  it("marks today's cell with aria-current=date in the current month", async () => {
    const res = await page(t, '/events/month/');
    const today = all(res.doc, (e) => e.name === 'td' && attr(e, 'aria-current') === 'date');
    assert.equal(today.length, 1);
    const now = new Intl.DateTimeFormat('en-CA', { timeZone: NY, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    assert.equal(attr(today[0], 'data-date'), now);
  });

  it('filters from the query string and from the category path; an unknown category in the path is a 404 page', async () => {
    const byQuery = await page(t, `/events/month/2025-11/?categories=${music.slug}`);
    const ids = new Set(eventIds(byQuery.doc));
    assert.ok(ids.size >= 5);
    for (const id of ids) assert.ok(!busy.some((b) => b.id === id), 'only the category');
    const select = all(byQuery.doc, (e) => e.name === 'select' && attr(e, 'name') === 'categories')[0];
    assert.equal(attr(all(select, (e) => e.name === 'option' && attr(e, 'selected') !== undefined)[0], 'value'), music.slug);
    const byPath = await page(t, `/events/category/${music.slug}/month/2025-11/`);
    assert.equal(byPath.status, 200);
    assert.deepEqual(new Set(eventIds(byPath.doc)), ids);
    assert.equal(byPath.headers['x-tec-api-root'], `${PUBLIC_URL}/calendar/events/v1/events/?categories=${music.slug}`);
    assert.equal((await page(t, '/events/category/no-such-category/')).status, 404);
    const none = await page(t, '/events/month/2025-11/?categories=no-such-category');
    assert.equal(none.status, 200);
    assert.deepEqual(eventIds(none.doc), []);
  });

  it('the subscribe menu carries the same filters: webcal, Google render?cid= and the .ics', async () => {
    const res = await page(t, `/events/month/2025-11/?categories=${music.slug}&featured=1`);
    const link = (name: string) => attr(all(res.doc, (e) => attr(e, 'data-subscribe') === name)[0], 'href') ?? '';
    const ics = `${PUBLIC_URL}/calendar/events/v1/events.ics?categories=${music.slug}&featured=1`;
    assert.equal(link('ics'), ics);
    assert.equal(link('webcal'), ics.replace('http://', 'webcal://'));
    assert.equal(link('google'), `https://calendar.google.com/calendar/render?cid=${encodeURIComponent(ics.replace('http://', 'webcal://'))}`);
    const feed = await t.app.inject({ method: 'GET', url: new URL(ics).pathname + new URL(ics).search });
    assert.equal(feed.statusCode, 200, 'the subscribed feed answers');
  });

  it('answers 404 pages for dates out of range and unknown paths, HTML with the same headers', async () => {
    for (const url of ['/events/month/2025-13/', '/events/2025-02-30/', '/events/nonsense/', '/events/list/page/0/', '/events/list/page/999/']) {
      const res = await page(t, url);
      assert.equal(res.status, 404, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.equal(text(byTag(res.doc, 'h1')[0]), 'Not found', url);
    }
  });

  it('a page path that is not validly percent-encoded is an HTML 400 page; the same under the API stays JSON', async () => {
    for (const url of ['/events/%E0%A4%A/', '/events/category/%ZZ/', '/event/%/', '/venue/%C3/', '/organizer/%zz/', '/tag/%ZZ/']) {
      const res = await page(t, url);
      assert.equal(res.status, 400, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.equal(text(byTag(res.doc, 'h1')[0]), 'Bad request', url);
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN', url);
    }
    const api = await t.app.inject({ method: 'GET', url: '/calendar/events/v1/events/%ZZ' });
    assert.equal(api.statusCode, 400);
    assert.equal(api.json().code, 'rest_bad_request');
  });

  it('never fails on odd filter values: they are left out', async () => {
    for (const q of [
      'venue=abc',
      'date=99999',
      'categories[]=x&categories[]=y',
      'organizer=-1',
      `keyword=${'x'.repeat(5000)}`,
      'tags=%3Cscript%3E',
      'featured=maybe',
    ]) {
      const res = await page(t, `/events/month/2025-11/?${q}`);
      assert.equal(res.status, 200, q);
    }
  });

  it("never a 500 or the API's JSON on odd page paths: a stray %, year 9999, extra segments are the 404 page", async () => {
    for (const url of [
      '/events/category/%25/',
      '/events/tag/%25/',
      `/events/category/${music.slug}%25/list/`,
      '/events/9999-12-31/',
      '/events/month/9999-12/',
      `/events/category/${music.slug}/9999-12-31/`,
      '/events/month/2025-11/extra/',
      '/event/no-such-event/2026-12-07/extra/',
      '/venue/somewhere/extra/',
      '/organizer/someone/extra/',
    ]) {
      const res = await page(t, url);
      assert.equal(res.status, 404, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.equal(text(byTag(res.doc, 'h1')[0]), 'Not found', url);
    }
    // a filter bar's date out of range or of no month is left out: the view of the current month or day
    for (const url of [
      '/events/month/?date=9999-12',
      '/events/today/?date=9999-12-31',
      '/events/month/?date=2025-13',
      '/events/embed?view=month&date=9999-12',
    ]) {
      assert.equal((await page(t, url)).status, 200, url);
    }
    const january = await page(t, '/events/month/?date=2026-01');
    assert.ok(eventIds(january.doc).includes(fair.id), "the bar's month");
  });

  it("a category's view shows that category, whatever categories its query string names: heading, events, subscribe link and API root agree", async () => {
    const rock = await makeCategory(t, { name: 'Rock' });
    const loud = await makeEvent(t, {
      title: 'Loud night',
      start_date: '2025-11-20 20:00:00',
      end_date: '2025-11-20 23:00:00',
      timezone: NY,
      categories: [rock.id],
    });
    const plain = await page(t, `/events/category/${music.slug}/month/2025-11/`);
    const mixed = await page(t, `/events/category/${music.slug}/month/2025-11/?categories=${rock.slug}`);
    assert.equal(mixed.status, 200);
    assert.match(text(byTag(mixed.doc, 'h1')[0]), /Music/);
    assert.deepEqual(eventIds(mixed.doc), eventIds(plain.doc));
    assert.ok(!eventIds(mixed.doc).includes(loud.id));
    const ics = attr(all(mixed.doc, (e) => attr(e, 'data-subscribe') === 'ics')[0], 'href');
    assert.equal(ics, `${PUBLIC_URL}/calendar/events/v1/events.ics?categories=${music.slug}`);
    assert.equal(mixed.headers['x-tec-api-root'], `${PUBLIC_URL}/calendar/events/v1/events/?categories=${music.slug}`);
  });

  it('a category named like a view (today, list, month) has its page at its own URL', async () => {
    for (const name of ['Today', 'List', 'Month']) {
      const term = await makeCategory(t, { name });
      const url = (await t.get(`/categories/${term.id}`)).body.url;
      assert.equal(new URL(url).pathname, `/events/category/${term.slug}/`);
      const res = await page(t, `/events/category/${term.slug}/`);
      assert.equal(res.status, 200, name);
      assert.match(text(byTag(res.doc, 'h1')[0]), new RegExp(name), name);
      // and its views below it
      assert.equal((await page(t, `/events/category/${term.slug}/list/`)).status, 200, name);
    }
  });

  it("the list view starts at the filter bar's date, and keeps it from page to page", async () => {
    const res = await page(t, '/events/list/?date=2025-11-12');
    assert.equal(res.status, 200);
    const titles = byClass(res.doc, 'card-title').map((e) => text(e));
    assert.deepEqual(titles.slice(0, 5), ['Busy 1', 'Busy 2', 'Busy 3', 'Busy 4', 'Busy 5']);
    const next = all(res.doc, (a) => a.name === 'a' && attr(a, 'rel') === 'next')[0];
    assert.ok(next, 'more than a page from that day on');
    assert.match(attr(next, 'href') ?? '', /[?&]date=2025-11-12(&|$)/);
    // the original's name of it, and a month
    const tribe = await page(t, '/events/list/?tribe-bar-date=2026-01-15');
    assert.deepEqual(
      byClass(tribe.doc, 'card-title').map((e) => text(e)),
      ['Winter fair'],
    );
    const month = await page(t, '/events/list/?date=2026-01');
    assert.deepEqual(
      byClass(month.doc, 'card-title').map((e) => text(e)),
      ['New year', 'Winter fair'],
    );
  });
});

describe('calendar pages: list, event, venue and organizer pages', () => {
  let t: TestApp;
  let venue: any;
  let organizer: any;
  let tag: any;
  let series: any;
  const upcoming: any[] = [];
  before(async () => {
    t = await createTestApp({ SITE_TIMEZONE: NY });
    venue = await makeLinked(t, 'venue', { venue: 'Town Hall', address: '1 Main St', city: 'Springfield', geo_lat: 40.7, geo_lng: -74 });
    organizer = await makeLinked(t, 'organizer', { organizer: 'Jane Doe', email: 'jane@example.org' });
    tag = await makeTag(t, { name: 'Outdoor' });
    for (let i = 0; i < 14; i++) {
      upcoming.push(
        await makeEvent(t, {
          title: `Future ${String(i).padStart(2, '0')}`,
          start_date: `2031-03-${String(i + 1).padStart(2, '0')} 18:00:00`,
          end_date: `2031-03-${String(i + 1).padStart(2, '0')} 20:00:00`,
          timezone: NY,
          venue: venue.id,
          organizer: [organizer.id],
          tags: [tag.id],
        }),
      );
    }
    await makeEvent(t, { title: 'Old one', start_date: '2020-05-01 10:00:00', end_date: '2020-05-01 11:00:00', timezone: NY });
    await makeEvent(t, { title: 'Older one', start_date: '2019-05-01 10:00:00', end_date: '2019-05-01 11:00:00', timezone: NY });
    series = await makeEvent(t, {
      title: 'Yoga',
      start_date: '2030-06-03 07:00:00',
      end_date: '2030-06-03 08:00:00',
      timezone: NY,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
  });
  after(() => t.close());

  it('list view: upcoming events soonest first, twelve a page, grouped by month, with a link to the past and pages', async () => {
    const first = await page(t, '/events/list/');
    assert.equal(first.status, 200);
    const titles = byClass(first.doc, 'card-title').map((e) => text(e));
    assert.equal(titles.length, 12);
    assert.deepEqual(titles.slice(0, 4), ['Yoga', 'Yoga', 'Yoga', 'Yoga']);
    assert.deepEqual(
      titles.slice(4),
      upcoming.slice(0, 8).map((e) => e.title),
    );
    assert.deepEqual(
      byClass(first.doc, 'month-separator').map((e) => text(e)),
      ['June 2030', 'March 2031'],
    );
    const nav = (doc: ReturnType<typeof parseHtml>) => byTag(byClass(doc, 'list-nav')[0], 'a').map((a) => [text(a), attr(a, 'href')]);
    assert.deepEqual(nav(first.doc), [
      ['‹ Past events', `${PUBLIC_URL}/events/list/?eventDisplay=past`],
      ['Next events ›', `${PUBLIC_URL}/events/list/page/2/`],
    ]);
    const second = await page(t, '/events/list/page/2/');
    assert.deepEqual(
      byClass(second.doc, 'card-title').map((e) => text(e)),
      upcoming.slice(8).map((e) => e.title),
    );
    const past = await page(t, '/events/list/?eventDisplay=past');
    assert.deepEqual(
      byClass(past.doc, 'card-title').map((e) => text(e)),
      ['Old one', 'Older one'],
      'latest first',
    );
    // the default view of /events/ is the list
    assert.deepEqual(
      byClass((await page(t, '/events/')).doc, 'card-title').map((e) => text(e)),
      titles,
    );
  });

  it('event page: title, dates in the event zone, venue with address and map link, organizer, tags, JSON-LD equal to the API, add-to-calendar links, discovery headers', async () => {
    const e = upcoming[0];
    const res = await page(t, `/event/${e.slug}/`);
    assert.equal(res.status, 200);
    assert.equal(text(byTag(res.doc, 'h1')[0]), e.title);
    assert.match(text(byClass(res.doc, 'event-when')[0]), /^March 1, 2031 @ 6:00 pm – 8:00 pm EST/);
    const venueBlock = byClass(res.doc, 'event-venue')[0];
    assert.match(text(venueBlock), /Town Hall 1 Main St\s*Springfield/);
    assert.ok(
      all(venueBlock, (a) => a.name === 'a' && (attr(a, 'href') ?? '').startsWith('https://www.openstreetmap.org/?mlat=40.7&mlon=-74')).length === 1,
    );
    assert.match(text(byClass(res.doc, 'event-organizers')[0]), /Jane Doe.*jane@example\.org/);
    assert.ok(all(res.doc, (a) => a.name === 'a' && attr(a, 'href') === `${PUBLIC_URL}/events/tag/${tag.slug}/`).length === 1);
    const script = all(res.doc, (s) => s.name === 'script' && attr(s, 'type') === 'application/ld+json')[0];
    const api = await t.get(`/events/${e.id}`);
    assert.deepEqual(JSON.parse(text(script)), api.body.json_ld);
    const add = (name: string) => attr(all(res.doc, (x) => attr(x, 'data-add') === name)[0], 'href') ?? '';
    assert.equal(add('ics'), `${PUBLIC_URL}/calendar/events/v1/events/${e.id}.ics`);
    assert.equal(add('webcal'), `webcal://calendar.test/calendar/events/v1/events/${e.id}.ics`);
    const google = new URL(add('google'));
    assert.equal(google.searchParams.get('dates'), '20310301T230000Z/20310302T010000Z');
    assert.equal(google.searchParams.get('text'), e.title);
    assert.equal(res.headers['x-tec-api-version'], 'v1');
    assert.equal(res.headers['x-tec-api-root'], `${PUBLIC_URL}/calendar/events/v1/events/${e.id}`);
    assert.equal(res.headers['x-tec-api-origin'], `${PUBLIC_URL}/`);
    // WordPress' API discovery in the head too, as on every WordPress page (clients that read the page find the API)
    const discovery = all(res.doc, (l) => l.name === 'link' && attr(l, 'rel') === 'https://api.w.org/');
    assert.equal(discovery.length, 1);
    assert.equal(attr(discovery[0], 'href'), `${PUBLIC_URL}/wp-json/`);
    assert.match(String(res.headers.link), new RegExp(`^<${PUBLIC_URL}/wp-json/>; rel="https://api.w.org/"$`));
    assert.equal(attr(all(res.doc, (m) => m.name === 'meta' && attr(m, 'name') === 'tec-api-version')[0], 'content'), 'v1');
    assert.equal(res.headers['x-robots-tag'], undefined, 'pages are for search engines too');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'self'/);
  });

  it("a series' page shows the rule in words and its dates; each occurrence has a page at /event/<slug>/<date>/, which is the API's url of it", async () => {
    const res = await page(t, `/event/${series.slug}/`);
    assert.equal(res.status, 200);
    assert.match(text(byClass(res.doc, 'recurrence')[0]), /week/i);
    const dates = byTag(byClass(res.doc, 'series-dates')[0], 'a').map((a) => attr(a, 'href'));
    assert.deepEqual(
      dates,
      ['03', '10', '17', '24'].map((d) => `${PUBLIC_URL}/event/${series.slug}/2030-06-${d}/`),
    );
    const occurrences = await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2030-01-01', end_date: '2030-12-31' } });
    assert.equal(occurrences.body.events[1].url, `${PUBLIC_URL}/event/${series.slug}/2030-06-10/`);
    const one = await page(t, `/event/${series.slug}/2030-06-10/`);
    assert.equal(one.status, 200);
    assert.match(text(byClass(one.doc, 'event-when')[0]), /^June 10, 2030 @ 7:00 am/);
    assert.equal(one.headers['x-tec-api-root'], `${PUBLIC_URL}/calendar/events/v1/events/${occurrences.body.events[1].id}`);
    assert.equal((await page(t, `/event/${series.slug}/2030-06-11/`)).status, 404, 'no occurrence that day');
    assert.equal((await page(t, `/event/${upcoming[0].slug}/2031-03-01/`)).status, 404, 'a single event has no dated pages');
  });

  it('venue and organizer pages list their upcoming events; unknown and unpublished ones are 404 pages', async () => {
    const v = await page(t, `/venue/${venue.slug}/`);
    assert.equal(v.status, 200);
    assert.equal(text(byTag(v.doc, 'h1')[0]), 'Town Hall');
    assert.equal(byClass(byClass(v.doc, 'upcoming')[0], 'card-title').length, 14);
    const o = await page(t, `/organizer/${organizer.slug}/`);
    assert.equal(o.status, 200);
    assert.equal(text(byTag(o.doc, 'h1')[0]), 'Jane Doe');
    assert.equal((await page(t, '/venue/nowhere/')).status, 404);
    const hidden = await makeLinked(t, 'venue', { venue: 'Draft place', status: 'draft' });
    const where = new URL(hidden.url).pathname + new URL(hidden.url).search;
    assert.equal((await page(t, where)).status, 404);
    assert.equal((await page(t, where, t.authHeader('administrator'))).status, 200, 'its author sees it');
  });

  it("a draft's page (WordPress' /?p=<id>, the API's url of it) is a 404 to visitors and shown to those who may read it", async () => {
    const draft = await makeEvent(t, { title: 'Not yet', status: 'draft', start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' });
    assert.equal(draft.url, `${PUBLIC_URL}/?post_type=tribe_events&p=${draft.id}`);
    const byUrl = await page(t, `/?post_type=tribe_events&p=${draft.id}`, t.authHeader('administrator'));
    assert.equal(byUrl.status, 200);
    assert.equal(text(byTag(byUrl.doc, 'h1')[0]), 'Not yet');
    const anonymous = await page(t, `/?p=${draft.id}`);
    assert.equal(anonymous.status, 404);
    assert.doesNotMatch(anonymous.html, /Not yet/);
    const admin = await page(t, `/?p=${draft.id}`, t.authHeader('administrator'));
    assert.equal(admin.status, 200);
    assert.equal(text(byTag(admin.doc, 'h1')[0]), 'Not yet');
    assert.match(String(admin.headers['cache-control']), /private|no-store/);
  });

  it('escapes what visitors wrote: hostile titles and descriptions never become markup', async () => {
    const e = await makeEvent(t, {
      title: '<img src=x onerror=alert(1)> "Quoted" & <b>bold</b>',
      description: '<p>Fine <a href="javascript:alert(1)">link</a><script>alert(2)</script><img src=x onerror=alert(3)></p>',
      start_date: '2031-04-01 10:00:00',
      end_date: '2031-04-01 11:00:00',
    });
    for (const url of [`/event/${e.slug}/`, '/events/list/page/2/', '/events/month/2031-04/', '/events/2031-04-01/']) {
      const res = await page(t, url);
      assert.equal(res.status, 200, url);
      const handlers = all(res.doc, (x) => Object.keys(x.attribs).some((a) => a.startsWith('on')));
      assert.deepEqual(handlers, [], url);
      const scripts = byTag(res.doc, 'script').filter((s) => attr(s, 'type') !== 'application/ld+json');
      assert.ok(
        scripts.every((s) => (attr(s, 'src') ?? '').startsWith(`${PUBLIC_URL}/events/assets/`)),
        url,
      );
      assert.equal(all(res.doc, (x) => /^\s*javascript:/i.test(attr(x, 'href') ?? '')).length, 0, url);
    }
    const single = await page(t, `/event/${e.slug}/`);
    assert.equal(text(byTag(single.doc, 'h1')[0]), '"Quoted" & bold');
  });

  it('pages carry a strong ETag and answer 304 to a current copy', async () => {
    const first = await page(t, '/events/list/');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const again = await page(t, '/events/list/', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.html, '');
  });

  it("the original's ?ical=1 on a view and on an event page answers the feed", async () => {
    const view = await t.app.inject({ method: 'GET', url: '/events/list/?ical=1' });
    assert.equal(view.statusCode, 200);
    assert.match(String(view.headers['content-type']), /^text\/calendar/);
    const one = await t.app.inject({ method: 'GET', url: `/event/${upcoming[0].slug}/?ical=1` });
    assert.equal(one.statusCode, 200);
    assert.match(String(one.headers['content-type']), /^text\/calendar/);
    assert.match(one.body, new RegExp(`SUMMARY:${upcoming[0].title}`));
    const direct = await t.app.inject({ method: 'GET', url: `/calendar/events/v1/events/by-slug/${upcoming[0].slug}.ics` });
    assert.equal(one.body, direct.body);
    assert.equal(one.headers.etag, direct.headers.etag);
    const current = await t.app.inject({
      method: 'GET',
      url: `/event/${upcoming[0].slug}/?ical=1`,
      headers: { 'if-none-match': String(one.headers.etag) },
    });
    assert.equal(current.statusCode, 304);
    // no such event, or one the visitor may not read: the 404 page, not the API's error
    const hidden = await makeEvent(t, {
      title: 'Members only',
      status: 'private',
      start_date: '2031-05-02 10:00:00',
      end_date: '2031-05-02 11:00:00',
    });
    assert.ok(hidden.slug);
    for (const url of ['/event/no-such-event/?ical=1', `/event/${hidden.slug}/?ical=1`]) {
      const missing = await page(t, url);
      assert.equal(missing.status, 404, url);
      assert.match(String(missing.headers['content-type']), /^text\/html/, url);
    }
    // one occurrence's page: its series' file
    const occurrence = await t.app.inject({ method: 'GET', url: `/event/${series.slug}/2030-06-10/?ical=1` });
    assert.equal(occurrence.statusCode, 302);
    assert.equal(occurrence.headers.location, `${PUBLIC_URL}/calendar/events/v1/events/by-slug/${series.slug}.ics?download=1`);
    const location = new URL(String(occurrence.headers.location));
    const file = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
    assert.match(String(file.headers['content-disposition']), /^attachment; /, 'a download, as the original');
    assert.equal(file.body, (await t.app.inject({ method: 'GET', url: `/event/${series.slug}/?ical=1` })).body);
    // the filter bar's keyword: the feed's search
    const searched = await t.app.inject({ method: 'GET', url: '/events/month/2031-03/?keyword=Future%2003&ical=1' });
    assert.equal(searched.statusCode, 200);
    assert.equal(searched.body.match(/BEGIN:VEVENT/g)?.length, 1);
    // a venue's and an organizer's page: the feed of their events
    for (const [type, found] of [
      ['venue', venue],
      ['organizer', organizer],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url: `/${type}/${found.slug}/?ical=1` });
      assert.equal(res.statusCode, 302, type);
      assert.equal(res.headers.location, `${PUBLIC_URL}/calendar/events/v1/events.ics?${type}=${found.id}&download=1`);
    }
  });

  it('the API tag link /tag/<slug>/ leads to the tag view; the tag view lists the tagged events', async () => {
    const redirect = await t.app.inject({ method: 'GET', url: `/tag/${tag.slug}/` });
    assert.equal(redirect.statusCode, 301);
    assert.equal(redirect.headers.location, `${PUBLIC_URL}/events/tag/${tag.slug}/`);
    const view = await page(t, `/events/tag/${tag.slug}/list/`);
    assert.equal(view.status, 200);
    assert.equal(byClass(view.doc, 'card-title').length, 12);
    assert.match(text(byTag(view.doc, 'h1')[0]), /Tag: Outdoor/);
  });

  it('static assets are served with their content type and long caching when versioned', async () => {
    const res = await page(t, '/events/list/');
    const css = all(res.doc, (l) => l.name === 'link' && attr(l, 'rel') === 'stylesheet')[0];
    const url = new URL(attr(css, 'href') ?? '');
    const asset = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['content-type']), /^text\/css/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/events/assets/nope.js' })).statusCode, 404);
  });
});

describe('calendar pages: embed and configuration', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ EMBED_ORIGINS: 'https://partner.example,https://other.example' })));
  after(() => t.close());

  it('the embed is a chrome-less view framable by EMBED_ORIGINS only; its links open in the framing page', async () => {
    await makeEvent(t, { title: 'Embedded', start_date: '2031-01-10 10:00:00', end_date: '2031-01-10 11:00:00' });
    const res = await page(t, '/events/embed?view=month&date=2031-01');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'self' https:\/\/partner\.example https:\/\/other\.example/);
    assert.equal(res.headers['x-frame-options'], undefined);
    assert.equal(byClass(res.doc, 'site-header').length, 0);
    assert.equal(byClass(res.doc, 'filter-bar').length, 0, 'no filter bar unless asked');
    const link = all(res.doc, (a) => a.name === 'a' && text(a).includes('Embedded'))[0];
    assert.equal(attr(link, 'target'), '_top');
    const next = all(res.doc, (a) => a.name === 'a' && attr(a, 'rel') === 'next')[0];
    assert.equal(attr(next, 'href'), `${PUBLIC_URL}/events/embed?view=month&date=2031-02`);
    const withBar = await page(t, '/events/embed?view=list&filter_bar=1');
    assert.equal(byClass(withBar.doc, 'filter-bar').length, 1);
    // the subscribe links leave the frame too (Google and Outlook refuse to be framed)
    const subscribe = all(res.doc, (a) => a.name === 'a' && attr(a, 'data-subscribe') !== undefined);
    assert.equal(subscribe.length, 5);
    for (const a of subscribe) assert.equal(attr(a, 'target'), '_top', attr(a, 'data-subscribe'));
    // its 404 (a page past the last) is framable by the same origins, without the site's chrome
    const gone = await page(t, '/events/embed?view=list&page=99');
    assert.equal(gone.status, 404);
    assert.match(String(gone.headers['content-security-policy']), /frame-ancestors 'self' https:\/\/partner\.example https:\/\/other\.example/);
    assert.equal(gone.headers['x-frame-options'], undefined);
    assert.equal(byClass(gone.doc, 'site-header').length, 0);
    const js = await t.app.inject({ method: 'GET', url: '/events/embed.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
  });

  it('PAGES=off leaves the root as it was (the API answers, the pages do not)', async () => {
    const off = await createTestApp({ PAGES: 'off' });
    try {
      const res = await off.app.inject({ method: 'GET', url: '/events/' });
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal((await off.get('/events')).status, 200);
    } finally {
      await off.close();
    }
  });
});

describe('calendar pages: a category view after the category tree changed', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('lists the events of the categories now under it, whatever tree an API list read before the change', async () => {
    const alpha = await makeCategory(t, { name: 'Alpha' });
    const beta = await makeCategory(t, { name: 'Beta', parent: alpha.id });
    const inAlpha = await makeEvent(t, { title: 'In alpha', start_date: '+1 week 10am', end_date: '+1 week 11am', categories: [alpha.id] });
    const inBeta = await makeEvent(t, { title: 'In beta', start_date: '+1 week 1pm', end_date: '+1 week 2pm', categories: [beta.id] });
    // an API list by category reads the tree (beta under alpha)
    assert.equal((await t.get('/events', { query: { categories: alpha.slug } })).body.events.length, 2);
    // the tree turned over: alpha under beta
    assert.equal((await t.post(`/categories/${beta.id}`, { as: 'administrator', json: { parent: 0 } })).status, 200);
    assert.equal((await t.post(`/categories/${alpha.id}`, { as: 'administrator', json: { parent: beta.id } })).status, 200);
    const view = await page(t, `/events/category/${beta.slug}/list/`);
    assert.equal(view.status, 200);
    assert.deepEqual(eventIds(view.doc).sort(), [inAlpha.id, inBeta.id].sort());
  });
});
