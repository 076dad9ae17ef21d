import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CategorySchema } from '../../src/http/routes/categories-tags/categories-tags.schemas.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { insertRawEvent, insertRawPost, makeCategory, makeEvent, makeTag } from '../helpers/factories.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;

describe('categories: create', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('creates a category from a form body: 201, the term shape, a Location header', async () => {
    const res = await t.post('/categories', { as: 'administrator', form: { name: 'Music', description: 'Live shows' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), Object.keys(CategorySchema.properties));
    assert.equal(typeof res.body.id, 'number');
    assert.equal(res.body.count, 0);
    assert.equal(res.body.description, 'Live shows');
    assert.equal(res.body.name, 'Music');
    assert.equal(res.body.slug, 'music');
    assert.equal(res.body.taxonomy, 'tribe_events_cat');
    assert.equal(res.body.parent, 0);
    assert.deepEqual(res.body.meta, []);
    assert.equal(res.body.url, `${PUBLIC_URL}/events/category/music/`);
    assert.deepEqual(res.body.urls, { self: `${NS}/categories/${res.body.id}`, collection: `${NS}/categories` });
    assert.equal(res.headers.location, `${NS}/categories/${res.body.id}`);
  });

  it('creates from a JSON body, with a slug that is sanitised', async () => {
    const res = await t.post('/categories', { as: 'editor', json: { name: 'Théâtre & Danse', slug: 'Théâtre & Danse!' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.name, 'Théâtre &amp; Danse', 'an ampersand as the original answers it (see below)');
    assert.equal(res.body.slug, 'theatre-danse');
  });

  it('answers names and descriptions as WordPress keeps them: tags stripped, & < > as entities, never twice', async () => {
    // recorded: anonymous/categories/single/9.json (created with `Festivals & Fairs`, `…fairs & markets.`)
    const res = await t.post('/categories', {
      as: 'administrator',
      json: { name: 'Festivals & Fairs', description: 'Outdoor festivals, fairs & markets.' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.name, 'Festivals &amp; Fairs');
    assert.equal(res.body.description, 'Outdoor festivals, fairs &amp; markets.');
    assert.equal((await t.get(`/categories/${res.body.id}`)).body.name, 'Festivals &amp; Fairs');
    const listed = await t.get('/categories', { query: { include: res.body.id, hide_empty: false } });
    assert.equal(listed.body.categories[0].name, 'Festivals &amp; Fairs');
    // the name still names the term: a duplicate, and an event's category by name
    assert.equal((await t.post('/categories', { as: 'administrator', json: { name: 'Festivals & Fairs' } })).body.code, 'term_exists');
    const event = await makeEvent(t, { categories: ['Festivals & Fairs'] });
    assert.deepEqual(
      event.categories.map((c: any) => [c.id, c.name, c.description]),
      [[res.body.id, 'Festivals &amp; Fairs', 'Outdoor festivals, fairs &amp; markets.']],
    );

    // sanitize_text_field + kses for the name; kses for the description (no script, entities not doubled)
    const tagged = await t.post('/categories', {
      as: 'administrator',
      json: { name: '<b>Bold</b> &amp; co > x', description: 'a <script>alert(1)</script><strong>b</strong> &amp; c' },
    });
    assert.equal(tagged.status, 201);
    assert.equal(tagged.body.name, 'Bold &amp; co &gt; x');
    assert.equal(tagged.body.description, 'a <strong>b</strong> &amp; c');
    const updated = await t.patch(`/categories/${tagged.body.id}`, { as: 'administrator', json: { name: 'Rock <i>&</i> Roll' } });
    assert.equal(updated.body.name, 'Rock &amp; Roll');
  });

  it('shows a name as text on the pages and in iCalendar, whether stored as written or as an import keeps it (entities)', async () => {
    await t.post('/categories', { as: 'administrator', json: { name: 'Pots & Pans' } });
    // an imported name keeps the original's entities (`Rock &amp; Roll`, as its API served it)
    await t.post('/categories', { as: 'administrator', json: { name: 'Rock &amp; Roll' } });
    const event = await makeEvent(t, {
      categories: ['Pots & Pans', 'Rock &amp; Roll'],
      start_date: '2031-02-01 10:00:00',
      end_date: '2031-02-01 11:00:00',
    });
    assert.deepEqual(event.categories.map((c: any) => c.name).sort(), ['Pots &amp; Pans', 'Rock &amp; Roll']);
    const page = await t.app.inject({ method: 'GET', url: `/event/${event.slug}/` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, />Pots &amp; Pans</);
    assert.match(page.body, />Rock &amp; Roll</);
    assert.doesNotMatch(page.body, /&amp;amp;/);
    const ics = await t.app.inject({ method: 'GET', url: `/calendar/events/v1/events/${event.id}.ics` });
    const line = ics.body.split('\r\n').find((l) => l.startsWith('CATEGORIES:'));
    assert.deepEqual(line?.slice('CATEGORIES:'.length).split(',').sort(), ['Pots & Pans', 'Rock & Roll']);
  });

  it('makes slugs unique with -2, -3 when names differ but slugs collide', async () => {
    const a = await t.post('/categories', { as: 'administrator', form: { name: 'Jazz Club' } });
    const b = await t.post('/categories', { as: 'administrator', form: { name: 'Jazz-Club' } });
    const c = await t.post('/categories', { as: 'administrator', form: { name: 'Other', slug: 'jazz-club' } });
    assert.deepEqual([a.body.slug, b.body.slug, c.body.slug], ['jazz-club', 'jazz-club-2', 'jazz-club-3']);
  });

  it('refuses a duplicate name (any case, same parent) with term_exists and the existing id', async () => {
    const first = await t.post('/categories', { as: 'administrator', form: { name: 'Comedy' } });
    const res = await t.post('/categories', { as: 'administrator', form: { name: 'COMEDY' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'term_exists');
    assert.equal(res.body.data.status, 400);
    assert.equal(res.body.data.term_id, first.body.id);
  });

  it('allows the same name under another parent, and links the child up', async () => {
    const parent = await t.post('/categories', { as: 'administrator', form: { name: 'Outdoor' } });
    const child = await t.post('/categories', { as: 'administrator', form: { name: 'Comedy', parent: String(parent.body.id) } });
    assert.equal(child.status, 201);
    assert.equal(child.body.parent, parent.body.id);
    assert.equal(child.body.slug, 'comedy-2');
    assert.equal(child.body.urls.up, `${NS}/categories/${parent.body.id}`);
    assert.equal(child.body.url, `${PUBLIC_URL}/events/category/outdoor/comedy-2/`);
  });

  it('needs a name: missing → rest_missing_callback_param, empty → rest_invalid_param', async () => {
    const missing = await t.post('/categories', { as: 'administrator', form: { description: 'x' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['name']);
    const nullName = await t.post('/categories', { as: 'administrator', json: { name: null } });
    assert.equal(nullName.body.code, 'rest_missing_callback_param');
    const empty = await t.post('/categories', { as: 'administrator', form: { name: '' } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.code, 'rest_invalid_param');
    assert.ok('name' in empty.body.data.params);
  });

  it('rejects empty description and slug, and bad parents, naming each parameter', async () => {
    for (const [field, value] of [
      ['description', ''],
      ['slug', ''],
      ['parent', ''],
      ['parent', 'foo'],
      ['parent', '2389'],
    ] as const) {
      const res = await t.post('/categories', { as: 'administrator', form: { name: `N ${field} ${value}`, [field]: value } });
      assert.equal(res.status, 400, `${field}=${value}`);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), [field]);
    }
  });

  it('rejects a JSON number where a string is declared', async () => {
    const res = await t.post('/categories', { as: 'administrator', json: { name: 42 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.match(res.body.data.params.name, /not of type string/);
  });

  it('rejects a tag id as parent', async () => {
    const tag = await makeTag(t);
    const res = await t.post('/categories', { as: 'administrator', form: { name: 'Under a tag', parent: String(tag.id) } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
  });

  it('lets authors and up create; 401 anonymous, 403 contributor and subscriber, 401 bad credentials', async () => {
    const expected = { administrator: 201, editor: 201, author: 201, contributor: 403, subscriber: 403, anonymous: 401, bad: 401 } as const;
    for (const [caller, status] of Object.entries(expected)) {
      const res = await t.post('/categories', { as: caller as keyof typeof expected, form: { name: `By ${caller}` } });
      assert.equal(res.status, status, caller);
      if (status === 403 || (status === 401 && caller === 'anonymous')) assert.equal(res.body.code, 'rest_forbidden', caller);
      if (caller === 'bad') assert.equal(res.body.code, 'incorrect_password');
    }
  });

  it('validates before it checks permissions (anonymous with no name → 400)', async () => {
    const res = await t.post('/categories', { form: {} });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_missing_callback_param');
  });

  it('stores nothing when the write is refused', async () => {
    await t.post('/categories', { as: 'contributor', form: { name: 'Never stored' } });
    const list = await t.get('/categories', { query: { hide_empty: 0, search: 'Never stored', per_page: 50 } });
    assert.equal(list.body.total, 0);
  });
});

describe('categories: read, update, delete', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('reads a category anonymously', async () => {
    const c = await makeCategory(t, { name: 'Readable', description: 'd' });
    const res = await t.get(`/categories/${c.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, c.id);
    assert.equal(res.body.name, 'Readable');
    assert.equal(res.body.description, 'd');
  });

  it('answers 400 rest_invalid_param for an id that is not a category, 404 for a non-numeric one', async () => {
    const tag = await makeTag(t);
    for (const id of ['999999', String(tag.id)]) {
      const res = await t.get(`/categories/${id}`);
      assert.equal(res.status, 400, id);
      assert.equal(res.body.code, 'rest_invalid_param');
    }
    const nonNumeric = await t.get('/categories/foo');
    assert.equal(nonNumeric.status, 404);
    assert.equal(nonNumeric.body.code, 'rest_no_route');
  });

  it('updates partially with POST, PUT and PATCH: omitted fields stay', async () => {
    const c = await makeCategory(t, { name: 'Partial', description: 'Original' });
    const put = await t.put(`/categories/${c.id}`, { as: 'editor', form: { description: 'Changed' } });
    assert.equal(put.status, 200);
    assert.equal(put.body.name, 'Partial');
    assert.equal(put.body.description, 'Changed');
    assert.equal(put.body.slug, 'partial');
    const patch = await t.patch(`/categories/${c.id}`, { as: 'author', json: { name: 'Renamed' } });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.name, 'Renamed');
    assert.equal(patch.body.description, 'Changed');
    assert.equal(patch.body.slug, 'partial', 'renaming keeps the slug');
    const post = await t.post(`/categories/${c.id}`, { as: 'administrator', form: { slug: 'New Slug' } });
    assert.equal(post.status, 200);
    assert.equal(post.body.slug, 'new-slug');
    assert.equal(post.body.name, 'Renamed');
  });

  it('clears a description with JSON null', async () => {
    const c = await makeCategory(t, { description: 'To clear' });
    const res = await t.patch(`/categories/${c.id}`, { as: 'administrator', json: { description: null } });
    assert.equal(res.status, 200);
    assert.equal(res.body.description, '');
  });

  it('refuses a slug another category has with duplicate_term_slug', async () => {
    const a = await makeCategory(t, { name: 'Slug owner' });
    const b = await makeCategory(t, { name: 'Slug thief' });
    const res = await t.put(`/categories/${b.id}`, { as: 'administrator', form: { slug: a.slug } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'duplicate_term_slug');
  });

  it('moves a category under another, refuses cycles, and moves it back with parent 0', async () => {
    const top = await makeCategory(t, { name: 'Top' });
    const mid = await makeCategory(t, { name: 'Mid', parent: top.id });
    const moved = await t.put(`/categories/${mid.id}`, { as: 'administrator', form: { parent: String(top.id) } });
    assert.equal(moved.body.parent, top.id);
    const cycle = await t.put(`/categories/${top.id}`, { as: 'administrator', form: { parent: String(mid.id) } });
    assert.equal(cycle.status, 400);
    assert.equal(cycle.body.code, 'rest_invalid_param');
    const self = await t.put(`/categories/${top.id}`, { as: 'administrator', form: { parent: String(top.id) } });
    assert.equal(self.status, 400);
    const back = await t.put(`/categories/${mid.id}`, { as: 'administrator', form: { parent: '0' } });
    assert.equal(back.status, 200);
    assert.equal(back.body.parent, 0);
    assert.equal(back.body.urls.up, undefined);
  });

  it('checks permissions on update: author ok, contributor 403, anonymous 401; unknown id → 400 first', async () => {
    const c = await makeCategory(t);
    assert.equal((await t.put(`/categories/${c.id}`, { as: 'author', form: { description: 'a' } })).status, 200);
    const contributor = await t.put(`/categories/${c.id}`, { as: 'contributor', form: { description: 'a' } });
    assert.equal(contributor.status, 403);
    assert.equal(contributor.body.code, 'rest_forbidden');
    assert.equal((await t.put(`/categories/${c.id}`, { form: { description: 'a' } })).status, 401);
    const unknown = await t.put('/categories/987654', { form: { description: 'a' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'rest_invalid_param');
  });

  it('deletes for good: 200 with the term as it was, children re-parented, relationships gone', async () => {
    const grand = await makeCategory(t, { name: 'Grand' });
    const parent = await makeCategory(t, { name: 'Parent', parent: grand.id });
    const child = await makeCategory(t, { name: 'Child', parent: parent.id });
    const eventId = await insertRawEvent(t, { termIds: [parent.id, child.id] });
    const res = await t.del(`/categories/${parent.id}`, { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, parent.id);
    assert.equal(res.body.parent, grand.id);
    assert.equal(res.body.count, 1);
    assert.equal((await t.get(`/categories/${parent.id}`)).status, 400);
    const again = await t.del(`/categories/${parent.id}`, { as: 'administrator' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'rest_invalid_param');
    const reparented = await t.get(`/categories/${child.id}`);
    assert.equal(reparented.body.parent, grand.id);
    const ofEvent = await t.get('/categories', { query: { post: eventId, hide_empty: 0 } });
    assert.deepEqual(
      ofEvent.body.categories.map((c: { id: number }) => c.id),
      [child.id],
    );
  });

  it('checks permissions on delete', async () => {
    const c = await makeCategory(t);
    assert.equal((await t.del(`/categories/${c.id}`)).status, 401);
    assert.equal((await t.del(`/categories/${c.id}`, { as: 'subscriber' })).status, 403);
    assert.equal((await t.del(`/categories/${c.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.del(`/categories/${c.id}`, { as: 'author' })).status, 200);
  });
});

describe('categories: list', () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  before(async () => {
    t = await createTestApp();
    // created in this order: b, A, C (ids ascending)
    for (const name of ['b', 'A', 'C']) ids[name] = (await makeCategory(t, { name, description: `about ${name}` })).id;
    ids.empty = (await makeCategory(t, { name: 'Empty' })).id;
    ids.parent = (await makeCategory(t, { name: 'Parent of one' })).id;
    ids.child = (await makeCategory(t, { name: 'Only child', slug: 'foo-bar', parent: ids.parent })).id;
    ids.draftOnly = (await makeCategory(t, { name: 'Drafts only' })).id;
    await insertRawEvent(t, { termIds: [ids.b, ids.A] });
    await insertRawEvent(t, { termIds: [ids.A, ids.C] });
    await insertRawEvent(t, { termIds: [ids.C, ids.child] });
    await insertRawEvent(t, { termIds: [ids.draftOnly], status: 'draft' });
  });
  after(() => t.close());

  const names = (res: { body: { categories: { name: string }[] } }) => res.body.categories.map((c) => c.name);

  it('has the envelope in the original key order, with totals and headers', async () => {
    const res = await t.get('/categories', { query: { per_page: 50 } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['rest_url', 'total', 'total_pages', 'categories']);
    assert.equal(res.body.rest_url, `${NS}/categories/?per_page=50`);
    assert.equal(res.headers['x-tec-total'], String(res.body.total));
    assert.equal(res.headers['x-tec-totalpages'], String(res.body.total_pages));
  });

  it('hides empty categories by default but keeps an empty parent of a non-empty child', async () => {
    const res = await t.get('/categories', { query: { per_page: 50 } });
    assert.deepEqual(names(res), ['A', 'b', 'C', 'Only child', 'Parent of one']);
    assert.equal(res.body.total, 5);
    const all = await t.get('/categories', { query: { per_page: 50, hide_empty: 'false' } });
    assert.equal(all.body.total, 7);
  });

  it('counts published events only', async () => {
    const res = await t.get('/categories', { query: { per_page: 50, hide_empty: 0 } });
    const count = Object.fromEntries(res.body.categories.map((c: { name: string; count: number }) => [c.name, c.count]));
    assert.deepEqual(count, { A: 2, b: 1, C: 2, 'Drafts only': 0, Empty: 0, 'Only child': 1, 'Parent of one': 0 });
  });

  it('defaults to 4 per page, sorted by name case-insensitively', async () => {
    const res = await t.get('/categories');
    assert.deepEqual(names(res), ['A', 'b', 'C', 'Only child']);
    assert.equal(res.body.total_pages, 2);
    assert.equal(res.body.next_rest_url, `${NS}/categories/?page=2`);
  });

  it('orders by id descending, slug, count and include order; unknown orderby falls back to name', async () => {
    const byId = await t.get('/categories', { query: { orderby: 'id', order: 'desc', include: `${ids.b},${ids.A},${ids.C}` } });
    assert.deepEqual(names(byId), ['C', 'A', 'b']);
    const byCount = await t.get('/categories', { query: { orderby: 'count', order: 'DESC', per_page: 2 } });
    assert.deepEqual(
      byCount.body.categories.map((c: { count: number }) => c.count),
      [2, 2],
    );
    const byInclude = await t.get('/categories', { query: { orderby: 'include', include: `${ids.C},${ids.b},${ids.A}` } });
    assert.deepEqual(names(byInclude), ['C', 'b', 'A']);
    const unknown = await t.get('/categories', { query: { orderby: 'whatever', include: `${ids.C},${ids.b},${ids.A}` } });
    assert.deepEqual(names(unknown), ['A', 'b', 'C']);
    const desc = await t.get('/categories', { query: { order: 'desc', include: `${ids.C},${ids.b},${ids.A}` } });
    assert.deepEqual(names(desc), ['C', 'b', 'A']);
  });

  it('searches name and slug, case-insensitively', async () => {
    const res = await t.get('/categories', { query: { search: 'FOO' } });
    assert.deepEqual(names(res), ['Only child']);
    const byName = await t.get('/categories', { query: { search: 'of on', hide_empty: 0 } });
    assert.deepEqual(names(byName), ['Parent of one']);
    const wildcard = await t.get('/categories', { query: { search: '%', hide_empty: 0 } });
    assert.equal(wildcard.body.total, 0, 'LIKE wildcards match literally');
  });

  it('filters by include, exclude, parent, slug', async () => {
    assert.deepEqual(names(await t.get('/categories', { query: { include: [ids.A, ids.b].join(',') } })), ['A', 'b']);
    assert.deepEqual(names(await t.get('/categories', { query: `include[]=${ids.A}&include[]=${ids.C}` })), ['A', 'C']);
    assert.deepEqual(names(await t.get('/categories', { query: { exclude: `${ids.A} ${ids.b}` } })), ['C', 'Only child', 'Parent of one']);
    assert.deepEqual(names(await t.get('/categories', { query: { parent: ids.parent } })), ['Only child']);
    assert.deepEqual(names(await t.get('/categories', { query: { slug: 'foo-bar' } })), ['Only child']);
  });

  it('filters by post and event (event wins when both are given)', async () => {
    const e1 = await insertRawEvent(t, { termIds: [ids.b] });
    const e2 = await insertRawEvent(t, { termIds: [ids.C] });
    assert.deepEqual(names(await t.get('/categories', { query: { post: e1 } })), ['b']);
    assert.deepEqual(names(await t.get('/categories', { query: { event: e2 } })), ['C']);
    assert.deepEqual(names(await t.get('/categories', { query: { post: e1, event: e2 } })), ['C']);
  });

  it('answers 400 for bad list parameters, naming them', async () => {
    const venue = await insertRawPost(t, 'venue');
    const cases: [string, string][] = [
      ['page', '0'],
      ['page', '-1'],
      ['page', 'foo'],
      ['page', '1.5'],
      ['per_page', '0'],
      ['per_page', 'x'],
      ['search', ''],
      ['order', ''],
      ['orderby', ''],
      ['hide_empty', 'maybe'],
      ['hide_empty', ''],
      ['include', '999999'],
      ['include', 'foo'],
      ['exclude', '999999'],
      ['parent', '999999'],
      ['parent', ''],
      ['post', ''],
      ['post', '23'],
      ['post', 'foo'],
      ['post', String(venue)],
      ['event', '999999'],
      ['slug', ''],
    ];
    for (const [name, value] of cases) {
      const res = await t.get('/categories', { query: { [name]: value } });
      assert.equal(res.status, 400, `${name}=${value}`);
      assert.equal(res.body.code, 'rest_invalid_param', `${name}=${value}`);
      assert.ok(name in res.body.data.params, `${name}=${value}`);
    }
  });

  it('pages with followable next and previous URLs carrying the filters', async () => {
    const p1 = await t.get('/categories', { query: { per_page: 2, hide_empty: 0 } });
    assert.equal(p1.body.total, 7);
    assert.equal(p1.body.total_pages, 4);
    assert.equal(p1.body.previous_rest_url, undefined);
    assert.equal(p1.body.next_rest_url, `${NS}/categories/?per_page=2&hide_empty=0&page=2`);
    const p2 = await t.get(p1.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.equal(p2.status, 200);
    assert.deepEqual(Object.keys(p2.body), ['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url', 'previous_rest_url']);
    assert.equal(p2.body.categories.length, 2);
    assert.equal(p2.body.previous_rest_url, `${NS}/categories/?per_page=2&hide_empty=0`);
    const p3 = await t.get(p2.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.equal(p3.body.previous_rest_url, `${NS}/categories/?per_page=2&hide_empty=0&page=2`);
    const seen = [...p1.body.categories, ...p2.body.categories, ...p3.body.categories].map((c: { id: number }) => c.id);
    assert.equal(new Set(seen).size, 6);
  });

  it('answers 200 with an empty list past the last page', async () => {
    const res = await t.get('/categories', { query: { page: 99 } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.categories, []);
    assert.equal(res.body.total, 5);
  });

  it('caps per_page at 50', async () => {
    const many = await createTestApp();
    try {
      for (let i = 0; i < 51; i++) await makeCategory(many, { name: `Cat ${String(i).padStart(2, '0')}` });
      const res = await many.get('/categories', { query: { per_page: 100, hide_empty: 0 } });
      assert.equal(res.status, 200);
      assert.equal(res.body.categories.length, 50);
      assert.equal(res.body.total, 51);
      assert.equal(res.body.total_pages, 2);
    } finally {
      await many.close();
    }
  });
});
