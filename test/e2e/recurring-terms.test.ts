/**
 * The categories and tags of occurrences (migration 0017): an occurrence that does not override them carries
 * its series' without links of its own, and reads, filters, term routes, sync and webhook filters see them as
 * its; an exception that overrides one taxonomy has links of its own and follows its series in the other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('terms of occurrences', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const names = (terms: { name: string }[]) => terms.map((x) => x.name).sort();

  /** A series made by an administrator: two hours from `start`, with these terms and rule. */
  async function series(title: string, start: string, fields: Record<string, unknown>) {
    const end = `${start.slice(0, 11)}${String(Number(start.slice(11, 13)) + 2).padStart(2, '0')}${start.slice(13)}`;
    const res = await t.post('/events', { as: 'administrator', json: { title, start_date: start, end_date: end, ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function occurrencesOf(id: number) {
    const res = await t.get(`/events/${id}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2000-01-01', end_date: '2099-12-31', per_page: '50' },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.events as any[];
  }

  /** Ids of the events a visitor lists in the window with these terms. */
  async function listed(query: Record<string, string>) {
    const res = await t.get('/events', { query: { start_date: '2033-05-01', end_date: '2033-06-30', per_page: '50', ...query } });
    assert.equal(res.status, 200, res.text);
    return { ids: (res.body.events ?? []).map((e: any) => e.id) as number[], total: Number(res.headers['x-tec-total']) };
  }

  async function termId(route: 'categories' | 'tags', name: string) {
    const res = await t.get(`/${route}`, { query: { search: name, hide_empty: 'false' } });
    const term = res.body[route].find((x: any) => x.name === name);
    assert.ok(term, `${route} ${name}`);
    return term.id as number;
  }

  async function linksOf(ids: readonly number[]) {
    const rows = await t.storage.db.selectFrom('term_relationships').select(['post_id', 'term_id']).where('post_id', 'in', ids).execute();
    return rows.length;
  }

  it("stores no copies: an occurrence reads, lists and filters by its series' terms", async () => {
    const s = await series('Choir', '2033-05-02 19:00', { categories: ['Singing'], tags: ['evening'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const occ = await occurrencesOf(s.id);
    assert.equal(occ.length, 4);
    assert.equal(await linksOf(occ.map((o) => o.id)), 0, 'occurrences have no links of their own');
    for (const o of occ) {
      assert.deepEqual(names(o.categories), ['Singing']);
      assert.deepEqual(names(o.tags), ['evening']);
    }
    const one = await t.get(`/events/${occ[2].id}`);
    assert.deepEqual(names(one.body.categories), ['Singing']);
    assert.deepEqual(names(one.body.tags), ['evening']);
    const singing = await termId('categories', 'Singing');
    const evening = await termId('tags', 'evening');
    // the list filters and the totals count the occurrences; the series counts once in the term
    assert.deepEqual(
      (await listed({ categories: String(singing) })).ids,
      occ.map((o) => o.id),
    );
    assert.equal((await listed({ categories: String(singing) })).total, 4);
    assert.deepEqual(
      (await listed({ tags: String(evening) })).ids,
      occ.map((o) => o.id),
    );
    assert.equal((await t.get(`/categories/${singing}`)).body.count, 1);
    // a term route's `post` names an occurrence's terms
    assert.deepEqual(names((await t.get('/categories', { query: { post: String(occ[1].id) } })).body.categories), ['Singing']);
    assert.deepEqual(names((await t.get('/tags', { query: { post: String(occ[1].id) } })).body.tags), ['evening']);
    // a single event beside it is unaffected
    const single = await t.post('/events', {
      as: 'administrator',
      json: { title: 'Solo', start_date: '2033-05-03 10:00', end_date: '2033-05-03 11:00', categories: ['Singing'] },
    });
    assert.deepEqual((await listed({ categories: String(singing) })).ids, [occ[0].id, single.body.id, ...occ.slice(1).map((o) => o.id)]);
    assert.equal((await t.get(`/categories/${singing}`)).body.count, 2);
  });

  it('gives an exception links of its own for what it overrides; it follows its series in the other taxonomy', async () => {
    const s = await series('Rowing', '2033-06-06 07:00', { categories: ['Water'], tags: ['morning'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const occ = await occurrencesOf(s.id);
    const edited = await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { categories: ['Regatta'] } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(names(edited.body.categories), ['Regatta']);
    assert.deepEqual(names(edited.body.tags), ['morning']);
    assert.equal(edited.body.is_exception, true);
    const water = await termId('categories', 'Water');
    const regatta = await termId('categories', 'Regatta');
    assert.deepEqual((await listed({ categories: String(water) })).ids, [occ[0].id, occ[2].id, occ[3].id]);
    assert.deepEqual((await listed({ categories: String(regatta) })).ids, [occ[1].id]);
    // occurrences do not count in terms (a series counts once), exceptions included
    assert.equal((await t.get(`/categories/${regatta}`, { as: 'administrator' })).body.count, 0);

    // the whole series changes both taxonomies: the exception keeps its categories and takes the new tags
    const whole = await t.post(`/events/${s.id}`, { as: 'administrator', json: { categories: ['River'], tags: ['dawn'] } });
    assert.equal(whole.status, 200, whole.text);
    const after = await occurrencesOf(s.id);
    assert.deepEqual(
      after.map((o) => [o.id, names(o.categories), names(o.tags)]),
      [
        [occ[0].id, ['River'], ['dawn']],
        [occ[1].id, ['Regatta'], ['dawn']],
        [occ[2].id, ['River'], ['dawn']],
        [occ[3].id, ['River'], ['dawn']],
      ],
    );
    assert.deepEqual((await listed({ categories: String(water) })).ids, []);
    const dawn = await termId('tags', 'dawn');
    assert.deepEqual(
      (await listed({ tags: String(dawn) })).ids,
      after.map((o) => o.id),
    );
    assert.equal(await linksOf([occ[0].id, occ[2].id, occ[3].id]), 0);
    assert.equal(await linksOf([occ[1].id]), 2);

    // an edit of the exception's tags alone: now both are its own, and the series' next tags do not reach it
    await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { tags: ['race'] } });
    await t.post(`/events/${s.id}`, { as: 'administrator', json: { tags: ['sunrise'] } });
    const again = await occurrencesOf(s.id);
    assert.deepEqual(
      again.map((o) => names(o.tags)),
      [['sunrise'], ['race'], ['sunrise'], ['sunrise']],
    );
  });

  it("moves followers to the new series' terms on a split; an exception keeps its own", async () => {
    const s = await series('Chess', '2033-05-04 18:00', { categories: ['Board games'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    const occ = await occurrencesOf(s.id);
    await t.post(`/events/${occ[4].id}`, { as: 'administrator', json: { categories: ['Tournament'] } });
    const split = await t.post(`/events/${occ[3].id}/split`, { as: 'administrator', json: { categories: ['Blitz'] } });
    assert.equal(split.status, 201, split.text);
    assert.deepEqual(
      (await occurrencesOf(s.id)).map((o) => names(o.categories)),
      [['Board games'], ['Board games'], ['Board games']],
    );
    const moved = await occurrencesOf(split.body.id);
    assert.deepEqual(
      moved.map((o) => [o.id, names(o.categories)]),
      [
        [occ[3].id, ['Blitz']],
        [occ[4].id, ['Tournament']],
        [occ[5].id, ['Blitz']],
      ],
    );
    const blitz = await termId('categories', 'Blitz');
    assert.deepEqual((await listed({ categories: String(blitz) })).ids, [occ[3].id, occ[5].id]);
  });

  it("brings an exception that carries its series' terms into the next events sync when a term is renamed", async () => {
    const s = await series('Yoga', '2033-05-05 08:00', { categories: ['Stretching'], recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrencesOf(s.id);
    // an exception by its title: it still carries the series' categories
    await t.post(`/events/${occ[1].id}`, { as: 'administrator', json: { title: 'Yoga outdoors' } });
    let res = await t.get('/events', { as: 'anonymous', query: { sync_token: 'start', per_page: '500' } });
    while (res.body.next_page_token !== undefined) res = await t.get('/events', { query: { page_token: res.body.next_page_token } });
    const token = res.body.next_sync_token as string;
    const stretching = await termId('categories', 'Stretching');
    assert.equal((await t.post(`/categories/${stretching}`, { as: 'administrator', json: { name: 'Stretch' } })).status, 200);
    const next = await t.get('/events', { query: { sync_token: token } });
    assert.equal(next.status, 200, next.text);
    const changed = (next.body.events as any[]).map((e) => e.id).sort((a, b) => a - b);
    assert.deepEqual(
      changed,
      [s.id, occ[1].id].sort((a, b) => a - b),
    );
    const exception = (next.body.events as any[]).find((e) => e.id === occ[1].id);
    assert.deepEqual(names(exception.categories), ['Stretch']);
  });

  it('migrates copies of the series terms away, keeping the links of exceptions that overrode them', async () => {
    const s = await series('Pottery', '2033-05-06 14:00', { categories: ['Crafts'], tags: ['clay'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const occ = await occurrencesOf(s.id);
    await t.post(`/events/${occ[2].id}`, { as: 'administrator', json: { tags: ['glaze'] } });
    const before = await occurrencesOf(s.id);
    const db = t.storage.db;
    // every occurrence with rows of its own, as before migration 0023 (which made plain occurrences rows of
    // `occurrences` only)
    await t.storage.transaction((tx) => tx.series.materialize(occ.map((o) => o.id)));
    // the schema and rows as they were before migration 0017: every occurrence with copies of its series' links
    await sql`
      insert into term_relationships (post_id, term_id)
      select e.post_id, r.term_id from events e join term_relationships r on r.post_id = e.series_id
      where e.shared_terms = 1`.execute(db);
    // (and before migration 0028, whose triggers read the column)
    await t.storage.dialect.dropEventTermTriggers(db);
    await sql`drop table event_terms`.execute(db);
    await sql`drop table term_ancestors`.execute(db);
    await db.deleteFrom('schema_migrations').where('name', '=', '0028-event-terms').execute();
    await sql`drop index events_shared_terms`.execute(db);
    await sql`alter table events drop column shared_terms`.execute(db);
    await db.deleteFrom('schema_migrations').where('name', '=', '0017-shared-terms').execute();
    assert.equal(await linksOf(occ.map((o) => o.id)), 6);

    await t.storage.migrate();
    assert.equal(await linksOf([occ[0].id, occ[1].id]), 0);
    assert.equal(await linksOf([occ[2].id]), 2);
    const shared = await db.selectFrom('events').select(['post_id', 'shared_terms']).where('series_id', '=', s.id).orderBy('post_id').execute();
    assert.deepEqual(
      shared.map((r) => Number(r.shared_terms)),
      [1, 1, 0],
    );
    const after = await occurrencesOf(s.id);
    assert.deepEqual(
      after.map((o) => [names(o.categories), names(o.tags)]),
      before.map((o) => [names(o.categories), names(o.tags)]),
    );
    assert.deepEqual(
      after.map((o) => [names(o.categories), names(o.tags)]),
      [
        [['Crafts'], ['clay']],
        [['Crafts'], ['clay']],
        [['Crafts'], ['glaze']],
      ],
    );
  });
});
