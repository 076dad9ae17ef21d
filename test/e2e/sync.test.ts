/**
 * Sync tokens, the change log and polling (issue 16, FEATURES.md §2.3, §2.4 cases 7–13): a full sync in cursor
 * pages, then exactly what changed since for this caller — objects and tombstones — with tokens bound to the route
 * and the caller, 400 for a forged or foreign one, 410 for one the log can no longer serve.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory, makeEvent, makeLinked } from '../helpers/factories.js';

interface Synced {
  /** Every item of every page, in order. */
  items: any[];
  /** The ids of the objects, and of the tombstones with their reasons. */
  objects: number[];
  removed: Map<number, string>;
  pages: any[];
  token: string;
}

/** Follows a sync from `token` to its last page. */
async function sync(t: TestApp, route: string, as: Caller, token = 'start', extra: Record<string, string | number> = {}): Promise<Synced> {
  const pages: any[] = [];
  let query: Record<string, string | number> = { sync_token: token, ...extra };
  for (;;) {
    const res = await t.get(`/${route}`, { as, query });
    assert.equal(res.status, 200, res.text);
    pages.push(res);
    if (res.body.next_page_token === undefined) break;
    query = { page_token: res.body.next_page_token, ...('per_page' in extra ? { per_page: extra.per_page } : {}) };
  }
  const items = pages.flatMap((p) => p.body[route]);
  const last = pages[pages.length - 1];
  return {
    items,
    objects: items.filter((i) => i.removed === undefined).map((i) => i.id),
    removed: new Map(items.filter((i) => i.removed !== undefined).map((i) => [i.id, i.removed.reason])),
    pages,
    token: last.body.next_sync_token,
  };
}

const day = (n: number) => `2032-03-${String(n).padStart(2, '0')}`;

describe('sync tokens', () => {
  let t: TestApp;
  beforeEach(async () => (t = await createTestApp()));
  afterEach(() => t.close());

  it('pages a full sync with per_page, the token only on the last page; then exactly what changed (case 7)', async () => {
    const made: any[] = [];
    for (let i = 0; i < 120; i++)
      made.push(await makeEvent(t, { title: `E${i}`, start_date: `${day(1 + (i % 28))} 10:00`, end_date: `${day(1 + (i % 28))} 11:00` }));
    // an event long past and one far ahead: a sync has no date window
    const past = await makeEvent(t, { title: 'Long ago', start_date: '2001-01-01 10:00', end_date: '2001-01-01 11:00' });
    const far = await makeEvent(t, { title: 'Far ahead', start_date: '2090-01-01 10:00', end_date: '2090-01-01 11:00' });

    const full = await sync(t, 'events', 'anonymous', 'start', { per_page: 50 });
    assert.equal(full.pages.length, 3);
    assert.deepEqual(
      full.pages.map((p) => [p.body.events.length, p.body.next_page_token !== undefined, p.body.next_sync_token !== undefined]),
      [
        [50, true, false],
        [50, true, false],
        [22, false, true],
      ],
    );
    assert.equal(full.pages[2].headers['x-sync-token'], full.token);
    assert.equal(full.pages[0].headers['x-sync-token'], undefined);
    assert.deepEqual(new Set(full.objects), new Set([...made.map((e) => e.id), past.id, far.id]));
    // items are the list's objects
    assert.equal(full.items.find((i) => i.id === made[0].id).title, 'E0');
    // no list keys in sync mode, and no new keys on the objects
    assert.equal(full.pages[0].body.total, undefined);
    const listed = (await t.get('/events', { query: { start_date: day(1), end_date: day(1) } })).body.events[0];
    assert.deepEqual(Object.keys(full.items.find((i) => i.id === listed.id)), [...Object.keys(listed), 'etag']);
    // each object's etag is what a single read of it answers this caller: a conditional write needs no read first
    const item = full.items.find((i) => i.id === made[5].id);
    assert.equal(item.etag, (await t.get(`/events/${made[5].id}`)).headers.etag);

    const created = await makeEvent(t, { title: 'Created', start_date: `${day(3)} 09:00`, end_date: `${day(3)} 10:00` });
    assert.equal((await t.post(`/events/${made[1].id}`, { as: 'administrator', json: { title: 'Updated' } })).status, 200);
    assert.equal((await t.del(`/events/${made[2].id}`, { as: 'administrator' })).status, 200);
    assert.equal((await t.post(`/events/${made[3].id}`, { as: 'administrator', json: { hide_from_listings: true } })).status, 200);

    const next = await sync(t, 'events', 'anonymous', full.token);
    assert.equal(next.items.length, 4);
    assert.deepEqual(next.objects.sort(), [created.id, made[1].id].sort());
    assert.equal(next.items.find((i) => i.id === made[1].id).title, 'Updated');
    assert.deepEqual(
      next.removed,
      new Map([
        [made[2].id, 'deleted'],
        [made[3].id, 'not_visible'],
      ]),
    );
    const stone = next.items.find((i) => i.id === made[2].id);
    assert.deepEqual(Object.keys(stone), ['id', 'removed', 'modified_utc']);
    assert.match(stone.modified_utc, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // nothing since: an empty last page with a token that serves again
    const idle = await sync(t, 'events', 'anonymous', next.token);
    assert.deepEqual(idle.items, []);
    assert.ok(idle.token);
  });

  it('shows an unpublished event as a tombstone to anonymous callers and as a draft to editors (case 8)', async () => {
    const e = await makeEvent(t, { title: 'Going private' });
    const anon = await sync(t, 'events', 'anonymous');
    const editor = await sync(t, 'events', 'editor');
    assert.deepEqual(anon.objects, [e.id]);
    assert.equal((await t.post(`/events/${e.id}`, { as: 'administrator', json: { status: 'draft' } })).status, 200);
    const anonNext = await sync(t, 'events', 'anonymous', anon.token);
    assert.deepEqual([...anonNext.removed], [[e.id, 'not_visible']]);
    const editorNext = await sync(t, 'events', 'editor', editor.token);
    assert.deepEqual(editorNext.objects, [e.id]);
    assert.equal(editorNext.items[0].status, 'draft');
    // the editor's etag is the editor's read's, and a conditional write with it goes through
    assert.equal(editorNext.items[0].etag, (await t.get(`/events/${e.id}`, { as: 'editor' })).headers.etag);
    const written = await t.post(`/events/${e.id}`, {
      as: 'editor',
      json: { title: 'Edited from the sync' },
      headers: { 'if-match': editorNext.items[0].etag },
    });
    assert.equal(written.status, 200, written.text);
  });

  it('puts what is written while a client pages in the next sync, never in two and never lost (case 9)', async () => {
    const first: number[] = [];
    for (let i = 0; i < 25; i++) first.push((await makeEvent(t, { title: `P${i}` })).id);
    const page1 = await t.get('/events', { query: { sync_token: 'start', per_page: 10 } });
    assert.equal(page1.body.events.length, 10);
    // written between the pages: new events (higher ids, so inside the pages still to come) and an edit
    const during: number[] = [];
    for (let i = 0; i < 5; i++) during.push((await makeEvent(t, { title: `During ${i}` })).id);
    assert.equal((await t.post(`/events/${first[0]}`, { as: 'administrator', json: { title: 'Edited during' } })).status, 200);
    let token = page1.body.next_page_token;
    const seen = page1.body.events.map((e: any) => e.id);
    let last: any;
    while (token) {
      last = await t.get('/events', { query: { page_token: token, per_page: 10 } });
      assert.equal(last.status, 200);
      seen.push(...last.body.events.map((e: any) => e.id));
      token = last.body.next_page_token;
    }
    assert.deepEqual(seen.sort(), [...first].sort(), 'the full sync is what existed when it began');
    const next = await sync(t, 'events', 'anonymous', last.body.next_sync_token);
    assert.deepEqual(next.objects.sort(), [...during, first[0]].sort());
    assert.equal(next.items.find((i) => i.id === first[0]).title, 'Edited during');
  });

  it('refuses forged and foreign tokens (400) and answers 410 to stale ones and after a role change (case 10)', async () => {
    await makeEvent(t, { title: 'Tokened' });
    const events = await sync(t, 'events', 'editor');
    const venues = await sync(t, 'venues', 'editor');

    const tampered = `${events.token.slice(0, -2)}${events.token.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const token of [tampered, 'nonsense', venues.token]) {
      const res = await t.get('/events', { as: 'editor', query: { sync_token: token } });
      assert.equal(res.status, 400, token);
      assert.equal(res.body.code, 'invalid-sync-token');
      assert.equal(res.body.data.status, 400);
    }
    // the token is the caller's: another user, or nobody, cannot use it
    for (const other of ['administrator', 'anonymous'] as const) {
      const res = await t.get('/events', { as: other, query: { sync_token: events.token } });
      assert.equal(res.status, 400, other);
      assert.equal(res.body.code, 'invalid-sync-token');
    }
    const page = await t.get('/events', { as: 'editor', query: { page_token: events.token } });
    assert.equal(page.status, 400, 'a sync token is not a page token');

    // the caller's role changed: their copy may hold what they can no longer see
    await sql`update users set role = 'author' where id = ${t.users.editor.id}`.execute(t.storage.db);
    const demoted = await t.get('/events', { as: 'editor', query: { sync_token: events.token } });
    assert.equal(demoted.status, 410);
    assert.equal(demoted.body.code, 'sync-token-expired');
    assert.equal(demoted.body.data.status, 410);
    await sql`update users set role = 'editor' where id = ${t.users.editor.id}`.execute(t.storage.db);
    assert.equal((await t.get('/events', { as: 'editor', query: { sync_token: events.token } })).status, 200);

    // the retention removed changes after the token
    await makeEvent(t, { title: 'After the token' });
    const top = await t.storage.db
      .selectFrom('changes')
      .select((eb) => [eb.fn.max('seq').as('seq'), eb.fn.max('tx').as('tx')])
      .executeTakeFirstOrThrow();
    await t.storage.db
      .updateTable('sync_state')
      .set({ value: String(top.seq) })
      .where('name', '=', 'purged_seq')
      .execute();
    await t.storage.db
      .updateTable('sync_state')
      .set({ value: String(top.tx) })
      .where('name', '=', 'purged_tx')
      .execute();
    // (the retention ran now: tokens taken before now are judged by what it removed, later ones have it all)
    await t.storage.db
      .updateTable('sync_state')
      .set({ value: String(Date.now()) })
      .where('name', '=', 'purged_at')
      .execute();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stale = await t.get('/events', { as: 'editor', query: { sync_token: events.token } });
    assert.equal(stale.status, 410);
    assert.equal(stale.body.code, 'sync-token-expired');
    // a full sync starts over, and its token serves
    const restarted = await sync(t, 'events', 'editor');
    assert.equal((await t.get('/events', { as: 'editor', query: { sync_token: restarted.token } })).status, 200);
  });

  it('keeps SYNC_RETENTION_DAYS of changes: the retention removes older ones, and a token from before them answers 410', async () => {
    await makeEvent(t, { title: 'Old news' });
    const before = await sync(t, 'events', 'anonymous');
    await makeEvent(t, { title: 'Newer' });
    await makeEvent(t, { title: 'Newest' });
    // the three changes happened 60 days ago
    await t.storage.db.updateTable('changes').set({ occurred_at: '2000-01-01 00:00:00' }).execute();
    assert.equal(await t.app.services.sync.purge(), 2);
    const left = await t.storage.db.selectFrom('changes').select('resource_id').execute();
    assert.equal(left.length, 1, 'the newest row stays (its seq is where the next one follows)');
    const stale = await t.get('/events', { query: { sync_token: before.token } });
    assert.equal(stale.status, 410);
    assert.equal(stale.body.data.reason, 'fullSyncRequired');
    const again = await sync(t, 'events', 'anonymous');
    assert.equal(again.objects.length, 3);
    await makeEvent(t, { title: 'After the retention' });
    const next = await sync(t, 'events', 'anonymous', again.token);
    assert.equal(next.objects.length, 1);
    // the old row kept as the newest goes once a newer one is there; the new one is not old enough
    assert.equal(await t.app.services.sync.purge(), 1);
    assert.equal(await t.app.services.sync.purge(), 0);
  });

  it('refuses list parameters beside a sync token, naming them (case 11)', async () => {
    for (const [param, value] of [
      ['start_date', '2030-01-01'],
      ['search', 'x'],
      ['page', '2'],
      ['orderby', 'id'],
      ['categories', 'x'],
      ['expand_recurring', 'true'],
      ['modified_after', '2020-01-01'],
    ] as const) {
      const res = await t.get('/events', { query: { sync_token: 'start', [param]: value } });
      assert.equal(res.status, 400, param);
      assert.equal(res.body.code, 'rest_invalid_param', param);
      assert.ok(param in res.body.data.params, `${param}: ${res.text}`);
    }
    const bigPage = await t.get('/events', { query: { sync_token: 'start', per_page: 501 } });
    assert.equal(bigPage.status, 400);
    assert.ok('per_page' in bigPage.body.data.params);
    assert.equal((await t.get('/events', { query: { sync_token: 'start', per_page: 500 } })).status, 200);
    const search = await t.get('/venues', { query: { sync_token: 'start', search: 'x' } });
    assert.equal(search.status, 400);
    assert.ok('search' in search.body.data.params);
    const hide = await t.get('/categories', { query: { sync_token: 'start', hide_empty: 'false' } });
    assert.equal(hide.status, 400);
    assert.ok('hide_empty' in hide.body.data.params);
  });

  it('syncs a series once, and its cancelled occurrence as a tombstone (case 12)', async () => {
    const start = await sync(t, 'events', 'editor');
    const series = await makeEvent(t, {
      title: 'Weekly',
      start_date: '2032-05-03 09:00',
      end_date: '2032-05-03 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    });
    const created = await sync(t, 'events', 'editor', start.token);
    assert.deepEqual(created.objects, [series.id]);
    assert.deepEqual(created.items[0].recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5']);

    const occurrences = (
      await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2032-05-01', end_date: '2032-06-30', per_page: 10 } })
    ).body.events;
    assert.equal(occurrences.length, 5);
    assert.equal((await t.del(`/events/${occurrences[1].id}`, { as: 'administrator' })).status, 200);
    const edited = await t.post(`/events/${occurrences[2].id}`, { as: 'administrator', json: { title: 'Moved one' } });
    assert.equal(edited.status, 200);
    const next = await sync(t, 'events', 'editor', created.token);
    assert.deepEqual([...next.removed], [[occurrences[1].id, 'deleted']]);
    assert.deepEqual(next.objects, [occurrences[2].id]);
    assert.equal(next.items.find((i) => i.id === occurrences[2].id).title, 'Moved one');

    // a full sync has the series and its exception, not its plain occurrences
    const full = await sync(t, 'events', 'editor');
    assert.deepEqual(full.objects.sort(), [series.id, occurrences[2].id].sort());

    // editing the series reaches its exception (what it inherits may change)
    assert.equal((await t.post(`/events/${series.id}`, { as: 'administrator', json: { description: 'New words' } })).status, 200);
    const after = await sync(t, 'events', 'editor', full.token);
    assert.deepEqual(after.objects.sort(), [series.id, occurrences[2].id].sort());

    // a rule that no longer gives the edited occurrence removes it: a delete in the log (webhooks say
    // event.deleted), a tombstone in the sync
    assert.equal((await t.post(`/events/${series.id}`, { as: 'administrator', json: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] } })).status, 200);
    const shorter = await sync(t, 'events', 'editor', after.token);
    assert.deepEqual(shorter.objects, [series.id]);
    assert.equal(shorter.removed.get(occurrences[2].id), 'deleted');
    const last = await t.storage.db
      .selectFrom('changes')
      .select(['op'])
      .where('resource_type', '=', 'event')
      .where('resource_id', '=', occurrences[2].id)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.equal(last.op, 'delete');
  });

  it('brings a series split in two into the next sync: its rule ends at the split, its modified date with it', async () => {
    const series = await makeEvent(t, {
      title: 'Choir',
      start_date: '2032-01-05 19:00',
      end_date: '2032-01-05 21:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    });
    const before = await t.get(`/events/${series.id}`);
    const full = await sync(t, 'events', 'anonymous');
    const occurrences = (
      await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2032-01-01', end_date: '2032-03-01', per_page: 10 } })
    ).body.events;
    assert.equal(occurrences.length, 5);
    const split = await t.post(`/events/${occurrences[3].id}/split`, {
      as: 'administrator',
      json: { start_date: '2032-01-26 20:00', end_date: '2032-01-26 22:00' },
    });
    assert.equal(split.status, 201, split.text);
    const after = await t.get(`/events/${series.id}`);
    assert.deepEqual(after.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.notEqual(after.headers.etag, before.headers.etag);
    // written: a write conditional on the series as it was fails (its version moved on)
    const stale = await t.post(`/events/${series.id}`, {
      as: 'administrator',
      headers: { 'if-match': String(before.headers.etag) },
      json: { title: 'x' },
    });
    assert.equal(stale.status, 412);
    assert.ok(after.body.modified_utc >= before.body.modified_utc);
    const next = await sync(t, 'events', 'anonymous', full.token);
    assert.deepEqual(next.objects.sort(), [series.id, split.body.id].sort());
    assert.deepEqual(next.items.find((i) => i.id === series.id).recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
  });

  it('brings the categories under a deleted, renamed or moved category into the next sync (their parent or url changed)', async () => {
    const top = await makeCategory(t, { name: 'Top' });
    const parent = await makeCategory(t, { name: 'Parent', parent: top.id });
    const child = await makeCategory(t, { name: 'Child', parent: parent.id });
    const grandchild = await makeCategory(t, { name: 'Grandchild', parent: child.id });
    const other = await makeCategory(t, { name: 'Other' });
    const event = await makeEvent(t, { title: 'Filed under the child', categories: [child.id] });
    const full = await sync(t, 'categories', 'anonymous');
    const events = await sync(t, 'events', 'anonymous');
    const childBefore = await t.get(`/categories/${child.id}`);

    // a new slug: every category under it has another url
    assert.equal((await t.post(`/categories/${parent.id}`, { as: 'administrator', json: { slug: 'parent-renamed' } })).status, 200);
    const renamed = await sync(t, 'categories', 'anonymous', full.token);
    assert.deepEqual(renamed.objects.sort(), [parent.id, child.id, grandchild.id].sort());
    assert.match(renamed.items.find((c) => c.id === grandchild.id).url, /\/parent-renamed\/child\/grandchild\/$/);
    const childRenamed = await t.get(`/categories/${child.id}`, { headers: { 'if-modified-since': String(childBefore.headers['last-modified']) } });
    assert.notEqual(childRenamed.headers.etag, childBefore.headers.etag);

    // deleted: its children move up to its parent (so do the events that show them), the rest get a shorter url
    assert.equal((await t.del(`/categories/${parent.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    const deleted = await sync(t, 'categories', 'anonymous', renamed.token);
    assert.deepEqual([...deleted.removed], [[parent.id, 'deleted']]);
    assert.deepEqual(deleted.objects.sort(), [child.id, grandchild.id].sort());
    assert.equal(deleted.items.find((c) => c.id === child.id).parent, top.id);
    const eventsNext = await sync(t, 'events', 'anonymous', events.token);
    assert.deepEqual(eventsNext.objects, [event.id]);
    assert.equal(eventsNext.items[0].categories[0].parent, top.id);

    // moved: its subtree's urls change; an unrelated category is not in the sync
    assert.equal((await t.post(`/categories/${child.id}`, { as: 'administrator', json: { parent: other.id } })).status, 200);
    const moved = await sync(t, 'categories', 'anonymous', deleted.token);
    assert.deepEqual(moved.objects.sort(), [child.id, grandchild.id].sort());
  });

  it('brings the events that embed a renamed venue, organizer or category into the next events sync', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Old Hall' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Old Org' });
    const category = await makeCategory(t, { name: 'Old Cat' });
    const a = await makeEvent(t, { title: 'At the hall', venue: venue.id });
    const b = await makeEvent(t, { title: 'By the org', organizer: [organizer.id] });
    const c = await makeEvent(t, { title: 'In the cat', categories: [category.id] });
    await makeEvent(t, { title: 'Unrelated' });
    const full = await sync(t, 'events', 'anonymous');

    assert.equal((await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { venue: 'New Hall' } })).status, 200);
    const afterVenue = await sync(t, 'events', 'anonymous', full.token);
    assert.deepEqual(afterVenue.objects, [a.id]);
    assert.equal(afterVenue.items[0].venue.venue, 'New Hall');

    assert.equal((await t.post(`/organizers/${organizer.id}`, { as: 'administrator', json: { organizer: 'New Org' } })).status, 200);
    assert.equal((await t.post(`/categories/${category.id}`, { as: 'administrator', json: { name: 'New Cat' } })).status, 200);
    const afterOthers = await sync(t, 'events', 'anonymous', afterVenue.token);
    assert.deepEqual(afterOthers.objects.sort(), [b.id, c.id].sort());
    // trashing the venue takes it off its events: they change too
    assert.equal((await t.del(`/venues/${venue.id}`, { as: 'administrator' })).status, 200);
    const afterTrash = await sync(t, 'events', 'anonymous', afterOthers.token);
    assert.deepEqual(afterTrash.objects, [a.id]);
    assert.equal(afterTrash.items[0].venue?.venue, undefined);
  });

  it('syncs venues, organizers, categories and tags, with tombstones for deleted terms', async () => {
    const venue = await makeLinked(t, 'venue');
    const draftVenue = await makeLinked(t, 'venue', { status: 'draft' });
    const category = await makeCategory(t, { name: 'Gone soon' });
    const kept = await makeCategory(t, { name: 'Kept' });
    const tag = await t.post('/tags', { as: 'administrator', json: { name: 'a-tag' } });
    const venues = await sync(t, 'venues', 'anonymous');
    assert.deepEqual(venues.objects, [venue.id]);
    assert.equal(venues.items[0].etag, (await t.get(`/venues/${venue.id}`)).headers.etag);
    assert.deepEqual((await sync(t, 'venues', 'administrator')).objects.sort(), [venue.id, draftVenue.id].sort());
    const categories = await sync(t, 'categories', 'anonymous');
    assert.equal(categories.items.find((c) => c.id === kept.id).etag, (await t.get(`/categories/${kept.id}`)).headers.etag);
    // every term, empty ones too (no hide_empty in a sync)
    assert.deepEqual(categories.objects.sort(), [category.id, kept.id].sort());
    const tags = await sync(t, 'tags', 'anonymous');
    assert.deepEqual(tags.objects, [tag.body.id]);
    const organizers = await sync(t, 'organizers', 'anonymous');
    assert.deepEqual(organizers.items, []);

    assert.equal((await t.del(`/categories/${category.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    assert.equal((await t.post(`/venues/${draftVenue.id}`, { as: 'administrator', json: { status: 'publish' } })).status, 200);
    const catNext = await sync(t, 'categories', 'anonymous', categories.token);
    assert.deepEqual([...catNext.removed], [[category.id, 'deleted']]);
    const venueNext = await sync(t, 'venues', 'anonymous', venues.token);
    assert.deepEqual(venueNext.objects, [draftVenue.id]);
    // a token of one term route is not the other's
    assert.equal((await t.get('/tags', { query: { sync_token: catNext.token } })).status, 400);
  });

  it('never skips a change whose transaction took its number early and committed late (PostgreSQL)', {
    skip: DIALECT !== 'postgres' && 'SQLite writes one transaction at a time',
  }, async () => {
    const start = await sync(t, 'events', 'anonymous');
    const late = await makeEvent(t, { title: 'Committed late' });
    // a transaction notes a change of `late` (taking a low seq) and is held open while others commit
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let noted!: () => void;
    const wasNoted = new Promise<void>((resolve) => (noted = resolve));
    const slow = t.storage.transaction(async (tx) => {
      await tx.changes.note('event', late.id, 'update');
      await tx.changes.flush();
      noted();
      await held;
    });
    await wasNoted;
    const early = await makeEvent(t, { title: 'Committed early' });
    const between = await sync(t, 'events', 'anonymous', start.token);
    assert.deepEqual(between.objects.sort(), [late.id, early.id].sort());
    release();
    await slow;
    const lastSeq = async (id: number) =>
      Number(
        (
          await t.storage.db
            .selectFrom('changes')
            .select((eb) => eb.fn.max('seq').as('seq'))
            .where('resource_id', '=', id)
            .executeTakeFirstOrThrow()
        ).seq,
      );
    // the held change took its number before the early one, and committed after the sync that saw the early one
    assert.ok((await lastSeq(late.id)) < (await lastSeq(early.id)));
    const next = await sync(t, 'events', 'anonymous', between.token);
    assert.deepEqual(next.objects, [late.id], 'the late commit is in the next sync');
  });

  it('answers sync pages from the database, never from the response cache', async () => {
    await makeEvent(t, { title: 'One' });
    const a = await t.get('/events', { query: { sync_token: 'start' } });
    const b = await t.get('/events', { query: { sync_token: 'start' } });
    assert.equal(a.headers['x-cache'], undefined);
    assert.equal(b.headers['x-cache'], undefined);
    assert.equal(a.headers['cache-control'], 'private, no-store');
  });
});

describe('modified_after / modified_before and include_removed (case 13)', () => {
  let t: TestApp;
  beforeEach(async () => (t = await createTestApp()));
  afterEach(() => t.close());

  it('returns exactly what was modified after the instant, whatever its dates, and tombstones on request', async () => {
    const old = await makeEvent(t, { title: 'Old', start_date: '2002-01-01 10:00', end_date: '2002-01-01 11:00' });
    const untouched = await makeEvent(t, { title: 'Untouched' });
    const gone = await makeEvent(t, { title: 'Gone' });
    // move the three into the past, then change two of them
    await t.storage.db.updateTable('posts').set({ modified_utc: '2020-01-01 00:00:00', modified: '2020-01-01 01:00:00' }).execute();
    await t.storage.db.updateTable('changes').set({ occurred_at: '2020-01-01 00:00:00' }).execute();
    assert.equal((await t.post(`/events/${old.id}`, { as: 'administrator', json: { title: 'Old, edited' } })).status, 200);
    assert.equal((await t.del(`/events/${gone.id}`, { as: 'administrator' })).status, 200);

    const res = await t.get('/events', { query: { modified_after: '2021-01-01T00:00:00Z' } });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.events.map((e: any) => e.id),
      [old.id],
    );
    assert.equal(res.body.removed, undefined);
    assert.match(res.body.rest_url, /modified_after=2021-01-01T00%3A00%3A00Z/);
    const before = await t.get('/events', { query: { modified_before: '2021-01-01T00:00:00Z', start_date: '2000-01-01', end_date: '2100-01-01' } });
    assert.deepEqual(before.body.events.map((e: any) => e.id).sort(), [untouched.id].sort());

    const withRemoved = await t.get('/events', { query: { modified_after: '2021-01-01T00:00:00Z', include_removed: 'true' } });
    assert.deepEqual(withRemoved.body.removed, [
      { id: gone.id, removed: { reason: 'deleted' }, modified_utc: withRemoved.body.removed[0].modified_utc },
    ]);
    const needsAfter = await t.get('/events', { query: { include_removed: 'true' } });
    assert.equal(needsAfter.status, 400);
    const bad = await t.get('/events', { query: { modified_after: 'not a date' } });
    assert.equal(bad.status, 400);
    assert.ok('modified_after' in bad.body.data.params);
  });

  it('filters venues and categories the same way', async () => {
    const v1 = await makeLinked(t, 'venue');
    const v2 = await makeLinked(t, 'venue');
    const cat = await makeCategory(t, { name: 'Stale' });
    await t.storage.db.updateTable('posts').set({ modified_utc: '2020-01-01 00:00:00' }).execute();
    await t.storage.db.updateTable('terms').set({ modified_at: '2020-01-01 00:00:00' }).execute();
    assert.equal((await t.post(`/venues/${v2.id}`, { as: 'administrator', json: { city: 'Lyon' } })).status, 200);
    const venues = await t.get('/venues', { query: { modified_after: '2021-01-01' } });
    assert.deepEqual(
      venues.body.venues.map((v: any) => v.id),
      [v2.id],
    );
    assert.notEqual(v1.id, v2.id);
    const cats = await t.get('/categories', { query: { modified_after: '2021-01-01', hide_empty: 'false' } });
    assert.deepEqual(cats.body.categories, []);
    assert.equal((await t.post(`/categories/${cat.id}`, { as: 'administrator', json: { description: 'fresh' } })).status, 200);
    const fresh = await t.get('/categories', { query: { modified_after: '2021-01-01', hide_empty: 'false' } });
    assert.deepEqual(
      fresh.body.categories.map((c: any) => c.id),
      [cat.id],
    );
  });
});
