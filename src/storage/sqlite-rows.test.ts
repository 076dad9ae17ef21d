import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { SqliteDialect } from './dialects/sqlite.dialect.js';

/**
 * SQLite rows come to the stores as objects built from arrays (sqlite.dialect.ts, rowsAsObjects): the objects
 * must be those better-sqlite3 builds itself, for every shape of statement the stores send.
 */
describe('SQLite rows read as arrays and made objects', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-rows-'));
  let dialect: SqliteDialect;
  before(() => {
    dialect = new SqliteDialect({ path: join(dir, 'rows.db'), checkpointer: false });
    dialect.raw.exec(`create table a (id integer primary key, name text, status text, n real, data blob);
      create table b (a_id integer, status text, note text);
      insert into a values (1, 'one', 'publish', 1.5, x'0102'), (2, 'two', 'draft', null, null);
      insert into b values (1, 'trash', 'first'), (2, 'future', null);`);
  });
  after(async () => {
    await dialect.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What better-sqlite3 answers with its own objects. */
  const native = (text: string, params: unknown[] = []) => dialect.raw.prepare(text).all(...params);
  const ours = async (text: string, params: unknown[] = []) =>
    (await dialect.db.executeQuery({ sql: text, parameters: params, query: { kind: 'RawNode' } } as never)).rows;

  it('gives the same keys, in the same order, with the same values and types', async () => {
    const text = 'select * from a order by id';
    const rows = await ours(text);
    assert.deepEqual(rows, native(text));
    assert.deepEqual(Object.keys(rows[0] as object), ['id', 'name', 'status', 'n', 'data']);
    assert.ok(Buffer.isBuffer((rows[0] as { data: unknown }).data));
  });

  it('keeps a repeated column name in its first place with the last value, as better-sqlite3 does', async () => {
    const text = 'select a.*, b.* from a join b on b.a_id = a.id where a.id = ?';
    const rows = await ours(text, [1]);
    assert.deepEqual(rows, native(text, [1]));
    assert.deepEqual(Object.entries(rows[0] as object), [
      ['id', 1],
      ['name', 'one'],
      ['status', 'trash'],
      ['n', 1.5],
      ['data', Buffer.from([1, 2])],
      ['a_id', 1],
      ['note', 'first'],
    ]);
  });

  it('makes every column a key of its own, whatever its name (`__proto__` too, which better-sqlite3 drops)', async () => {
    const text = `select id as "__proto__", name as "x"")}; throw 1; //" from a where id = 1`;
    const rows = await ours(text);
    assert.deepEqual(Object.keys(rows[0] as object), ['__proto__', 'x")}; throw 1; //']);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value, 1);
  });

  it('follows a statement whose columns changed after it was prepared (a migration)', async () => {
    const text = 'select * from b order by a_id';
    assert.deepEqual(Object.keys((await ours(text))[0] as object), ['a_id', 'status', 'note']);
    await sql`alter table b add column extra text default 'x'`.execute(dialect.db);
    const rows = await ours(text);
    assert.deepEqual(rows, native(text));
    assert.deepEqual(Object.keys(rows[0] as object), ['a_id', 'status', 'note', 'extra']);
  });

  it('streams the same objects', async () => {
    const streamed: unknown[] = [];
    const db = dialect.db as unknown as Kysely<{ a: { id: number } }>;
    for await (const row of db.selectFrom('a').selectAll().orderBy('id').stream()) streamed.push(row);
    assert.deepEqual(streamed, native('select * from a order by id'));
  });
});
