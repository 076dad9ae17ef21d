/**
 * Tests in a real browser (FEATURES.md §5.4): Debian's headless Chromium driven by puppeteer-core, never a
 * downloaded browser. `CHROMIUM_PATH` names the binary (default: the `chromium-headless-shell` package's). Without
 * one the suites are skipped and say so, unless `TEST_BROWSER_REQUIRED=1` (CI), where a missing browser fails.
 *
 * One browser per test file (`launchBrowser()` in `before`, closed in `after`); each page in its own browser
 * context so that caches and cookies do not leak between pages.
 */
import assert from 'node:assert/strict';
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const DEFAULT_CHROMIUM = '/usr/lib/chromium/chromium-headless-shell';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A `describe` that is skipped, with the reason, when there is no Chromium; or fails then under TEST_BROWSER_REQUIRED=1. */
export function describeBrowser(name: string, fn: () => void): void {
  const path = chromiumPath();
  if (executable(path)) {
    describe(name, fn);
  } else if (process.env.TEST_BROWSER_REQUIRED === '1') {
    describe(name, () => {
      it('has a Chromium to run in (TEST_BROWSER_REQUIRED=1)', () => {
        assert.fail(`no Chromium at ${path}; install chromium-headless-shell or set CHROMIUM_PATH`);
      });
    });
  } else {
    describe(name, { skip: `browser tests skipped: no Chromium at ${path}; set CHROMIUM_PATH` }, fn);
  }
}

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    // the package is the old headless shell, which is what 'shell' drives
    headless: 'shell',
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start; /dev/shm is small in containers
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    // a call the page never answers fails the test in seconds, not after puppeteer's default three minutes
    protocolTimeout: 20_000,
  });
}

/** What went wrong while a page was open: each list should stay empty. */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests that failed (`net::…`) or were answered with a status ≥ 400. */
  failedRequests: string[];
}

export interface TestPage {
  page: Page;
  problems: PageProblems;
  close(): Promise<void>;
}

/** A page in a fresh browser context, recording console errors, uncaught errors and failed requests from the start. */
export async function openPage(browser: Browser, options: { timezone?: string; javaScript?: boolean } = {}): Promise<TestPage> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], failedRequests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(`${message.text()} (${message.location().url ?? ''})`);
  });
  page.on('pageerror', (error) => problems.pageErrors.push(String(error)));
  page.on('requestfailed', (request) =>
    problems.failedRequests.push(`${request.failure()?.errorText ?? 'failed'} ${request.method()} ${request.url()}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.failedRequests.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  if (options.timezone !== undefined) await page.emulateTimezone(options.timezone);
  if (options.javaScript === false) await page.setJavaScriptEnabled(false);
  await page.setViewport(VIEWPORTS.desktop);
  return { page, problems, close: () => context.close() };
}

export function assertNoProblems(problems: PageProblems, what = 'the page'): void {
  assert.deepEqual(problems, { consoleErrors: [], pageErrors: [], failedRequests: [] }, `${what}: console errors, page errors or failed requests`);
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: 'serious' | 'critical';
  help: string;
  /** CSS selectors of the offending elements */
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The script goes in through the DevTools
 * protocol rather than a `<script>` tag, so a strict Content-Security-Policy on the page does not stop it.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations: any[] = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('no package.json above test/helpers');
    dir = up;
  }
  return dir;
}

/** Kept out of git (.gitignore), for a developer to look at. */
export const SCREENSHOT_DIR = join(projectRoot(), 'test-output', 'screenshots');

/** Full-page PNGs of the page at desktop and phone width (`<name>-desktop.png`, `<name>-phone.png`); their paths. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const paths: string[] = [];
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewport(viewport);
    await nextFrames(page);
    const path = join(SCREENSHOT_DIR, `${name}-${label}.png`);
    await page.screenshot({ path, fullPage: true });
    paths.push(path);
  }
  await page.setViewport(VIEWPORTS.desktop);
  return paths;
}

/** Wait until the page has laid out and painted what its scripts just did (two animation frames). */
export async function nextFrames(page: Page): Promise<void> {
  // without JavaScript no script changes anything, and animation-frame callbacks never run
  if (!page.isJavaScriptEnabled()) return;
  await page.evaluate(
    () => new Promise<void>((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(() => resolve()))),
  );
}
