/**
 * `--images download` (FEATURES.md §6.3 "Images", §6.4 case 9): every image file a site shows is downloaded once
 * and served here at `/media/<sha256>.<ext>`; a second run only asks whether each file changed (304s);
 * whatever goes wrong with one file is a warning and the import completes; a run stopped half-way resumes
 * without downloading again. The recorded site's records name their uploads but the recording has no files:
 * they are written by the tests (test/helpers/tec-images.ts), PNGs of the recorded sizes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { ImageFiles, png, sha256 } from '../helpers/tec-images.js';
import { localEvents, recordedSite, rowCounts, runImport, zero } from '../helpers/tec-import.js';
import { TecSite } from '../helpers/tec-site.js';

const UPLOADS = '/wp-content/uploads/2026/11';
const CONCERT = `${UPLOADS}/concert-m0wKga.png`;
const LECTURE = `${UPLOADS}/lecture-VWUx4J.png`;
const FESTIVAL = `${UPLOADS}/festival-QNaH5f.png`;
const WORKSHOP = `${UPLOADS}/workshop-jlSA4o.png`;
const MARKET = `${UPLOADS}/market-uoep7P.png`;

const fileRequests = (site: TecSite, from = 0) => site.log.slice(from).filter((l) => l.path.startsWith('/wp-content/'));

async function mediaRows(t: TestApp) {
  const sources = await t.storage.db.selectFrom('media_sources').select(['url', 'blob_sha256', 'etag', 'last_modified']).orderBy('url').execute();
  const blobs = await t.storage.db.selectFrom('media_blobs').select(['sha256', 'size', 'width', 'height', 'created_at']).orderBy('sha256').execute();
  return { sources, blobs };
}

describe('site import: images downloaded and served here (case 9)', () => {
  let t: TestApp;
  let site: TecSite;
  let files: ImageFiles;
  let first: any;
  let local: Map<string, any>;
  const ev = (id: number) => local.get(`127.0.0.1?id=${id}`);
  before(async () => {
    site = await TecSite.start(recordedSite());
    files = new ImageFiles();
    files.serve(site);
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    first = await runImport(t, { url: site.url, images: 'download' });
    local = await localEvents(t);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('downloads each file once: the image three events and a venue show is one download and one image (case 9)', async () => {
    assert.equal(first.state, 'done', first.failure);
    assert.equal(first.report.complete, true);
    assert.deepEqual(first.report.resources.images, { ...zero, created: 5 });
    assert.deepEqual([first.report.resources.events.created, first.report.resources.events.failed], [151, 0]);
    assert.deepEqual(
      first.report.warnings.filter((w: any) => w.resource === 'images'),
      [],
    );
    const requests = fileRequests(site);
    assert.equal(files.dimensions.size, 19, 'five images: their full sizes and the 14 sizes the site lists');
    for (const path of files.dimensions.keys()) assert.equal(requests.filter((r) => r.path === path).length, 1, `${path}: one request`);
    assert.equal(requests.length, 19);
    assert.ok(
      requests.every((r) => r.status === 200 && r.auth === 'anonymous' && r.headers['if-none-match'] === undefined),
      'plain GETs without credentials',
    );

    const concert = ev(47).image;
    assert.equal(concert.url, `${PUBLIC_URL}/media/${sha256(files.bytes(CONCERT))}.png`);
    assert.deepEqual([ev(93).image.id, ev(128).image.id], [concert.id, concert.id], 'one image for the three events');
    const hall = await t.get('/venues', { query: { search: 'Riverside Concert Hall' } });
    assert.equal(hall.body.venues[0].image.id, concert.id, 'and for the venue');
    assert.deepEqual([concert.extension, concert.width, concert.height, concert.filesize], ['png', 800, 500, files.bytes(CONCERT).length]);
    assert.deepEqual(Object.keys(concert.sizes), ['medium', 'thumbnail', 'medium_large'], 'the sizes the site lists, in its order');
    const thumb = `${UPLOADS}/concert-m0wKga-150x150.png`;
    assert.deepEqual(concert.sizes.thumbnail, {
      width: 150,
      height: 150,
      'mime-type': 'image/png',
      filesize: files.bytes(thumb).length,
      url: `${PUBLIC_URL}/media/${sha256(files.bytes(thumb))}.png`,
    });

    // identical bytes under several URLs (every 150×150 thumbnail here) are one copy
    const { sources, blobs } = await mediaRows(t);
    assert.equal(sources.length, 19);
    assert.equal(blobs.length, new Set([...files.dimensions.keys()].map((p) => sha256(files.bytes(p)))).size);
    assert.ok(blobs.length < sources.length);
    assert.equal(ev(66).image.sizes.thumbnail.url, concert.sizes.thumbnail.url, 'the lecture thumbnail is the same copy');
    assert.deepEqual(site.misses, []);
  });

  it('serves the copies: the same bytes, their type, nosniff, sandboxed, a strong ETag, a year of caching; 304, HEAD, 404 (case 9)', async () => {
    const path = new URL(ev(47).image.url).pathname;
    const sha = sha256(files.bytes(CONCERT));
    for (const headers of [{}, t.authHeader('administrator')]) {
      const res = await t.app.inject({ method: 'GET', url: path, headers });
      assert.equal(res.statusCode, 200);
      assert.ok(res.rawPayload.equals(files.bytes(CONCERT)), 'the bytes the site served');
      assert.equal(res.headers['content-type'], 'image/png');
      assert.equal(res.headers['content-length'], String(files.bytes(CONCERT).length));
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; sandbox");
      assert.equal(res.headers.etag, `"${sha}"`);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', 'for a signed-in caller too');
      assert.equal(res.headers.expires, undefined);
      assert.equal(res.headers.vary, undefined, 'the same bytes for everyone');
    }
    const current = await t.app.inject({ method: 'GET', url: path, headers: { 'if-none-match': `"${sha}"` } });
    assert.equal(current.statusCode, 304);
    assert.equal(current.payload, '');
    assert.equal(current.headers.etag, `"${sha}"`);
    assert.equal(current.headers['cache-control'], 'public, max-age=31536000, immutable');
    const stale = await t.app.inject({ method: 'GET', url: path, headers: { 'if-none-match': '"other"' } });
    assert.equal(stale.statusCode, 200);
    const head = await t.app.inject({ method: 'HEAD', url: path });
    assert.equal(head.statusCode, 200);
    assert.equal(head.payload, '');
    assert.equal(head.headers['content-length'], String(files.bytes(CONCERT).length));
    assert.equal(head.headers['content-type'], 'image/png');
    for (const name of [`${'0'.repeat(64)}.png`, `${sha}.jpg`, `${sha}.svg`, sha, 'concert-m0wKga.png', `${sha.toUpperCase()}.png`]) {
      const res = await t.app.inject({ method: 'GET', url: `/media/${name}` });
      assert.equal(res.statusCode, 404, name);
      assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
      assert.equal(JSON.parse(res.payload).code, 'media-not-found', name);
    }
    const missingHead = await t.app.inject({ method: 'HEAD', url: `/media/${'0'.repeat(64)}.png` });
    assert.equal(missingHead.statusCode, 404);

    // beside the pages, and without them
    const bare = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', PAGES: 'off' }), t.storage, { logger: false });
    try {
      const res = await bare.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 200);
      assert.ok(res.rawPayload.equals(files.bytes(CONCERT)));
      assert.equal((await bare.inject({ method: 'GET', url: '/events/' })).statusCode, 404, 'the pages are off');
    } finally {
      await bare.close();
    }
  });

  it('takes images=link, download or skip, and refuses anything else naming the parameter', async () => {
    for (const images of ['copy', '', 'DOWNLOAD']) {
      const res = await t.post('/imports', { as: 'administrator', json: { source: 'tec', url: site.url, images } });
      assert.equal(res.status, 400, images);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), ['images']);
    }
  });

  it('the pages show the copy', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/event/featured-talk-with-reused-image-attachment-id/' });
    assert.equal(page.statusCode, 200);
    assert.ok(page.payload.includes(`src="${ev(93).image.url}"`), 'the event page shows our copy');
    assert.ok(!page.payload.includes('concert-m0wKga'), 'not the file on the old site');
  });

  it('a second run only asks whether each file changed: 304s, nothing downloaded, nothing changed (case 9)', async () => {
    const from = site.log.length;
    const rows = await rowCounts(t);
    const media = await mediaRows(t);
    const again = await runImport(t, { url: site.url, images: 'download' });
    assert.equal(again.state, 'done', again.failure);
    const requests = fileRequests(site, from);
    assert.equal(requests.length, 19, 'one request per file');
    for (const r of requests) {
      assert.equal(r.status, 304, r.path);
      assert.match(String(r.headers['if-none-match']), /^"[0-9a-f]{16}"$/, r.path);
      assert.equal(r.headers['if-modified-since'], 'Mon, 23 Nov 2026 12:00:00 GMT', r.path);
    }
    assert.deepEqual(again.report.resources.images, { ...zero, unchanged: 5 });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 151 });
    assert.deepEqual(again.counts, { created: 0, updated: 0, skipped: 196, failed: 0 });
    assert.deepEqual(await rowCounts(t), rows);
    assert.deepEqual(await mediaRows(t), media, 'no file stored again');
  });

  it('a file changed on the site is downloaded again into the same image; a link run points it back at the site, and back', async () => {
    const before = ev(47).image;
    files.answers.set(CONCERT, { bytes: png(800, 500, 3) });
    const from = site.log.length;
    const changed = await runImport(t, { url: site.url, images: 'download' });
    assert.deepEqual(changed.report.resources.images, { ...zero, updated: 1, unchanged: 4 });
    assert.deepEqual(changed.report.resources.events, { ...zero, unchanged: 151 }, 'the events show the same image');
    assert.deepEqual(
      fileRequests(site, from)
        .filter((r) => r.status === 200)
        .map((r) => r.path),
      [CONCERT],
    );
    local = await localEvents(t);
    assert.equal(ev(47).image.id, before.id);
    assert.equal(ev(47).image.url, `${PUBLIC_URL}/media/${sha256(files.bytes(CONCERT))}.png`);
    assert.notEqual(ev(47).image.url, before.url);
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(before.url).pathname })).statusCode, 200, 'the earlier copy is still served');

    const linkFrom = site.log.length;
    const linked = await runImport(t, { url: site.url });
    assert.deepEqual(linked.report.resources.images, { ...zero, updated: 5 });
    assert.deepEqual(linked.report.resources.events, { ...zero, unchanged: 151 });
    assert.equal(fileRequests(site, linkFrom).length, 0, 'a link run fetches no file');
    local = await localEvents(t);
    assert.equal(ev(47).image.id, before.id);
    assert.equal(ev(47).image.url, `${site.url}${CONCERT}`);
    assert.equal(ev(47).image.sizes.thumbnail.url, `${site.url}${UPLOADS}/concert-m0wKga-150x150.png`);

    const back = await runImport(t, { url: site.url, images: 'download' });
    assert.deepEqual(back.report.resources.images, { ...zero, updated: 5 });
    local = await localEvents(t);
    assert.equal(ev(47).image.url, `${PUBLIC_URL}/media/${sha256(files.bytes(CONCERT))}.png`);
    assert.equal(ev(47).image.id, before.id);
  });
});

describe('site import: image files that cannot be downloaded', () => {
  let t: TestApp;
  let site: TecSite;
  let files: ImageFiles;
  let job: any;
  let local: Map<string, any>;
  const ev = (id: number) => local.get(`127.0.0.1?id=${id}`);
  before(async () => {
    site = await TecSite.start(recordedSite());
    files = new ImageFiles();
    files.answers.set(CONCERT, {
      bytes: Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'),
      type: 'image/svg+xml',
    });
    files.answers.set(LECTURE, { bytes: Buffer.from('<!DOCTYPE html>\n<html><body>Image moved</body></html>'), type: 'image/png' });
    files.answers.set(FESTIVAL, {
      method: 'GET',
      path: FESTIVAL,
      auth: 'anonymous',
      status: 404,
      headers: { 'content-type': 'text/html' },
      body: '<html>Not found</html>',
    });
    files.answers.set(WORKSHOP, { bytes: Buffer.concat([png(640, 400), Buffer.alloc(20 * 1024 * 1024)]) });
    files.serve(site);
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url, images: 'download' });
    local = await localEvents(t);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('an SVG, an HTML page, a 404 and a file over 20 MB are each a warning; the import completes, those records without an image', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.equal(job.report.complete, true);
    assert.deepEqual([job.report.resources.events.created, job.report.resources.events.failed], [151, 0]);
    assert.deepEqual(job.report.resources.images, { ...zero, created: 1, failed: 4 });
    const warning = (rid: string) => job.report.warnings.filter((w: any) => w.resource === 'images' && w.remote_id === rid).map((w: any) => w.reason);
    assert.deepEqual(warning('5'), [`${site.url}${CONCERT}: an SVG image (SVG can carry script): not kept; imported without an image`]);
    assert.deepEqual(warning('19'), [`${site.url}${LECTURE}: an HTML page, not an image; imported without an image`]);
    assert.deepEqual(warning('12'), [`${site.url}${FESTIVAL}: the site answered HTTP 404; imported without an image`]);
    assert.deepEqual(warning('30'), [`${site.url}${WORKSHOP}: larger than 20 MB; imported without an image`]);
    for (const id of [47, 93, 128, 66, 29, 31, 111]) assert.equal(ev(id).image, false, `event ${id}: no image rather than a broken one`);
    const hall = await t.get('/venues', { query: { search: 'Riverside Concert Hall' } });
    assert.equal(hall.body.venues[0].image, undefined, 'the venue neither');
    assert.equal(ev(69).image.url, `${PUBLIC_URL}/media/${sha256(files.bytes(MARKET))}.png`, 'the good image came');
    const requests = fileRequests(site);
    for (const path of [CONCERT, LECTURE, FESTIVAL, WORKSHOP]) assert.equal(requests.filter((r) => r.path === path).length, 1, `${path}: asked once`);
    assert.ok(!requests.some((r) => r.path.startsWith(`${UPLOADS}/concert-m0wKga-`)), 'the sizes of an image that failed are not fetched');
    const blobs = await t.storage.db.selectFrom('media_blobs').select('mime_type').execute();
    assert.deepEqual(new Set(blobs.map((b) => b.mime_type)), new Set(['image/png']), 'nothing but the market image and its sizes kept');
    assert.equal(blobs.length, 4);
  });

  it('once the site serves them, the next run brings them and gives the records their images', async () => {
    const good = new ImageFiles();
    for (const path of [CONCERT, LECTURE, FESTIVAL, WORKSHOP]) files.answers.set(path, { bytes: good.bytes(path) });
    const again = await runImport(t, { url: site.url, images: 'download' });
    assert.equal(again.state, 'done', again.failure);
    assert.deepEqual(again.report.resources.images, { ...zero, created: 4, unchanged: 1 });
    local = await localEvents(t);
    assert.equal(ev(47).image.url, `${PUBLIC_URL}/media/${sha256(files.bytes(CONCERT))}.png`);
    assert.equal(ev(29).image.width, 1200);
  });
});

describe('site import: a download run stopped half-way', () => {
  let t: TestApp;
  let site: TecSite;
  let files: ImageFiles;
  before(async () => {
    site = await TecSite.start(recordedSite());
    files = new ImageFiles();
    files.serve(site);
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on', IMPORT_RETRY_BASE_MS: '20' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('resumes from its checkpoint without downloading again what it had downloaded', async () => {
    // the site's API goes down once the 2021 window is asked for (its uploads stay up)
    let down = false;
    site.fault = ({ path }) => {
      if (path.includes('start_date=2021-01-01')) down = true;
      return down && path.startsWith('/wp-json/') ? { status: 503 } : undefined;
    };
    const stopped = await runImport(t, { url: site.url, images: 'download' });
    site.fault = undefined;
    assert.equal(stopped.state, 'failed');
    const kept = new Set((await t.storage.db.selectFrom('media_sources').select('url').execute()).map((r) => new URL(r.url).pathname));
    assert.ok(kept.has(CONCERT) && kept.has(FESTIVAL) && kept.has(LECTURE), 'the venues’ and organizers’ images came before the stop');
    assert.ok(kept.size < 19, `${kept.size} files before the stop`);
    const from = site.log.length;
    const resumed = await runImport(t, { url: site.url, images: 'download' });
    assert.equal(resumed.state, 'done', resumed.failure);
    const again = fileRequests(site, from);
    assert.deepEqual(
      again.filter((r) => kept.has(r.path)).map((r) => r.path),
      [],
      'nothing downloaded before the stop is asked for again',
    );
    for (const path of files.dimensions.keys()) {
      assert.equal(fileRequests(site).filter((r) => r.path === path).length, 1, `${path}: one request over both runs`);
    }
    assert.deepEqual(resumed.report.resources.images, { ...zero, created: 5 });
    assert.equal((await localEvents(t)).get('127.0.0.1?id=128').image.url, `${PUBLIC_URL}/media/${sha256(files.bytes(CONCERT))}.png`);
  });
});
