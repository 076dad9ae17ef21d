/**
 * What a write costs the database (issue 17's "fewer round trips per write"; bench/statements.ts lists them):
 * the statements of a realistic create, of an imported event and of a whole-series edit stay within a budget,
 * and what a create answers — built from what it wrote and found, not read back — is what a read of it answers,
 * including venues and organizers it reused and rewrote, images and term counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory } from '../helpers/factories.js';
import { injectFault } from '../helpers/faults.js';
import { withoutJsonLd } from '../helpers/shapes.js';

/** A calendar editing form's create (bench/traffic.ts' realistic body), with a venue and an organizer named inline. */
const body = (n: number, city: string) => ({
  title: `Realistic evening ${n}`,
  description: '<p>An evening with guests.</p>',
  start_date: '2031-05-01 19:00:00',
  end_date: '2031-05-01 21:30:00',
  timezone: 'Europe/Paris',
  cost: '12',
  website: `https://example.org/events/${n}`,
  image: 'https://images.example.org/bench/1.jpg',
  categories: ['write-budget-a', 'write-budget-b'],
  tags: ['write-budget-tag'],
  venue: { venue: 'Budget Hall', address: '1 Rue de la République', city, country: 'France', zip: '69001' },
  organizer: { organizer: 'Budget Organizer', email: 'budget@example.org' },
});

describe('statements per write', () => {
  let t: TestApp;
  const statements: string[] = [];
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  before(
    async () =>
      (t = await createTestApp(
        {},
        {
          onQuery: (sql, _ms, parameters) => {
            statements.push(sql);
            sent.push({ sql, parameters });
          },
        },
      )),
  );
  after(() => t.close());

  it('a realistic create whose venue, organizer, image and terms exist runs at most 13 statements (PostgreSQL, the change log row sent with the COMMIT) or 17 (SQLite), and answers what a read answers', async () => {
    await makeCategory(t, { name: 'Write budget A', slug: 'write-budget-a' });
    await makeCategory(t, { name: 'Write budget B', slug: 'write-budget-b' });
    const first = await t.post('/events', { as: 'editor', json: body(1, 'Lyon') });
    assert.equal(first.status, 201, first.text);

    statements.length = 0;
    const second = await t.post('/events', { as: 'editor', json: body(2, 'Villeurbanne') });
    assert.equal(second.status, 201, second.text);
    // the request's own statements: its write and nothing read back (the Allow header's checks are the route's)
    const write = statements.filter((s) => !/^select "id", "type", "author_id"/.test(s));
    // the change log's row, in the same transaction (issue 16): on PostgreSQL sent with the COMMIT, in its round
    // trip; on SQLite one more statement (in-process, no round trip)
    const budget = DIALECT === 'postgres' ? 13 : 17;
    assert.ok(write.length <= budget, `${write.length} statements (budget ${budget}):\n${write.join('\n')}`);
    const logged = write.filter((w) => /^insert into changes\b/i.test(w.trim()));
    assert.equal(logged.length, 1, 'one change log statement');
    if (DIALECT === 'postgres') assert.match(logged[0], /; commit$/);
    assert.ok(!write.some((s) => /pg_advisory_xact_lock/.test(s)), 'a free slug and names that exist take no lock');

    const e = second.body;
    // the reused venue took the fields sent, and both events show it so
    assert.equal(e.venue.id, first.body.venue.id);
    assert.equal(e.venue.city, 'Villeurbanne');
    assert.equal(e.organizer[0].id, first.body.organizer[0].id);
    assert.equal(e.image.id, first.body.image.id);
    assert.deepEqual(
      e.categories.map((c: any) => [c.slug, c.count]),
      [
        ['write-budget-a', 2],
        ['write-budget-b', 2],
      ],
    );
    assert.deepEqual(
      e.tags.map((c: any) => [c.name, c.count]),
      [['write-budget-tag', 2]],
    );
    for (const created of [first.body, e]) {
      const read = await t.get(`/events/${created.id}`, { as: 'editor' });
      assert.equal(read.status, 200);
      if (created === e) assert.deepEqual(e, withoutJsonLd(read.body), 'the answer to the create is the event as read');
      assert.equal(read.body.venue.city, 'Villeurbanne');
    }
  });

  it('an imported event whose venue and category exist costs at most 6 statements (PostgreSQL) or 7 (SQLite), and a failed one still leaves nothing behind', async () => {
    const vevent = (uid: string, extra: string[] = []) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20300101T000000Z',
      'DTSTART;TZID=Europe/Paris:20310601T190000',
      'DTEND;TZID=Europe/Paris:20310601T210000',
      `SUMMARY:Imported ${uid}`,
      'LOCATION:Budget Hall\\, 1 Rue de la République\\, Lyon',
      'CATEGORIES:Write budget A',
      ...extra,
      'END:VEVENT',
    ];
    const file = (events: string[][]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');
    const run = async (text: string) => {
      const posted = await t.post('/imports', { as: 'administrator', raw: { type: 'text/calendar', body: text } });
      assert.equal(posted.status, 202, posted.text);
      await t.app.services.imports.runPending();
      return (await t.get(`/imports/${posted.body.id}`, { as: 'administrator' })).body;
    };
    await run(file([vevent('budget-warm')]));
    statements.length = 0;
    const n = 10;
    const job = await run(file(Array.from({ length: n }, (_, i) => vevent(`budget-${i}`))));
    assert.deepEqual(job.counts, { created: n, updated: 0, skipped: 0, failed: 0 });
    const lookups = statements.filter((s) => /^select .*from "import_items"/.test(s) || /\bfrom \(select 1 as one\)/.test(s)).length;
    assert.equal(lookups, 1, 'the import records of a batch are looked up together');
    const items = statements.filter((s) => !/import_jobs/.test(s) && !/^(begin|commit)/i.test(s.trim())).length;
    const budget = DIALECT === 'postgres' ? 6 : 7;
    assert.ok(items / n <= budget, `${(items / n).toFixed(1)} statements per imported event (budget ${budget})`);

    // Items run without a savepoint each: one that fails at its last statement, after its event, venue and terms
    // were written (a trigger in the test database, test/helpers/faults.ts), is reported, nothing of it remains,
    // and the items around it are imported (its batch rolled back and ran again, each item in a savepoint).
    const fault = await injectFault(t.storage.db, { name: 'fault_import_item', table: 'import_items', on: 'insert', when: `new.uid = 'budget-bad'` });
    let mixed: any;
    try {
      mixed = await run(file([vevent('budget-ok-1'), vevent('budget-bad'), vevent('budget-ok-2')]));
    } finally {
      await fault.remove();
    }
    assert.deepEqual({ created: mixed.counts.created, failed: mixed.counts.failed }, { created: 2, failed: 1 }, JSON.stringify(mixed));
    assert.equal(mixed.errors[0].uid, 'budget-bad');
    const found = await t.get('/events', {
      as: 'administrator',
      query: { search: 'Imported', status: 'any', per_page: 50, start_date: '2000-01-01', end_date: '2099-12-31' },
    });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.events.map((e: any) => e.title).sort(), [
      'Imported budget-0',
      'Imported budget-1',
      'Imported budget-2',
      'Imported budget-3',
      'Imported budget-4',
      'Imported budget-5',
      'Imported budget-6',
      'Imported budget-7',
      'Imported budget-8',
      'Imported budget-9',
      'Imported budget-ok-1',
      'Imported budget-ok-2',
      'Imported budget-warm',
    ]);
    const venues = await t.get('/venues', { as: 'administrator', query: { search: 'Budget Hall', status: 'any' } });
    assert.equal(venues.body.total, 1, 'the venue the failed item linked is the one the others share');
  });

  it('a whole-series edit runs at most 12 statements in its transaction (one reads its exceptions for the change log)', async () => {
    const made = await t.post('/events', {
      as: 'editor',
      json: {
        title: 'Budget daily',
        start_date: '2031-01-05 09:00:00',
        end_date: '2031-01-05 10:00:00',
        categories: ['write-budget-a'],
        recurrence: ['RRULE:FREQ=DAILY;COUNT=30'],
      },
    });
    assert.equal(made.status, 201, made.text);
    statements.length = 0;
    const edited = await t.post(`/events/${made.body.id}`, { as: 'editor', json: { title: 'Budget daily renamed', featured: true } });
    assert.equal(edited.status, 200, edited.text);
    const begin = statements.findIndex((s) => /^begin/i.test(s.trim()));
    const commit = statements.findIndex((s) => /(^|; )commit$/i.test(s.trim()));
    const inside = statements.slice(begin + 1, commit);
    assert.ok(inside.length <= 12, `${inside.length} statements:\n${inside.join('\n')}`);
    const occurrence = await t.get(`/events/${made.body.id}/occurrences`, {
      as: 'editor',
      query: { per_page: 1, start_date: '2000-01-01', end_date: '2099-12-31' },
    });
    assert.equal(occurrence.status, 200, occurrence.text);
    assert.equal(occurrence.body.events[0].title, 'Budget daily renamed');
    assert.equal(occurrence.body.events[0].featured, true);
  });

  it("writes a series' occurrences at most rowsPerBulkStatement rows a statement (SQLite's statement journal), every one of them once, in order", async () => {
    const step = t.storage.dialect.rowsPerBulkStatement;
    sent.length = 0;
    const made = await t.post('/events', {
      as: 'editor',
      json: {
        title: 'Budget long daily',
        start_date: '2032-01-05 09:00:00',
        end_date: '2032-01-05 10:00:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=601'],
      },
    });
    assert.equal(made.status, 201, made.text);
    // the rows each statement wrote: SQLite's one JSON parameter of rows, PostgreSQL's arrays of a column each
    const batches = sent
      .filter((q) => /insert into occurrences \(id, series_id.*\bselect\b/is.test(q.sql))
      .map((q) => {
        const json = q.parameters.find((p) => typeof p === 'string' && p.startsWith('[['));
        if (json !== undefined) return (JSON.parse(String(json)) as unknown[]).length;
        return (q.parameters.find((p) => Array.isArray(p)) as unknown[]).length;
      });
    // their ids, in the order of their instances
    const written = (
      await t.storage.db.selectFrom('occurrences').select('id').where('series_id', '=', made.body.id).orderBy('original_start_utc').execute()
    ).map((r) => Number(r.id));
    assert.equal(
      batches.reduce((a, b) => a + b, 0),
      written.length,
      'every occurrence written by these statements',
    );
    const listed = await t.get(`/events/${made.body.id}/occurrences`, {
      as: 'editor',
      query: { per_page: 500, start_date: '2000-01-01', end_date: '2099-12-31' },
    });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.total, written.length, 'every occurrence written is listed');
    assert.equal(new Set(written).size, written.length, 'none twice');
    assert.deepEqual(
      written,
      [...written].sort((a, b) => a - b),
      'in order',
    );
    assert.ok(written.length >= 600, `${written.length} occurrences`);
    assert.equal(batches.length, DIALECT === 'sqlite' ? Math.ceil(written.length / step) : 1);
    if (DIALECT === 'sqlite') assert.ok(batches.length > 1, 'split on SQLite');
    for (const batch of batches) assert.ok(batch <= step, `${batch} rows in one statement`);
  });
});
