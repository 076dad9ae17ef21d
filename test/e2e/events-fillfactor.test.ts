/**
 * Migration 0021 (PostgreSQL): `events` keeps room on its pages, so a series' edit of a field no index reads
 * updates its occurrences' rows where they are (HOT: no index entry added) instead of moving every one of them
 * (since migration 0023, the occurrences that have rows of their own).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

describe('migration 0021, room on the pages of events', {
  skip: DIALECT !== 'postgres' && 'SQLite has no fill factor: it rewrites a row in place',
}, () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t?.close());

  it('sets fillfactor 70 on events', async () => {
    const { rows } = await sql<{ options: string[] | null }>`
      select reloptions as options from pg_class where oid = 'events'::regclass`.execute(t.storage.db);
    assert.deepEqual(rows[0]?.options, ['fillfactor=70']);
  });

  it("keeps most of a series' occurrences with rows of their own on their pages when an edit makes the series featured", async () => {
    const made = await t.post('/events', {
      as: 'editor',
      json: {
        title: 'Roomy daily',
        start_date: '2033-02-01 09:00:00',
        end_date: '2033-02-01 10:00:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=400'],
      },
    });
    assert.equal(made.status, 201, made.text);
    // occurrences with events rows of their own that follow their series (plain ones have none since migration
    // 0023: an occurrence gets them when edited alone, or imported with a global id of its own)
    const ids = await t.storage.db.selectFrom('occurrences').select('id').where('series_id', '=', made.body.id).execute();
    await t.storage.transaction((tx) => tx.series.materialize(ids.map((r) => Number(r.id))));
    /** The heap page of each occurrence's row. */
    const pages = async () =>
      new Map(
        (
          await sql<{ id: number; page: string }>`
            select post_id as id, (ctid::text::point)[0]::bigint::text as page from events where series_id = ${made.body.id}`.execute(t.storage.db)
        ).rows.map((r) => [Number(r.id), r.page]),
      );
    const before = await pages();
    assert.ok(before.size >= 399, `${before.size} occurrences`);
    const edited = await t.post(`/events/${made.body.id}`, { as: 'editor', json: { featured: true } });
    assert.equal(edited.status, 200, edited.text);
    const after = await pages();
    const stayed = [...before].filter(([id, page]) => after.get(id) === page).length;
    // 30 % of a page free holds the new versions of 3 rows in 7 (a full page: the last page's few only)
    assert.ok(stayed / before.size > 0.3, `${stayed} of ${before.size} stayed on their page`);
    const listed = await t.get(`/events/${made.body.id}/occurrences`, {
      as: 'editor',
      query: { per_page: 5, start_date: '2033-01-01', end_date: '2034-12-31' },
    });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.body.events.every((e: { featured: boolean }) => e.featured));
  });
});
