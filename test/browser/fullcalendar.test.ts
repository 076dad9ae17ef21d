/**
 * A real FullCalendar page on our feed (FEATURES.md §5.5 cases 7 and 8, the FullCalendar half): FullCalendar's
 * own dayGridMonth, served from another local origin and reading the feed across CORS, draws on each day of
 * November 2025 the events the feed answers for that day, and a weekly 09:00 series stays at 09:00 across the
 * Nov 2 DST change. Both FullCalendar builds sites embed (v7 and the v6 core+daygrid pair; see helpers/fullcalendar.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { assertNoProblems, describeBrowser, launchBrowser, screenshots } from '../helpers/browser.js';
import {
  FULLCALENDAR_BUILDS,
  type FullCalendarFixture,
  type FullCalendarView,
  fullCalendarLabel,
  openFullCalendar,
  startFullCalendarFixture,
  titlesPerDay,
} from '../helpers/fullcalendar.js';

const NY = 'America/New_York';
const MONTH = '2025-11';
const SERIES = 'Weekly standup';

/** What we create, and the November days (New York) each is on; the draft is on none. */
const EXPECTED_DAYS: Record<string, string[]> = {
  [SERIES]: ['03', '10', '17', '24'],
  Conference: ['30'],
  'All-day fair': ['01'],
  'Harvest festival': ['12', '13', '14'],
  'Late show': ['20'],
  'Berlin breakfast': ['04'],
};

const addDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * The days a feed item is on, as FullCalendar counts them: all-day items up to their exclusive end date; timed
 * items (wall times of the requested zone) through the day of their end, unless it ends at midnight.
 */
function feedItemDays(item: { start: string; end?: string; allDay: boolean }): string[] {
  const first = item.start.slice(0, 10);
  let stop = addDay(first);
  if (item.end !== undefined && item.allDay) stop = item.end;
  else if (item.end !== undefined) stop = item.end.slice(11, 19) === '00:00:00' ? item.end.slice(0, 10) : addDay(item.end.slice(0, 10));
  const days: string[] = [];
  let day = first;
  do {
    days.push(day);
    day = addDay(day);
  } while (day < stop);
  return days;
}

describeBrowser('a real FullCalendar page on the feed', () => {
  let fixture: FullCalendarFixture;
  let t: ListeningTestApp;
  let browser: Browser;
  let feed: string;
  const expected = new Map<string, string[]>();

  before(async () => {
    fixture = await startFullCalendarFixture();
    t = await createListeningTestApp({ CORS_ORIGINS: fixture.origin, SITE_TIMEZONE: NY });
    browser = await launchBrowser();
    feed = `${t.base}/calendar/events/v1/events/feed`;
    const create = async (fields: Record<string, unknown>) => {
      const res = await t.post('/events', { as: 'administrator', json: { timezone: NY, ...fields } });
      assert.equal(res.status, 201, res.text);
    };
    await create({ title: SERIES, start_date: '2025-10-27 09:00:00', end_date: '2025-10-27 10:00:00', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'] });
    await create({ title: 'Conference', start_date: '2025-11-30 09:00:00', end_date: '2025-12-02 17:00:00' });
    await create({ title: 'All-day fair', all_day: true, start_date: '2025-11-01', end_date: '2025-11-01' });
    await create({ title: 'Harvest festival', all_day: true, start_date: '2025-11-12', end_date: '2025-11-14' });
    await create({ title: 'Late show', start_date: '2025-11-20 22:00:00', end_date: '2025-11-21 00:00:00' });
    // 03:00 in Berlin is 21:00 the day before in New York
    await create({ title: 'Berlin breakfast', timezone: 'Europe/Berlin', start_date: '2025-11-05 03:00:00', end_date: '2025-11-05 04:00:00' });
    await create({ title: 'Secret draft', status: 'draft', start_date: '2025-11-12 12:00:00', end_date: '2025-11-12 13:00:00' });

    // the expectation comes from the API over HTTP, the way any client would read it
    const res = await fetch(`${feed}?${new URLSearchParams({ start: `${MONTH}-01`, end: '2025-12-01', timeZone: NY })}`);
    assert.equal(res.status, 200);
    const items = (await res.json()) as { title: string; start: string; end?: string; allDay: boolean }[];
    for (let d = 1; d <= 30; d++) expected.set(`${MONTH}-${String(d).padStart(2, '0')}`, []);
    for (const item of items) for (const day of feedItemDays(item)) expected.get(day)?.push(item.title);
    for (const titles of expected.values()) titles.sort();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await fixture?.close();
  });

  it('the feed answers each event on its November days, in New York time, and not the draft', () => {
    const fromFeed: Record<string, string[]> = {};
    for (const [day, titles] of expected) for (const title of titles) fromFeed[title] = [...(fromFeed[title] ?? []), day.slice(8)];
    assert.deepEqual(fromFeed, EXPECTED_DAYS);
  });

  for (const build of FULLCALENDAR_BUILDS) {
    describe(fullCalendarLabel(build), () => {
      let view: FullCalendarView;
      before(async () => {
        // the browser in Tokyo: the times shown must come from FullCalendar's timeZone option, not the machine's zone
        view = await openFullCalendar(browser, fixture, build, { feed, month: MONTH, timeZone: NY, browserTimezone: 'Asia/Tokyo' });
      });
      after(() => view?.page.close());

      it('draws on each November day the titles the feed answers for that day', () => {
        assert.deepEqual(Object.fromEntries(titlesPerDay(view.events, MONTH)), Object.fromEntries(expected));
      });

      it('keeps the weekly series at 09:00 on Mondays before and after the Nov 2 DST change', () => {
        const instances = view.events.filter((e) => e.title === SERIES);
        const days = instances.flatMap((e) => e.days).sort();
        // the grid runs Oct 26 – Dec 6: Oct 27 is still daylight time, the rest standard time
        assert.deepEqual(days, ['2025-10-27', '2025-11-03', '2025-11-10', '2025-11-17', '2025-11-24', '2025-12-01']);
        for (const e of instances) assert.match(e.text, /\b09:00\b/, `${e.days[0]}: ${JSON.stringify(e.text)}`);
      });

      it('draws the multi-day event as a bar over Nov 30 – Dec 2, past the month’s edge', () => {
        const days = view.events.filter((e) => e.title === 'Conference').flatMap((e) => e.days);
        assert.deepEqual(days.sort(), ['2025-11-30', '2025-12-01', '2025-12-02']);
      });

      it('asks the feed once, in New York time, with no console errors or failed requests', async () => {
        assert.equal(view.feedRequests.length, 1, view.feedRequests.join('\n'));
        assert.equal(new URL(view.feedRequests[0]).searchParams.get('timeZone'), NY);
        assertNoProblems(view.page.problems, fullCalendarLabel(build));
        await screenshots(view.page.page, `fullcalendar-${build}-${MONTH}`);
      });
    });
  }
});
