/**
 * The filter bar, the subscribe menu and moving between views in a real browser (FEATURES.md §5.5 cases 3 and 4,
 * and the progressive JavaScript of src/web/assets/calendar.js): with JavaScript the views change in place
 * (fetching the same pages, the URL kept by pushState, Back and Forward working); without it the same controls
 * are plain links and a GET form that give the same results.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { assertNoProblems, describeBrowser, launchBrowser, openPage, type TestPage } from '../helpers/browser.js';
import { gridTitles, visit } from '../helpers/calendar-pages.js';
import { makeCategory, makeEvent } from '../helpers/factories.js';

const NY = 'America/New_York';
const ALL = ['Chess open', 'Choir concert', 'Jazz night', 'Marathon'];
const MUSIC = ['Choir concert', 'Jazz night'];

/** Set on the window before a navigation: still there after it only if the page was not reloaded. */
const mark = (page: Page) => page.evaluate(() => ((globalThis as any).__notReloaded = true));
const stillMarked = (page: Page) => page.evaluate(() => (globalThis as any).__notReloaded === true);
const where = (page: Page) => page.evaluate(() => ((globalThis as any).location.pathname + (globalThis as any).location.search) as string);
const heading = (page: Page) => page.$eval('main h1', (h: any) => h.textContent.replace(/\s+/g, ' ').trim());
const focused = (page: Page) =>
  page.evaluate(() => {
    const e: any = (globalThis as any).document.activeElement;
    return `${e.tagName.toLowerCase()} ${(e.textContent as string).replace(/\s+/g, ' ').trim()}`;
  });

/**
 * Does what follows a link or submits a form and waits for its result: with JavaScript, the in-place change
 * (main no longer busy); without, the new page. (`waitForFunction` cannot be used without JavaScript: its
 * polling runs in the page.)
 */
async function follow(page: Page, javaScript: boolean, action: () => Promise<unknown>): Promise<void> {
  if (!javaScript) {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), action()]);
    return;
  }
  const before = await where(page);
  await action();
  await page.waitForFunction(
    (b) => {
      const d = (globalThis as any).document;
      return (globalThis as any).location.pathname + (globalThis as any).location.search !== b && !d.querySelector('main[aria-busy]');
    },
    {},
    before,
  );
}

/** Presses Tab until the focused element matches `selector`; what was focused on the way. */
async function tabTo(page: Page, selector: string, most = 60): Promise<string[]> {
  const passed: string[] = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => (globalThis as any).document.activeElement.matches(s), selector)) return passed;
    passed.push(await focused(page));
  }
  throw new Error(`${selector} not reached in ${most} Tabs: ${passed.join(' | ')}`);
}

describeBrowser('calendar pages in a browser: filters, subscribe menu, navigation', () => {
  let t: ListeningTestApp;
  let browser: Browser;
  let music: any;

  before(async () => {
    t = await createListeningTestApp({ SITE_TIMEZONE: NY });
    browser = await launchBrowser();
    music = await makeCategory(t, { name: 'Music' });
    const sports = await makeCategory(t, { name: 'Sports' });
    const ny = (fields: Record<string, unknown>) => makeEvent(t, { timezone: NY, ...fields });
    await ny({ title: 'Jazz night', start_date: '2025-11-07 19:00:00', end_date: '2025-11-07 22:00:00', categories: [music.id] });
    await ny({ title: 'Choir concert', start_date: '2025-11-21 18:00:00', end_date: '2025-11-21 19:30:00', categories: [music.id] });
    await ny({ title: 'Marathon', start_date: '2025-11-09 08:00:00', end_date: '2025-11-09 14:00:00', categories: [sports.id] });
    await ny({ title: 'Chess open', start_date: '2025-11-15 10:00:00', end_date: '2025-11-15 18:00:00' });
    await ny({ title: 'December party', start_date: '2025-12-12 20:00:00', end_date: '2025-12-12 23:00:00' });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const javaScript of [true, false]) {
    describe(javaScript ? 'with JavaScript' : 'without JavaScript', () => {
      let tp: TestPage;
      before(async () => {
        tp = await openPage(browser, { javaScript });
        await visit(tp.page, `${t.base}/events/month/2025-11/`);
      });
      after(() => tp?.close());

      it('filters by category from the filter bar: the URL carries the filter, the grid only the category’s events', async () => {
        const { page } = tp;
        assert.deepEqual(await gridTitles(page), ALL);
        await mark(page);
        await page.select('#f-category', music.slug);
        await follow(page, javaScript, () => page.click('form[data-filter-form] button[type=submit]'));
        // with JavaScript the URL is pushed when the new grid is in place
        if (javaScript)
          await page.waitForFunction((slug) => new URL((globalThis as any).location.href).searchParams.get('categories') === slug, {}, music.slug);
        const url = new URL(page.url());
        assert.equal(url.pathname, '/events/month/');
        assert.equal(url.searchParams.get('categories'), music.slug);
        assert.equal(url.searchParams.get('date'), '2025-11');
        assert.equal(await stillMarked(page), javaScript, javaScript ? 'changed in place' : 'a new page');
        assert.deepEqual(await gridTitles(page), MUSIC);
        assert.equal(await heading(page), 'November 2025');
      });

      it('keeps the filter on reload: the same events, the category still chosen', async () => {
        const { page } = tp;
        await page.reload({ waitUntil: 'load' });
        assert.deepEqual(await gridTitles(page), MUSIC);
        assert.equal(await page.$eval('#f-category', (s: any) => s.value), music.slug);
      });

      it('offers the filtered feed in the subscribe menu: webcal://…/events.ics?categories=…, Google render?cid= of it', async () => {
        const { page } = tp;
        await page.click('details.subscribe summary');
        const link = (name: string) =>
          page.$eval(`[data-subscribe="${name}"]`, (a: any) => ({ href: a.getAttribute('href') as string, visible: a.checkVisibility() as boolean }));
        const webcal = await link('webcal');
        const feed = `${t.base}/calendar/events/v1/events.ics?categories=${music.slug}`;
        assert.deepEqual(webcal, { href: feed.replace(/^http:/, 'webcal:'), visible: true });
        assert.deepEqual(await link('google'), {
          href: `https://calendar.google.com/calendar/render?cid=${encodeURIComponent(webcal.href)}`,
          visible: true,
        });
        // (the feed's own window starts 30 days ago: ask for November 2025 explicitly)
        const ics = await (await fetch(`${feed}&start_date=2025-11-01&end_date=2025-11-30`)).text();
        assert.deepEqual([...ics.matchAll(/^SUMMARY:(.*)\r$/gm)].map((m) => m[1]).sort(), MUSIC, 'the feed has the same events');
        assertNoProblems(tp.problems);
      });
    });
  }

  it('with JavaScript, "next month" changes the grid in place with pushState; Back and Forward return, still in place', async () => {
    const tp = await openPage(browser);
    const { page } = tp;
    try {
      await visit(page, `${t.base}/events/month/2025-11/`);
      await mark(page);
      await page.click('.date-nav a[rel=next]');
      await page.waitForFunction(() => (globalThis as any).document.querySelector('table.month-grid').dataset.month === '2025-12');
      assert.equal(await where(page), '/events/month/2025-12/');
      assert.equal(await heading(page), 'December 2025');
      assert.deepEqual(await gridTitles(page), ['December party']);
      assert.match(await page.title(), /^Events – /);
      assert.equal(await focused(page), 'h1 December 2025', 'focus moves to the new heading');
      await page.goBack();
      await page.waitForFunction(() => (globalThis as any).document.querySelector('table.month-grid').dataset.month === '2025-11');
      assert.equal(await where(page), '/events/month/2025-11/');
      assert.deepEqual(await gridTitles(page), ALL);
      await page.goForward();
      await page.waitForFunction(() => (globalThis as any).document.querySelector('table.month-grid').dataset.month === '2025-12');
      assert.equal(await stillMarked(page), true, 'no page was reloaded');
      assertNoProblems(tp.problems);
    } finally {
      await tp.close();
    }
  });

  for (const javaScript of [true, false]) {
    it(`the view switch and the month links work from the keyboard (${javaScript ? 'in place' : 'plain links, no JavaScript'})`, async () => {
      const tp = await openPage(browser, { javaScript });
      const { page } = tp;
      try {
        await visit(page, `${t.base}/events/month/2025-11/`);
        await tabTo(page, '.view-switch a');
        const views = [await focused(page)];
        for (let i = 0; i < 2; i++) {
          await page.keyboard.press('Tab');
          views.push(await focused(page));
        }
        assert.deepEqual(views, ['a List', 'a Month', 'a Day']);
        assert.equal(await page.$eval('.view-switch a[aria-current=page]', (a: any) => a.textContent.trim()), 'Month');
        await follow(page, javaScript, () => page.keyboard.press('Enter'));
        assert.equal(await where(page), '/events/2025-11-01/');
        assert.equal(await heading(page), 'Saturday, November 1, 2025');
        assert.equal(await page.$eval('.view-switch a[aria-current=page]', (a: any) => a.textContent.trim()), 'Day');
        // from the day view to the next day with the keyboard alone
        await page.focus('body');
        await tabTo(page, '.date-nav a[rel=next]');
        await follow(page, javaScript, () => page.keyboard.press('Enter'));
        assert.equal(await where(page), '/events/2025-11-02/');
        assert.equal(await heading(page), 'Sunday, November 2, 2025');
        assertNoProblems(tp.problems);
      } finally {
        await tp.close();
      }
    });
  }
});
