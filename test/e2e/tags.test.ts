import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { insertRawEvent, makeCategory, makeTag } from '../helpers/factories.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;

describe('tags', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('creates a tag: 201, no parent key, a tag archive url', async () => {
    const res = await t.post('/tags', { as: 'editor', form: { name: 'Family Friendly', description: 'All ages' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls']);
    assert.equal(res.body.taxonomy, 'post_tag');
    assert.equal(res.body.slug, 'family-friendly');
    assert.equal(res.body.url, `${PUBLIC_URL}/tag/family-friendly/`);
    assert.deepEqual(res.body.urls, { self: `${NS}/tags/${res.body.id}`, collection: `${NS}/tags` });
  });

  it('lets only editors and administrators manage tags', async () => {
    const expected = { administrator: 201, editor: 201, author: 403, contributor: 403, subscriber: 403, anonymous: 401 } as const;
    for (const [caller, status] of Object.entries(expected)) {
      const res = await t.post('/tags', { as: caller as keyof typeof expected, form: { name: `Tag by ${caller}` } });
      assert.equal(res.status, status, caller);
    }
    const tag = await makeTag(t);
    assert.equal((await t.put(`/tags/${tag.id}`, { as: 'author', form: { name: 'x' } })).status, 403);
    assert.equal((await t.del(`/tags/${tag.id}`, { as: 'author' })).status, 403);
    assert.equal((await t.put(`/tags/${tag.id}`, { as: 'editor', form: { name: 'Edited' } })).body.name, 'Edited');
  });

  it('refuses a parent with rest_taxonomy_not_hierarchical, after the permission check', async () => {
    const res = await t.post('/tags', { as: 'editor', form: { name: 'With parent', parent: '1' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_taxonomy_not_hierarchical');
    const tag = await makeTag(t);
    const update = await t.patch(`/tags/${tag.id}`, { as: 'editor', json: { parent: 0 } });
    assert.equal(update.body.code, 'rest_taxonomy_not_hierarchical');
    const anonymous = await t.post('/tags', { form: { name: 'With parent', parent: '1' } });
    assert.equal(anonymous.status, 401);
  });

  it('refuses duplicate names in any case', async () => {
    await t.post('/tags', { as: 'editor', form: { name: 'Outdoors' } });
    const res = await t.post('/tags', { as: 'editor', form: { name: 'outdoors' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'term_exists');
  });

  it('does not mix categories and tags', async () => {
    const category = await makeCategory(t, { name: 'Not a tag' });
    const res = await t.get(`/tags/${category.id}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    const exclude = await t.get('/tags', { query: { exclude: category.id } });
    assert.equal(exclude.status, 400);
  });

  it('deletes a tag for good and takes it off events', async () => {
    const tag = await makeTag(t, { name: 'Short lived' });
    const event = await insertRawEvent(t, { termIds: [tag.id] });
    const res = await t.del(`/tags/${tag.id}`, { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 1);
    assert.equal(res.body.name, 'Short lived');
    const again = await t.del(`/tags/${tag.id}`, { as: 'administrator' });
    assert.equal(again.status, 400);
    const ofEvent = await t.get('/tags', { query: { post: event, hide_empty: 0 } });
    assert.deepEqual(ofEvent.body.tags, []);
  });
});

describe('tags: list', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    const ids: number[] = [];
    for (const name of ['delta', 'alpha', 'Charlie', 'bravo', 'echo']) ids.push((await makeTag(t, { name })).id);
    await insertRawEvent(t, { termIds: ids.slice(0, 4) });
  });
  after(() => t.close());

  it('lists non-empty tags by name with the envelope and headers', async () => {
    const res = await t.get('/tags', { query: { per_page: 10 } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['rest_url', 'total', 'total_pages', 'tags']);
    assert.deepEqual(
      res.body.tags.map((x: { name: string }) => x.name),
      ['alpha', 'bravo', 'Charlie', 'delta'],
    );
    assert.equal(res.headers['x-tec-total'], '4');
    assert.equal(res.headers['x-tec-totalpages'], '1');
  });

  it('takes offset and has no parent filter', async () => {
    const res = await t.get('/tags', { query: { offset: 1, per_page: 2 } });
    assert.deepEqual(
      res.body.tags.map((x: { name: string }) => x.name),
      ['bravo', 'Charlie'],
    );
    const parent = await t.get('/tags', { query: { parent: 'whatever' } });
    assert.equal(parent.status, 200, 'an undeclared argument is ignored');
  });

  it('pages by the default of 4', async () => {
    const res = await t.get('/tags', { query: { hide_empty: 0 } });
    assert.equal(res.body.tags.length, 4);
    assert.equal(res.body.total, 5);
    assert.equal(res.body.next_rest_url, `${NS}/tags/?hide_empty=0&page=2`);
    const next = await t.get(res.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(
      next.body.tags.map((x: { name: string }) => x.name),
      ['echo'],
    );
    assert.equal(next.body.previous_rest_url, `${NS}/tags/?hide_empty=0`);
  });
});
