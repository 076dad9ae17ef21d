import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent } from '../helpers/factories.js';

describe('term counts follow every event write', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const count = async (id: number) => (await t.get(`/categories/${id}`)).body.count;

  it('counts published events only, through publish, re-term, trash and restore', async () => {
    const a = await makeCategory(t, { name: 'Count A' });
    const b = await makeCategory(t, { name: 'Count B' });
    const published = await makeEvent(t, { categories: [a.id] });
    const draft = await makeEvent(t, { categories: [a.id, b.id], status: 'draft' });
    assert.deepEqual([await count(a.id), await count(b.id)], [1, 0]);

    await t.patch(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } });
    assert.deepEqual([await count(a.id), await count(b.id)], [2, 1]);

    await t.patch(`/events/${published.id}`, { as: 'administrator', json: { categories: [b.id] } });
    assert.deepEqual([await count(a.id), await count(b.id)], [1, 2]);

    await t.del(`/events/${draft.id}`, { as: 'administrator' });
    assert.deepEqual([await count(a.id), await count(b.id)], [0, 1]);

    await t.patch(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } });
    assert.deepEqual([await count(a.id), await count(b.id)], [1, 2]);

    await t.patch(`/events/${published.id}`, { as: 'administrator', json: { status: 'private' } });
    assert.deepEqual([await count(a.id), await count(b.id)], [1, 1]);

    await t.patch(`/events/${published.id}`, { as: 'administrator', json: { title: 'no term change' } });
    assert.deepEqual([await count(a.id), await count(b.id)], [1, 1]);

    // the maintained counts equal a recount from scratch
    const listed = (await t.get('/categories', { query: { hide_empty: 0, per_page: 50 } })).body.categories;
    await t.storage.terms.recount();
    const recounted = (await t.get('/categories', { query: { hide_empty: 0, per_page: 50 } })).body.categories;
    assert.deepEqual(
      listed.map((c: any) => c.count),
      recounted.map((c: any) => c.count),
    );
  });
});

describe('scheduled events come due', () => {
  it('are published when their date has come, and counted from then on', async () => {
    const t = await createTestApp();
    try {
      const cat = await makeCategory(t, { name: 'Scheduled cat' });
      const e = await makeEvent(t, { title: 'Scheduled', date: '+2 days', categories: [cat.id] });
      const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Scheduled hall', date: '+2 days' } });
      assert.equal(e.status, 'future');
      assert.equal(venue.body.status, 'future');
      assert.equal((await t.get(`/events/${e.id}`)).status, 403);
      assert.equal((await t.get(`/categories/${cat.id}`)).body.count, 0);
      assert.equal(await t.app.services.events.publishDue(Date.now() + 86_400_000), 0, 'not yet');
      assert.equal(await t.app.services.events.publishDue(Date.now() + 3 * 86_400_000), 1);
      assert.equal(await t.app.services.events.publishDue(Date.now() + 3 * 86_400_000), 0, 'once only');
      const res = await t.get(`/events/${e.id}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'publish');
      assert.equal((await t.get(`/categories/${cat.id}`)).body.count, 1);
      assert.equal((await t.get('/events', { query: { include: e.id } })).body.total, 1);
      assert.equal((await t.get(`/venues/${venue.body.id}`)).body.status, 'publish');
    } finally {
      await t.close();
    }
  });
});
