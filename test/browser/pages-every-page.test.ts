/**
 * Every page type of the calendar in a real browser (FEATURES.md §5.5 cases 5 and 9): each loads without console
 * errors or failed requests and with no serious or critical axe-core violation, and is photographed at desktop
 * and phone width; Tab reaches the month's navigation and every event link of the grid in reading order; an
 * event page's JSON-LD is the API's `json_ld` and its response carries the discovery headers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { axeViolations, describeBrowser, launchBrowser, openPage, type PageProblems, screenshots } from '../helpers/browser.js';
import { visit } from '../helpers/calendar-pages.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';

const NY = 'America/New_York';
const MONTH = '2031-03';

describeBrowser('calendar pages in a browser: every page type', () => {
  let t: ListeningTestApp;
  let browser: Browser;
  let concert: any;
  let yoga: any;
  const pages: { name: string; path: string; status: number }[] = [];

  before(async () => {
    t = await createListeningTestApp({ SITE_TIMEZONE: NY });
    browser = await launchBrowser();
    const venue = await makeLinked(t, 'venue', {
      venue: 'Town Hall',
      address: '1 Main St',
      city: 'Springfield',
      zip: '01101',
      country: 'United States',
      geo_lat: 42.1,
      geo_lng: -72.59,
    });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Jane Doe', email: 'jane@example.org', phone: '555-0100' });
    const music = await makeCategory(t, { name: 'Music' });
    const outdoor = await makeTag(t, { name: 'Outdoor' });
    const ny = (fields: Record<string, unknown>) => makeEvent(t, { timezone: NY, ...fields });
    concert = await ny({
      title: 'Spring concert',
      description: '<p>The town orchestra plays <strong>Vivaldi</strong> and <a href="https://example.org/program">more</a>.</p>',
      start_date: `${MONTH}-14 19:00:00`,
      end_date: `${MONTH}-14 21:00:00`,
      cost: '15',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [music.id],
      tags: [outdoor.id],
    });
    yoga = await ny({
      title: 'Morning yoga',
      start_date: `${MONTH}-04 07:00:00`,
      end_date: `${MONTH}-04 08:00:00`,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      venue: venue.id,
    });
    await ny({ title: 'Art fair', all_day: true, start_date: `${MONTH}-20`, end_date: `${MONTH}-23`, tags: [outdoor.id], featured: true });
    for (let i = 1; i <= 4; i++) await ny({ title: `Workshop ${i}`, start_date: `${MONTH}-26 1${i}:00:00`, end_date: `${MONTH}-26 1${i}:45:00` });
    pages.push(
      { name: 'list', path: '/events/list/', status: 200 },
      { name: 'month', path: `/events/month/${MONTH}/`, status: 200 },
      { name: 'day', path: `/events/${MONTH}-14/`, status: 200 },
      { name: 'event', path: `/event/${concert.slug}/`, status: 200 },
      { name: 'series', path: `/event/${yoga.slug}/`, status: 200 },
      { name: 'occurrence', path: `/event/${yoga.slug}/${MONTH}-11/`, status: 200 },
      { name: 'venue', path: `/venue/${venue.slug}/`, status: 200 },
      { name: 'organizer', path: `/organizer/${organizer.slug}/`, status: 200 },
      { name: 'category', path: `/events/category/${music.slug}/month/${MONTH}/`, status: 200 },
      { name: 'tag', path: `/events/tag/${outdoor.slug}/`, status: 200 },
      { name: 'embed', path: `/events/embed?view=month&date=${MONTH}`, status: 200 },
      { name: 'not-found', path: '/events/nonsense/', status: 404 },
    );
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  // the list is built in `before`; the names are known here
  for (const name of ['list', 'month', 'day', 'event', 'series', 'occurrence', 'venue', 'organizer', 'category', 'tag', 'embed', 'not-found']) {
    it(`${name} page: no console errors or failed requests, no serious or critical axe violations; screenshots`, async () => {
      const { path, status } = pages.find((p) => p.name === name)!;
      const tp = await openPage(browser);
      try {
        const url = `${t.base}${path}`;
        await visit(tp.page, url, status);
        // the 404 page's own status is the point of it (Chromium reports it twice); only what it loads must not fail
        const own = (r: string) => status === 404 && r.includes(url) && r.includes('404');
        const problems: PageProblems = {
          ...tp.problems,
          consoleErrors: tp.problems.consoleErrors.filter((r) => !(own(r) && r.endsWith(`(${url})`))),
          failedRequests: tp.problems.failedRequests.filter((r) => !(own(r) && r === `404 GET ${url}`)),
        };
        assert.deepEqual(problems, { consoleErrors: [], pageErrors: [], failedRequests: [] }, path);
        assert.ok((await tp.page.$$('link[rel=stylesheet]')).length === 1, 'the stylesheet is there');
        assert.ok(await tp.page.$eval('body', stylesheetApplies), `${path}: the stylesheet applies`);
        assert.deepEqual(await axeViolations(tp.page), [], path);
        await screenshots(tp.page, `page-${name}`);
      } finally {
        await tp.close();
      }
    });
  }

  it('Tab reaches the month’s previous, next and this-month links, then every event link of the grid in reading order', async () => {
    const tp = await openPage(browser);
    const { page } = tp;
    try {
      await visit(page, `${t.base}/events/month/${MONTH}/`);
      // what a keyboard user should reach: the links of the grid that are shown (not the ones behind "+N more")
      const expected: string[] = await page.$$eval('.date-nav a, table.month-grid li[data-event-id] a, table.month-grid a.more', (links) =>
        links.filter((a: any) => a.checkVisibility()).map((a: any) => a.href + a.textContent.replace(/\s+/g, ' ').trim()),
      );
      assert.ok(expected.length >= 3 + 8, `navigation and events: ${expected.length}`);
      const reached: string[] = [];
      for (let i = 0; i < 200; i++) {
        await page.keyboard.press('Tab');
        const current: string | null = await page.evaluate(() => {
          const a: any = (globalThis as any).document.activeElement;
          return a && a.tagName === 'A' ? a.href + a.textContent.replace(/\s+/g, ' ').trim() : a === (globalThis as any).document.body ? null : '';
        });
        if (current === null || reached.includes(current)) break;
        if (current !== '') reached.push(current);
      }
      const inOrder = reached.filter((r) => expected.includes(r));
      assert.deepEqual(inOrder, expected);
      assert.ok(
        expected.some((e) => e.includes('Previous month')) &&
          expected.some((e) => e.includes('Next month')) &&
          expected.some((e) => e.endsWith('This month')),
      );
      assert.ok(expected.some((e) => e.includes('+1 more')));
    } finally {
      await tp.close();
    }
  });

  describe('an event page', () => {
    for (const which of ['event', 'occurrence'] as const) {
      it(`${which}: its JSON-LD parses and equals the API’s json_ld; the response carries the discovery headers`, async () => {
        const path = which === 'event' ? `/event/${concert.slug}/` : `/event/${yoga.slug}/${MONTH}-11/`;
        const tp = await openPage(browser);
        try {
          const response = await visit(tp.page, `${t.base}${path}`);
          const jsonLd = await tp.page.$$eval('script[type="application/ld+json"]', (s) => s.map((e: any) => JSON.parse(e.textContent)));
          assert.equal(jsonLd.length, 1);
          const id = await tp.page.$eval('article[data-event-id]', (a: any) => Number(a.getAttribute('data-event-id')));
          if (which === 'event') assert.equal(id, concert.id);
          const api: any = await (await fetch(`${t.base}/calendar/events/v1/events/${id}`)).json();
          assert.deepEqual(jsonLd[0], api.json_ld);
          assert.equal(jsonLd[0]['@type'], 'Event');
          const headers = response.headers();
          const root = `${t.base}/calendar/events/v1/events/${id}`;
          assert.equal(headers['x-tec-api-version'], 'v1');
          assert.equal(headers['x-tec-api-root'], root);
          assert.equal(headers['x-tec-api-origin'], `${t.base}/`);
          assert.equal(await tp.page.$eval('link[rel=alternate]:not([type])', (l: any) => l.getAttribute('href')), root);
        } finally {
          await tp.close();
        }
      });
    }
  });
});

/** In the page: whether the calendar's stylesheet is in force (its font stack names DejaVu Sans). */
function stylesheetApplies(element: any): boolean {
  return (globalThis as any).getComputedStyle(element).fontFamily.includes('DejaVu Sans');
}
