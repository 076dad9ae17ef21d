import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Response, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory } from '../helpers/factories.js';
import { injectFault, writeSteps } from '../helpers/faults.js';
import {
  diffSnapshots,
  monthsOfDayCounts,
  type Row,
  recountedDayCounts,
  snapshot,
  storedDayCounts,
  storedMonthCounts,
  WRITE_TABLES,
} from '../helpers/snapshot.js';

describe('concurrent writes', () => {
  let t: TestApp;
  const statements: string[] = [];
  before(async () => (t = await createTestApp({}, { onQuery: (sql) => void statements.push(sql) })));
  after(() => t.close());

  it('each of many concurrent creates stands or falls alone, and they share commits (SQLite)', async () => {
    const n = 30;
    // every third create carries a marked new tag; a trigger fails the statement that counts it (its
    // last), after its image, venue, event, terms and organizer were inserted (test/helpers/faults.ts)
    const MARK = '#fault';
    const fails = (i: number) => i % 3 === 0;
    const shared = await makeCategory(t, { name: 'Concurrent shared' });
    const fault = await injectFault(t.storage.db, {
      name: 'fault_concurrent_count',
      table: 'terms',
      on: 'update',
      when: `new.name like '%${MARK}%' and new.count <> old.count`,
    });
    const before = await snapshot(t.storage.db);
    statements.length = 0;
    let results: Response[];
    try {
      results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          t.post('/events', {
            as: 'editor',
            json: {
              title: `Concurrent ${i}`,
              description: `Concurrent description ${i}`,
              start_date: '2031-03-01 10:00:00',
              end_date: '2031-03-01 11:00:00',
              image: `https://images.example.com/concurrent-${i}.png`,
              venue: { venue: `Concurrent Hall ${i}`, city: `City ${i}` },
              organizer: [{ organizer: `Concurrent Organizer ${i}`, email: `org${i}@example.com` }],
              categories: [shared.id],
              tags: [fails(i) ? `fresh-tag-${i} ${MARK}` : `fresh-tag-${i}`],
            },
          }),
        ),
      );
    } finally {
      await fault.remove();
    }
    const steps = writeSteps(statements);
    const expected = Array.from({ length: n }, (_, i) => i).filter((i) => !fails(i));
    results.forEach((res, i) => {
      if (fails(i)) {
        assert.equal(res.status, 500, `create ${i}: ${res.text}`);
        assert.equal(res.body.code, 'rest_internal_error');
        assert.deepEqual(Object.keys(res.body.data).sort(), ['request_id', 'status']);
        assert.ok(!res.text.includes(fault.message) && !res.text.includes('terms'), `no internals: ${res.text}`);
      } else {
        assert.equal(res.status, 201, `create ${i}: ${res.text}`);
        assert.equal(res.body.title, `Concurrent ${i}`);
        assert.equal(res.body.venue.venue, `Concurrent Hall ${i}`);
        assert.deepEqual(
          res.body.organizer.map((o: any) => o.organizer),
          [`Concurrent Organizer ${i}`],
        );
        assert.deepEqual(
          res.body.tags.map((tag: any) => [tag.name, tag.count]),
          [[`fresh-tag-${i}`, 1]],
        );
        assert.deepEqual(
          res.body.categories.map((c: any) => c.id),
          [shared.id],
        );
        assert.equal(res.body.image.url, `https://images.example.com/concurrent-${i}.png`);
      }
    });

    // the database holds exactly the successful creates, each whole, and nothing of the failed ones
    const after = await snapshot(t.storage.db);
    assert.ok(!JSON.stringify(after).includes(MARK), 'no row carries the mark of a failed create');
    const ok = expected.map((i) => results[i].body);
    const ids = (rows: Row[] | undefined, key: string) => (rows ?? []).map((r) => Number(r[key])).sort((x, y) => x - y);
    const sorted = (list: number[]) => [...list].sort((x, y) => x - y);
    const diff = diffSnapshots(before, after);
    assert.deepEqual(Object.keys(diff).sort(), [...WRITE_TABLES].sort(), 'every kind of row was written');
    for (const table of ['posts', 'events', 'venues', 'organizers', 'images', 'event_organizers', 'term_relationships']) {
      assert.deepEqual(diff[table].removed, [], `${table}: nothing removed or changed`);
    }
    assert.deepEqual(
      ids(diff.posts.added, 'id'),
      sorted(ok.flatMap((e) => [e.id, e.image.id, e.venue.id, ...e.organizer.map((o: any) => o.id)])),
      'new posts: the successful events, their images, venues and organizers',
    );
    assert.deepEqual(ids(diff.events.added, 'post_id'), sorted(ok.map((e) => e.id)));
    assert.deepEqual(ids(diff.images.added, 'post_id'), sorted(ok.map((e) => e.image.id)));
    assert.deepEqual(ids(diff.venues.added, 'post_id'), sorted(ok.map((e) => e.venue.id)));
    assert.deepEqual(ids(diff.organizers.added, 'post_id'), sorted(ok.map((e) => e.organizer[0].id)));
    const pairs = (rows: Row[], a: string, b: string) => rows.map((r) => `${r[a]}:${r[b]}`).sort();
    assert.deepEqual(pairs(diff.event_organizers.added, 'event_id', 'organizer_id'), ok.map((e) => `${e.id}:${e.organizer[0].id}`).sort());
    assert.deepEqual(
      pairs(diff.term_relationships.added, 'post_id', 'term_id'),
      ok.flatMap((e) => [`${e.id}:${shared.id}`, `${e.id}:${e.tags[0].id}`]).sort(),
    );
    assert.deepEqual(
      diff.terms.removed.map((r) => [Number(r.id), Number(r.count)]),
      [[shared.id, 0]],
      'the only term changed is the shared category',
    );
    assert.deepEqual(
      diff.terms.added.map((r) => [String(r.name), Number(r.count)]).sort(),
      [['Concurrent shared', expected.length], ...expected.map((i) => [`fresh-tag-${i}`, 1])].sort(),
      "the shared category counts the successful events; each one's new tag counts it",
    );
    const dayTotal = (rows: Row[] | undefined) => (rows ?? []).reduce((sum, r) => sum + Number(r.n), 0);
    assert.equal(dayTotal(diff.event_day_counts.added) - dayTotal(diff.event_day_counts.removed), expected.length);
    assert.deepEqual(await storedDayCounts(t.storage.db), await recountedDayCounts(t.storage.db), 'day counts equal a recount');
    assert.deepEqual(await storedMonthCounts(t.storage.db), await monthsOfDayCounts(t.storage.db), 'month counts sum the day counts');

    // The query log (statements that succeeded): every create inserted its event and the rest; the failed ones
    // never completed the count of their terms, and each was rolled back there.
    assert.equal(steps.filter((s) => s === 'insert events').length, n, 'every create inserted its event');
    assert.equal(steps.filter((s) => s === 'insert organizers').length, n, 'every create inserted its organizer');
    assert.equal(steps.filter((s) => s === 'update terms').length, expected.length, 'only the others counted their terms');
    assert.equal(steps.filter((s) => s.startsWith('rollback')).length, n - expected.length, 'one rollback per failed create');

    // and each successful event reads back as it was answered (term counts aside: they grew as others landed)
    // (json_ld is for single reads only, CONTRACT.md §2.1)
    const comparable = (value: any, key = ''): any =>
      Array.isArray(value)
        ? value.map((v) => comparable(v, key))
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .filter(([k]) => k !== 'json_ld' && !(key === 'categories' && k === 'count'))
                .map(([k, v]) => [k, comparable(v, k)]),
            )
          : value;
    for (const e of ok) {
      const read = await t.get(`/events/${e.id}`, { as: 'editor' });
      assert.equal(read.status, 200);
      assert.deepEqual(comparable(read.body), comparable(e), `event ${e.id} reads back whole`);
    }
    const category = await t.get(`/categories/${shared.id}`);
    assert.equal(category.body.count, expected.length);
    const commits = steps.filter((s) => s === 'commit').length;
    if (DIALECT === 'sqlite') assert.ok(commits <= n / 3, `${n} concurrent creates took ${commits} commits`);
  });

  it('a transaction that fails among concurrent ones is undone alone; the others commit', async () => {
    const term = (name: string) => ({ taxonomy: 'post_tag' as const, name, slug: name, description: '', parentId: 0 });
    await t.storage.transaction((tx) => tx.terms.create(term('grouped-taken')));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        t.storage.transaction(async (tx) => {
          await tx.terms.create(term(`grouped-${i}`));
          if (i % 4 === 1) throw new Error(`refused ${i}`); // the caller's own error, after a write
          if (i % 4 === 2) await tx.terms.create(term('grouped-taken')); // the database's, after a write
          return i;
        }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (i % 4 === 1) assert.match(String((outcome as PromiseRejectedResult).reason), new RegExp(`refused ${i}`));
      else if (i % 4 === 2) assert.equal((outcome as PromiseRejectedResult).reason?.kind, 'unique', `transaction ${i}`);
      else assert.deepEqual(outcome, { status: 'fulfilled', value: i });
    });
    const tags = await t.get('/tags', { query: { search: 'grouped-', per_page: 100, hide_empty: 'false' } });
    const expected = [
      'grouped-taken',
      ...Array.from({ length: 24 }, (_, i) => i)
        .filter((i) => i % 4 === 0 || i % 4 === 3)
        .map((i) => `grouped-${i}`),
    ];
    assert.deepEqual(tags.body.tags.map((tag: any) => tag.name).sort(), expected.sort());
  });

  it('a write to events keeps remembered credentials; a write to users forgets them', async () => {
    const credentialReads = () => statements.filter((s) => /app_passwords/.test(s)).length;
    await t.get('/events', { as: 'author' });
    statements.length = 0;
    const created = await t.post('/events', {
      as: 'author',
      json: { title: 'Credentials stay', start_date: '2031-04-01 10:00:00', end_date: '2031-04-01 11:00:00' },
    });
    assert.equal(created.status, 201);
    assert.equal((await t.get('/events', { as: 'author' })).status, 200);
    assert.equal(credentialReads(), 0, 'no credential check after an event write');

    await t.app.services.users.add({ login: 'newcomer', role: 'subscriber' });
    statements.length = 0;
    assert.equal((await t.get('/events', { as: 'author' })).status, 200);
    assert.equal(credentialReads(), 1, 'checked again after a user was added');
  });
});

describe('a delete racing other writes of the same record (PostgreSQL reads before either writes)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const trashLogged = async (type: string, id: number) =>
    (
      await t.storage.db
        .selectFrom('changes')
        .select('seq')
        .where('resource_type', '=', type)
        .where('resource_id', '=', id)
        .where('op', '=', 'trash')
        .execute()
    ).length;

  it('five deletes of one event at once: one trashes it (logged once), the others find it in the trash', async () => {
    for (let round = 0; round < 5; round++) {
      const e = await t.post('/events', {
        as: 'administrator',
        json: { title: `Doomed ${round}`, start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' },
      });
      const answers = await Promise.all(Array.from({ length: 5 }, () => t.del(`/events/${e.body.id}`, { as: 'administrator' })));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 410, 410, 410, 410], answers.map((r) => r.text.slice(0, 120)).join('\n'));
      assert.ok(answers.filter((r) => r.status === 410).every((r) => r.body.code === 'event-is-in-trash'));
      assert.equal(await trashLogged('event', e.body.id), 1);
    }
  });

  it('updates of a category deleted at the same time: never a 5xx, gone afterwards', async () => {
    for (let round = 0; round < 5; round++) {
      const c = await makeCategory(t, { name: `Racing ${round}` });
      const answers = await Promise.all([
        t.del(`/categories/${c.id}`, { as: 'administrator', query: { force: 'true' } }),
        ...Array.from({ length: 4 }, () => t.patch(`/categories/${c.id}`, { as: 'administrator', json: { description: 'd' } })),
      ]);
      for (const r of answers) assert.ok(r.status < 500, `${r.status} ${r.text}`);
      assert.equal(answers[0].status, 200);
      for (const r of answers.slice(1)) assert.ok(r.status === 200 || (r.status === 400 && r.body.code === 'rest_invalid_param'), r.text);
      assert.equal((await t.get(`/categories/${c.id}`)).status, 400);
    }
  });

  it('events written with a category deleted at the same time: never a 5xx; each stands without it or with it', async () => {
    for (let round = 0; round < 5; round++) {
      const c = await makeCategory(t, { name: `Vanishing ${round}` });
      const answers = await Promise.all([
        t.del(`/categories/${c.id}`, { as: 'administrator', query: { force: 'true' } }),
        ...Array.from({ length: 6 }, (_, i) =>
          t.post('/events', {
            as: 'administrator',
            json: { title: `With ${round}.${i}`, categories: [c.id], start_date: '2031-05-02 10:00', end_date: '2031-05-02 11:00' },
          }),
        ),
      ]);
      for (const r of answers) assert.ok(r.status < 500, `${r.status} ${r.text}`);
      for (const r of answers.slice(1)) {
        assert.equal(r.status, 201, r.text);
        // whatever it answered is what it stored: the category is gone, so no event keeps it
        assert.deepEqual((await t.get(`/events/${r.body.id}`, { as: 'administrator' })).body.categories, []);
      }
    }
  });
});

describe('updates racing other writes of the same event (PostgreSQL reads before either writes)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const makeEvent = async (title: string, json: Record<string, unknown> = {}) =>
    (await t.post('/events', { as: 'administrator', json: { title, start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', ...json } })).body;

  it('concurrent updates of its categories and tags: every term counts the event once or not at all', async () => {
    const cats = await Promise.all([0, 1, 2, 3].map((i) => makeCategory(t, { name: `Shuffled ${i}` })));
    const e = await makeEvent('Shuffled', { categories: [cats[0].id] });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        t.patch(`/events/${e.id}`, {
          as: 'administrator',
          json:
            i % 5 === 4
              ? { status: i % 2 ? 'draft' : 'publish' }
              : { categories: [cats[i % 4].id, cats[(i + 1) % 4].id].slice(0, 1 + (i % 2)), tags: [`shuffled-${i % 3}`] },
        }),
      ),
    );
    for (const r of answers) assert.equal(r.status, 200, r.text);
    const final = (await t.get(`/events/${e.id}`, { as: 'administrator' })).body;
    const published = final.status === 'publish';
    const terms = await t.storage.db.selectFrom('terms').select(['id', 'name', 'count']).execute();
    const carried = new Set([...final.categories, ...final.tags].map((x: any) => x.id));
    for (const term of terms) {
      assert.equal(Number(term.count), published && carried.has(term.id) ? 1 : 0, `count of ${term.name}`);
    }
  });

  it('an update of its dates and one of all_day at once: both stand', async () => {
    for (let round = 0; round < 5; round++) {
      const e = await makeEvent(`Both ${round}`);
      const answers = await Promise.all([
        t.patch(`/events/${e.id}`, { as: 'administrator', json: { start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' } }),
        t.patch(`/events/${e.id}`, { as: 'administrator', json: { all_day: true } }),
      ]);
      for (const r of answers) assert.equal(r.status, 200, r.text);
      const final = (await t.get(`/events/${e.id}`, { as: 'administrator' })).body;
      assert.equal(final.all_day, true);
      assert.equal(final.start_date, '2031-06-01 00:00:00');
    }
  });

  it('updates while it is trashed: the change log ends with the status it has', async () => {
    for (let round = 0; round < 5; round++) {
      const e = await makeEvent(`Trashed while edited ${round}`);
      const answers = await Promise.all([
        t.del(`/events/${e.id}`, { as: 'administrator' }),
        ...Array.from({ length: 4 }, (_, i) => t.patch(`/events/${e.id}`, { as: 'administrator', json: { cost: String(i) } })),
      ]);
      for (const r of answers) assert.equal(r.status, 200, r.text);
      const logged = await t.storage.db
        .selectFrom('changes')
        .select(['op', 'status'])
        .where('resource_type', '=', 'event')
        .where('resource_id', '=', e.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(logged.at(-1)?.status, 'trash', JSON.stringify(logged));
    }
  });
});

describe('a series written while its occurrences are (PostgreSQL reads before either writes)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('rule changes, splits and edits of its occurrences at once: no occurrence keeps rows its series no longer has', async () => {
    for (let round = 0; round < 6; round++) {
      const s = await t.post('/events', {
        as: 'administrator',
        json: { title: `Busy ${round}`, start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=12'] },
      });
      assert.equal(s.status, 201, s.text);
      const occurrences = await t.get(`/events/${s.body.id}/occurrences`, {
        as: 'administrator',
        query: { per_page: '50', start_date: '2031-01-01', end_date: '2031-12-31' },
      });
      const ids: number[] = occurrences.body.events.map((e: any) => e.id);
      assert.equal(ids.length, 12);
      const answers = await Promise.all([
        t.patch(`/events/${s.body.id}`, { as: 'administrator', json: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] } }),
        t.post(`/events/${ids[8]}/split`, { as: 'administrator', json: { title: `Busy ${round} later` } }),
        ...ids
          .slice(2, 11)
          .map((id, i) =>
            i % 3 === 2
              ? t.del(`/events/${id}`, { as: 'administrator' })
              : t.patch(`/events/${id}`, { as: 'administrator', json: { title: `Edited ${i}` } }),
          ),
      ]);
      for (const r of answers) assert.ok(r.status < 500, `${r.status} ${r.text}`);
      // every row of an occurrence edited alone is one of its series' occurrences, still there
      const stray = await t.storage.db
        .selectFrom('posts as p')
        .leftJoin('occurrences as o', 'o.id', 'p.id')
        .select(['p.id', 'p.parent_id', 'o.series_id', 'o.state', 'o.own_rows'])
        .where('p.type', '=', 'event')
        .where('p.parent_id', '<>', 0)
        .where((eb) =>
          eb.or([eb('o.id', 'is', null), eb('o.state', '=', 'gone'), eb('o.own_rows', '=', 0), eb('o.series_id', '<>', eb.ref('p.parent_id'))]),
        )
        .execute();
      assert.deepEqual(stray, [], `round ${round}: ${answers.map((r) => r.status).join(' ')}`);
    }
  });
});
