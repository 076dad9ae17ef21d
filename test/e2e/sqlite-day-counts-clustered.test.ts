/**
 * Migration 0025 (SQLite): `event_day_counts` is kept in the order of its key (WITHOUT ROWID). Run again on a
 * table of the old shape, it keeps every count, and the triggers it makes again go on counting writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

describe('migration 0025, event_day_counts clustered on its key', {
  skip: DIALECT !== 'sqlite' && 'SQLite only: PostgreSQL keeps its heap with room on each page (0024)',
}, () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t?.close());

  const db = () => t.storage.db;
  const withoutRowid = async () =>
    Number((await sql<{ wr: number }>`select wr from pragma_table_list where name = 'event_day_counts'`.execute(db())).rows[0]?.wr);
  const counts = async () =>
    (
      await sql<{ k: string }>`select status || '|' || hidden || '|' || start_day || '|' || end_day || '=' || n as k from event_day_counts`.execute(
        db(),
      )
    ).rows
      .map((r) => r.k)
      .sort();
  const total = async (query: Record<string, string>) => {
    const res = await t.get('/events', { query: { ...query, per_page: '1' } });
    assert.equal(res.status, 200, res.text);
    return Number(res.headers['x-tec-total']);
  };
  const window = { start_date: '2031-05-01', end_date: '2031-06-30' };

  it('holds the table without a rowid, keyed by status, flag and days', async () => {
    assert.equal(await withoutRowid(), 1);
    const pk = (
      await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info('event_day_counts') where pk > 0 order by pk`.execute(db())
    ).rows;
    assert.deepEqual(
      pk.map((c) => c.name),
      ['status', 'hidden', 'start_day', 'end_day'],
    );
  });

  it('keeps every count when it turns a table of the old shape round, and its triggers count the writes after', async () => {
    const make = async (title: string, start: string, end: string, extra: Record<string, unknown> = {}) => {
      const res = await t.post('/events', { as: 'editor', json: { title, start_date: start, end_date: end, status: 'publish', ...extra } });
      assert.equal(res.status, 201, res.text);
      return res.body.id as number;
    };
    await make('One evening', '2031-05-03 19:00:00', '2031-05-03 22:00:00');
    await make('Three days', '2031-05-10 09:00:00', '2031-05-12 17:00:00');
    await make('Weekly', '2031-05-05 10:00:00', '2031-05-05 11:00:00', { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    const before = await counts();
    assert.equal(await total(window), 8);

    // the shape before 0025: a rowid table with its key as an index, the triggers made against it
    for (const op of ['insert', 'delete', 'update']) {
      await sql.raw(`drop trigger if exists events_${op}_day_count`).execute(db());
      await sql.raw(`drop trigger if exists occurrences_${op}_day_count`).execute(db());
    }
    await sql`create table old_counts (status varchar(20) not null, hidden integer not null, start_day varchar(10) not null, end_day varchar(10) not null, n integer not null, constraint event_day_counts_pk primary key (status, hidden, start_day, end_day))`.execute(
      db(),
    );
    await sql`insert into old_counts select status, hidden, start_day, end_day, n from event_day_counts`.execute(db());
    await sql`drop table event_day_counts`.execute(db());
    await sql`alter table old_counts rename to event_day_counts`.execute(db());
    await t.storage.dialect.createDayCountTriggers(db());
    await t.storage.dialect.createOccurrenceDayCountTriggers(db());
    assert.equal(await withoutRowid(), 0);

    // (and before 0026, whose month counts are kept by triggers on the table 0025 turns round)
    await sql`drop table event_month_counts`.execute(db());
    await db().deleteFrom('schema_migrations').where('name', 'in', ['0025-sqlite-day-counts-clustered', '0026-month-counts']).execute();
    assert.deepEqual(await t.storage.migrate(), ['0025-sqlite-day-counts-clustered', '0026-month-counts']);
    assert.equal(await withoutRowid(), 1);
    assert.deepEqual(await counts(), before);
    assert.equal(await total(window), 8);

    const added = await make('After the move', '2031-05-20 18:00:00', '2031-05-20 20:00:00');
    assert.equal(await total(window), 9, 'a create is counted');
    const moved = await t.post(`/events/${added}`, { as: 'editor', json: { start_date: '2031-07-02 18:00:00', end_date: '2031-07-02 20:00:00' } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(await total(window), 8, 'a move out of the window is counted');
    const trashed = await t.del(`/events/${added}`, { as: 'editor' });
    assert.equal(trashed.status, 200, trashed.text);
    assert.deepEqual(
      (await counts()).filter((k) => !k.endsWith('=0')),
      [...before, 'trash|0|2031-07-02|2031-07-02=1'].sort(),
      "the counts of before, and the trashed event's day under its status (the days it left at 0)",
    );
  });
});
