/**
 * How a page of a list is read (EventStore.page): on SQLite the page's ids first, then their rows; on
 * PostgreSQL the first page with its size, the caller's statuses and the fixed flags written into the statement
 * (so that the server keeps one generic plan of it: shown at 10k events by bench/pg-page-plan.mjs, not here — on
 * a table this small the server plans either text generically), later pages with parameters. Whatever the way,
 * the pages put together are the list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeEvent } from '../helpers/factories.js';

const ids = (res: { body: { events: { id: number }[] } }) => res.body.events.map((e) => e.id);

describe('events list: pages put together are the list', () => {
  let t: TestApp;
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  before(async () => {
    t = await createTestApp({}, { onQuery: (sql, _ms, parameters) => void statements.push({ sql, parameters: parameters ?? [] }) });
    // fourteen events, in threes at the same start (the order within a start is by id), a draft and a hidden one
    for (let n = 0; n < 14; n++) {
      const day = 10 + Math.floor(n / 3);
      await makeEvent(t, { title: `E${n}`, start_date: `+${day} days 10:00`, end_date: `+${day} days 12:00` });
    }
    await makeEvent(t, { title: 'Draft', status: 'draft', start_date: '+10 days 10:00', end_date: '+10 days 12:00' });
    await makeEvent(t, { title: 'Hidden', hide_from_listings: true, start_date: '+10 days 10:00', end_date: '+10 days 12:00' });
  });
  after(() => t.close());

  /** Every page of a list of 4 a page, put together, against the list in one page. */
  async function pagesAgree(query: Record<string, string>, as: 'anonymous' | 'editor', expected: number) {
    const all = await t.get('/events', { query: { ...query, per_page: '50' }, as });
    assert.equal(all.status, 200);
    assert.equal(all.body.events.length, expected);
    const paged: number[] = [];
    for (let page = 1; page <= Math.ceil(expected / 4); page++) {
      const res = await t.get('/events', { query: { ...query, per_page: '4', page: String(page) }, as });
      assert.equal(res.status, 200, `page ${page}`);
      assert.equal(res.body.total, expected);
      paged.push(...ids(res));
    }
    assert.deepEqual(paged, ids(all));
    // in start order, ties by id
    const starts = all.body.events.map((e: { start_date: string; id: number }) => `${e.start_date}|${String(e.id).padStart(9, '0')}`);
    assert.deepEqual(starts, [...starts].sort());
  }

  it('for an anonymous caller: published events only, pages of 4 in start order', async () => {
    await pagesAgree({}, 'anonymous', 14);
  });

  it('for an editor, with one status and with two (a list of statuses)', async () => {
    await pagesAgree({ status: 'publish' }, 'editor', 14);
    await pagesAgree({ status: 'publish,draft' }, 'editor', 15);
  });

  it('PostgreSQL: the first page names its size and the statuses in its text; later pages take parameters', async (ctx) => {
    if (DIALECT !== 'postgres') return ctx.skip('PostgreSQL only');
    const pageStatement = () => {
      // (a list reads its page's ids: EventStore.listIds; on a calendar without series, in the statement that
      // counts it: Dialect.readTogether)
      const found = statements.filter((s) => /\bselect events\.post_id as "id"/.test(s.sql) && /order by/.test(s.sql));
      assert.ok(found.length > 0, 'a page statement was sent');
      return found[found.length - 1];
    };
    statements.length = 0;
    assert.equal((await t.get('/events', { query: { per_page: '4' } })).status, 200);
    const first = pageStatement();
    assert.match(first.sql, / limit 4(\)|$)/);
    assert.doesNotMatch(first.sql, /offset/);
    assert.match(first.sql, /"events"\."status" = 'publish'/);
    // (the page's own parameters: those its part of the text names, the count beside it having its own)
    const pagePart = first.sql.slice(first.sql.search(/\bselect events\.post_id as "id"/));
    const pageParameters = [...pagePart.matchAll(/\$(\d+)/g)].map((m) => first.parameters[Number(m[1]) - 1]);
    assert.ok(!pageParameters.includes('publish'), 'the status is not a parameter');
    statements.length = 0;
    assert.equal((await t.get('/events', { query: { per_page: '4', page: '2' } })).status, 200);
    assert.match(pageStatement().sql, / limit \$\d+ offset \$\d+(\)|$)/);
  });
});
