/**
 * The change log's rows of a transaction are written with it, whatever their number: on PostgreSQL as one
 * statement with the COMMIT, on SQLite by prepared inserts of up to 16 rows each. Both give the same rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('change log rows written at the end of a transaction', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t?.close());

  const logged = async (fromId: number) =>
    (
      await sql<{
        resource_type: string;
        resource_id: number;
        op: string;
        status: string | null;
        prior_status: string | null;
        fields: string | null;
      }>`
        select resource_type, resource_id, op, status, prior_status, fields from changes where resource_id >= ${fromId} order by seq`.execute(
        t.storage.db,
      )
    ).rows.map((r) => [r.resource_type, Number(r.resource_id), r.op, r.status, r.prior_status, r.fields]);

  for (const count of [1, 16, 17, 40]) {
    it(`writes ${count} noted change(s) of one transaction, each as noted, in the order noted`, async () => {
      const from = 900_000 + count * 1000;
      const expected: unknown[][] = [];
      await t.storage.transaction(async (tx) => {
        for (let i = 0; i < count; i++) {
          const id = from + i;
          if (i % 3 === 0) {
            await tx.changes.note('event', id, 'create', { status: 'publish' });
            expected.push(['event', id, 'create', 'publish', null, null]);
          } else if (i % 3 === 1) {
            await tx.changes.note('venue', id, 'update', { fields: ['city', 'address'] });
            expected.push(['venue', id, 'update', null, null, 'address,city']);
          } else {
            await tx.changes.note('organizer', id, 'delete', { status: 'trash', priorStatus: 'draft' });
            expected.push(['organizer', id, 'delete', 'trash', 'draft', null]);
          }
        }
      });
      assert.deepEqual(await logged(from), expected);
    });
  }

  it('writes nothing of a transaction that fails after noting', async () => {
    const from = 990_000;
    await assert.rejects(
      t.storage.transaction(async (tx) => {
        for (let i = 0; i < 20; i++) await tx.changes.note('event', from + i, 'update');
        throw new Error('the write fails');
      }),
      /the write fails/,
    );
    assert.deepEqual(await logged(from), []);
  });
});
