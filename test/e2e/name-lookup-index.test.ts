/**
 * Migration 0020: the case-insensitive name index holds venues and organizers only, and the lookup that reuses a
 * venue of the same name (an event's inline venue) is one the index serves, on both databases: the statement
 * the service sent is planned again here with its own parameters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeEvent } from '../helpers/factories.js';

describe('the name index (migrations 0020, 0030)', () => {
  let t: TestApp;
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  before(async () => (t = await createTestApp({}, { onQuery: (sql, _ms, parameters) => sent.push({ sql, parameters }) })));
  after(() => t?.close());

  it('is limited to venues and organizers', async () => {
    const definition =
      DIALECT === 'postgres'
        ? (
            await t.storage.db.executeQuery<{ d: string }>(
              CompiledQuery.raw("select indexdef as d from pg_indexes where indexname = 'posts_type_title_lower' and schemaname = current_schema()"),
            )
          ).rows[0]?.d
        : (
            await t.storage.db.executeQuery<{ d: string }>(
              CompiledQuery.raw("select sql as d from sqlite_master where name = 'posts_type_title_lower'"),
            )
          ).rows[0]?.d;
    // (PostgreSQL: a hash index since migration 0030, which any length of name fits)
    assert.match(
      definition ?? '',
      DIALECT === 'postgres'
        ? /using hash \(lower\(title\)\) where .*type.*'venue'.*'organizer'/i
        : /\(type, lower\(title\)\) where .*type.*'venue'.*'organizer'/i,
    );
  });

  it('stores and finds names and e-mails of any length (PostgreSQL refused a B-tree entry over ~2,700 bytes)', async () => {
    // random CJK characters (3 bytes each): a repeated one would compress below the limit
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const random = (n: number) => Array.from({ length: n }, () => String.fromCharCode(0x4e00 + (next() % 20000))).join('');
    const name = random(1000);
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: name } });
    assert.equal(venue.status, 201, venue.text.slice(0, 300));
    const reused = await makeEvent(t, { venue: { venue: name } });
    assert.equal(reused.venue.id, venue.body.id, 'an inline venue of that name is the same venue');
    const organizer = await t.post('/organizers', { as: 'administrator', json: { organizer: random(1000), email: `${random(1000)}@example.org` } });
    assert.equal(organizer.status, 201, organizer.text.slice(0, 300));
  });

  it('serves the lookup of an inline venue by name, which finds the venue whatever the case', async () => {
    const first = await makeEvent(t, { venue: { venue: 'Salle Pleyel' } });
    sent.length = 0;
    const again = await makeEvent(t, { venue: { venue: 'SALLE PLEYEL' } });
    assert.equal(again.venue.id, first.venue.id);
    const lookup = sent.find((q) => /lower\(/.test(q.sql) && /'venue', 'organizer'/.test(q.sql));
    assert.ok(lookup, `the name lookup was sent: ${sent.map((q) => q.sql).join('\n')}`);
    let plan: string;
    if (DIALECT === 'postgres') {
      // (a table of a few rows is read whole whatever its indexes: the planner is told not to)
      plan = await t.storage.db.transaction().execute(async (tx) => {
        await tx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
        const rows = (await tx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${lookup.sql}`, [...lookup.parameters]))).rows;
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    } else {
      const rows = (
        await t.storage.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${lookup.sql}`, [...lookup.parameters]))
      ).rows;
      plan = rows.map((r) => r.detail).join('\n');
    }
    assert.match(plan, /posts_type_title_lower/, plan);
  });
});
