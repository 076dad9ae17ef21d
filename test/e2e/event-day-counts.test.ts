import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ANONYMOUS } from '../../src/domain/actor.js';
import { listVisibility } from '../../src/domain/visibility.js';
import { countableByDays, monthSplit } from '../../src/storage/stores/event.store.js';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { insertRawEvent, makeEvent } from '../helpers/factories.js';
import { monthsOfDayCounts, storedMonthCounts } from '../helpers/snapshot.js';

/**
 * List totals over whole days come from `event_day_counts`, kept by triggers; these tests hold them against
 * counting the events themselves after every kind of write.
 */
describe('per-day event counts', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const db = () => t.storage.db as any;

  /** The table's non-zero rows and the same figures counted from `events`. */
  async function consistency() {
    const kept = await db().selectFrom('event_day_counts').selectAll().where('n', '>', 0).execute();
    const { rows: actual } = await db().executeQuery({
      sql: `select status, hide_from_listings as hidden, substr(start_date, 1, 10) as start_day, substr(end_date, 1, 10) as end_day, count(*) as n
            from events group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)`,
      parameters: [],
      query: { kind: 'RawNode' },
    } as any);
    const key = (r: any) => `${r.status}|${Number(r.hidden)}|${r.start_day}|${r.end_day}=${Number(r.n)}`;
    assert.deepEqual(kept.map(key).sort(), (actual as any[]).map(key).sort());
    assert.deepEqual(await storedMonthCounts(t.storage.db), await monthsOfDayCounts(t.storage.db), 'month counts sum the day counts');
  }

  /** The API's total for a query, and the same total counted from `events` with the window it reports. */
  async function totals(as: Caller, query: Record<string, string>) {
    const res = await t.get('/events', { as, query: { ...query, per_page: 1 } });
    assert.equal(res.status, 200, res.text);
    const window = new URL(res.body.rest_url).searchParams;
    const from = window.get('start_date');
    const to = window.get('end_date');
    let q = db()
      .selectFrom('events')
      .select((e: any) => e.fn.countAll().as('n'))
      .where('hide_from_listings', '=', 0);
    if (query.status) q = q.where('status', '=', query.status);
    else if (as === 'anonymous') q = q.where('status', '=', 'publish');
    else q = q.where('status', 'not in', ['trash', 'auto-draft']);
    if (from) q = q.where('start_date', '>=', from);
    if (to) q = q.where('end_date', '<=', to);
    return { api: Number(res.headers['x-tec-total']), counted: Number((await q.executeTakeFirstOrThrow()).n), window: `${from}..${to}` };
  }

  async function check(label: string) {
    await consistency();
    for (const [as, query] of [
      ['anonymous', {}],
      ['administrator', {}],
      ['anonymous', { start_date: '2027-03-01', end_date: '2027-03-02' }],
      ['anonymous', { start_date: '2027-03-02' }],
      ['editor', { end_date: '2027-03-06' }],
      ['editor', { status: 'draft', start_date: '2027-01-01', end_date: '2027-12-31' }],
      ['anonymous', { start_date: '2030-01-01', end_date: '2030-12-31' }],
      // windows that split into whole months and ragged days in every way (migration 0026)
      ['anonymous', { start_date: '2027-03-01', end_date: '2027-03-31' }],
      ['anonymous', { start_date: '2027-03-02', end_date: '2027-04-01' }],
      ['anonymous', { start_date: '2027-02-28', end_date: '2027-04-30' }],
      ['anonymous', { start_date: '2027-03-31', end_date: '2027-05-01' }],
      ['anonymous', { start_date: '2027-03-30', end_date: '2027-03-31' }],
      ['anonymous', { start_date: '2027-04-01' }],
      ['anonymous', { start_date: '2027-03-31' }],
      ['administrator', { end_date: '2027-03-31' }],
      ['administrator', { end_date: '2027-04-01' }],
      ['administrator', { start_date: '2026-01-15', end_date: '2028-02-29' }],
      ['administrator', { start_date: '2028-02-01', end_date: '2028-02-28' }],
    ] as const) {
      const { api, counted, window } = await totals(as, query);
      assert.equal(api, counted, `${label}: ${as} ${JSON.stringify(query)} over ${window}`);
    }
  }

  it('keep list totals exact through creates, updates, trash, publication and raw writes', async () => {
    const a = await makeEvent(t, { start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 12:00:00' });
    const b = await makeEvent(t, { start_date: '2027-03-01 23:00:00', end_date: '2027-03-02 01:00:00' });
    await makeEvent(t, { start_date: '2027-03-05', end_date: '2027-03-07', all_day: true });
    const hidden = await makeEvent(t, { start_date: '2027-03-02 10:00:00', end_date: '2027-03-02 11:00:00', hide_from_listings: true });
    const draft = await makeEvent(t, { start_date: '2027-03-03 10:00:00', end_date: '2027-03-03 11:00:00', status: 'draft' });
    await makeEvent(t, { start_date: '+1 week 10am', end_date: '+1 week 11am' });
    // across the end of a month, and of February in a leap year
    const across = await makeEvent(t, { start_date: '2027-03-31 22:00:00', end_date: '2027-04-01 02:00:00' });
    await makeEvent(t, { start_date: '2027-01-30', end_date: '2027-04-02', all_day: true });
    await makeEvent(t, { start_date: '2028-02-28 20:00:00', end_date: '2028-02-29 21:00:00' });
    await makeEvent(t, { start_date: '2028-02-29 20:00:00', end_date: '2028-03-01 01:00:00' });
    await check('after creates');
    assert.ok((await totals('anonymous', { start_date: '2027-03-01', end_date: '2027-03-02' })).api >= 2, 'the test counts something');

    assert.equal(
      (await t.post(`/events/${a.id}`, { as: 'administrator', json: { start_date: '2027-03-04 09:00:00', end_date: '2027-03-04 10:00:00' } })).status,
      200,
    );
    assert.equal((await t.post(`/events/${b.id}`, { as: 'administrator', json: { status: 'draft' } })).status, 200);
    assert.equal((await t.post(`/events/${hidden.id}`, { as: 'administrator', json: { hide_from_listings: false } })).status, 200);
    assert.equal((await t.post(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } })).status, 200);
    assert.equal(
      (await t.post(`/events/${across.id}`, { as: 'administrator', json: { start_date: '2027-04-30 23:00:00', end_date: '2027-05-01 01:00:00' } }))
        .status,
      200,
    );
    await check('after updates');

    assert.equal((await t.del(`/events/${draft.id}`, { as: 'administrator' })).status, 200);
    await check('after trash');

    const future = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
    const scheduled = await makeEvent(t, { start_date: '2027-03-01 08:00:00', end_date: '2027-03-01 09:00:00', date_utc: future });
    assert.equal(scheduled.status, 'future');
    await check('after scheduling');
    assert.equal(await t.app.services.events.publishDue(Date.now() + 3 * 86_400_000), 1);
    await check('after publication');

    const raw = await insertRawEvent(t);
    await check('after a raw insert');
    await db().deleteFrom('events').where('post_id', '=', raw).execute();
    await check('after a raw delete');
  });

  it('split a window into the months it holds whole and the days of its ragged ends', () => {
    assert.deepEqual(monthSplit('2027-03-01', '2027-03-31'), { first: '2027-03', last: '2027-03' });
    assert.deepEqual(monthSplit('2027-03-02', '2027-03-30'), { first: '2027-04', last: '2027-02' });
    assert.deepEqual(monthSplit('2026-12-31', '2028-02-29'), { first: '2027-01', last: '2028-02' });
    assert.deepEqual(monthSplit('2027-02-28', '2100-02-28'), { first: '2027-03', last: '2100-02' }, '2100 is no leap year');
    assert.deepEqual(monthSplit('2027-01-01', '2028-02-28'), { first: '2027-01', last: '2028-01' }, '2028 is one');
    assert.deepEqual(monthSplit(undefined, '2027-12-31'), { first: undefined, last: '2027-12' });
    assert.deepEqual(monthSplit('2027-12-02', undefined), { first: '2028-01', last: undefined });
    assert.deepEqual(monthSplit('0999-01-01', '9999-12-31'), { first: '0999-01', last: '9999-12' });
    assert.equal(monthSplit('2027-1-01', undefined), undefined, 'not a day: counted by days alone');
  });

  it('are used only for statuses and whole days; anything else is counted exactly', () => {
    const pub = listVisibility(ANONYMOUS);
    assert.deepEqual(countableByDays({ visibility: pub, startGte: '2027-01-01 00:00:00', endLte: '2027-12-31 23:59:59', termGroups: [] }), {
      from: '2027-01-01',
      to: '2027-12-31',
      statuses: ['publish'],
    });
    assert.deepEqual(countableByDays({ visibility: listVisibility(t.actor('editor')), statuses: ['draft'] }), {
      from: undefined,
      to: undefined,
      statuses: 'all',
    });
    assert.equal(countableByDays({ visibility: pub, startGte: '2027-01-01 10:00:00' }), undefined, 'not a whole day');
    assert.equal(countableByDays({ visibility: pub, endLte: '2027-01-01 23:59:58' }), undefined, 'not a whole day');
    assert.equal(countableByDays({ visibility: pub, featured: false }), undefined);
    assert.equal(countableByDays({ visibility: pub, termGroups: [[3]] }), undefined);
    assert.equal(countableByDays({ visibility: pub, include: [] }), undefined);
    assert.equal(countableByDays({ visibility: pub, startLt: '2027-01-01 23:59:59' }), undefined);
    assert.equal(countableByDays({ visibility: listVisibility(t.actor('author')) }), undefined, 'own drafts need the post row');
  });

  describe('month counts follow every change of the day counts', () => {
    const row = { status: 'publish', hidden: 0 };
    /** A day count of its own (no event behind it: what is checked here is the months following the days). */
    const bump = (trx: any, day: string, by: number) =>
      sql`insert into event_day_counts (status, hidden, start_day, end_day, n) values (${row.status}, ${row.hidden}, ${day}, ${day}, ${by})
          on conflict (status, hidden, start_day, end_day) do update set n = event_day_counts.n + ${by}`.execute(trx);
    const agree = async (label: string) => assert.deepEqual(await storedMonthCounts(t.storage.db), await monthsOfDayCounts(t.storage.db), label);
    const monthOf = async (month: string) =>
      Number(
        (
          await sql<{
            n: number;
          }>`select coalesce(sum(n), 0) as n from event_month_counts where status = 'publish' and hidden = 0 and start_month = ${month}`.execute(
            t.storage.db,
          )
        ).rows[0].n,
      );

    it('leave out what a rolled-back savepoint or transaction changed', async () => {
      const before = await monthOf('2040-01');
      await t.storage.db.transaction().execute(async (trx) => {
        await bump(trx, '2040-01-10', 1);
        await sql`savepoint s`.execute(trx);
        await bump(trx, '2040-01-11', 5);
        await bump(trx, '2040-01-10', 7);
        await sql`rollback to savepoint s`.execute(trx);
        await bump(trx, '2040-01-12', 2);
      });
      assert.equal(await monthOf('2040-01'), before + 3);
      await t.storage.db
        .transaction()
        .execute(async (trx) => {
          await bump(trx, '2040-01-13', 4);
          throw new Error('rolled back');
        })
        .catch((e: Error) => assert.equal(e.message, 'rolled back'));
      assert.equal(await monthOf('2040-01'), before + 3);
      await agree('after savepoints and a rollback');
    });

    it('count every statement when the constraints are immediate (as in migrations)', {
      skip: DIALECT !== 'postgres' && 'PostgreSQL only',
    }, async () => {
      const before = await monthOf('2040-02');
      await t.storage.db.transaction().execute(async (trx) => {
        await sql`set constraints all immediate`.execute(trx);
        await bump(trx, '2040-02-01', 1);
        await bump(trx, '2040-02-02', 2);
        await bump(trx, '2040-02-01', 3);
      });
      assert.equal(await monthOf('2040-02'), before + 6);
      await agree('after immediate constraints');
    });

    it('let two transactions change one month at once, neither waiting for the other', {
      skip: DIALECT !== 'postgres' && 'SQLite writes one at a time',
    }, async () => {
      const before = await monthOf('2040-03');
      await t.storage.db.transaction().execute(async (first) => {
        await bump(first, '2040-03-05', 1);
        // a second transaction, on another connection, changes another day of the same month and commits while
        // the first is open: were the month's row taken as the day's is, it would wait for the first to end
        const second = t.storage.db.transaction().execute((trx) => bump(trx, '2040-03-06', 1));
        const waited = await Promise.race([second.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), 5_000))]);
        assert.equal(waited, false, 'the second transaction committed while the first was open');
        assert.equal(await monthOf('2040-03'), before + 1, 'the second is counted at its commit');
      });
      assert.equal(await monthOf('2040-03'), before + 2, 'and the first at its own');
      await agree('after two transactions at once');
    });
  });
});
