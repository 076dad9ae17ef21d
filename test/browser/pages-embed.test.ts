/**
 * The embed in a real browser (FEATURES.md §5.5 case 6): a partner site on another local origin pastes the
 * snippet (`<div data-calendar-embed …>` + `/events/embed.js`); the iframe it makes takes its content's height
 * within a second, and again whenever the content changes size; a site that EMBED_ORIGINS does not list is
 * refused by `frame-ancestors`, which Chromium enforces by blocking the frame's response.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, it } from 'node:test';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { createListeningTestApp, type ListeningTestApp } from '../helpers/app.js';
import { assertNoProblems, describeBrowser, launchBrowser, openPage, screenshots, VIEWPORTS } from '../helpers/browser.js';
import { makeEvent } from '../helpers/factories.js';

const NY = 'America/New_York';
/** embed.js's height for the iframe until the framed page says how tall it is (40rem). */
const INITIAL_HEIGHT = 640;

interface PartnerSite {
  origin: string;
  server: Server;
}

/** A page on its own origin that embeds the calendar of `service()` the way the README tells a site to. */
async function partnerSite(service: () => string): Promise<PartnerSite> {
  const server = createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner site</title><link rel="icon" href="data:,"></head>
<body><h1>Partner site</h1><p>Our events:</p>
<div data-calendar-embed data-view="month" data-date="2025-11"></div>
<p>Footer</p>
<script src="${service()}/events/embed.js" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** The framed calendar's own height, as embed-frame.js measures it. */
const contentHeight = (frame: Frame) => frame.evaluate(() => Math.ceil((globalThis as any).document.documentElement.getBoundingClientRect().height));

/** Waits (at most `ms`) until the iframe on the partner's page is as tall as the calendar inside it; that height. */
async function heightFollowsContent(page: Page, frame: Frame, ms: number): Promise<number> {
  const want = await contentHeight(frame);
  await page
    .waitForFunction(
      (h) => Math.abs((globalThis as any).document.querySelector('iframe').getBoundingClientRect().height - h) <= 1,
      { timeout: ms },
      want,
    )
    .catch(async () => {
      const got = await page.$eval('iframe', (f: any) => f.getBoundingClientRect().height);
      assert.fail(`the iframe is ${got}px tall ${ms} ms on, its content ${want}px`);
    });
  return want;
}

async function until(condition: () => boolean | undefined, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeBrowser('calendar pages in a browser: the embed on another site', () => {
  let t: ListeningTestApp;
  let browser: Browser;
  let allowed: PartnerSite;
  let other: PartnerSite;

  before(async () => {
    allowed = await partnerSite(() => t.base);
    other = await partnerSite(() => t.base);
    t = await createListeningTestApp({ SITE_TIMEZONE: NY, EMBED_ORIGINS: allowed.origin });
    browser = await launchBrowser();
    await makeEvent(t, { title: 'Jazz night', timezone: NY, start_date: '2025-11-07 19:00:00', end_date: '2025-11-07 22:00:00' });
    await makeEvent(t, { title: 'Harvest festival', timezone: NY, all_day: true, start_date: '2025-11-12', end_date: '2025-11-14' });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    for (const site of [allowed, other]) await new Promise((resolve) => site?.server.close(resolve));
  });

  it('on a site EMBED_ORIGINS lists: the iframe takes the calendar’s height within 1 s, and follows it when the content changes', async () => {
    const tp = await openPage(browser);
    const { page } = tp;
    try {
      await page.goto(`${allowed.origin}/`, { waitUntil: 'domcontentloaded' });
      const frame = await page.waitForFrame((f) => f.url().startsWith(`${t.base}/events/embed?`), { timeout: 5000 });
      assert.equal(frame.url(), `${t.base}/events/embed?view=month&date=2025-11`);
      await frame.waitForSelector('table.month-grid td[data-date="2025-11-07"] li[data-event-id]');
      const desktop = await heightFollowsContent(page, frame, 1000);
      assert.notEqual(desktop, INITIAL_HEIGHT, 'resized from the snippet’s initial height');
      assert.ok(
        await frame.evaluate(() => (globalThis as any).document.documentElement.scrollHeight <= (globalThis as any).innerHeight),
        'no scrolling inside',
      );
      assert.equal(await frame.$eval('main h1', (h: any) => h.textContent.trim()), 'November 2025');

      // a phone: the grid becomes a list of days, taller
      await page.setViewport(VIEWPORTS.phone);
      const phone = await heightFollowsContent(page, frame, 1000);
      assert.notEqual(phone, desktop);
      await page.setViewport(VIEWPORTS.desktop);
      await heightFollowsContent(page, frame, 1000);

      // a view changed in place inside the frame: the list (nothing upcoming) is shorter than the month
      await frame.click('.view-switch a[href*="view=list"]');
      await frame.waitForSelector('main .no-events');
      const list = await heightFollowsContent(page, frame, 1000);
      assert.ok(list < desktop, `${list} < ${desktop}`);
      assertNoProblems(tp.problems, 'the partner page and its frame');
      await screenshots(page, 'page-embed-on-partner-site');
    } finally {
      await tp.close();
    }
  });

  it('on a site EMBED_ORIGINS does not list: frame-ancestors blocks the frame, which never shows the calendar', async () => {
    const tp = await openPage(browser);
    const { page } = tp;
    try {
      await page.goto(`${other.origin}/`, { waitUntil: 'load' });
      const embedUrl = `${t.base}/events/embed?view=month&date=2025-11`;
      // Chromium answers a refused frame-ancestors by blocking the response, saying why on the console, and
      // showing its error page in the frame
      const frames = () => page.frames().filter((f) => f !== page.mainFrame());
      await until(
        () => tp.problems.failedRequests.length > 0 && tp.problems.consoleErrors.length > 0 && frames()[0]?.url().startsWith('chrome-error:'),
        5000,
      );
      assert.deepEqual(tp.problems.failedRequests, [`net::ERR_BLOCKED_BY_RESPONSE GET ${embedUrl}`]);
      assert.equal(tp.problems.consoleErrors.length, 1);
      assert.match(
        tp.problems.consoleErrors[0],
        new RegExp(`violates the following Content Security Policy directive: "frame-ancestors 'self' ${allowed.origin}"`),
      );
      assert.deepEqual(
        frames().map((f) => f.url()),
        ['chrome-error://chromewebdata/'],
      );
      assert.equal(await frames()[0].$('main[data-calendar]'), null, 'no calendar in the frame');
      assert.equal(await page.$eval('iframe', (f: any) => f.getBoundingClientRect().height), INITIAL_HEIGHT, 'never resized');
    } finally {
      await tp.close();
    }
  });
});
