/**
 * A real FullCalendar page pointed at our feed (FEATURES.md §5.5 case 8): a small `node:http` server on its own
 * origin serves FullCalendar's browser bundles from node_modules and a page that renders a dayGridMonth calendar
 * whose `events` source is the service's feed URL (so the service must list this origin in CORS_ORIGINS).
 *
 * Two builds, because sites embed both:
 * - `v7`: the `fullcalendar` package (7.1.0, the newest). In v7 the vanilla calendar and its day grid moved into
 *   that one package; `@fullcalendar/core` 7.x is only shared TypeScript types (its index.js logs "should not be
 *   imported directly") and `@fullcalendar/daygrid` stopped at 7.0.0-rc.0, so no v7 core+daygrid pair exists.
 * - `v6`: `@fullcalendar/core` + `@fullcalendar/daygrid` 6.1.22, the newest pair that works together: the two
 *   packages the issue names, and what most existing sites still run.
 *
 * What is read back is what FullCalendar drew: every event element (marked in `eventDidMount`) and the day cells
 * (`[role=gridcell][data-date]`, in both builds) its box covers, so a bar across three days counts in three cells.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { assertNoProblems, nextFrames, openPage, type TestPage } from './browser.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const version = (name: string): string => JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')).version;

interface Build {
  label: string;
  styles: string[];
  scripts: string[];
}

/** Files as `<package>/<path>`; each bundle defines the global `FullCalendar`. */
const BUILDS = {
  v7: {
    label: `fullcalendar ${version('fullcalendar')}`,
    // v7 ships no CSS inside its JS: the skeleton lays the grid out, the classic theme is the v6 look
    styles: ['fullcalendar/skeleton.css', 'fullcalendar/themes/classic/theme.css', 'fullcalendar/themes/classic/palette.css'],
    scripts: ['fullcalendar/all/global.js', 'fullcalendar/themes/classic/global.js'],
  },
  v6: {
    label: `@fullcalendar/core ${version('@fullcalendar/core')} + @fullcalendar/daygrid ${version('@fullcalendar/daygrid')}`,
    styles: [],
    scripts: ['@fullcalendar/core/index.global.min.js', '@fullcalendar/daygrid/index.global.min.js'],
  },
} satisfies Record<string, Build>;

export type FullCalendarBuild = keyof typeof BUILDS;
export const FULLCALENDAR_BUILDS = Object.keys(BUILDS) as FullCalendarBuild[];
export const fullCalendarLabel = (build: FullCalendarBuild): string => BUILDS[build].label;

function assetPath(spec: string): string {
  const [scope, name, ...rest] = spec.split('/');
  return scope.startsWith('@') ? join(packageDir(`${scope}/${name}`), ...rest) : join(packageDir(scope), name, ...rest);
}

/** Runs in the page (serialised with toString), configured by the page's query string. */
function calendarPage(): void {
  const w = globalThis as any;
  const params = new URLSearchParams(w.location.search);
  const state = { loaded: false, failures: [] as string[] };
  w.fullCalendarState = state;
  const calendar = new w.FullCalendar.Calendar(w.document.getElementById('calendar'), {
    initialView: 'dayGridMonth',
    initialDate: params.get('date'),
    headerToolbar: { start: 'title', end: 'today prev,next' },
    timeZone: params.get('timeZone'),
    events: params.get('feed'),
    // every event in its cell, none behind "+N more", so that each can be counted
    dayMaxEvents: false,
    eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    eventDidMount: (info: any) => info.el.setAttribute('data-test-title', info.event.title),
    eventSourceFailure: (error: any) => state.failures.push(String(error?.message ?? error)),
    loading: (isLoading: boolean) => {
      if (!isLoading) state.loaded = true;
    },
  });
  calendar.render();
}

function pageHtml(build: FullCalendarBuild): string {
  const { label, styles, scripts } = BUILDS[build];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${label}</title><link rel="icon" href="data:,">
${styles.map((s) => `<link rel="stylesheet" href="/node_modules/${s}">`).join('\n')}
${scripts.map((s) => `<script src="/node_modules/${s}"></script>`).join('\n')}
</head><body><main><h1>${label}</h1><div id="calendar"></div></main><script src="/calendar-page.js"></script></body></html>`;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

export interface FullCalendarFixture {
  /** `http://127.0.0.1:PORT`: what the service's CORS_ORIGINS must allow. */
  origin: string;
  close(): Promise<void>;
}

export async function startFullCalendarFixture(): Promise<FullCalendarFixture> {
  // only the listed files are served, so a path can never leave node_modules
  const assets = new Map(Object.values(BUILDS).flatMap((b: Build) => [...b.styles, ...b.scripts].map((s) => [`/node_modules/${s}`, assetPath(s)])));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = /^\/fullcalendar-(\w+)\.html$/.exec(path)?.[1];
    const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type }).end(body);
    if (page !== undefined && page in BUILDS) send('text/html; charset=utf-8', pageHtml(page as FullCalendarBuild));
    else if (path === '/calendar-page.js') send(TYPES['.js'], `(${calendarPage.toString()})();\n`);
    else if (assets.has(path)) send(TYPES[extname(path)], readFileSync(assets.get(path)!));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface RenderedEvent {
  title: string;
  /** What the element shows, time included ("09:00"). */
  text: string;
  /** The dates (`YYYY-MM-DD`) of the day cells the element's box covers. */
  days: string[];
}

export interface FullCalendarView {
  page: TestPage;
  events: RenderedEvent[];
  /** The URLs of the feed requests FullCalendar made. */
  feedRequests: string[];
}

export interface FullCalendarOptions {
  /** The feed's absolute URL, e.g. `${base}/calendar/events/v1/events/feed`. */
  feed: string;
  /** `YYYY-MM`: the month shown. */
  month: string;
  /** FullCalendar's `timeZone` option. */
  timeZone: string;
  /** The zone the browser itself runs in (default: the machine's). */
  browserTimezone?: string;
}

/** Opens a FullCalendar month on the feed and reads back what it drew; the caller closes `page`. */
export async function openFullCalendar(
  browser: Browser,
  fixture: FullCalendarFixture,
  build: FullCalendarBuild,
  options: FullCalendarOptions,
): Promise<FullCalendarView> {
  const opened = await openPage(browser, { timezone: options.browserTimezone });
  const { page } = opened;
  const feedRequests: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(options.feed)) feedRequests.push(request.url());
  });
  try {
    const query = new URLSearchParams({ feed: options.feed, date: `${options.month}-01`, timeZone: options.timeZone });
    await page.goto(`${fixture.origin}/fullcalendar-${build}.html?${query}`, { waitUntil: 'load' });
    await page.waitForFunction('window.fullCalendarState.loaded || window.fullCalendarState.failures.length > 0', { timeout: 10_000 });
    const failures = (await page.evaluate('window.fullCalendarState.failures')) as string[];
    if (failures.length > 0) throw new Error(`FullCalendar could not load the feed: ${failures.join('; ')}`);
    await nextFrames(page);
    return { page: opened, events: await renderedEvents(page), feedRequests };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

export function renderedEvents(page: Page): Promise<RenderedEvent[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const cells = [...doc.querySelectorAll('[role="gridcell"][data-date]')].map((c: any) => ({
      date: c.getAttribute('data-date') as string,
      box: c.getBoundingClientRect(),
    }));
    const shown = (el: any) => el.getClientRects().length > 0 && (globalThis as any).getComputedStyle(el).visibility !== 'hidden';
    return [...doc.querySelectorAll('[data-test-title]')].filter(shown).map((el: any) => {
      const box = el.getBoundingClientRect();
      const middle = (box.top + box.bottom) / 2;
      const days = cells
        .filter((c) => c.box.top <= middle && middle < c.box.bottom && Math.min(box.right, c.box.right) - Math.max(box.left, c.box.left) > 2)
        .map((c) => c.date);
      // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out ("09:00\nTitle"), not its nodes run together
      return { title: el.getAttribute('data-test-title') as string, text: el.innerText as string, days };
    });
  });
}

/** Every day of `month` (`YYYY-MM`) with the titles drawn on it, sorted (a title twice if drawn twice). */
export function titlesPerDay(events: RenderedEvent[], month: string): Map<string, string[]> {
  const [year, monthNumber] = month.split('-').map(Number);
  const length = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  const days = new Map<string, string[]>();
  for (let d = 1; d <= length; d++) days.set(`${month}-${String(d).padStart(2, '0')}`, []);
  for (const event of events) for (const day of event.days) days.get(day)?.push(event.title);
  for (const titles of days.values()) titles.sort();
  return days;
}

/**
 * FullCalendar's titles per day of a month, for comparing with another rendering of the same month; the page
 * must have loaded without console errors or failed requests.
 */
export async function fullCalendarTitlesPerDay(
  browser: Browser,
  fixture: FullCalendarFixture,
  build: FullCalendarBuild,
  options: FullCalendarOptions,
): Promise<Map<string, string[]>> {
  const view = await openFullCalendar(browser, fixture, build, options);
  try {
    assertNoProblems(view.page.problems, fullCalendarLabel(build));
  } finally {
    await view.page.close();
  }
  return titlesPerDay(view.events, options.month);
}
