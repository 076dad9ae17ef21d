import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory, makeEvent } from '../helpers/factories.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;
const WEEK = 7 * 86_400_000;
const ts = (ms: number) => String(Math.floor(ms / 1000));
const titles = (res: any) => res.body.events.map((e: any) => e.title);
const ids = (res: any) => res.body.events.map((e: any) => e.id);

describe('events list: envelope, paging and the default window', () => {
  let t: TestApp;
  const now = Date.now();
  before(async () => {
    t = await createTestApp();
    // ten weekly events, 2 hours long, from a week ahead
    for (let n = 1; n <= 10; n++) {
      await makeEvent(t, { title: `Week ${n}`, start_date: ts(now + n * WEEK), end_date: ts(now + n * WEEK + 7_200_000) });
    }
    await makeEvent(t, { title: 'Long ago', start_date: '2001-01-01 10:00', end_date: '2001-01-01 12:00' });
    await makeEvent(t, { title: 'Three years ahead', start_date: '+3 years', end_date: '+3 years 2 hours' });
    await makeEvent(t, { title: 'Hidden', hide_from_listings: true });
    await makeEvent(t, { title: 'A draft', status: 'draft' });
  });
  after(() => t.close());

  it('lists upcoming published events by start, 4 a page, with the envelope and headers', async () => {
    const res = await t.get('/events');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    assert.deepEqual(titles(res), ['Week 1', 'Week 2', 'Week 3', 'Week 4']);
    assert.equal(res.body.total, 10);
    assert.equal(res.body.total_pages, 3);
    assert.equal(res.headers['x-tec-total'], '10');
    assert.equal(res.headers['x-tec-totalpages'], '3');
    assert.equal(res.body.events[0].json_ld, undefined);
    const url = new URL(res.body.rest_url);
    assert.equal(`${url.origin}${url.pathname}`, `${NS}/events/`);
    assert.deepEqual([...url.searchParams.keys()], ['page', 'per_page', 'start_date', 'end_date', 'status']);
    assert.equal(url.searchParams.get('page'), '1');
    assert.equal(url.searchParams.get('per_page'), '4');
    assert.match(url.searchParams.get('start_date')!, /^\d{4}-\d\d-\d\d 00:00:00$/);
    assert.match(url.searchParams.get('end_date')!, /^\d{4}-\d\d-\d\d 23:59:59$/);
    assert.equal(url.searchParams.get('status'), 'publish');
  });

  it('follows next and previous URLs', async () => {
    const p1 = await t.get('/events');
    const p2 = await t.get(p1.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(titles(p2), ['Week 5', 'Week 6', 'Week 7', 'Week 8']);
    assert.deepEqual(Object.keys(p2.body), ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
    const p3 = await t.get(p2.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(titles(p3), ['Week 9', 'Week 10']);
    assert.equal(p3.body.next_rest_url, undefined);
    const back = await t.get(p3.body.previous_rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(titles(back), titles(p2));
    assert.equal(new URL(p2.body.previous_rest_url).searchParams.get('page'), null, 'page 1 is written without page');
  });

  it('answers 404 event-archive-page-not-found past the last page', async () => {
    const res = await t.get('/events', { query: { page: 4 } });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'event-archive-page-not-found');
  });

  it('rejects bad page and per_page; caps per_page at 50', async () => {
    for (const [k, v] of [
      ['page', 'foo'],
      ['page', '-1'],
      ['page', '0'],
      ['page', '1.5'],
      ['per_page', '0'],
      ['per_page', 'x'],
    ]) {
      const res = await t.get('/events', { query: { [k]: v } });
      assert.equal(res.status, 400, `${k}=${v}`);
      assert.equal(res.body.code, 'rest_invalid_param');
    }
    const capped = await t.get('/events', { query: { per_page: 100 } });
    assert.equal(new URL(capped.body.rest_url).searchParams.get('per_page'), '50');
  });

  it('filters with unix timestamps for start_date and end_date (inclusive days)', async () => {
    assert.equal((await t.get('/events', { query: { start_date: ts(now + 5 * WEEK), per_page: 50 } })).body.total, 6);
    assert.equal((await t.get('/events', { query: { end_date: ts(now + 5 * WEEK + 7_200_000), per_page: 50 } })).body.total, 5);
    const between = await t.get('/events', { query: { start_date: ts(now + 10 * 86_400_000), end_date: ts(now + 30 * 86_400_000) } });
    assert.deepEqual(titles(between), ['Week 2', 'Week 3', 'Week 4']);
  });

  it('leaves out past, far-future, hidden and draft events by default; include drops the window', async () => {
    const all = await t.get('/events', { query: { per_page: 50 } });
    assert.ok(!titles(all).some((x: string) => ['Long ago', 'Three years ahead', 'Hidden', 'A draft'].includes(x)));
    const include = await t.get('/events', { query: { include: [...ids(all).slice(0, 2)].join(','), per_page: 50 } });
    assert.equal(include.body.total, 2);
    for (const bad of ['', '0', '3,-1']) {
      const refused = await t.get('/events', { query: { include: bad } });
      assert.equal(refused.status, 400, `include=${bad}`);
      assert.ok(refused.body.data.params.include);
    }
    const search = await t.get('/events', { query: { search: 'Long ago' } });
    assert.equal(search.body.total, 0);
    const old = await t.get('/events', { query: { start_date: '2000-01-01', search: 'ago' } });
    assert.deepEqual(titles(old), ['Long ago']);
  });

  it('rejects unparseable dates', async () => {
    for (const k of ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']) {
      const res = await t.get('/events', { query: { [k]: 'before my birthday' } });
      assert.equal(res.status, 400, k);
      assert.ok(k in res.body.data.params);
    }
    assert.equal((await t.get('/events', { query: { strict_dates: '' } })).status, 400);
    assert.equal((await t.get('/events', { query: { search: '' } })).status, 400);
  });
});

describe('events list: inclusive and strict dates (CONTRACT.md §3.4)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await makeEvent(t, { title: 'Dec 31 17:00', start_date: '2017-12-31 17:00', end_date: '2017-12-31 19:00' });
    await makeEvent(t, { title: 'Jan 1 16:00', start_date: '2018-01-01 16:00', end_date: '2018-01-01 16:30' });
    await makeEvent(t, { title: 'Jan 1 20:00', start_date: '2018-01-01 20:00', end_date: '2018-01-01 20:30' });
    await makeEvent(t, { title: 'Jan 2 10:00', start_date: '2018-01-02 10:00', end_date: '2018-01-02 11:00' });
    await makeEvent(t, { title: 'Multi-day', start_date: '2017-12-30 10:00', end_date: '2018-01-03 10:00' });
  });
  after(() => t.close());

  it('includes whole days by default and exact instants with strict_dates', async () => {
    const q = { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' };
    assert.deepEqual(titles(await t.get('/events', { query: q })), ['Jan 1 16:00', 'Jan 1 20:00']);
    const strict = await t.get('/events', { query: { ...q, strict_dates: 'true' } });
    assert.deepEqual(titles(strict), ['Jan 1 16:00']);
    const url = new URL(strict.body.rest_url);
    assert.equal(url.searchParams.get('strict_dates'), '1');
    assert.equal(url.searchParams.get('start_date'), '2018-01-01 15:00:00');
    const followed = await t.get(strict.body.rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(titles(followed), ['Jan 1 16:00']);
  });

  it('moves relative bounds to the end of their day', async () => {
    const res = await t.get('/events', { query: { ends_after: '2017-12-31', starts_before: '2018-01-02' } });
    assert.deepEqual(titles(res), ['Multi-day', 'Jan 1 16:00', 'Jan 1 20:00', 'Jan 2 10:00']);
    const after = await t.get('/events', { query: { starts_after: '2018-01-01' } });
    assert.deepEqual(titles(after), ['Jan 2 10:00'], 'starts_after a day means from the next day');
    const before = await t.get('/events', { query: { ends_before: '2018-01-01', per_page: 10 } });
    assert.deepEqual(titles(before), ['Dec 31 17:00', 'Jan 1 16:00', 'Jan 1 20:00']);
    const url = new URL(res.body.rest_url);
    assert.equal(url.searchParams.get('start_date'), null, 'relative bounds drop the default window');
    assert.equal(url.searchParams.get('ends_after'), '2017-12-31 23:59:59');
  });

  it('combines explicit start_date with relative bounds', async () => {
    const res = await t.get('/events', { query: { start_date: '2018-01-01', starts_before: '2018-01-01' } });
    assert.deepEqual(titles(res), ['Jan 1 16:00', 'Jan 1 20:00']);
  });

  it('uses exact instants for strict bounds, read as UTC and shown in the site zone; its URLs, offset included, name the same window', async () => {
    const ny = await createTestApp({ SITE_TIMEZONE: 'America/New_York' });
    try {
      await makeEvent(ny, { title: 'NY evening', start_date: '2017-12-20 20:00', end_date: '2017-12-20 21:00' });
      await makeEvent(ny, { title: 'NY morning', start_date: '2017-12-21 09:00', end_date: '2017-12-21 10:00' });
      const strict = await ny.get('/events', { query: { start_date: '2017-12-21', end_date: '2017-12-22', strict_dates: 1 } });
      // the site's wall time of the bound, with the site's offset so that the URL names the same instant again
      assert.equal(new URL(strict.body.rest_url).searchParams.get('start_date'), '2017-12-20 19:00:00-05:00');
      assert.deepEqual(titles(strict), ['NY evening', 'NY morning']);
      const again = await ny.get(strict.body.rest_url.replace(PUBLIC_URL, ''));
      assert.deepEqual(titles(again), ['NY evening', 'NY morning']);
      // a page at a time: the next page's URL names the same window
      const first = await ny.get('/events', { query: { start_date: '2017-12-21', end_date: '2017-12-22', strict_dates: 1, per_page: 1 } });
      assert.deepEqual(titles(first), ['NY evening']);
      const second = await ny.get(first.body.next_rest_url.replace(PUBLIC_URL, ''));
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(titles(second), ['NY morning']);
      const inclusive = await ny.get('/events', { query: { start_date: '2017-12-21', end_date: '2017-12-22' } });
      assert.deepEqual(titles(inclusive), ['NY morning']);
    } finally {
      await ny.close();
    }
  });
});

describe('events list: filters', () => {
  let t: TestApp;
  const made: Record<string, any> = {};
  before(async () => {
    t = await createTestApp();
    const parent = await makeCategory(t, { name: 'Music' });
    await makeCategory(t, { name: 'Jazz', parent: parent.id });
    for (let i = 1; i <= 5; i++) made[`foo${i}`] = await makeEvent(t, { title: `foo ${i}`, start_date: `+${i} days`, end_date: `+${i} days 1 hour` });
    for (let i = 1; i <= 5; i++)
      made[`foobar${i}`] = await makeEvent(t, { title: `foo bar ${i}`, start_date: `+${i + 5} days`, end_date: `+${i + 5} days 1 hour` });
    for (let i = 1; i <= 5; i++)
      made[`bar${i}`] = await makeEvent(t, { title: `bar ${i}`, start_date: `+${i + 10} days`, end_date: `+${i + 10} days 1 hour` });
    made.jazz = await makeEvent(t, {
      title: 'Jazz night',
      categories: 'jazz',
      tags: 'late',
      featured: true,
      start_date: '+20 days',
      end_date: '+20 days 2 hours',
    });
    made.music = await makeEvent(t, { title: 'Music day', categories: 'music', tags: 'early', start_date: '+21 days', end_date: '+21 days 2 hours' });
    made.pending = await makeEvent(t, { title: 'Pending one', status: 'publish' }, 'contributor');
    made.draftOther = await makeEvent(t, { title: 'Draft by contributor2', status: 'draft' }, 'contributor2');
    made.private = await makeEvent(t, { title: 'Private one', status: 'private' });
  });
  after(() => t.close());

  const total = async (query: Record<string, any>, as: any = 'anonymous') => (await t.get('/events', { query, as })).body.total;

  it('searches every word in title, excerpt and description', async () => {
    assert.equal(await total({ search: 'foo' }), 10);
    assert.equal(await total({ search: 'bar' }), 10);
    assert.equal(await total({ search: 'foo bar' }), 5);
    assert.equal(await total({ search: 'foo -bar' }), 5);
    assert.equal(await total({ search: 'FOO' }), 10);
    assert.equal(await total({ search: '%' }), 0);
  });

  it("follows the taxonomy's changes at once: a new child category, a changed slug, a moved child (the tree kept per data version)", async () => {
    // (its own app without the response cache: what answers here is the route and the kept tree)
    const u = await createTestApp({ CACHE_MB: '0' });
    try {
      const festival = await makeCategory(u, { name: 'Festival' });
      await makeEvent(u, { title: 'Opening', categories: [festival.id], start_date: '+3 days', end_date: '+3 days 1 hour' });
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'festival' } })), ['Opening']);
      // a child made now, with an event: the parent's filter takes it at the next list
      const stage = await makeCategory(u, { name: 'Stage', slug: 'stage-one', parent: festival.id });
      await makeEvent(u, { title: 'On stage', categories: [stage.id], start_date: '+4 days', end_date: '+4 days 1 hour' });
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'festival' } })), ['Opening', 'On stage']);
      // a slug changed: the new one filters; the old one is now only the category's name, which passes but does
      // not filter (as in the original); another old slug, no longer anything, is a 400
      assert.equal((await u.post(`/categories/${festival.id}`, { as: 'administrator', json: { slug: 'fest' } })).status, 200);
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'fest' } })), ['Opening', 'On stage']);
      const old = await u.get('/events', { query: { categories: 'festival' } });
      assert.equal(old.status, 200);
      assert.equal(old.body.total, 0);
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'stage-one' } })), ['On stage']);
      assert.equal((await u.post(`/categories/${stage.id}`, { as: 'administrator', json: { slug: 'main-stage' } })).status, 200);
      assert.equal((await u.get('/events', { query: { categories: 'stage-one' } })).status, 400);
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'main-stage' } })), ['On stage']);
      // the child moved to the top: no longer under its old parent
      assert.equal((await u.post(`/categories/${stage.id}`, { as: 'administrator', json: { parent: 0 } })).status, 200);
      assert.deepEqual(titles(await u.get('/events', { query: { categories: 'fest' } })), ['Opening']);
    } finally {
      await u.close();
    }
  });

  it('filters by categories (children included), tags, both (AND), by id or slug', async () => {
    assert.deepEqual(titles(await t.get('/events', { query: { categories: 'music' } })), ['Jazz night', 'Music day']);
    assert.deepEqual(titles(await t.get('/events', { query: { categories: 'jazz' } })), ['Jazz night']);
    const jazz = made.jazz.categories[0].id;
    assert.deepEqual(titles(await t.get('/events', { query: `categories[]=${jazz}` })), ['Jazz night']);
    const music = made.music.categories[0].id;
    assert.deepEqual(
      titles(await t.get('/events', { query: `categories[]=${music}` })),
      ['Jazz night', 'Music day'],
      'a parent by id, its child too',
    );
    const early = made.music.tags[0].id;
    assert.deepEqual(titles(await t.get('/events', { query: `tags[]=${early}` })), ['Music day']);
    assert.deepEqual(titles(await t.get('/events', { query: { tags: 'early,late' } })), ['Jazz night', 'Music day']);
    assert.deepEqual(titles(await t.get('/events', { query: { categories: 'music', tags: 'early' } })), ['Music day']);
    for (const q of [{ categories: 'cat1' }, { tags: 'nope' }, { categories: '999999' }] as Record<string, string>[]) {
      const res = await t.get('/events', { query: q });
      assert.equal(res.status, 400, JSON.stringify(q));
      assert.equal(res.body.code, 'rest_invalid_param');
    }
    // a name passes validation but does not filter (only slugs and ids resolve, as in the original)
    const byName = await t.get('/events', { query: { categories: 'Music' } });
    assert.equal(byName.status, 200);
    assert.equal(byName.body.total, 0);
    assert.deepEqual(titles(await t.get('/events', { query: { categories: 'Music,jazz' } })), ['Jazz night']);
    const url = new URL((await t.get('/events', { query: { categories: 'music', tags: 'early' } })).body.rest_url);
    assert.equal(url.searchParams.get('categories'), 'music', 'term filters are carried');
    assert.equal(url.searchParams.get('tags'), 'early');
  });

  it('filters featured true and false', async () => {
    assert.deepEqual(titles(await t.get('/events', { query: { featured: 'true' } })), ['Jazz night']);
    assert.equal(await total({ featured: 'false', per_page: 50 }), 16);
    assert.equal((await t.get('/events', { query: { featured: 'nope' } })).status, 400);
  });

  it('shows each caller what they may read, and counts only that', async () => {
    assert.equal(await total({ per_page: 50 }), 17);
    assert.equal(await total({ per_page: 50 }, 'subscriber'), 17);
    assert.equal(await total({ per_page: 50 }, 'contributor'), 18, 'plus their own pending event');
    assert.equal(await total({ per_page: 50 }, 'contributor2'), 18, 'plus their own draft');
    assert.equal(await total({ per_page: 50 }, 'author'), 17);
    assert.equal(await total({ per_page: 50 }, 'editor'), 20, 'every status but trash');
    assert.equal(await total({ status: 'draft' }, 'editor'), 1);
    assert.equal(await total({ status: 'draft,pending' }, 'editor'), 2);
    assert.equal(await total({ status: 'draft' }, 'contributor'), 0, "others' drafts stay hidden");
    assert.equal(await total({ status: 'pending' }, 'contributor'), 1);
  });

  it('validates status per caller', async () => {
    assert.equal((await t.get('/events', { query: { status: 'publish' } })).status, 200);
    for (const status of ['draft', 'any', 'publish,draft']) assert.equal((await t.get('/events', { query: { status } })).status, 400, status);
    for (const status of ['foo', 'foo, bar', 'foo, bar, publish']) {
      assert.equal((await t.get('/events', { query: { status }, as: 'editor' })).status, 400, status);
    }
    assert.equal((await t.get('/events', { query: { status: 'draft, pending' }, as: 'editor' })).status, 200);
    assert.equal((await t.get('/events', { query: { status: 'any' }, as: 'editor' })).status, 200);
  });

  it('takes include, ordered by publication date, and validates it', async () => {
    const res = await t.get('/events', { query: { include: `${made.bar1.id},${made.foo1.id}` } });
    assert.deepEqual(ids(res), [made.foo1.id, made.bar1.id]);
    assert.equal(new URL(res.body.rest_url).searchParams.get('start_date'), null);
    assert.equal((await t.get('/events', { query: { include: 'foo-bar,23,89' } })).status, 400);
    assert.equal((await t.get('/events', { query: { include: made.private.id } })).body.total, 0, 'include cannot reveal');
  });

  it('validates post_parent and tickets', async () => {
    assert.equal((await t.get('/events', { query: { post_parent: 'foo-bar' } })).status, 400);
    assert.equal((await t.get('/events', { query: { post_parent: '23' } })).status, 400);
    assert.equal((await t.get('/events', { query: { post_parent: made.foo1.id } })).body.total, 0);
    const tickets = await t.get('/events', { query: { tickets: 'true' } });
    assert.equal(tickets.status, 400);
    assert.equal(tickets.body.data.details.tickets.code, 'event-tickets-not-active');
    assert.equal((await t.get('/events', { query: { ticketed: 'true' } })).status, 400);
    assert.equal(await total({ tickets: 'false', per_page: 50 }), 17);
  });

  it('counts published events in term counts, and filters terms by event', async () => {
    const cats = await t.get('/categories');
    assert.deepEqual(
      cats.body.categories.map((c: any) => [c.name, c.count]),
      [
        ['Jazz', 1],
        ['Music', 1],
      ],
    );
    const ofEvent = await t.get('/tags', { query: { event: made.jazz.id } });
    assert.deepEqual(
      ofEvent.body.tags.map((x: any) => x.name),
      ['late'],
    );
  });

  it('answers 200 with an empty list when nothing matches on page 1', async () => {
    const res = await t.get('/events', { query: { search: 'nothing-matches-this' } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['events', 'rest_url', 'total', 'total_pages']);
    assert.deepEqual(res.body.events, []);
    assert.equal(res.body.total, 0);
    assert.equal(res.body.total_pages, 0);
  });
});

describe('events list: per_page cap', () => {
  it('returns at most 50', async () => {
    const t = await createTestApp();
    try {
      for (let i = 0; i < 51; i++) await makeEvent(t, { title: `E${i}`, start_date: `+${i + 1} hours`, end_date: `+${i + 2} hours` });
      const res = await t.get('/events', { query: { per_page: 100 } });
      assert.equal(res.body.events.length, 50);
      assert.equal(res.body.total, 51);
      assert.equal(res.body.total_pages, 2);
    } finally {
      await t.close();
    }
  });
});

describe('events list: query budget', () => {
  it('costs the same few queries for 4 events as for 50, terms, venues, organizers and images included; one event two on PostgreSQL', async () => {
    let queries = 0;
    const t = await createTestApp({}, { onQuery: () => void queries++ });
    try {
      for (let i = 0; i < 60; i++) {
        await makeEvent(t, {
          title: `E${i}`,
          start_date: `+${i + 1} hours`,
          end_date: `+${i + 2} hours`,
          categories: `c${i % 5}`,
          tags: `t${i % 7},u${i % 3}`,
          image: `https://cdn.example.org/${i % 4}.png`,
          venue: { venue: `Venue ${i % 6}` },
          organizer: [{ organizer: `Organizer ${i % 4}` }, { organizer: `Organizer ${(i + 1) % 4}` }],
        });
      }
      const count = async (query: Record<string, string | number>) => {
        queries = 0;
        const res = await t.get('/events', { query });
        assert.equal(res.status, 200);
        return queries;
      };
      const small = await count({ per_page: 4 });
      const large = await count({ per_page: 50 });
      assert.equal(large, small);
      // count, the page's ids, their rows, then terms, organizers with their links, venues and the images of all
      // three: read together, in one statement on PostgreSQL (Storage.readTogether), one after the other on SQLite
      assert.ok(small <= (DIALECT === 'postgres' ? 4 : 7), `a page costs ${small} queries`);
      // the same page again, its events' JSON kept (http/fragments.ts): the count and the ids, no rows (one
      // statement on PostgreSQL, a calendar without series: EventStore.listing)
      assert.equal(await count({ per_page: 4 }), DIALECT === 'postgres' ? 1 : 2, 'a page of kept events reads its count and its ids');
      const filtered = await count({ per_page: 50, categories: 'c1', search: 'E', tags: 't2' });
      // (PostgreSQL asks once more whether the calendar has series: without, a term filter's count reads the
      // events' own terms alone, EventStore.tally; SQLite asks how many events the window holds and how many
      // links the terms have, to choose how to count, EventStore.termsPlan)
      assert.ok(filtered <= small + (DIALECT === 'postgres' ? 5 : 6), `a filtered page costs ${filtered} queries`);
      // one event: itself, then what it shows (one statement on PostgreSQL)
      const id = (await t.get('/events', { query: { per_page: 1 } })).body.events[0].id as number;
      queries = 0;
      const single = await t.get(`/events/${id}`);
      assert.equal(single.status, 200);
      assert.equal(single.body.organizer.length, 2);
      assert.ok(single.body.venue.venue && single.body.image.url, 'the event shows its venue and image');
      assert.ok(queries <= (DIALECT === 'postgres' ? 2 : 5), `one event costs ${queries} queries`);
    } finally {
      await t.close();
    }
  });
});

describe('events list: a series made and removed between lists', () => {
  it('lists the occurrences of a series made after a list found none, and leaves them out again once it is gone, counts and pages included', async () => {
    const t = await createTestApp();
    try {
      for (let i = 0; i < 3; i++) await makeEvent(t, { title: `Single ${i}`, start_date: `+${i + 1} days 9am`, end_date: `+${i + 1} days 10am` });
      const before = await t.get('/events');
      assert.equal(before.status, 200);
      assert.equal(before.body.total, 3);
      const series = await makeEvent(t, {
        title: 'Weekly',
        start_date: '+1 day 8am',
        end_date: '+1 day 9am',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      });
      const during = await t.get('/events', { query: { per_page: 50 } });
      assert.equal(during.status, 200);
      assert.equal(during.body.total, 3 + 4, 'the series shows each of its four occurrences');
      assert.equal(during.body.events.filter((e: any) => e.title === 'Weekly').length, 4);
      assert.equal(during.body.events[0].title, 'Weekly', 'in start order');
      assert.equal((await t.del(`/events/${series.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
      for (let i = 0; i < 2; i++) {
        const after = await t.get('/events');
        assert.equal(after.body.total, 3);
        assert.deepEqual(
          after.body.events.map((e: any) => e.title),
          ['Single 0', 'Single 1', 'Single 2'],
        );
      }
      const page2 = await t.get('/events', { query: { per_page: 2, page: 2 } });
      assert.deepEqual(
        page2.body.events.map((e: any) => e.title),
        ['Single 2'],
      );
      assert.equal(page2.headers['x-tec-total'], '3');
      const beyond = await t.get('/events', { query: { per_page: 2, page: 3 } });
      assert.equal(beyond.status, 404);
      assert.equal(beyond.body.code, 'event-archive-page-not-found');
    } finally {
      await t.close();
    }
  });
});
