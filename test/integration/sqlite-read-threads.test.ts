/**
 * SQLite's read threads (SqliteDialect.readApart, sqlite-reader.ts): the long reads of lists filtered by terms or
 * text run on a connection of another thread, so that the event loop answers other requests meanwhile.
 *
 * - The answers are the ones the main connection gives: one database file, two apps (with threads, and with
 *   SQLITE_READ_THREADS=0), every list compared byte for byte — the API and the list page, every kind of caller,
 *   terms with children, several groups, text, a series sharing its terms, drafts, hidden events, later pages.
 * - The loop turns while such a read runs (and, on the main connection, it does not: the check can fail).
 * - A write round's uncommitted versions are never given out: an answer read from the committed state (the read
 *   threads') is never paired with a version it does not hold.
 * - Threads that fail leave the reads to the main connection; a thread's SQL error keeps its code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CompiledQuery } from 'kysely';
import { Piscina } from 'piscina';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { SqliteDialect } from '../../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../../src/storage/storage.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { makeCategory, makeEvent, makeTag } from '../helpers/factories.js';

/** A statement that keeps SQLite busy for a while (a few million steps of a recursive CTE). */
const SLOW = CompiledQuery.raw('with recursive n(i) as (select 1 union all select i + 1 from n where i < 1500000) select count(*) as n from n', []);

describe('SQLite: long reads on read threads', { skip: DIALECT !== 'sqlite' && 'SQLite only (PostgreSQL never holds the loop)' }, () => {
  let dir: string;
  let t: TestApp;
  /** A second app on the same file, every read on its main connection. */
  let mainOnly: { app: FastifyInstance; storage: Storage };
  let dialect: SqliteDialect;
  const ids: Record<string, number> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-read-threads-'));
    const path = join(dir, 'calendar.db');
    t = await createTestApp({}, { sqlitePath: path, sqliteReadThreads: 2 });
    dialect = t.storage.dialect as SqliteDialect;
    const storage = new Storage(new SqliteDialect({ path, readThreads: 0 }));
    const app = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${path}` }), storage, { logger: false });
    await app.ready();
    mainOnly = { app, storage };

    const music = await makeCategory(t, { name: 'Music', slug: 'music' });
    const jazz = await makeCategory(t, { name: 'Jazz', slug: 'jazz', parent: music.id });
    const talks = await makeCategory(t, { name: 'Talks', slug: 'talks' });
    const free = await makeTag(t, { name: 'Free', slug: 'free' });
    Object.assign(ids, { music: music.id, jazz: jazz.id, talks: talks.id, free: free.id });
    const texts = ['A riverside jazz night', 'Jazz on the river', 'Quartet at the Hall', 'Talk: rivers of Europe', 'Brass and jazz'];
    for (let i = 0; i < 30; i++) {
      const day = String(1 + (i % 27)).padStart(2, '0');
      const month = String(1 + (i % 11)).padStart(2, '0');
      await makeEvent(t, {
        title: `${texts[i % texts.length]} ${i}`,
        description: i % 3 === 0 ? 'Bring a river stone' : 'Doors at seven',
        start_date: `2031-${month}-${day} 1${i % 10}:00:00`,
        end_date: `2031-${month}-${day} 1${i % 10}:30:00`,
        categories: i % 4 === 0 ? [jazz.id] : i % 4 === 1 ? [music.id] : i % 4 === 2 ? [talks.id] : [],
        tags: i % 2 === 0 ? [free.id] : [],
        ...(i % 7 === 0 ? { status: 'draft' } : {}),
        ...(i % 9 === 0 ? { hide_from_listings: true } : {}),
      });
    }
    const series = await t.post('/events', {
      as: 'editor',
      json: {
        title: 'Weekly jazz by the river',
        start_date: '2031-02-03 19:00:00',
        end_date: '2031-02-03 21:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=12'],
        categories: [jazz.id],
        tags: [free.id],
      },
    });
    assert.equal(series.status, 201, series.text);
  });

  after(async () => {
    await mainOnly?.app.close();
    await mainOnly?.storage.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const window = 'start_date=2031-01-01&end_date=2031-12-31';
  const urls = [
    `/calendar/events/v1/events?categories=music&${window}`,
    `/calendar/events/v1/events?categories=jazz&search=river&${window}`,
    `/calendar/events/v1/events?categories=music&tags=free&${window}&per_page=3&page=2`,
    `/calendar/events/v1/events?search=river&${window}`,
    `/calendar/events/v1/events?search=jazz&${window}&per_page=5&page=3`,
    `/calendar/events/v1/events?search=nothing-matches-this&${window}`,
    `/calendar/events/v1/events?categories=talks,jazz&${window}&status=publish,draft`,
    '/calendar/events/v1/events?tags=free&start_date=2031-06-01&end_date=2031-12-31',
    '/events/list/?keyword=jazz',
    '/events/list/?categories=music',
  ];

  it('answers every filtered list as the main connection does, and reads it on the threads', async () => {
    const before = dialect.readsApart;
    let compared = 0;
    for (const caller of ['anonymous', 'editor', 'author'] as const) {
      for (const url of urls) {
        const headers = t.authHeader(caller);
        const [threaded, main] = await Promise.all([t.app.inject({ url, headers }), mainOnly.app.inject({ url, headers })]);
        assert.equal(threaded.statusCode, main.statusCode, `${caller} ${url}`);
        assert.equal(threaded.body, main.body, `${caller} ${url}`);
        for (const name of ['x-tec-total', 'x-tec-totalpages', 'link', 'etag']) {
          assert.equal(threaded.headers[name], main.headers[name], `${name}: ${caller} ${url}`);
        }
        if (url.startsWith('/calendar') && threaded.statusCode === 200) compared++;
      }
    }
    assert.ok(compared >= 20, `${compared} lists answered`);
    // the lists had events to count and show: not a comparison of empty answers
    const jazzy = await t.get(`/events?categories=jazz&search=river&${window}`);
    assert.equal(jazzy.status, 200, jazzy.text);
    assert.ok(Number(jazzy.headers['x-tec-total']) >= 12, `${jazzy.headers['x-tec-total']} events`);
    assert.ok(dialect.readsApart - before >= urls.length, `${dialect.readsApart - before} reads on the threads`);
    assert.equal((mainOnly.storage.dialect as SqliteDialect).readsApart, 0);
  });

  it('keeps the event loop turning while a long read runs on a thread, and not on the main connection', async () => {
    const turnsDuring = async (d: SqliteDialect) => {
      let turns = 0;
      let running = true;
      const spin = () => {
        if (!running) return;
        turns++;
        setImmediate(spin);
      };
      setImmediate(spin);
      const rows = await d.readApart(d.db, SLOW);
      running = false;
      assert.equal(Number(rows[0].n), 1500000);
      return turns;
    };
    // a request answered meanwhile
    const slow = dialect.readApart(dialect.db, SLOW).then(() => 'slow');
    const quick = t.app.inject({ url: '/calendar/events/v1/categories' }).then((r) => {
      assert.equal(r.statusCode, 200);
      return 'quick';
    });
    assert.equal(await Promise.race([slow, quick]), 'quick');
    await slow;
    assert.ok((await turnsDuring(dialect)) > 10, 'the loop turned while the thread read');
    assert.ok((await turnsDuring(mainOnly.storage.dialect as SqliteDialect)) <= 2, 'the main connection holds the loop');
  });

  it('reads in the order the reads came (first come, first read: none waits behind later ones)', async () => {
    const path = join(dir, 'calendar.db');
    const one = new SqliteDialect({ path, readThreads: 1 });
    try {
      const quick = CompiledQuery.raw(
        'with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000) select count(*) as n from n',
        [],
      );
      const finished: number[] = [];
      await Promise.all(Array.from({ length: 8 }, (_, k) => one.readApart(one.db, quick).then(() => finished.push(k))));
      assert.deepEqual(finished, [0, 1, 2, 3, 4, 5, 6, 7]);
      assert.equal(one.readsApart, 8);
    } finally {
      await one.close();
    }
  });

  it('gives the committed versions while a write round is open, and an answer from the threads that matches them', async () => {
    const first = await makeEvent(t, { title: 'Before the round', start_date: '2031-03-03 10:00:00', end_date: '2031-03-03 11:00:00' });
    const titleOf = CompiledQuery.raw('select title from posts where id = ?', [first.id]);
    const committed = await t.storage.versions();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const reached = new Promise<void>((resolve) => (inside = resolve));
    const write = t.storage.transaction(async (tx) => {
      await tx.db.updateTable('posts').set({ title: 'In the round' }).where('id', '=', first.id).execute();
      inside();
      await held;
    });
    await reached;
    // the round has written (its trigger moved the data version's row) and not committed
    assert.deepEqual(await t.storage.versions(), committed, 'the versions committed, not the round’s');
    assert.equal((await dialect.readApart(dialect.db, titleOf))[0].title, 'Before the round', 'the thread reads the committed state');
    release();
    await write;
    const after = await t.storage.versions();
    assert.ok(after.data > committed.data, 'the commit moved the data version');
    assert.equal((await dialect.readApart(dialect.db, titleOf))[0].title, 'In the round', 'the thread reads the commit');
  });

  it("keeps a thread's SQL error code, and reads on the main connection once the threads are gone", async () => {
    await assert.rejects(dialect.readApart(dialect.db, CompiledQuery.raw('select * from no_such_table', [])), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'SQLITE_ERROR');
      assert.match(error.message, /no such table/);
      return true;
    });
    const url = `/calendar/events/v1/events?categories=music&${window}`;
    const expected = await mainOnly.app.inject({ url });
    // threads that cannot run (their module missing): the run fails, the main connection reads
    const threads = dialect as unknown as { readers: Piscina | undefined };
    await threads.readers?.destroy();
    threads.readers = new Piscina({ filename: new URL('./no-such-reader.js', import.meta.url).href, minThreads: 1, maxThreads: 1 });
    const before = dialect.readsApart;
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, expected.body);
    assert.equal(dialect.readsApart, before, 'read on the main connection');
    assert.equal(threads.readers, undefined, 'the failed threads are let go');
  });
});
