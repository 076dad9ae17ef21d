/**
 * The browser helpers catch what they exist to catch, so that an empty list in another test means something: a
 * page's console errors, uncaught errors and failed requests; axe-core's serious violations, under a strict
 * Content-Security-Policy like our pages'; screenshots at both widths; and the suite's skip without Chromium.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { assertNoProblems, axeViolations, describeBrowser, launchBrowser, openPage, screenshots } from '../helpers/browser.js';

const PROBE = fileURLToPath(new URL('../fixtures/browser/probe-suite.js', import.meta.url));
const CSP = "default-src 'none'; script-src 'self'; img-src 'self'; style-src 'self'";

const CLEAN = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Clean</title></head>
<body><main><h1>Clean</h1><p>Nothing wrong here.</p><button type="button">Go</button></main></body></html>`;
const BROKEN = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Broken</title></head>
<body><main><h1>Broken</h1><img src="/missing.png"><button type="button"></button><script src="/broken.js"></script></main></body></html>`;

function runProbe(env: Record<string, string>) {
  const childEnv: Record<string, string | undefined> = { ...process.env, TEST_BROWSER_REQUIRED: '', ...env };
  // the child is a test run of its own, not a subtest reporting to this one
  delete childEnv.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, ['--test', '--test-reporter=spec', PROBE], { env: childEnv, encoding: 'utf8', timeout: 30_000 });
}

describe('a browser suite without Chromium', () => {
  it('is skipped, saying where it looked and what to set', () => {
    const run = runProbe({ CHROMIUM_PATH: '/nonexistent/chromium' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /# browser tests skipped: no Chromium at \/nonexistent\/chromium; set CHROMIUM_PATH/);
    assert.match(run.stdout, /ℹ pass 0/);
  });

  it('fails under TEST_BROWSER_REQUIRED=1', () => {
    const run = runProbe({ CHROMIUM_PATH: '/nonexistent/chromium', TEST_BROWSER_REQUIRED: '1' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /no Chromium at \/nonexistent\/chromium/);
  });
});

describeBrowser('browser helpers', () => {
  let browser: Browser;
  let server: Server;
  let origin: string;

  before(async () => {
    server = createServer((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP }).end(body);
      if (req.url === '/clean') html(CLEAN);
      else if (req.url === '/broken') html(BROKEN);
      else if (req.url === '/broken.js')
        res.writeHead(200, { 'content-type': 'text/javascript' }).end("console.error('boom'); throw new Error('uncaught on purpose');");
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('finds nothing to report on a clean page', async () => {
    const { page, problems, close } = await openPage(browser);
    await page.goto(`${origin}/clean`);
    assertNoProblems(problems);
    assert.deepEqual(await axeViolations(page), []);
    await close();
  });

  it('reports console errors, uncaught errors, a 404, and axe-core’s critical violations despite the CSP', async () => {
    const { page, problems, close } = await openPage(browser);
    await page.goto(`${origin}/broken`);
    assert.throws(() => assertNoProblems(problems));
    assert.ok(
      problems.consoleErrors.some((e) => e.includes('boom')),
      problems.consoleErrors.join('\n'),
    );
    assert.ok(
      problems.pageErrors.some((e) => e.includes('uncaught on purpose')),
      problems.pageErrors.join('\n'),
    );
    assert.ok(problems.failedRequests.includes(`404 GET ${origin}/missing.png`), problems.failedRequests.join('\n'));
    const ids = (await axeViolations(page)).map((v) => v.id).sort();
    assert.deepEqual(ids, ['button-name', 'image-alt']);
    await close();
  });

  it('writes full-page PNGs 1280 and 390 pixels wide', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(`${origin}/clean`);
    const paths = await screenshots(page, 'browser-helpers-clean');
    // a PNG's width is the big-endian integer at byte 16 (the IHDR chunk)
    assert.deepEqual(
      paths.map((p) => readFileSync(p).readUInt32BE(16)),
      [1280, 390],
    );
    await close();
  });
});
