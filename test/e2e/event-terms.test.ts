/**
 * `event_terms` and `term_ancestors` (migration 0028), kept by triggers: after each kind of write through the API
 * — events with categories and tags, a series whose occurrences share its terms, an exception overriding them, a
 * split, a category moved under another, a category deleted, an event trashed, hidden, moved and deleted — both
 * tables hold exactly what a recount from the terms, the links and the events makes. And a category's list counts
 * and pages through them as it did through the links.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { rebuildEventTerms } from '../../src/storage/migrations/0028-event-terms.migration.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('the events filed under each term', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const post = async (path: string, json: Record<string, unknown>, status = 201) => {
    const res = await t.post(path, { as: 'administrator', json });
    assert.equal(res.status, status, `${path}: ${res.text}`);
    return res.body;
  };

  async function snapshot() {
    const { rows: filed } = await sql<Record<string, unknown>>`
      select term_id, post_id, status, hidden, start_date, end_date from event_terms order by term_id, post_id`.execute(t.storage.db);
    const { rows: ancestors } = await sql<Record<string, unknown>>`
      select term_id, ancestor_id from term_ancestors order by term_id, ancestor_id`.execute(t.storage.db);
    return {
      filed: filed.map((r) => JSON.stringify(Object.values(r).map(String))),
      ancestors: ancestors.map((r) => `${r.term_id}<${r.ancestor_id}`),
    };
  }

  /** The tables as the triggers left them equal the recount's (which then stays: it is the same). */
  async function assertKept(step: string) {
    const kept = await snapshot();
    await rebuildEventTerms(t.storage.db);
    const recounted = await snapshot();
    assert.deepEqual(kept.ancestors, recounted.ancestors, `${step}: term_ancestors`);
    assert.deepEqual(kept.filed, recounted.filed, `${step}: event_terms`);
    return kept;
  }

  /** An hour's event in the evening of `date`. */
  const evening = (title: string, date: string, fields: Record<string, unknown>) =>
    post('/events', { title, start_date: `${date} 18:00:00`, end_date: `${date} 19:00:00`, ...fields });

  async function listed(query: Record<string, string>) {
    const res = await t.get('/events', { query: { start_date: '2035-01-01', end_date: '2035-12-31', per_page: '50', ...query } });
    assert.equal(res.status, 200, res.text);
    return { ids: (res.body.events ?? []).map((e: { id: number }) => e.id) as number[], total: Number(res.headers['x-tec-total']) };
  }

  it('lists a series once with expand_recurring=false under its category (masters are not filed)', async () => {
    const once = await post('/categories', { name: 'Once' });
    const series = await evening('Thrice', '2035-06-05', { categories: [once.id], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const single = await evening('Single', '2035-06-06', { categories: [once.id] });
    const query = { categories: String(once.id), start_date: '2035-06-01', end_date: '2035-06-30' };
    assert.equal((await listed(query)).total, 4, 'three occurrences and the single');
    const folded = await listed({ ...query, expand_recurring: 'false' });
    assert.deepEqual(
      [...folded.ids].sort((x, y) => x - y),
      [series.id, single.id].sort((x, y) => x - y),
    );
    assert.equal(folded.total, 2);
  });

  it('are kept by every write as a recount makes them, and filter lists', async () => {
    const a = await post('/categories', { name: 'Arts' });
    const b = await post('/categories', { name: 'Music', parent: a.id });
    const c = await post('/categories', { name: 'Jazz', parent: b.id });
    const d = await post('/categories', { name: 'Sports' });
    const kept = await assertKept('terms made');
    // each term is its own ancestor; Jazz has Music and Arts above it
    assert.ok(kept.ancestors.includes(`${c.id}<${a.id}`) && kept.ancestors.includes(`${c.id}<${b.id}`));

    const day = (n: number) => `2035-03-${String(n).padStart(2, '0')}`;
    const event = (i: number, fields: Record<string, unknown>) =>
      post('/events', { title: `Event ${i}`, start_date: `${day(i)} 10:00:00`, end_date: `${day(i)} 12:00:00`, ...fields });
    const e1 = await event(1, { categories: [c.id], tags: ['blue'] });
    const e2 = await event(2, { categories: [b.id, c.id] });
    const e3 = await event(3, { categories: [d.id], tags: ['blue', 'red'] });
    const e4 = await event(4, { categories: [a.id], status: 'draft' });
    await assertKept('events made');
    // Arts lists its own and its descendants' events, once each; the draft is the visitor's to miss
    assert.deepEqual(await listed({ categories: String(a.id) }), { ids: [e1.id, e2.id], total: 2 });
    assert.equal((await listed({ categories: String(b.id) })).total, 2);
    assert.deepEqual(await listed({ categories: String(c.id) }), { ids: [e1.id, e2.id], total: 2 });

    const series = await evening('Weekly', '2035-04-02', { categories: [c.id], tags: ['red'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    await assertKept('series made');
    const occurrences = (
      await t.get(`/events/${series.id}/occurrences`, { as: 'administrator', query: { start_date: '2035-01-01', end_date: '2035-12-31' } })
    ).body.events as { id: number }[];
    assert.equal(occurrences.length, 4);
    assert.equal((await listed({ categories: String(a.id) })).total, 6);

    // an exception with categories of its own, the series' terms changed, a split
    await post(`/events/${occurrences[1].id}`, { categories: [d.id] }, 200);
    await assertKept('exception');
    await post(`/events/${series.id}`, { categories: [b.id], tags: ['green'] }, 200);
    await assertKept('series terms changed');
    await post(`/events/${occurrences[3].id}/split`, { categories: [a.id] }, 201);
    await assertKept('split');

    // single events: terms replaced, moved, hidden, trashed, deleted
    await post(`/events/${e1.id}`, { categories: [d.id], tags: [] }, 200);
    await post(`/events/${e2.id}`, { start_date: `${day(20)} 10:00:00`, end_date: `${day(20)} 12:00:00` }, 200);
    await post(`/events/${e3.id}`, { hide_from_listings: true }, 200);
    await post(`/events/${e4.id}`, { status: 'publish' }, 200);
    await assertKept('events edited');
    assert.equal((await t.del(`/events/${e3.id}`, { as: 'administrator' })).status, 200);
    await assertKept('event trashed');
    assert.equal((await t.del(`/events/${e2.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    await assertKept('event deleted');

    // the tree: Jazz moved under Sports, then Music deleted (its children move up to Arts)
    await post(`/categories/${c.id}`, { parent: d.id }, 200);
    const moved = await assertKept('category moved');
    assert.ok(moved.ancestors.includes(`${c.id}<${d.id}`) && !moved.ancestors.includes(`${c.id}<${a.id}`));
    assert.equal((await t.del(`/categories/${b.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    const pruned = await assertKept('category deleted');
    assert.ok(!pruned.filed.some((row) => JSON.parse(row)[0] === String(b.id)), 'no event is filed under a deleted category');

    await event(5, { categories: [c.id] });
    await assertKept('event in the moved category');

    // every category's list: the events (occurrences included) whose categories, as each reads, are the category or
    // one under it — Jazz is under Sports now, Arts has no child left
    const all = (await t.get('/events', { query: { start_date: '2035-01-01', end_date: '2035-12-31', per_page: '50' } })).body.events as {
      id: number;
      categories: { id: number }[];
    }[];
    assert.ok(all.length >= 5);
    for (const [term, under] of [
      [a, [a.id]],
      [c, [c.id]],
      [d, [d.id, c.id]],
    ] as const) {
      const expected = all.filter((e) => e.categories.some((x) => under.includes(x.id))).map((e) => e.id);
      assert.ok(expected.length > 0, `category ${term.name} has events`);
      assert.deepEqual(await listed({ categories: String(term.id) }), { ids: expected, total: expected.length }, `category ${term.name}`);
    }
  });
});
