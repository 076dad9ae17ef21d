/**
 * Migration 0019 (PostgreSQL): the key columns (dates, statuses, kinds, types) compare byte by byte. On an
 * existing schema with events, a series and its day counts, the migration changes the columns' collation,
 * keeps the day-count trigger that names them, and changes no answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { BYTE_ORDER_COLUMNS } from '../../src/storage/migrations/0019-byte-order-keys.migration.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

describe('migration 0019, byte-order key columns', { skip: DIALECT !== 'postgres' && 'SQLite compares every column byte by byte' }, () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t?.close());

  /** The columns of BYTE_ORDER_COLUMNS and their collation ('C', or 'default' for the database's). */
  async function collations() {
    const { rows } = await sql<{ table: string; column: string; collation: string }>`
      select c.relname as "table", a.attname as "column", coalesce(k.collname, '?') as "collation"
      from pg_attribute a join pg_class c on c.oid = a.attrelid left join pg_collation k on k.oid = a.attcollation
      where c.relnamespace = current_schema()::regnamespace and a.attnum > 0
      order by 1, 2`.execute(t.storage.db);
    const wanted = new Set(Object.entries(BYTE_ORDER_COLUMNS).flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`)));
    return Object.fromEntries(rows.filter((r) => wanted.has(`${r.table}.${r.column}`)).map((r) => [`${r.table}.${r.column}`, r.collation]));
  }

  const dayCountTriggers = async () =>
    (
      await sql<{ definition: string }>`
        select pg_get_triggerdef(t.oid) as definition from pg_trigger t
        where t.tgrelid = 'events'::regclass and t.tgname like 'events_day_counts%' order by t.tgname`.execute(t.storage.db)
    ).rows.map((r) => r.definition);

  /** What a visitor and an administrator see: lists in two orders, a window's total, and the day counts. */
  async function answers() {
    const list = async (query: Record<string, string>, as?: 'administrator') => {
      const res = await t.get('/events', { query: { per_page: '50', ...query }, as });
      assert.equal(res.status, 200, res.text);
      return [res.headers['x-tec-total'], res.body.events.map((e: any) => `${e.id} ${e.start_date}`)];
    };
    const counts = await t.storage.db.selectFrom('event_day_counts').selectAll().orderBy(['status', 'hidden', 'start_day', 'end_day']).execute();
    return {
      upcoming: await list({}),
      window: await list({ start_date: '2031-03-01', end_date: '2031-03-31' }),
      descending: await list({ start_date: '2031-01-01', end_date: '2031-12-31', order: 'desc' }, 'administrator'),
      drafts: await list({ status: 'draft', start_date: '2000-01-01' }, 'administrator'),
      counts,
    };
  }

  it('makes existing key columns compare byte by byte and changes no answer of a service that was running, its day-count trigger kept', async () => {
    const made = await collations();
    assert.ok(Object.keys(made).length >= 20, 'the columns exist');
    assert.ok(
      Object.values(made).every((c) => c === 'C'),
      JSON.stringify(made),
    );
    const triggers = await dayCountTriggers();
    assert.equal(triggers.length, 3);

    // the schema as it was before 0019: the columns under the database's collation
    const db = t.storage.db;
    await sql`drop trigger events_day_counts on events`.execute(db);
    // (and the trigger of a later migration, 0028, whose WHEN reads the columns: made again after)
    const { rows: later } = await sql<{ definition: string }>`
      select pg_get_triggerdef(oid) as definition from pg_trigger
      where tgname = 'events_keep_event_terms' and tgrelid = 'events'::regclass`.execute(db);
    assert.equal(later.length, 1);
    await sql`drop trigger events_keep_event_terms on events`.execute(db);
    for (const [table, columns] of Object.entries(BYTE_ORDER_COLUMNS)) {
      const { rows } = await sql<{ column: string; type: string }>`
        select attname as "column", format_type(atttypid, atttypmod) as "type" from pg_attribute
        where attrelid = ${table}::regclass and attname in (${sql.join(columns)})`.execute(db);
      const changes = rows.map((r) => sql`alter column ${sql.id(r.column)} type ${sql.raw(r.type)} collate "default"`);
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
    await sql.raw(triggers.find((d) => / AFTER UPDATE OF /.test(d)) as string).execute(db);
    await sql.raw(later[0].definition).execute(db);
    await db.deleteFrom('schema_migrations').where('name', '=', '0019-byte-order-keys').execute();
    assert.ok(Object.values(await collations()).every((c) => c === 'default'));

    const post = async (json: Record<string, unknown>) => {
      const res = await t.post('/events', { as: 'administrator', json });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    for (const [i, day] of ['2031-03-09', '2031-03-02', '2031-03-30', '2031-04-01'].entries()) {
      await post({ title: `Single ${i}`, start_date: `${day} 1${i}:00:00`, end_date: `${day} 1${i}:30:00`, status: i === 3 ? 'draft' : 'publish' });
    }
    await post({
      title: 'Weekly',
      timezone: 'Europe/Berlin',
      start_date: '2031-03-03 08:00:00',
      end_date: '2031-03-03 09:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
    });
    const before = await answers();
    assert.equal(before.window[0], '8', 'three singles and five occurrences in March');

    assert.deepEqual(await t.storage.migrate(), ['0019-byte-order-keys']);
    assert.ok(
      Object.values(await collations()).every((c) => c === 'C'),
      'collations after the migration',
    );
    assert.deepEqual(await dayCountTriggers(), triggers, 'the day-count triggers, as they were');
    // the same app, whose connections prepared these reads before the columns changed (see prepareStatements)
    assert.deepEqual(await answers(), before);

    // the remade trigger keeps the day counts: moving a single out of March takes it out of the window's total
    const moved = (before.window[1] as string[]).find((s) => s.endsWith('2031-03-30 12:00:00'))?.split(' ')[0];
    const res = await t.post(`/events/${moved}`, {
      as: 'administrator',
      json: { start_date: '2031-05-01 12:00:00', end_date: '2031-05-01 13:00:00' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await answers()).window[0], '7');
    const may = await t.storage.db
      .selectFrom('event_day_counts')
      .select('n')
      .where('start_day', '=', '2031-05-01')
      .where('status', '=', 'publish')
      .execute();
    assert.deepEqual(
      may.map((r) => Number(r.n)),
      [1],
    );
  });
});
