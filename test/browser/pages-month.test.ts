/**
 * The month view in a real browser (FEATURES.md §5.5 cases 1, 2, 8, 10): a weekly 09:00 New York series across
 * the Nov 2 DST change, in the event's zone and, with the switch, in the visitor's (Tokyo); a multi-day bar
 * across a month's edge as the browser lays it out; the same events per day as a real FullCalendar page on the
 * feed; and a second load answered 304.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { assertNoProblems, describeBrowser, launchBrowser, openPage, screenshots, type TestPage } from '../helpers/browser.js';
import { entryText, monthTitlesPerDay, visit } from '../helpers/calendar-pages.js';
import { makeEvent } from '../helpers/factories.js';
import {
  FULLCALENDAR_BUILDS,
  type FullCalendarFixture,
  fullCalendarLabel,
  fullCalendarTitlesPerDay,
  startFullCalendarFixture,
} from '../helpers/fullcalendar.js';

const NY = 'America/New_York';
const SERIES = 'Weekly standup';
const MONDAYS = ['2025-11-03', '2025-11-10', '2025-11-17', '2025-11-24'];

describeBrowser('calendar pages in a browser: the month view', () => {
  let t: ListeningTestApp;
  let fixture: FullCalendarFixture;
  let browser: Browser;
  let fair: any;
  let newYear: any;

  before(async () => {
    fixture = await startFullCalendarFixture();
    // (no CORS_ORIGINS: the FullCalendar page of another origin reads the feed with the default settings, every
    // origin as WordPress; fullcalendar.test.ts reads it with the origin listed)
    t = await createListeningTestApp({ SITE_TIMEZONE: NY });
    browser = await launchBrowser();
    const ny = (fields: Record<string, unknown>) => makeEvent(t, { timezone: NY, ...fields });
    await ny({
      title: SERIES,
      start_date: '2025-10-27 09:00:00',
      end_date: '2025-10-27 10:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20251231T235959Z'],
    });
    await ny({ title: 'Conference', start_date: '2025-11-30 09:00:00', end_date: '2025-12-02 17:00:00' });
    await ny({ title: 'All-day fair', all_day: true, start_date: '2025-11-01', end_date: '2025-11-01' });
    await ny({ title: 'Harvest festival', all_day: true, start_date: '2025-11-12', end_date: '2025-11-14' });
    await ny({ title: 'Late show', start_date: '2025-11-20 22:00:00', end_date: '2025-11-21 00:00:00' });
    // with the festival, five on Nov 13: three shown and "+2 more"
    for (let i = 1; i <= 4; i++) await ny({ title: `Busy ${i}`, start_date: `2025-11-13 1${i}:00:00`, end_date: `2025-11-13 1${i}:30:00` });
    await ny({ title: 'Secret draft', status: 'draft', start_date: '2025-11-12 12:00:00', end_date: '2025-11-12 13:00:00' });
    fair = await ny({ title: 'Winter fair', start_date: '2026-01-30 10:00:00', end_date: '2026-02-02 17:00:00' });
    newYear = await ny({ title: 'New year', all_day: true, start_date: '2026-01-01', end_date: '2026-01-01' });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await fixture?.close();
  });

  describe('a weekly 09:00 New York series, seen from Tokyo', () => {
    let tp: TestPage;
    let page: Page;
    before(async () => {
      tp = await openPage(browser, { timezone: 'Asia/Tokyo' });
      page = tp.page;
      await visit(page, `${t.base}/events/month/2025-11/`);
    });
    after(() => tp?.close());

    it('shows 9:00 am in the cells of Nov 3, 10, 17 and 24, before and after the DST change, whatever the browser’s zone', async () => {
      for (const day of MONDAYS) assert.equal(await entryText(page, day, SERIES), `9:00 am ${SERIES}`, day);
      assert.equal(await entryText(page, '2025-10-27', SERIES), `9:00 am ${SERIES}`, 'Oct 27, still daylight time');
      assert.equal(await entryText(page, '2025-11-04', SERIES), undefined);
    });

    it('shows 23:00 on the same days once "Show times in my time zone" is pressed (22:00 on Oct 27, before the change)', async () => {
      const toggle = await page.waitForSelector('[data-zone-toggle]:not([hidden])');
      assert.equal(await toggle!.evaluate((b: any) => b.getAttribute('aria-pressed')), 'false');
      await toggle!.click();
      for (const day of MONDAYS) assert.equal(await entryText(page, day, SERIES), `23:00 ${SERIES}`, day);
      assert.equal(await entryText(page, '2025-10-27', SERIES), `22:00 ${SERIES}`);
      assert.equal(await toggle!.evaluate((b: any) => b.getAttribute('aria-pressed')), 'true');
      assert.match(await toggle!.evaluate((b: any) => b.textContent), /Asia\/Tokyo/);
    });

    it('keeps the choice on reload (localStorage), and turns it off again', async () => {
      await page.reload({ waitUntil: 'load' });
      for (const day of MONDAYS) assert.equal(await entryText(page, day, SERIES), `23:00 ${SERIES}`, `${day} after reload`);
      await page.click('[data-zone-toggle]');
      for (const day of MONDAYS) assert.equal(await entryText(page, day, SERIES), `9:00 am ${SERIES}`, day);
      await page.reload({ waitUntil: 'load' });
      assert.equal(await entryText(page, MONDAYS[0], SERIES), `9:00 am ${SERIES}`);
      assertNoProblems(tp.problems);
    });
  });

  it('draws Jan 30 – Feb 2 as one bar in four cells across the month’s edge, a row per week; the all-day Jan 1 only on Jan 1', async () => {
    const tp = await openPage(browser);
    try {
      for (const month of ['2026-01', '2026-02']) {
        await visit(tp.page, `${t.base}/events/month/${month}/`);
        if (month === '2026-01') {
          const allDay = await tp.page.$$eval(`li[data-event-id="${newYear.id}"]`, (items) =>
            items.map((li: any) => li.closest('td').getAttribute('data-date')),
          );
          assert.deepEqual(allDay, ['2026-01-01']);
        }
        const pieces: { day: string; row: number; box: { left: number; right: number; top: number; bottom: number }; visible: boolean }[] =
          await tp.page.$$eval(`li[data-event-id="${fair.id}"]`, (items) =>
            items.map((li: any) => {
              const td = li.closest('td');
              const r = li.getBoundingClientRect();
              const c = td.getBoundingClientRect();
              return {
                day: td.getAttribute('data-date'),
                row: td.parentElement.rowIndex,
                box: { left: r.left, right: r.right, top: r.top, bottom: r.bottom },
                visible: li.checkVisibility() && r.width > 20 && r.height > 10 && r.left >= c.left - 2 && r.right <= c.right + 2,
              };
            }),
          );
        assert.deepEqual(
          pieces.map((p) => p.day),
          ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02'],
          month,
        );
        assert.ok(
          pieces.every((p) => p.visible),
          `${month}: every piece is drawn inside its cell: ${JSON.stringify(pieces)}`,
        );
        // Fri–Sun in one week row, Monday Feb 2 in the next: pieces of a row at one height, each touching the next
        assert.deepEqual(
          pieces.map((p) => p.row),
          [pieces[0].row, pieces[0].row, pieces[0].row, pieces[0].row + 1],
        );
        for (const [a, b] of [
          [0, 1],
          [1, 2],
        ]) {
          assert.ok(Math.abs(pieces[a].box.top - pieces[b].box.top) < 1, `${month}: same height`);
          assert.ok(Math.abs(pieces[a].box.right - pieces[b].box.left) <= 2, `${month}: ${pieces[a].day} joins ${pieces[b].day}`);
        }
        assert.ok(pieces[3].box.top > pieces[2].box.bottom, `${month}: Feb 2 is in the next row`);
      }
      assertNoProblems(tp.problems);
    } finally {
      await tp.close();
    }
  });

  for (const build of FULLCALENDAR_BUILDS) {
    it(`shows on each November day the same titles as a real FullCalendar page on the feed (${fullCalendarLabel(build)}), "+N more" included`, async () => {
      const theirs = await fullCalendarTitlesPerDay(browser, fixture, build, {
        feed: `${t.base}/calendar/events/v1/events/feed`,
        month: '2025-11',
        timeZone: NY,
      });
      const tp = await openPage(browser);
      try {
        await visit(tp.page, `${t.base}/events/month/2025-11/`);
        const ours = await monthTitlesPerDay(tp.page, '2025-11');
        assert.equal(ours.size, 30);
        assert.deepEqual(Object.fromEntries(ours), Object.fromEntries(theirs));
        // the comparison covers what it should: the overflow day, the bar, the series, not the draft
        assert.equal(ours.get('2025-11-13')?.length, 5);
        assert.equal(
          await tp.page.$eval('td[data-date="2025-11-13"] .more', (a: any) => a.textContent.trim()),
          '+2 more on Thursday, November 13, 2025',
        );
        assert.deepEqual(ours.get('2025-11-14'), ['Harvest festival']);
        assert.ok(![...ours.values()].flat().includes('Secret draft'));
        assertNoProblems(tp.problems);
      } finally {
        await tp.close();
      }
    });
  }

  it('answers a reload of the month page with 304 (the browser revalidates its copy), and a fetch with If-None-Match too', async () => {
    const tp = await openPage(browser);
    try {
      const first = await visit(tp.page, `${t.base}/events/month/2025-11/`);
      const etag = first.headers().etag;
      assert.match(etag, /^"[\w-]+"$/);
      assert.match(first.headers()['cache-control'], /max-age=0, must-revalidate/);
      const second = await tp.page.reload({ waitUntil: 'load' });
      assert.equal(second?.status(), 304);
      assert.equal(await tp.page.$eval('table.month-grid', (e: any) => e.getAttribute('data-month')), '2025-11', 'the page shown from the cache');
      const status = await tp.page.evaluate(
        // no-store: the browser's cache stays out of it, the server's answer reaches the script as it is
        async (tag) =>
          (await fetch((globalThis as any).location.href, { headers: { 'If-None-Match': tag }, cache: 'no-store' } as RequestInit)).status,
        etag,
      );
      assert.equal(status, 304);
      await screenshots(tp.page, 'page-month');
    } finally {
      await tp.close();
    }
  });
});
