/**
 * Storage.readTogether (stores/planned.ts): several planned reads answer exactly what each answers alone — rows,
 * their order, their values' types — in one statement on PostgreSQL, inside a transaction too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { renumberParameters } from '../../src/storage/dialects/postgres.dialect.js';
import { type PlannedRead, planned, type Row, runPlanned } from '../../src/storage/stores/planned.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeEvent } from '../helpers/factories.js';

describe('renumberParameters', () => {
  it('moves every placeholder on, and none inside quoted strings or names', () => {
    assert.equal(renumberParameters('select $1, $2 where a = $10', 3), 'select $4, $5 where a = $13');
    assert.equal(renumberParameters(`select '$1', 'it''s $2', "col$3", $1`, 2), `select '$1', 'it''s $2', "col$3", $3`);
    assert.equal(renumberParameters('select $1', 0), 'select $1');
  });
});

describe('Storage.readTogether', () => {
  let t: TestApp;
  let ids: number[];
  before(async () => {
    t = await createTestApp();
    ids = [];
    for (let i = 0; i < 3; i++) {
      const res = await makeEvent(t, {
        title: `Together ${i}`,
        start_date: `+${i + 1} days`,
        end_date: `+${i + 1} days 1 hour`,
        categories: `Zeta ${i},alpha ${i},Beta`,
        image: `https://cdn.example.org/together-${i}.png`,
        venue: { venue: `Hall ${i}`, geo_lat: 48.85 + i / 100, geo_lng: 2.35 },
        organizer: [{ organizer: `Org ${i}` }, { organizer: `Org ${(i + 1) % 3}` }],
      });
      ids.push(res.id as number);
    }
  });
  after(() => t.close());

  it('answers what each read answers alone, in order, on either database', async () => {
    const s = t.storage;
    const events = await s.events.findMany(ids);
    const venueIds = events.map((e) => e.venueId).filter((v): v is number => v !== null);
    assert.equal(venueIds.length, 3);
    const reads = [
      s.terms.forPostsPlan(ids),
      s.organizers.linkedToEventsPlan(ids),
      s.venues.findManyPlan(venueIds),
      s.images.forViewsPlan({
        ids: events.map((e) => e.imageId).filter((v): v is number => v !== null),
        ofPosts: venueIds,
        ofOrganizersOfEvents: ids,
      }),
      // a read with nothing to read takes no statement
      s.series.findManyPlan([]),
    ] as const;
    const together = await s.readTogether(reads);
    const alone: unknown[] = [];
    for (const r of reads as readonly PlannedRead<unknown>[]) alone.push(await runPlanned(s.db, r));
    assert.deepEqual(together, alone);
    // terms in WordPress' order (by name, case aside), organizers in link order
    const names = together[0].get(ids[0])?.map((term) => term.name);
    assert.deepEqual(names, ['alpha 0', 'Beta', 'Zeta 0']);
    assert.deepEqual(
      together[1].links.get(ids[2])?.map((id) => together[1].records.get(id)?.title),
      ['Org 2', 'Org 0'],
    );
    assert.equal(together[2].get(venueIds[1])?.geoLat, 48.86);
    assert.equal(together[3].size, 3);
    assert.equal(together[4].size, 0);
  });

  it('runs in one statement on PostgreSQL, and inside a transaction sees its writes', async () => {
    let statements = 0;
    const counted = await createTestApp({}, { onQuery: () => void statements++ });
    try {
      const s = counted.storage;
      statements = 0;
      const [a, b] = await s.readTogether([
        planned(CompiledQuery.raw(DIALECT === 'postgres' ? 'select $1::int as n' : 'select ? as n', [7]), (rows: readonly Row[]) => rows),
        planned(
          CompiledQuery.raw(DIALECT === 'postgres' ? `select $1::text as s, '$1' as q` : `select ? as s, '$1' as q`, ['x']),
          (rows: readonly Row[]) => rows,
        ),
      ] as const);
      assert.deepEqual(a, [{ n: 7 }]);
      assert.deepEqual(b, [{ s: 'x', q: '$1' }]);
      assert.equal(statements, DIALECT === 'postgres' ? 1 : 2);
    } finally {
      await counted.close();
    }
    // (rolled back: the other tests' data stays as made)
    await assert.rejects(
      t.storage.transaction(async (tx) => {
        await sql`update posts set title = ${'Inside'} where id = ${ids[0]}`.execute(tx.db);
        const [titles] = await tx.readTogether([
          planned(tx.db.selectFrom('posts').select('title').where('id', '=', ids[0]).compile(), (rows) => rows.map((r) => r.title)),
          planned(tx.db.selectFrom('posts').select('id').where('id', '=', ids[1]).compile(), (rows) => rows),
        ] as const);
        assert.deepEqual(titles, ['Inside']);
        throw new Error('roll back');
      }),
      /roll back/,
    );
  });
});
