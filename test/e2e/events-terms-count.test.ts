import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The count of a list by categories or tags. EventStore counts a term whose links are a small share of the
 * window's events by reading the term's events by id (termsPlan: SQLite's `events not indexed`, PostgreSQL's
 * `= any(array(…))`), and walks the window otherwise. Both ways must count the same events: drafts and
 * hidden events left out for a visitor, a child category's events in its parent's list, occurrences that carry
 * their series' terms, two groups of terms, a text search.
 */
describe('the total of a list by terms', () => {
  let t: TestApp;
  const year = '2034';
  const wide = { start_date: `${year}-01-01`, end_date: `${year}-12-31` };
  /** What a visitor should count in the wide window: events of Rare (or its child), then those also tagged `blue`, then those titled "Jazz". */
  const expected = { rare: 0, rareBlue: 0, rareJazz: 0, common: 0, commonInMay: 0, draftsCommon: 0, draftsRare: 0 };

  /** The SQL of the statements since the last `total()`. */
  let statements: string[] = [];

  before(async () => {
    t = await createTestApp({}, { onQuery: (sql) => statements.push(sql) });
    const post = async (path: string, json: Record<string, unknown>) => {
      const res = await t.post(path, { as: 'administrator', json });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    const rare = await post('/categories', { name: 'Rare' });
    const child = await post('/categories', { name: 'Rarer', parent: rare.id });
    const common = await post('/categories', { name: 'Common' });
    await post('/tags', { name: 'green' });
    // 240 events in the year, all Common; every twelfth also Rare (or its child), some of those tagged, drafts,
    // hidden, titled Jazz
    for (let i = 0; i < 240; i++) {
      const day = 1 + ((i * 37) % 360);
      const date = new Date(Date.UTC(Number(year), 0, day)).toISOString().slice(0, 10);
      const inRare = i % 12 === 0;
      const draft = i % 48 === 0;
      const hidden = i % 36 === 0;
      const blue = i % 24 === 0;
      const jazz = i % 5 === 0;
      const categories = [common.id, ...(inRare ? [i % 24 === 0 ? child.id : rare.id] : [])];
      await post('/events', {
        title: `${jazz ? 'Jazz' : 'Folk'} evening ${i}`,
        start_date: `${date} 19:00:00`,
        end_date: `${date} 21:00:00`,
        categories,
        ...(blue ? { tags: ['blue'] } : {}),
        ...(draft ? { status: 'draft' } : {}),
        ...(hidden ? { hide_from_listings: true } : {}),
      });
      if (draft && !hidden) {
        expected.draftsCommon++;
        if (inRare) expected.draftsRare++;
      }
      if (draft || hidden) continue;
      expected.common++;
      if (date >= `${year}-05-01` && date <= `${year}-05-31`) expected.commonInMay++;
      if (!inRare) continue;
      expected.rare++;
      if (blue) expected.rareBlue++;
      if (jazz) expected.rareJazz++;
    }
    // a weekly series of Rare: its ten occurrences carry the series' category without links of their own
    await post('/events', {
      title: 'Rare choir',
      start_date: `${year}-03-02 19:00:00`,
      end_date: `${year}-03-02 21:00:00`,
      categories: [rare.id],
      tags: ['blue'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'],
    });
    expected.rare += 10;
    expected.rareBlue += 10;
  });
  after(() => t.close());

  async function total(query: Record<string, string>) {
    statements = [];
    const res = await t.get('/events', { query: { ...wide, ...query } });
    assert.equal(res.status, 200, res.text);
    return Number(res.headers['x-tec-total']);
  }

  const sqlite = () => t.storage.dialect.name === 'sqlite';
  /** Whether the last list's count read the terms' events by id (SQLite: NOT INDEXED; PostgreSQL: by key). */
  const byId = () => statements.some((q) => (sqlite() ? / from events not indexed /.test(q) : /events\.post_id = any\(array\(/.test(q)));

  /** Whether the last list's count read the events filed under the groups' roots (event_terms, migration 0028). */
  const filed = () => statements.some((q) => /count\((\*|distinct t0\.post_id)\) as "n" from "event_terms" as "t0"/.test(q));

  it("counts a category's events filed under it, with its child category and its series' occurrences", async () => {
    assert.equal(await total({ categories: 'rare' }), expected.rare);
    assert.ok(filed(), 'the count reads event_terms');
    assert.ok(!byId());
  });

  it('counts the same with a second group of terms and with a text search', async () => {
    assert.equal(await total({ categories: 'rare', tags: 'blue' }), expected.rareBlue);
    assert.ok(filed());
    assert.equal(await total({ categories: 'rare', search: 'jazz' }), expected.rareJazz);
    assert.ok(filed(), "a text search reads the filed events' posts");
  });

  it('counts a group of two terms filed under each, each event once', async () => {
    // two tags (the second has no event); two categories, one of them the other's child
    assert.equal(await total({ categories: 'rare', tags: 'blue,green' }), expected.rareBlue);
    assert.ok(filed());
    assert.equal(await total({ categories: 'rarer,common' }), expected.common);
    assert.ok(filed());
  });

  it("counts a small group that no terms' subtrees make up by the terms' links, by id", async () => {
    // two categories each the other's parent (written past the API, which refuses such a loop): the group of
    // Rare and the loop has no roots that make it up, so the links are asked
    const loop = [];
    for (const name of ['Loop A', 'Loop B']) {
      const res = await t.post('/categories', { as: 'administrator', json: { name } });
      assert.equal(res.status, 201, res.text);
      loop.push(res.body as { id: number; slug: string });
    }
    await t.storage.db.updateTable('terms').set({ parent_id: loop[1].id }).where('id', '=', loop[0].id).execute();
    await t.storage.db.updateTable('terms').set({ parent_id: loop[0].id }).where('id', '=', loop[1].id).execute();
    assert.equal(await total({ categories: `rare,${loop[0].slug}` }), expected.rare);
    assert.ok(!filed());
    assert.ok(byId(), 'the count reads the terms by id');
  });

  it("walks the window for a category that most of the window's events have", async () => {
    assert.equal(await total({ categories: 'common' }), expected.common);
    assert.equal(await total({ categories: 'common', start_date: `${year}-05-01`, end_date: `${year}-05-31` }), expected.commonInMay);
    assert.ok(!byId(), 'the count walks the window');
    assert.ok(filed());
  });

  it('counts what an editor may read the same both ways', async () => {
    const editor = async (query: Record<string, string>) => {
      statements = [];
      const res = await t.get('/events', { as: 'editor', query: { ...wide, status: 'draft', ...query } });
      assert.equal(res.status, 200, res.text);
      return Number(res.headers['x-tec-total']);
    };
    // drafts every 48th event, all of them Common, and Rare (every 48th is also every 12th); hidden ones left out
    assert.ok(expected.draftsRare > 0);
    assert.equal(await editor({ categories: 'common' }), expected.draftsCommon);
    assert.equal(await editor({ categories: 'rare' }), expected.draftsRare);
  });
});
