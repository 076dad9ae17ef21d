/**
 * Migration 0022 (SQLite): `events_end` and `events_start_utc` are gone and `events_venue` holds only events with a
 * venue, so a series without a venue writes its occurrences into fewer indexes. The service's own venue queries
 * still read `events_venue` (the planner must prove each one implies the index's condition), an administrator's
 * list still reads `events_start`, and what the venue filters answer is unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

describe('migration 0022, the indexes over the dates of events', {
  skip: DIALECT !== 'sqlite' && "PostgreSQL's planner reads all three indexes (see the migration)",
}, () => {
  let t: TestApp;
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  let venue: { id: number };
  before(async () => {
    t = await createTestApp({}, { onQuery: (sql, _ms, parameters) => sent.push({ sql, parameters }) });
    venue = await makeLinked(t, 'venue', { venue: 'Indexed Hall' });
    const past = await makeLinked(t, 'venue', { venue: 'Past Hall' });
    await makeEvent(t, { title: 'At the hall', venue: venue.id, start_date: '+2 weeks 10am', end_date: '+2 weeks 11am' });
    await makeEvent(t, { title: 'Long ago', venue: past.id, start_date: '2001-01-01 10:00:00', end_date: '2001-01-01 11:00:00' });
    const series = await t.post('/events', {
      as: 'editor',
      json: { title: 'Daily, nowhere', start_date: '+1 day 09:00', end_date: '+1 day 10:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=30'] },
    });
    assert.equal(series.status, 201, series.text);
  });
  after(() => t?.close());

  /** The query plan of each statement the service sent for a request, as SQLite details it. */
  async function plansOf(run: () => Promise<unknown>, matching: RegExp): Promise<string[]> {
    sent.length = 0;
    await run();
    const statements = sent.filter((s) => /^\s*select/i.test(s.sql) && matching.test(s.sql));
    assert.ok(statements.length > 0, `no statement matching ${matching}`);
    return Promise.all(
      statements.map(async (s) => {
        const plan = await t.storage.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${s.sql}`, [...s.parameters]));
        return plan.rows.map((r) => r.detail).join(' | ');
      }),
    );
  }

  it('drops events_end and events_start_utc and keeps events_venue for events with a venue', async () => {
    const indexes = await t.storage.db.executeQuery<{ name: string; partial: number }>(
      CompiledQuery.raw(`select name, partial from pragma_index_list('events')`),
    );
    const byName = new Map(indexes.rows.map((r) => [r.name, Number(r.partial)]));
    assert.equal(byName.has('events_end'), false);
    assert.equal(byName.has('events_start_utc'), false);
    assert.equal(byName.get('events_venue'), 1, 'events_venue is partial');
    assert.equal(byName.get('events_start'), 0, 'events_start stays whole');
    const entries = await t.storage.db.executeQuery<{ n: number }>(
      CompiledQuery.raw(`select count(*) as n from events indexed by events_venue where venue_id is not null`),
    );
    assert.equal(Number(entries.rows[0]?.n), 2, 'the two events with a venue, none of the 30 occurrences without one');
  });

  it('lists events by venue from events_venue', async () => {
    const plans = await plansOf(async () => {
      const res = await t.get('/events', { query: { venue: venue.id } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.events.map((e: { title: string }) => e.title),
        ['At the hall'],
      );
    }, /"venue_id" in/);
    for (const plan of plans) assert.match(plan, /INDEX events_venue \(venue_id=/, plan);
  });

  it('finds the venues with events from events_venue, and those with upcoming events as before', async () => {
    const plans = await plansOf(async () => {
      const res = await t.get('/venues', { query: { has_events: 'true' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.venues.map((v: { venue: string }) => v.venue).sort(), ['Indexed Hall', 'Past Hall']);
    }, /"le"\."venue_id" is not null/);
    for (const plan of plans) assert.match(plan, /INDEX events_venue \(venue_id>\?\)/, plan);
    const upcoming = await t.get('/venues', { query: { only_with_upcoming: 'true' } });
    assert.equal(upcoming.status, 200, upcoming.text);
    assert.deepEqual(
      upcoming.body.venues.map((v: { venue: string }) => v.venue),
      ['Indexed Hall'],
    );
  });

  it("reads an administrator's list across statuses from events_start in date order", async () => {
    const plans = await plansOf(async () => {
      const res = await t.get('/events', { as: 'administrator', query: { per_page: 3 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.events.length, 3);
    }, /order by "start_date"/);
    for (const plan of plans) assert.match(plan, /INDEX events_start \(start_date>\?\)/, plan);
  });
});
