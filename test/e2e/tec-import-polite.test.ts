/**
 * A polite client and clear failures (FEATURES.md §6.4 case 12, issue 15): the user agent, the limit of
 * requests in flight, Retry-After honoured on a 429, an abort after repeated 503s that a second run resumes
 * from its checkpoint; and discovery's errors for sites that cannot be imported. The faults (429, 503, an
 * HTML answer, a site without the API) are written here, on top of the recorded site.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { localEvents, recordedSite, runImport, zero } from '../helpers/tec-import.js';
import { TecSite } from '../helpers/tec-site.js';

describe('site import: a polite client', () => {
  let t: TestApp;
  let site: TecSite;
  before(async () => {
    site = await TecSite.start(recordedSite(), { delayMs: 15 });
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on', IMPORT_RETRY_BASE_MS: '20' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('stops after 5 failures in a row with a resumable checkpoint; the next run resumes and ends as an uninterrupted run (case 12)', async () => {
    // the site goes down once the 2020 window has been read
    let down = false;
    site.fault = ({ path }) => {
      if (path.includes('start_date=2021-01-01')) down = true;
      return down ? { status: 503 } : undefined;
    };
    const stopped = await runImport(t, { url: site.url });
    site.fault = undefined;
    assert.equal(stopped.state, 'failed');
    assert.match(stopped.failure, /5 failed requests in a row \(last: HTTP 503/);
    assert.match(stopped.failure, /run it again to resume/);
    const partial = stopped.report.resources.events.created;
    assert.ok(partial > 0 && partial < 151, `${partial} events before the stop`);
    const before = site.log.length;
    const resumed = await runImport(t, { url: site.url });
    assert.equal(resumed.state, 'done', resumed.failure);
    assert.equal(resumed.report.resources.events.created, 151, 'the report goes on from the checkpoint');
    const again = site.log.slice(before).map((l) => l.path);
    assert.ok(!again.some((p) => p.includes('start_date=2015-01-01')), 'windows read before the stop are not read again');
    assert.ok(!again.some((p) => p.includes('/categories')), 'nor the categories');
    assert.equal((await localEvents(t)).size, 149);
    const third = await runImport(t, { url: site.url });
    assert.deepEqual(third.report.resources.events, { ...zero, unchanged: 151 }, 'the same state as one uninterrupted run');
    const earlier = await t.get(`/imports/${stopped.id}`, { as: 'administrator' });
    assert.match(earlier.body.failure, new RegExp(`resumed by import ${resumed.id}`));
  });

  it('waits as long as a 429 Retry-After asks, names itself, and keeps to the requests in flight it was given (case 12)', async () => {
    let told = 0;
    site.fault = ({ path }) => {
      if (path.includes('start_date=2019-01-01') && told === 0) {
        told = Date.now();
        return { status: 429, headers: { 'retry-after': '2', 'content-type': 'text/plain' }, body: 'slow down' };
      }
      return undefined;
    };
    site.maxInFlight = 0;
    const from = site.log.length;
    const job = await runImport(t, { url: site.url, concurrency: 2 });
    site.fault = undefined;
    assert.equal(job.state, 'done', job.failure);
    // (a request already sent when the 429 came may land just after it; nothing is sent after it for 2 s)
    const early = site.log.slice(from).filter((l) => l.at > told + 200 && l.at < told + 1950);
    assert.deepEqual(early, [], 'no request within the 2 s the site asked for');
    assert.ok(
      site.log.slice(from).some((l) => l.at >= told + 1950),
      'the import went on after',
    );
    assert.ok(job.report.waited_ms >= 2000);
    assert.ok(site.maxInFlight <= 2, `${site.maxInFlight} requests in flight`);
    assert.equal(site.maxInFlight, 2, 'both slots are used');
    assert.ok(site.log.slice(from).every((l) => /^calendar-events-service-importer\/\S+ \(\+http:\/\/calendar\.test\)$/.test(l.userAgent)));
    site.maxInFlight = 0;
    await runImport(t, { url: site.url, concurrency: 1 });
    assert.equal(site.maxInFlight, 1);
  });
});

describe('site import: the checkpoint of a stopped run waits for a run of the same options', () => {
  let t: TestApp;
  let site: TecSite;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on', IMPORT_RETRY_BASE_MS: '20' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const checkpointOf = async (id: number) => (await t.storage.importMap.jobExtras(id)).checkpoint;

  it('is left alone by a run that fails before it saved anything and by a dry run; the next real run resumes from it', async () => {
    let down = false;
    site.fault = ({ path }) => {
      if (path.includes('start_date=2021-01-01')) down = true;
      return down ? { status: 503 } : undefined;
    };
    const stopped = await runImport(t, { url: site.url });
    site.fault = undefined;
    assert.equal(stopped.state, 'failed');
    assert.ok(await checkpointOf(stopped.id), 'it stopped with a checkpoint');

    // the same options, but the site is down before anything could be saved
    site.fault = () => ({ status: 503 });
    const failed = await runImport(t, { url: site.url });
    site.fault = undefined;
    assert.equal(failed.state, 'failed');
    assert.ok(await checkpointOf(stopped.id), 'the checkpoint is still there after a run that saved nothing');
    assert.doesNotMatch((await t.get(`/imports/${stopped.id}`, { as: 'administrator' })).body.failure, /resumed by/);

    // other options: a dry run does its own whole pass and takes nothing over
    const dry = await runImport(t, { url: site.url, dry_run: true });
    assert.equal(dry.state, 'done', dry.failure);
    assert.ok(await checkpointOf(stopped.id), 'the checkpoint is still there after the dry run');
    assert.doesNotMatch((await t.get(`/imports/${stopped.id}`, { as: 'administrator' })).body.failure, /resumed by/);

    const before = site.log.length;
    const resumed = await runImport(t, { url: site.url });
    assert.equal(resumed.state, 'done', resumed.failure);
    const again = site.log.slice(before).map((l) => l.path);
    assert.ok(!again.some((p) => p.includes('start_date=2015-01-01')), 'windows read before the stop are not read again');
    assert.ok(!again.some((p) => p.includes('/categories')), 'nor the categories');
    assert.equal(resumed.report.resources.events.created, 151, 'the report goes on from the checkpoint');
    assert.equal(await checkpointOf(stopped.id), null, 'taken over: it cannot be resumed twice');
    assert.match((await t.get(`/imports/${stopped.id}`, { as: 'administrator' })).body.failure, new RegExp(`resumed by import ${resumed.id}`));
    assert.equal((await localEvents(t)).size, 149);
  });
});

describe('site import: sites that cannot be imported', () => {
  let t: TestApp;
  let site: TecSite;
  before(async () => {
    t = await createTestApp({ IMPORT_ALLOW_PRIVATE: 'on', IMPORT_RETRY_BASE_MS: '20' });
    // written here: a site whose root index lacks the namespace, one that answers HTML, one that blocks its API
    site = await TecSite.start([
      {
        method: 'GET',
        path: '/plain/wp-json/',
        auth: 'anonymous',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"name":"Blog","namespaces":["wp/v2"]}',
      },
      {
        method: 'GET',
        path: '/html/wp-json/',
        auth: 'anonymous',
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<!doctype html><title>Home</title>',
      },
      {
        method: 'GET',
        path: '/blocked/wp-json/',
        auth: 'anonymous',
        status: 403,
        headers: { 'content-type': 'application/json' },
        body: '{"code":"rest_disabled","message":"No.","data":{"status":403}}',
      },
      {
        method: 'GET',
        path: '/off/wp-json/',
        auth: 'anonymous',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"name":"Off","namespaces":["tribe/events/v1"]}',
      },
    ]);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const failure = async (url: string) => {
    const job = await runImport(t, { url });
    assert.equal(job.state, 'failed');
    return job.failure as string;
  };

  it('says which: no events API, HTML instead of JSON, the API blocked, nothing listening', async () => {
    assert.match(await failure(`${site.url}/plain`), /lists no tribe\/events\/v1 namespace \(it has wp\/v2\)/);
    assert.match(await failure(`${site.url}/html`), /answers text\/html, not JSON: not a WordPress REST API/);
    assert.match(await failure(`${site.url}/blocked`), /refuses the WordPress REST API \(HTTP 403 rest_disabled\)/);
    assert.match(await failure(`${site.url}/off`), /wp-json\/tribe\/events\/v1\/ answers 404/);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    assert.match(await failure(`http://127.0.0.1:${port}`), /is not reachable/);
  });

  it('says the credentials were refused when the application password is wrong (not that the API is blocked)', async () => {
    const recorded = await TecSite.start(recordedSite());
    try {
      const job = await runImport(t, { url: recorded.url, app_password: 'tecadmin:not the password' });
      assert.equal(job.state, 'failed');
      assert.match(job.failure, /refuses the credentials given \(HTTP 401 incorrect_password\)/);
      assert.doesNotMatch(job.failure, /blocks its REST API/);
    } finally {
      await recorded.close();
    }
  });

  it('refuses a since that is not a day that exists: the API with a 400 naming it, the command line with its usage', async () => {
    for (const since of ['2020-02-31', '2021-13-01', '2021-04-31', '2020-2-1', 'tomorrow']) {
      const res = await t.post('/imports', { as: 'administrator', json: { source: 'tec', url: site.url, since } });
      assert.equal(res.status, 400, since);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), ['since']);
    }
    const dir = mkdtempSync(join(tmpdir(), 'tec-since-'));
    try {
      const cli = await runCli(['import', 'tec', site.url, '--since', '2020-02-31'], { DATABASE_URL: `sqlite:${join(dir, 'calendar.db')}` });
      assert.equal(cli.code, 2, cli.stderr);
      assert.match(cli.stderr, /^calendar: --since is a day, YYYY-MM-DD \(2020-02-31 is not one\)$/m);
      assert.equal(existsSync(join(dir, 'calendar.db')), false, 'refused before anything is opened');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses private and loopback sites without IMPORT_ALLOW_PRIVATE, and what is not http(s)', async () => {
    const guarded = await createTestApp();
    try {
      const res = await guarded.post('/imports', { as: 'administrator', json: { source: 'tec', url: site.url } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'import-url-refused');
      const ftp = await guarded.post('/imports', { as: 'administrator', json: { source: 'tec', url: 'ftp://example.org/' } });
      assert.equal(ftp.body.code, 'import-url-refused');
      const editor = await guarded.post('/imports', { as: 'author', json: { source: 'tec', url: 'https://example.org/' } });
      assert.equal(editor.status, 403);
      const missing = await guarded.post('/imports', { as: 'administrator', json: { source: 'tec' } });
      assert.equal(missing.status, 400);
    } finally {
      await guarded.close();
    }
  });
});
