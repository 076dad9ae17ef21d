/**
 * Lists assembled from the events' JSON kept per kind of caller (src/http/fragments.ts, issue 17): the same bytes
 * as made afresh, the embedded data read only for events without a current fragment, and never an answer older
 * than the data — a write to what an event embeds (its venue, an organizer, a category), made here or by another
 * process, shows at the next list; callers who may read different things never share a fragment.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { Fragments } from '../../src/http/fragments.js';
import { PostgresDialect } from '../../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../../src/storage/storage.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECT, POSTGRES_URL } from '../helpers/db.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

const LIST = '/events';
const QUERY = { per_page: '50' };

describe('events list from kept fragments', () => {
  let t: TestApp;
  let statements = 0;
  const venueIds: number[] = [];
  let organizerId: number;
  before(async () => {
    // the response cache off: every list below is made by the route
    t = await createTestApp({ CACHE_MB: '0' }, { onQuery: () => void statements++ });
    for (let i = 0; i < 2; i++) venueIds.push((await makeLinked(t, 'venue', { venue: `Hall ${i}`, city: 'Lyon' })).id);
    organizerId = (await makeLinked(t, 'organizer', { organizer: 'The Band' })).id;
    for (let i = 0; i < 6; i++) {
      await makeEvent(t, {
        title: `Concert ${i}`,
        start_date: `+${i + 2} days 20:00`,
        end_date: `+${i + 2} days 22:00`,
        venue: venueIds[i % 2],
        organizer: [organizerId],
        categories: 'music',
      });
    }
  });
  after(() => t.close());

  it('sends the bytes and headers of a list made afresh, and reads no embedded data for kept events', async () => {
    const first = await t.get(LIST, { query: QUERY });
    assert.equal(first.status, 200);
    assert.equal(first.body.events.length, 6);
    assert.equal(first.headers['content-type'], 'application/json; charset=UTF-8');
    statements = 0;
    const second = await t.get(LIST, { query: QUERY });
    const kept = statements;
    assert.equal(second.text, first.text);
    assert.equal(second.headers.etag, first.headers.etag);
    // the same list by an app without fragments, on the same database: the same bytes
    const without = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', CACHE_MB: '0', FRAGMENT_CACHE_MB: '0' }), t.storage, {
      logger: false,
    });
    const other = await without.inject({ url: '/calendar/events/v1/events?per_page=50' });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['content-type'], first.headers['content-type']);
    assert.equal(other.body, first.text);
    assert.equal(other.headers.etag, first.headers.etag, 'the same bytes made afresh: the same ETag');
    statements = 0;
    await t.get(LIST, { query: { per_page: '50', search: 'Concert' } });
    const anotherUrl = statements;
    // (another URL over the same events: its page and count, no linked reads either)
    assert.ok(kept <= 3 && anotherUrl <= 4, `a list of kept events costs ${kept} statements, another URL ${anotherUrl}`);
  });

  it('shows a renamed venue, a trashed organizer and a renamed category at the next list', async () => {
    const before = await t.get(LIST, { query: QUERY });
    assert.equal((await t.post(`/venues/${venueIds[0]}`, { as: 'administrator', json: { venue: 'Grand Hall' } })).status, 200);
    const afterVenue = await t.get(LIST, { query: QUERY, headers: { 'if-none-match': String(before.headers.etag) } });
    assert.equal(afterVenue.status, 200, 'the old ETag no longer holds');
    assert.notEqual(afterVenue.headers.etag, before.headers.etag);
    const venues = afterVenue.body.events.map((e: any) => e.venue.venue);
    assert.deepEqual(venues, ['Grand Hall', 'Hall 1', 'Grand Hall', 'Hall 1', 'Grand Hall', 'Hall 1']);
    // the list's ETag (made of its kept items' digests) holds while nothing changes
    assert.equal((await t.get(LIST, { query: QUERY, headers: { 'if-none-match': String(afterVenue.headers.etag) } })).status, 304);
    // another page of the same events: its own tag (another envelope, other items)
    const paged = await t.get(LIST, { query: { ...QUERY, per_page: '3' } });
    assert.notEqual(paged.headers.etag, afterVenue.headers.etag);

    assert.equal((await t.del(`/organizers/${organizerId}`, { as: 'administrator' })).status, 200);
    const afterOrganizer = await t.get(LIST, { query: QUERY });
    assert.ok(afterOrganizer.body.events.every((e: any) => Array.isArray(e.organizer) && e.organizer.length === 0));

    const category = afterOrganizer.body.events[0].categories[0];
    assert.equal((await t.post(`/categories/${category.id}`, { as: 'administrator', json: { name: 'Live music' } })).status, 200);
    const afterCategory = await t.get(LIST, { query: QUERY });
    assert.ok(afterCategory.body.events.every((e: any) => e.categories[0].name === 'Live music'));
  });

  it('keeps apart callers who may read different things: a draft venue shows to an editor, never to an anonymous caller', async () => {
    const draftVenue = await makeLinked(t, 'venue', { venue: 'Secret Cellar', status: 'draft' });
    const event = await makeEvent(t, { title: 'Cellar night', start_date: '+1 day 21:00', end_date: '+1 day 23:00', venue: draftVenue.id });
    for (const order of [
      ['anonymous', 'editor'],
      ['editor', 'anonymous'],
    ] as const) {
      for (const as of [...order, ...order]) {
        const res = await t.get(LIST, { query: QUERY, as });
        const listed = res.body.events.find((e: any) => e.id === event.id);
        assert.ok(listed, `${as} lists the event`);
        if (as === 'editor') assert.equal(listed.venue.venue, 'Secret Cellar');
        else assert.deepEqual(listed.venue, [], 'an anonymous caller is not shown the draft venue');
      }
    }
  });
});

describe('single reads of events from kept fragments', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ CACHE_MB: '0' });
  });
  after(() => t.close());

  it('send the bytes, ETag and Last-Modified of a read made afresh, and follow writes to the event and what it embeds', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Blue Room' });
    const event = await makeEvent(t, { title: 'Quartet', venue: venue.id });
    const first = await t.get(`/events/${event.id}`);
    const second = await t.get(`/events/${event.id}`);
    assert.equal(second.text, first.text);
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(second.headers['last-modified'], first.headers['last-modified']);
    const without = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', CACHE_MB: '0', FRAGMENT_CACHE_MB: '0' }), t.storage, {
      logger: false,
    });
    const other = await without.inject({ url: `/calendar/events/v1/events/${event.id}` });
    assert.equal(other.body, first.text);
    assert.equal(other.headers['last-modified'], first.headers['last-modified']);
    assert.equal(other.headers['content-type'], first.headers['content-type']);
    assert.equal(other.headers.etag, first.headers.etag, 'the kept ETag is the hash of the bytes sent');
    assert.equal((await t.get(`/events/${event.id}`, { headers: { 'if-none-match': String(first.headers.etag) } })).status, 304);
    // rewritten or filtered answers: as without fragments (no ETag for _envelope and _jsonp; _fields' own)
    for (const query of ['_envelope=1', '_jsonp=cb', '_fields=id,title']) {
      const kept = await t.get(`/events/${event.id}?${query}`);
      const afresh = await without.inject({ url: `/calendar/events/v1/events/${event.id}?${query}` });
      assert.equal(kept.text, afresh.body, query);
      assert.equal(kept.headers.etag, afresh.headers.etag, query);
    }

    await new Promise((resolve) => setTimeout(resolve, 1100)); // (Last-Modified counts whole seconds)
    assert.equal((await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { venue: 'Red Room' } })).status, 200);
    const renamed = await t.get(`/events/${event.id}`);
    assert.equal(renamed.body.venue.venue, 'Red Room');
    assert.notEqual(renamed.headers['last-modified'], first.headers['last-modified']);
    assert.notEqual(renamed.headers.etag, first.headers.etag);

    // after each write, both callers get what the app without fragments answers them
    const same = async (what: string) => {
      for (const as of ['anonymous', 'editor'] as const) {
        const kept = await t.get(`/events/${event.id}`, { as });
        const afresh = await without.inject({ url: `/calendar/events/v1/events/${event.id}`, headers: t.authHeader(as) });
        assert.equal(kept.status, afresh.statusCode, `${what}, ${as}`);
        assert.equal(kept.text, afresh.body, `${what}, ${as}`);
      }
    };
    await same('renamed venue');
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { status: 'draft' } })).status, 200);
    assert.equal((await t.get(`/events/${event.id}`)).status, 403, 'an anonymous caller may no longer read it');
    await same('made a draft');
    assert.equal((await t.del(`/events/${event.id}`, { as: 'administrator' })).status, 200);
    await same('trashed');
  });

  it('answer a kept read without reading the event, and the next read after any write with the checks of a read afresh', async () => {
    const sqlSeen: string[] = [];
    const u = await createTestApp({ CACHE_MB: '0' }, { onQuery: (text: string) => void sqlSeen.push(text) });
    try {
      const mine = await makeEvent(u, { title: 'Own draft', status: 'draft' }, 'author');
      const event = await makeEvent(u, { title: 'Recital' });
      assert.equal((await u.get(`/events/${event.id}`)).status, 200);
      sqlSeen.length = 0;
      assert.equal((await u.get(`/events/${event.id}`)).status, 200);
      assert.deepEqual(
        sqlSeen.filter((text) => /\b(events|posts)\b/.test(text)),
        [],
        'a kept read reads no event',
      );
      // an author's own draft: kept for that author, never answered to another author or to anyone
      assert.equal((await u.get(`/events/${mine.id}`, { as: 'author' })).status, 200);
      assert.equal((await u.get(`/events/${mine.id}`, { as: 'author' })).status, 200);
      assert.equal((await u.get(`/events/${mine.id}`, { as: 'contributor' })).status, 403);
      assert.equal((await u.get(`/events/${mine.id}`)).status, 403);
      // trashed: each caller gets the status and body a read afresh answers (not the kept 200)
      const without = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', CACHE_MB: '0', FRAGMENT_CACHE_MB: '0' }), u.storage, {
        logger: false,
      });
      const asAfresh = async (what: string, ok: boolean) => {
        for (const as of ['anonymous', 'editor', 'administrator'] as const) {
          const kept = await u.get(`/events/${event.id}`, { as });
          const afresh = await without.inject({ url: `/calendar/events/v1/events/${event.id}`, headers: u.authHeader(as) });
          assert.equal(kept.status, afresh.statusCode, `${what}, ${as}`);
          assert.equal(kept.text, afresh.body, `${what}, ${as}`);
        }
        assert.equal((await u.get(`/events/${event.id}`, { as: 'administrator' })).status === 200, ok, what);
      };
      await asAfresh('kept', true);
      assert.equal((await u.del(`/events/${event.id}`, { as: 'administrator' })).status, 200);
      await asAfresh('trashed', false);
      await without.close();
    } finally {
      await u.close();
    }
  });

  it('keep apart callers who may read different things (a draft organizer shows to an editor only)', async () => {
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Quiet Label', status: 'draft' });
    const event = await makeEvent(t, { title: 'Listening', organizer: [organizer.id] });
    for (const as of ['anonymous', 'editor', 'anonymous', 'editor'] as const) {
      const res = await t.get(`/events/${event.id}`, { as });
      assert.equal(res.status, 200);
      assert.equal(res.body.organizer.length, as === 'editor' ? 1 : 0, as);
    }
  });
});

describe('events list from kept fragments: a write by another process', () => {
  let dir: string;
  let a: Awaited<ReturnType<typeof buildApp>>;
  let b: Awaited<ReturnType<typeof buildApp>>;
  let second: Storage;
  let drop: () => Promise<void>;
  const admin = { kind: 'user', id: 0, login: 'x', role: 'administrator' } as const;

  before(async () => {
    // a second connection (SQLite: a second handle on the same file; PostgreSQL: a second pool) stands for a
    // second process, as in cache.test.ts
    dir = mkdtempSync(join(tmpdir(), 'calendar-fragments-'));
    const first = await createTestDatabase({ sqlitePath: join(dir, 'shared.db') });
    drop = first.drop;
    second =
      DIALECT === 'postgres'
        ? new Storage(new PostgresDialect({ url: POSTGRES_URL, schema: (first.config as { schema: string }).schema }))
        : new Storage(new SqliteDialect({ path: join(dir, 'shared.db') }));
    const config = loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', CACHE_MB: '0' });
    a = await buildApp(config, first.storage, { logger: false });
    b = await buildApp(config, second, { logger: false });
  });
  after(async () => {
    await a.close();
    await b.close();
    await second.close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the other process' change to an embedded venue at once", async () => {
    const event = await b.services.events.create(admin, {
      title: 'Dance',
      startDate: '+1 day',
      endDate: '+1 day 1 hour',
      venue: { create: { title: 'Old Mill' } },
    });
    const venueId = event.venue?.record.id;
    assert.ok(venueId);
    const venueName = async () => (await a.inject({ url: '/calendar/events/v1/events' })).json().events[0].venue.venue;
    assert.equal(await venueName(), 'Old Mill');
    assert.equal(await venueName(), 'Old Mill');
    await b.services.linked('venue').update(admin, venueId, { title: 'New Mill' });
    assert.equal(await venueName(), 'New Mill');
  });
});

describe('Fragments (unit)', () => {
  it('answers a fragment at its version only, and evicts the least recently used past its bytes', () => {
    const f = new Fragments(1000);
    f.set('a', 1, 'x'.repeat(200));
    f.set('b', 1, 'y'.repeat(200));
    assert.equal(f.get('a', 2), undefined, 'another version');
    assert.equal(f.get('a', 1), undefined, 'gone with its version');
    f.set('a', 1, 'x'.repeat(200));
    f.set('c', 1, 'z'.repeat(200));
    assert.equal(f.get('b', 1), 'y'.repeat(200), 'b used: now the most recent');
    f.set('d', 1, 'w'.repeat(300));
    assert.equal(f.get('a', 1), undefined, 'the least recently used went first');
    assert.ok(f.get('b', 1) && f.get('d', 1));
    assert.ok(f.stats().bytes <= 1000);
    const off = new Fragments(0);
    off.set('a', 1, 'x');
    assert.equal(off.get('a', 1), undefined, 'off keeps nothing');
  });

  it('serialises in order the items not kept, keeps them, and leaves out one whose view is gone', async () => {
    const f = new Fragments(1000);
    f.set('item 2', 7, '"kept two"');
    const asked: number[][] = [];
    const views = async (ids: readonly number[]) => {
      asked.push([...ids]);
      // item 3 was deleted after the page's ids were read
      return ids.map((id) => (id === 3 ? undefined : { name: `made ${id}` }));
    };
    const keyOf = (id: number) => `item ${id}`;
    const out = await f.serialize([1, 2, 3, 4], keyOf, 7, views, (v) => v.name);
    assert.deepEqual(
      out.map((item) => item.json),
      ['"made 1"', '"kept two"', '"made 4"'],
    );
    // each with the digest of its JSON, kept or made (what the list's ETag is made of)
    assert.deepEqual(
      out.map((item) => item.digest),
      out.map((item) => createHash('sha256').update(item.json).digest('base64url')),
    );
    assert.deepEqual(asked, [[1, 3, 4]], 'only the items not kept, in one call');
    assert.equal(f.get('item 4', 7), '"made 4"', 'made ones are kept at the version');
    assert.equal(f.get('item 3', 7), undefined, 'nothing kept for the one gone');
    asked.length = 0;
    assert.deepEqual(
      (await f.serialize([1, 2, 4], keyOf, 7, views, (v) => v.name)).map((item) => item.json),
      ['"made 1"', '"kept two"', '"made 4"'],
    );
    assert.deepEqual(asked, [], 'all kept: no views made');
  });
});
