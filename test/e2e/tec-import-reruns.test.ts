/**
 * Running a site import again (FEATURES.md §6.4 cases 2 and 13): a second run changes nothing; a remote edit
 * updates the same local record; an event gone from the site is trashed with `prune`; a dry run writes nothing
 * and reports the plan the real run then carries out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DELETED, localEvents, localIdOf, recordedSite, relist, rowCounts, runImport, TRASHED, unlist, zero } from '../helpers/tec-import.js';
import { ADMIN_APP_PASSWORD, type SiteEntry, TecSite } from '../helpers/tec-site.js';

describe('importing a TEC site again', () => {
  let t: TestApp;
  let site: TecSite;
  let first: any;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('a dry run writes nothing and reports the plan the real run then carries out (case 13)', async () => {
    const before = await rowCounts(t);
    const dry = await runImport(t, { url: site.url, dry_run: true });
    assert.equal(dry.state, 'done', dry.failure);
    assert.deepEqual(await rowCounts(t), before, 'no row written');
    first = await runImport(t, { url: site.url });
    assert.equal(first.state, 'done', first.failure);
    assert.deepEqual(dry.report.resources, first.report.resources);
    assert.deepEqual(dry.report.warnings, first.report.warnings);
    assert.equal(first.report.resources.events.created, 151);
    assert.ok((await rowCounts(t)).posts > before.posts);
  });

  it('a second run creates and updates nothing (case 2)', async () => {
    const again = await runImport(t, { url: site.url });
    assert.equal(again.state, 'done', again.failure);
    const r = again.report.resources;
    assert.deepEqual(r.events, { ...zero, unchanged: 151 });
    assert.deepEqual(r.categories, { ...zero, unchanged: 9 });
    assert.deepEqual(r.tags, { ...zero, unchanged: 11 });
    assert.deepEqual(r.venues, { ...zero, unchanged: 12 });
    assert.deepEqual(r.organizers, { ...zero, unchanged: 8 });
    assert.deepEqual(r.images, { ...zero, unchanged: 5 });
    assert.deepEqual(again.counts, { created: 0, updated: 0, skipped: 196, failed: 0 });
  });

  it('an event whose title changed on the site is updated in place: one update, the same local id (case 2)', async () => {
    const before = (await localEvents(t)).get('127.0.0.1?id=29');
    site.transform = (e) => ({ ...e, body: e.body.replaceAll('"title":"Summer Arts Festival"', '"title":"Summer Arts Festival (new dates soon)"') });
    const job = await runImport(t, { url: site.url });
    site.transform = undefined;
    assert.deepEqual(job.report.resources.events, { ...zero, updated: 1, unchanged: 150 });
    const after = (await localEvents(t)).get('127.0.0.1?id=29');
    assert.equal(after.id, before.id);
    assert.equal(after.title, 'Summer Arts Festival (new dates soon)');
    assert.equal(after.slug, before.slug, 'the slug stays');
    // and back: the site's title again
    const back = await runImport(t, { url: site.url });
    assert.deepEqual(back.report.resources.events, { ...zero, updated: 1, unchanged: 150 });
  });

  it('an event gone from the site goes to the trash with prune, after a complete pass; without prune it stays (case 2)', async () => {
    const local = (await localEvents(t)).get('127.0.0.1?id=161');
    assert.ok(local);
    unlist(site, 161, DELETED);
    const kept = await runImport(t, { url: site.url });
    assert.deepEqual(kept.report.resources.events, { ...zero, unchanged: 150 });
    assert.equal((await t.get(`/events/${local.id}`, { as: 'administrator' })).body.status, 'publish');
    const pruned = await runImport(t, { url: site.url, prune: true });
    assert.equal(pruned.report.complete, true);
    assert.deepEqual(pruned.report.resources.events, { ...zero, trashed: 1, unchanged: 150 });
    assert.deepEqual(pruned.report.resources.venues, { ...zero, unchanged: 12 }, 'venues still on the site stay');
    const gone = await t.get(`/events/${local.id}`, { as: 'administrator' });
    assert.equal(gone.status, 403);
    assert.equal(gone.body.code, 'event-no-longer-available');
    assert.deepEqual(site.misses, []);
  });
});

describe('importing a protected event again without its password', () => {
  let t: TestApp;
  let site: TecSite;
  let full: any;
  const protectedEvent = async () => (await t.get('/events/by-slug/members-only-preview', { as: 'administrator' })).body;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    const first = await runImport(t, { url: site.url, event_password: 'letmein' });
    assert.equal(first.state, 'done', first.failure);
    full = await protectedEvent();
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('keeps the complete copy an earlier run read with the password: nothing is blanked, the event is unchanged', async () => {
    assert.equal(full.status, 'private');
    assert.notEqual(full.description, '');
    assert.notEqual(full.cost, '');
    assert.ok(full.venue?.id, 'it has its venue');
    assert.ok(full.categories.length > 0, 'and its categories');
    for (const options of [{}, { event_password: 'wrong-password' }]) {
      const again = await runImport(t, { url: site.url, ...options });
      assert.equal(again.state, 'done', again.failure);
      assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 151 }, JSON.stringify(options));
      assert.ok(
        again.report.warnings.some((w: any) => w.remote_id === '77' && /kept as it was/.test(w.reason)),
        'the report says why it was left alone',
      );
      const now = await protectedEvent();
      assert.deepEqual(
        [now.status, now.description, now.cost, now.venue?.id, now.categories.map((c: any) => c.id), now.modified],
        [full.status, full.description, full.cost, full.venue?.id, full.categories.map((c: any) => c.id), full.modified],
      );
    }
    const map = await t.storage.db
      .selectFrom('import_map')
      .select('incomplete')
      .where('kind', '=', 'event')
      .where('remote_id', '=', '77')
      .executeTakeFirstOrThrow();
    assert.equal(Number(map.incomplete), 0, 'still mapped as complete');
  });

  it('is seen by a pass that could not read it: prune leaves it; with the password again it is still unchanged', async () => {
    const pruned = await runImport(t, { url: site.url, prune: true });
    assert.equal(pruned.report.complete, true);
    assert.deepEqual(pruned.report.resources.events, { ...zero, unchanged: 151 });
    assert.equal((await protectedEvent()).status, 'private');
    const again = await runImport(t, { url: site.url, event_password: 'letmein' });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 151 });
  });
});

describe('pruning after a run with an application password, without it', () => {
  let t: TestApp;
  let site: TecSite;
  const statusOf = async (local: Map<string, any>, id: number) =>
    (await t.get(`/events/${local.get(`127.0.0.1?id=${id}`).id}`, { as: 'administrator' })).body.status;
  before(async () => {
    site = await TecSite.start(recordedSite());
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('keeps the drafts, pending, private and scheduled events that answer 403 to this run: still on the site, not gone', async () => {
    const first = await runImport(t, { url: site.url, app_password: ADMIN_APP_PASSWORD });
    assert.equal(first.state, 'done', first.failure);
    assert.equal(first.report.resources.events.created, 157);
    const local = await localEvents(t);
    const statuses = ['draft', 'draft', 'draft', 'pending', 'private', 'future'];
    for (const [i, id] of [78, 79, 80, 81, 82, 83].entries()) assert.equal(await statusOf(local, id), statuses[i]);
    const pruned = await runImport(t, { url: site.url, prune: true });
    assert.equal(pruned.state, 'done', pruned.failure);
    assert.equal(pruned.report.complete, true);
    assert.deepEqual(pruned.report.resources.events, { ...zero, unchanged: 157 });
    for (const [i, id] of [78, 79, 80, 81, 82, 83].entries()) assert.equal(await statusOf(local, id), statuses[i], `event ${id}`);
    const warning = pruned.report.warnings.find((w: any) => /never pruned/.test(w.reason));
    assert.equal(warning?.remote_id, '78, 79, 80, 81, 82, 83');
    // the draft venue and organizer (recorded: they answer 403 to anyone else) are still on the site too
    assert.equal(pruned.report.resources.venues.trashed, 0, JSON.stringify(pruned.report.resources.venues));
    assert.equal(pruned.report.resources.organizers.trashed, 0, JSON.stringify(pruned.report.resources.organizers));
    for (const [kind, id] of [
      ['venue', 18],
      ['organizer', 27],
    ] as const) {
      const local = await t.get(`/${kind}s/${await localIdOf(t, kind, id)}`, { as: 'administrator' });
      assert.equal(local.body.status, 'draft', `${kind} ${id}`);
    }
    assert.deepEqual(site.misses, []);
  });

  it('trashes an event the site moved to its trash (its URL answers 403 event-no-longer-available)', async () => {
    const local = await localEvents(t);
    unlist(site, 161, TRASHED);
    const pruned = await runImport(t, { url: site.url, prune: true });
    relist(site);
    assert.deepEqual(pruned.report.resources.events, { ...zero, trashed: 1, unchanged: 156 });
    assert.equal((await t.get(`/events/${local.get('127.0.0.1?id=161').id}`, { as: 'administrator' })).body.code, 'event-no-longer-available');
    assert.equal(await statusOf(local, 82), 'private');
  });

  it('keeps a draft venue and organizer no event shows any more (they answer 403 by id); trashes them once the site has them no more', async () => {
    const mapped = async (kind: 'venue' | 'organizer', id: number) =>
      (await t.get(`/${kind}s/${await localIdOf(t, kind, id)}`, { as: 'administrator' })).body;
    // the events that showed venue 18 and organizer 27 show them no more: this pass sees neither
    const unlinked = (entry: SiteEntry): SiteEntry => {
      if (!entry.path.includes('/events') || !entry.body.startsWith('{')) return entry;
      const body = JSON.parse(entry.body);
      const unlink = (e: any) => {
        if (e?.venue?.id === 18) e.venue = [];
        if (Array.isArray(e?.organizer)) e.organizer = e.organizer.filter((o: any) => o.id !== 27);
      };
      if (Array.isArray(body.events)) body.events.forEach(unlink);
      else unlink(body);
      return { ...entry, body: JSON.stringify(body) };
    };
    site.transform = unlinked;
    const pruned = await runImport(t, { url: site.url, prune: true });
    assert.equal(pruned.state, 'done', pruned.failure);
    assert.equal(pruned.report.resources.venues.trashed, 0);
    assert.equal(pruned.report.resources.organizers.trashed, 0);
    assert.equal((await mapped('venue', 18)).status, 'draft');
    assert.equal((await mapped('organizer', 27)).status, 'draft');
    for (const [resource, id] of [
      ['venues', '18'],
      ['organizers', '27'],
    ]) {
      assert.ok(
        pruned.report.warnings.some((w: any) => w.resource === resource && w.remote_id === id && /still on the site .*never pruned/.test(w.reason)),
        `${resource}: ${JSON.stringify(pruned.report.warnings)}`,
      );
    }
    // now gone from the site: their URLs answer as the site answers an id that is no post (400)
    const gone = {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): id',
      data: { status: 400, params: { id: 'Invalid parameter.' }, details: [] },
    };
    site.transform = (entry) =>
      /\/(venues\/18|organizers\/27)$/.test(entry.path) ? { ...entry, status: 400, body: JSON.stringify(gone) } : unlinked(entry);
    const again = await runImport(t, { url: site.url, prune: true });
    relist(site);
    assert.equal(again.report.resources.venues.trashed, 1);
    assert.equal(again.report.resources.organizers.trashed, 1);
    assert.equal((await mapped('venue', 18)).status, 'trash');
    assert.equal((await mapped('organizer', 27)).status, 'trash');
    // back on the site (the recorded answers again): the events link a new copy, none fails
    const back = await runImport(t, { url: site.url });
    assert.equal(back.state, 'done', back.failure);
    assert.equal(back.report.resources.events.failed, 0, JSON.stringify(back.report.warnings));
    assert.equal(back.report.resources.venues.created, 1);
    const linked = (await mapped('venue', 18)) as any;
    assert.equal(linked.status, 'draft');
  });
});
