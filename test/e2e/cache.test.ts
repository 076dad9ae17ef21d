import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { UserService } from '../../src/domain/users/user.service.js';
import { ResponseCache } from '../../src/http/plugins/cache.plugin.js';
import { PostgresDialect } from '../../src/storage/dialects/postgres.dialect.js';
import { SqliteDialect } from '../../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../../src/storage/storage.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECT, POSTGRES_URL } from '../helpers/db.js';
import { makeEvent } from '../helpers/factories.js';

describe('response cache', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('serves a repeated anonymous read from the cache, byte for byte', async () => {
    await makeEvent(t, { title: 'Cached' });
    const first = await t.get('/events');
    const second = await t.get('/events');
    const third = await t.get('/events');
    assert.equal(first.headers['x-cache'], undefined);
    assert.equal(second.headers['x-cache'], undefined, 'kept from the second time it is asked for');
    assert.equal(third.headers['x-cache'], 'hit');
    assert.equal(third.text, first.text);
    assert.equal(third.headers['x-tec-total'], first.headers['x-tec-total']);
    assert.equal(third.headers['content-type'], 'application/json; charset=UTF-8');
  });

  it('keeps nothing for URLs asked for once', () => {
    const cache = new ResponseCache(1 << 20, 4);
    assert.equal(cache.admit('a'), false);
    assert.equal(cache.admit('a'), true);
    for (const k of ['b', 'c', 'd', 'e']) assert.equal(cache.admit(k), false);
    assert.equal(cache.admit('a'), true, 'remembered for a generation more');
    for (const k of ['f', 'g', 'h', 'i', 'j']) cache.admit(k);
    assert.equal(cache.admit('b'), false, 'forgotten after two generations');
  });

  it('forgets everything at the next write, through the API or straight into the database', async () => {
    await t.get('/events');
    await makeEvent(t, { title: 'Through the API' });
    const afterApi = await t.get('/events', { query: { per_page: 50 } });
    assert.ok(afterApi.body.events.some((e: any) => e.title === 'Through the API'));
    const cached = await t.get('/categories', { query: { hide_empty: 0 } });
    const before = cached.body.total;
    const db = t.storage.db as any;
    await db
      .insertInto('terms')
      .values({ taxonomy: 'tribe_events_cat', name: 'Raw', slug: 'raw', description: '', parent_id: 0, created_at: 'x', modified_at: 'x' })
      .execute();
    const fresh = await t.get('/categories', { query: { hide_empty: 0 } });
    assert.equal(fresh.headers['x-cache'], undefined);
    assert.equal(fresh.body.total, before + 1);
  });

  it('keeps views apart: anonymous, editors, and each other user', async () => {
    const draft = await makeEvent(t, { title: 'Draft in cache', status: 'draft' }, 'contributor');
    const q = { query: { include: draft.id } };
    assert.equal((await t.get('/events', { ...q, as: 'editor' })).body.total, 1);
    await t.get('/events', { ...q, as: 'editor' });
    assert.equal((await t.get('/events', { ...q, as: 'editor' })).headers['x-cache'], 'hit');
    assert.equal((await t.get('/events', { ...q, as: 'administrator' })).body.total, 1);
    assert.equal((await t.get('/events', q)).body.total, 0, "not the editors' answer");
    assert.equal((await t.get('/events', { ...q, as: 'contributor2' })).body.total, 0);
    assert.equal((await t.get('/events', { ...q, as: 'contributor' })).body.total, 1);
  });

  it('keeps a list whose dates are whole days for a minute, and one that depends on the second for a second', async () => {
    const hits = async (query: Record<string, string>) => {
      for (let i = 0; i < 3; i++) await t.get('/events', { query });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return (await t.get('/events', { query })).headers['x-cache'];
    };
    const [days, seconds] = await Promise.all([hits({ per_page: '7' }), hits({ per_page: '7', strict_dates: 'true', starts_after: 'now' })]);
    assert.equal(days, 'hit', 'the default window moves once a day');
    assert.equal(seconds, undefined, '"now" moves every second');
  });

  it('keeps only successful reads', async () => {
    await t.get('/events', { query: { page: 0 } });
    assert.equal((await t.get('/events', { query: { page: 0 } })).headers['x-cache'], undefined);
  });

  it('evicts by size and expires by time', () => {
    const cache = new ResponseCache(8192);
    const entry = (n: number) => ({ version: 1, expires: 2000, status: 200, headers: {}, body: Buffer.alloc(n) });
    cache.set('a', entry(300), 1000);
    cache.set('b', entry(300), 1000);
    assert.ok(cache.get('a', 1, 1000));
    assert.equal(cache.get('a', 2, 1000), undefined, 'another version');
    cache.set('c', entry(300), 1000);
    assert.equal(cache.get('c', 1, 3000), undefined, 'expired');
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, entry(300), 1000);
    assert.equal(cache.get('b', 1, 1000), undefined, 'the oldest went first');
    assert.ok(cache.get('k19', 1, 1000));
  });

  it('lets go of the oldest entries that can no longer answer when it keeps another, full or not', () => {
    const cache = new ResponseCache(1 << 20);
    const entry = (version: number, expires: number) => ({ version, expires, status: 200, headers: {}, body: Buffer.alloc(1000) });
    cache.set('a', entry(1, 2000), 1000);
    cache.set('b', entry(1, 2500), 1000);
    cache.set('c', entry(1, 4000), 1000);
    assert.equal(cache.stats().entries, 3);
    // at 2200 'a' has expired (nothing asked for it): it goes when another entry is kept; 'b' and 'c' stay
    cache.set('d', entry(1, 3200), 2200);
    assert.deepEqual(cache.stats(), { entries: 3, bytes: 3 * (1000 + 256) });
    assert.ok(cache.get('b', 1, 2200) && cache.get('c', 1, 2200));
    // a write moved the data version: the entries made before it go, from the oldest on
    cache.set('e', entry(2, 3500), 2300);
    assert.deepEqual(cache.stats(), { entries: 1, bytes: 1000 + 256 });
    assert.ok(cache.get('e', 2, 2300));
  });

  it('learns the 304 headers of an entry only from a 304 of that entry', () => {
    const cache = new ResponseCache(1 << 20);
    const entry = (version: number, etag: string) => ({ version, expires: 5000, status: 200, headers: { etag }, body: Buffer.from(etag) });
    cache.set('a', entry(1, '"one"'), 1000);
    // a 304 answered from the first entry; before its end is heard of, a write and another request keep a second
    cache.set('a', entry(2, '"two"'), 1000);
    cache.setNotModified('a', { etag: '"one"', vary: 'Authorization' });
    assert.equal(cache.peekNotModified('a'), undefined, "the first entry's headers (its tag) are not the second's");
    cache.setNotModified('a', { etag: '"two"', vary: 'Authorization' });
    assert.deepEqual(cache.peekNotModified('a'), { etag: '"two"', headers: ['etag', '"two"', 'vary', 'Authorization', 'x-request-id', ''] });
  });
});

describe('two apps on two connections to one database (processes: test/integration/processes.test.ts)', () => {
  let dir: string;
  let a: Awaited<ReturnType<typeof buildApp>>;
  let b: Awaited<ReturnType<typeof buildApp>>;
  let storages: Storage[] = [];
  let drop: () => Promise<void>;
  const config = loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent' });
  const admin = { kind: 'user', id: 0, login: 'x', role: 'administrator' } as const;

  before(async () => {
    // a second connection (SQLite: a second handle on the same file; PostgreSQL: a second pool) stands for a
    // second process: neither sees the other's in-memory state
    dir = mkdtempSync(join(tmpdir(), 'calendar-two-'));
    const first = await createTestDatabase({ sqlitePath: join(dir, 'shared.db') });
    drop = first.drop;
    const second =
      DIALECT === 'postgres'
        ? new Storage(new PostgresDialect({ url: POSTGRES_URL, schema: (first.config as { schema: string }).schema }))
        : new Storage(new SqliteDialect({ path: join(dir, 'shared.db') }));
    storages = [first.storage, second];
    a = await buildApp(config, first.storage, { logger: false });
    b = await buildApp(config, second, { logger: false });
  });
  after(async () => {
    await a.close();
    await b.close();
    await storages[1].close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("see each other's writes at once, through their caches", async () => {
    const list = async (app: typeof a) => (await app.inject({ url: '/calendar/events/v1/events?per_page=50' })).json().total;
    assert.equal(await list(a), 0);
    assert.equal(await list(a), 0);
    for (let i = 1; i <= 5; i++) {
      await b.services.events.create(admin, { title: `From B ${i}`, startDate: '+1 day', endDate: '+1 day 1 hour' });
      assert.equal(await list(a), i, `A sees B's write ${i} at once`);
      assert.equal(await list(a), i);
    }
  });
});

describe('the data version', () => {
  // What every cache compares against (PostgreSQL: deferred triggers that queue one event per transaction,
  // migration 0018): it moves with each committed write, however many rows it wrote, and a write whose first row
  // was undone by a savepoint still moves it; a rolled-back transaction does not.
  it('moves with each committed write, after a savepoint rolled back its first row, and not for a rollback', async () => {
    const db = await createTestDatabase();
    try {
      const { storage } = db;
      const terms = await storage.db
        .insertInto('terms')
        .values(
          ['a', 'b', 'c'].map((n) => ({
            taxonomy: 'post_tag' as const,
            name: n,
            slug: n,
            description: '',
            parent_id: 0,
            created_at: '2026-01-01 00:00:00',
            modified_at: '2026-01-01 00:00:00',
          })),
        )
        .returning('id')
        .execute();
      const ids = terms.map((t) => Number(t.id));
      const version = async () => (await storage.versions()).data;

      let before = await version();
      await storage.transaction(async (tx) => {
        await sql`update terms set description = 'many rows' where id in (${sql.join(ids)})`.execute(tx.db);
      });
      assert.ok((await version()) > before, 'a write of three rows');

      before = await version();
      await storage.transaction(async (tx) => {
        await sql`savepoint first_row`.execute(tx.db);
        await sql`update terms set description = 'undone' where id = ${ids[0]}`.execute(tx.db);
        await sql`rollback to savepoint first_row`.execute(tx.db);
        await sql`update terms set description = 'kept' where id = ${ids[1]}`.execute(tx.db);
      });
      assert.ok((await version()) > before, 'the write after the rolled-back savepoint');

      before = await version();
      await assert.rejects(
        storage.transaction(async (tx) => {
          await sql`update terms set description = 'rolled back' where id = ${ids[2]}`.execute(tx.db);
          throw new Error('abandon');
        }),
        /abandon/,
      );
      assert.equal(await version(), before, 'nothing committed');
      const kept = await storage.db.selectFrom('terms').select(['id', 'description']).where('id', 'in', ids).orderBy('id').execute();
      assert.deepEqual(
        kept.map((t) => t.description),
        ['many rows', 'kept', 'many rows'],
      );
    } finally {
      await db.drop();
    }
  });
  it('is moved by triggers that queue one event per transaction after migration 0018 (PostgreSQL)', {
    skip: DIALECT !== 'postgres' && 'SQLite’s triggers queue nothing',
  }, async () => {
    const db = await createTestDatabase();
    try {
      const raw = db.storage.db;
      const triggers = () =>
        sql<{ name: string; when: string | null }>`
          select t.tgname as name, pg_get_triggerdef(t.oid) as when from pg_trigger t
          join pg_class c on c.oid = t.tgrelid join pg_proc f on f.oid = t.tgfoid
          where c.relnamespace = current_schema()::regnamespace and f.proname in ('bump_data_version', 'bump_credentials_version')
          order by 1`.execute(raw);
      const made = (await triggers()).rows;
      // the schema as it was before: a deferred trigger per table that queued an event for every row
      for (const { name } of made) {
        const table = name.replace(/_(credentials_)?version$/, '');
        const fn = name.endsWith('_credentials_version') ? 'bump_credentials_version' : 'bump_data_version';
        await sql.raw(`drop trigger ${name} on ${table}`).execute(raw);
        await sql
          .raw(
            `create constraint trigger ${name} after insert or update or delete on ${table} deferrable initially deferred for each row execute function ${fn}()`,
          )
          .execute(raw);
      }
      await raw.deleteFrom('schema_migrations').where('name', '=', '0018-version-events').execute();
      assert.ok((await triggers()).rows.every((t) => !t.when?.includes(' WHEN ')));

      assert.deepEqual(await db.storage.migrate(), ['0018-version-events']);
      const after = (await triggers()).rows;
      assert.deepEqual(
        after.map((t) => t.name),
        made.map((t) => t.name),
      );
      for (const t of after)
        assert.match(
          t.when ?? '',
          /DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN \(calendar_first_in_transaction\('calendar\.(version|credentials)_queued'/,
          t.name,
        );
      assert.ok(after.some((t) => t.name === 'app_passwords_credentials_version'));
      const before = (await db.storage.versions()).data;
      await db.storage.transaction(async (tx) => {
        await sql`insert into terms (taxonomy, name, slug, description, parent_id, created_at, modified_at)
                  values ('post_tag', 'x', 'x', '', 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
                         ('post_tag', 'y', 'y', '', 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00')`.execute(tx.db);
      });
      assert.ok((await db.storage.versions()).data > before);
    } finally {
      await db.drop();
    }
  });
});

describe('reads of the data version on PostgreSQL', { skip: DIALECT !== 'postgres' && 'SQLite reads it in the process' }, () => {
  // Every request reads the version (PostgresDialect.versions): one read serves the callers of a turn of the event
  // loop; a caller never takes the answer of a read sent before it asked (a write committed in between would be
  // missed); at most two reads are out, so a slow database is not sent one per turn.
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** A transaction on its own connection holding data_version, so reads of the version wait until `release`. */
  async function holdVersions(db: Awaited<ReturnType<typeof createTestDatabase>>) {
    const { schema } = db.config as { schema: string };
    const holder = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
    await holder.connect();
    await holder.query('begin');
    await holder.query('lock table data_version in access exclusive mode');
    return {
      /** Bumps the data version inside the holding transaction, then commits it. */
      async commitWrite() {
        await holder.query(`update data_version set version = version + 1 where id = 1`);
        await holder.query('commit');
        await holder.end();
      },
    };
  }

  it('sends one read for every caller of one turn of the event loop', async () => {
    const db = await createTestDatabase();
    try {
      const dialect = db.storage.dialect as PostgresDialect;
      const sent = dialect.versionReads;
      const answers = await Promise.all(Array.from({ length: 50 }, () => db.storage.versions()));
      assert.equal(dialect.versionReads - sent, 1);
      assert.ok(answers.every((a) => a.data === answers[0].data && a.credentials === answers[0].credentials));
    } finally {
      await db.drop();
    }
  });

  it('answers a caller with a read sent after it asked, and keeps at most two reads out', async () => {
    const db = await createTestDatabase();
    try {
      const dialect = db.storage.dialect as PostgresDialect;
      const before = (await db.storage.versions()).data;
      const sent = dialect.versionReads;
      const held = await holdVersions(db);
      const first = db.storage.versions();
      await turn();
      const second = db.storage.versions();
      await turn();
      assert.equal(dialect.versionReads - sent, 2, 'two reads out, both waiting for the lock');
      const third = db.storage.versions();
      for (let i = 0; i < 5; i++) await turn();
      assert.equal(dialect.versionReads - sent, 2, 'the third waits for one of them to come back');
      // the write commits while the first two are out; the third asked before it committed and is sent after
      await held.commitWrite();
      const [a, b, c] = await Promise.all([first, second, third]);
      assert.equal(dialect.versionReads - sent, 3);
      assert.ok(c.data > before, 'the read sent after the commit sees the write');
      for (const v of [a, b]) assert.ok(v.data >= before);
      const later = await db.storage.versions();
      assert.ok(later.data > before, 'a caller after the commit sees it');
      assert.equal(dialect.versionReads - sent, 4, 'a caller after the others were answered gets a read of its own');
    } finally {
      await db.drop();
    }
  });
});

describe('credential checks', () => {
  // Across real processes (and the CLI) in test/integration/processes.test.ts; here, inside one process, the
  // query log shows the check is remembered before the revocation, and a second connection revokes.
  it('stops accepting a remembered password as soon as another connection revokes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-revoke-'));
    const credentialReads: string[] = [];
    const db = await createTestDatabase({
      sqlitePath: join(dir, 'revoke.db'),
      onQuery: (sql) => void (/\bapp_passwords\b/.test(sql) && credentialReads.push(sql)),
    });
    const other =
      DIALECT === 'postgres'
        ? new Storage(new PostgresDialect({ url: POSTGRES_URL, schema: (db.config as { schema: string }).schema }))
        : new Storage(new SqliteDialect({ path: join(dir, 'revoke.db') }));
    const app = await buildApp(loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent' }), db.storage, { logger: false });
    try {
      const users = new UserService(other);
      const revokee = await users.add({ login: 'cached', role: 'editor' });
      const bystander = await users.add({ login: 'bystander', role: 'editor' });
      const get = (login: string, password: string) =>
        app.inject({
          url: '/calendar/events/v1/tags',
          headers: { authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` },
        });
      assert.equal((await get('cached', revokee.password)).statusCode, 200);
      assert.equal((await get('bystander', bystander.password)).statusCode, 200);
      credentialReads.length = 0;
      assert.equal((await get('cached', revokee.password)).statusCode, 200);
      assert.equal(credentialReads.length, 0, 'the check is remembered: no credential query');

      assert.equal(await users.revoke('cached'), 1);
      const refused = await get('cached', revokee.password);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().code, 'incorrect_password');
      assert.equal((await get('bystander', bystander.password)).statusCode, 200, "another user's password still works");
    } finally {
      await app.close();
      await other.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
