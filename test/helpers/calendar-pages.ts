/**
 * Reading the calendar pages (src/web) in a real browser: what a month cell shows, the titles on each day of
 * the grid (including those behind "+N more", which are in the DOM, hidden), and opening a page with its
 * navigation response.
 */
import assert from 'node:assert/strict';
import type { HTTPResponse, Page } from 'puppeteer-core';
import { nextFrames } from './browser.js';

/** Goes to `url`, waits for its scripts (they are deferred, so `load` comes after them) and a painted frame. */
export async function visit(page: Page, url: string, status = 200): Promise<HTTPResponse> {
  const response = await page.goto(url, { waitUntil: 'load' });
  assert.ok(response, `no response for ${url}`);
  assert.equal(response.status(), status, url);
  await nextFrames(page);
  return response;
}

/** The text each entry of a month cell shows (`"9:00 am Weekly standup"`), in the cell's order. */
export function cellEntries(page: Page, day: string): Promise<string[]> {
  return page.$$eval(`td[data-date="${day}"] li[data-event-id]`, (items) =>
    items.map((li: any) => (li.textContent as string).replace(/\s+/g, ' ').trim()),
  );
}

/** The entry of `title` in the cell of `day` as laid out (`innerText`: what is visible), or undefined. */
export function entryText(page: Page, day: string, title: string): Promise<string | undefined> {
  return page.$$eval(
    `td[data-date="${day}"] li[data-event-id]`,
    (items, wanted) => {
      const li: any = items.find((i: any) => i.querySelector('.title, .continued')?.textContent === wanted);
      // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, after the zone switch
      return li ? (li.innerText as string).replace(/\s+/g, ' ').trim() : undefined;
    },
    title,
  );
}

/**
 * The titles written in each day cell of our month view whose date starts with `month` (`YYYY-MM`), sorted; a
 * bar counts on every day it covers (its continued pieces carry the title too).
 */
export async function monthTitlesPerDay(page: Page, month: string): Promise<Map<string, string[]>> {
  const cells: [string, string[]][] = await page.$$eval('table.month-grid td[data-date]', (tds) =>
    tds.map((td: any): [string, string[]] => [
      td.getAttribute('data-date') as string,
      [...td.querySelectorAll('li[data-event-id]')].map((li: any) => li.querySelector('.title, .continued')?.textContent as string),
    ]),
  );
  return new Map(cells.filter(([day]) => day.startsWith(`${month}-`)).map(([day, titles]) => [day, titles.sort()]));
}

/** The distinct titles anywhere in the month grid. */
export async function gridTitles(page: Page): Promise<string[]> {
  const titles: string[] = await page.$$eval('table.month-grid li[data-event-id]', (items) =>
    items.map((li: any) => li.querySelector('.title, .continued')?.textContent as string),
  );
  return [...new Set(titles)].sort();
}
