/**
 * Migration 0024 (PostgreSQL): `event_day_counts` keeps room on its pages, so the counts a daily series moves are
 * updated where they are (HOT: no new entry in the key) instead of each moving to a new page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

describe('migration 0024, room on the pages of event_day_counts', {
  skip: DIALECT !== 'postgres' && 'SQLite has no fill factor: it rewrites a row in place',
}, () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t?.close());

  it('sets fillfactor 50 on event_day_counts', async () => {
    const { rows } = await sql<{ options: string[] | null }>`
      select reloptions as options from pg_class where oid = 'event_day_counts'::regclass`.execute(t.storage.db);
    assert.deepEqual(rows[0]?.options, ['fillfactor=50']);
  });

  it("keeps most of a day's count on its page when a second daily series moves the counts of the same days", async () => {
    const daily = (title: string) =>
      t.post('/events', {
        as: 'editor',
        json: { title, start_date: '2035-03-01 09:00:00', end_date: '2035-03-01 10:00:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=400'] },
      });
    const first = await daily('First daily');
    assert.equal(first.status, 201, first.text);
    /** The heap page of each of those days' counts, and the count. */
    const days = async () =>
      new Map(
        (
          await sql<{ day: string; page: string; n: number }>`
            select start_day as day, (ctid::text::point)[0]::bigint::text as page, n from event_day_counts
            where status = 'publish' and start_day between '2035-03-01' and '2036-04-03'`.execute(t.storage.db)
        ).rows.map((r) => [r.day, { page: r.page, n: Number(r.n) }]),
      );
    const before = await days();
    assert.equal(before.size, 400);
    assert.ok([...before.values()].every((d) => d.n === 1));
    const second = await daily('Second daily');
    assert.equal(second.status, 201, second.text);
    const after = await days();
    assert.ok(
      [...after.values()].every((d) => d.n === 2),
      'each day counts both',
    );
    const stayed = [...before].filter(([day, d]) => after.get(day)?.page === d.page).length;
    // half a page free holds a new version of every row on it (full pages: the last page's few only)
    assert.ok(stayed / before.size > 0.8, `${stayed} of ${before.size} stayed on their page`);
  });
});
