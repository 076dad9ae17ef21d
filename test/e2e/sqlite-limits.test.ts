/**
 * SQLite: no statement the service sends has a bound LIMIT. SQLite (3.53) plans with a bound LIMIT's value, so it
 * prepares such a statement again each time the parameter is bound — every run, as better-sqlite3 binds them all
 * — and every page of every list was parsed and planned anew (SqliteCompiler in sqlite.dialect.ts). Pages of each
 * list route, a search, a category, a venue's events, the terms with an offset and a sync in pages, with their
 * statements read from the query log: each LIMIT is a number in the text (or `? + 0`, which SQLite does not plan
 * with); OFFSET stays a parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';

/** A LIMIT whose value is a parameter SQLite plans with: `limit ?` not followed by an arithmetic operator. */
const BOUND_LIMIT = /\blimit\s+\?(?!\s*[+-])/i;

describe('SQLite statements: LIMIT in the text, not bound', { skip: DIALECT !== 'sqlite' && 'a SQLite planner behaviour' }, () => {
  let t: TestApp;
  const sent: string[] = [];
  let category: { id: number; slug: string };
  let venue: { id: number };
  before(async () => {
    t = await createTestApp({}, { onQuery: (sql) => sent.push(sql) });
    category = await makeCategory(t, { name: 'Concerts' });
    const tag = await makeTag(t, { name: 'Outdoor' });
    await makeTag(t, { name: 'Indoor' });
    venue = await makeLinked(t, 'venue', { venue: 'Limit Hall' });
    await makeLinked(t, 'venue', { venue: 'Other Hall' });
    await makeLinked(t, 'organizer', { organizer: 'Limit Org' });
    for (let i = 1; i <= 5; i++)
      await makeEvent(t, {
        title: `Concert ${i}`,
        start_date: `+${i} days 10am`,
        end_date: `+${i} days 11am`,
        categories: [category.id],
        tags: [tag.id],
        venue: venue.id,
      });
  });
  after(() => t?.close());

  it('sends every page of the lists, the terms and a sync with its LIMIT as a number', async () => {
    sent.length = 0;
    const paths = [
      '/events',
      '/events?per_page=2&page=2',
      '/events?search=concert&per_page=2',
      `/events?categories=${category.slug}&per_page=2&page=2`,
      `/events?venue=${venue.id}&per_page=3`,
      '/venues?per_page=1&page=2',
      '/organizers?per_page=1',
      '/categories?per_page=1&page=1',
      '/tags?per_page=1&offset=1',
    ];
    for (const path of paths) {
      const res = await t.get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    // a sync in pages of two, to its end
    let query: Record<string, string | number> = { sync_token: 'start', per_page: 2 };
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 10, 'the sync never ended');
      const res = await t.get('/events', { as: 'administrator', query });
      assert.equal(res.status, 200, res.text);
      if (res.body.next_page_token === undefined) break;
      query = { page_token: res.body.next_page_token, per_page: 2 };
    }
    const limited = sent.filter((s) => /\blimit\b/i.test(s));
    assert.ok(limited.length >= paths.length, `only ${limited.length} statements with a LIMIT were sent`);
    assert.deepEqual(
      limited.filter((s) => BOUND_LIMIT.test(s)),
      [],
    );
    // the pages' sizes are in the texts (2 and 1 above; a page and one more for a sync's next-page check)
    assert.ok(limited.some((s) => /\blimit 2\b/i.test(s)));
    assert.ok(limited.some((s) => /\blimit 1\b/i.test(s)));
  });

  it("compiles the query builder's pages as LIMIT n OFFSET ?", () => {
    const db = t.storage.db as Kysely<any>;
    const page = db.selectFrom('events').select('post_id').orderBy('start_date').limit(25).offset(50).compile();
    assert.equal(page.sql, 'select "post_id" from "events" order by "start_date" limit 25 offset ?');
    assert.deepEqual(page.parameters, [50]);
  });
});
