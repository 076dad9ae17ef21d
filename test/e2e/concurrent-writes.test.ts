import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

describe('concurrent writes', () => {
  let t: TestApp;
  const statements: string[] = [];
  before(async () => (t = await createTestApp({}, { onQuery: (sql) => void statements.push(sql) })));
  after(() => t.close());

  it('each of many concurrent creates stands or falls alone, and they share commits (SQLite)', async () => {
    const n = 30;
    // every third one names an organizer that does not exist
    const fails = (i: number) => i % 3 === 0;
    statements.length = 0;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        t.post('/events', {
          as: 'editor',
          json: {
            title: `Concurrent ${i}`,
            start_date: '2031-03-01 10:00:00',
            end_date: '2031-03-01 11:00:00',
            tags: [`fresh-tag-${i}`],
            ...(fails(i) ? { organizer: [99_999_999] } : {}),
          },
        }),
      ),
    );
    const commits = statements.filter((s) => /^\s*commit\b/i.test(s)).length;
    results.forEach((res, i) => {
      if (fails(i)) {
        assert.equal(res.status, 400, `create ${i}`);
        assert.equal(res.body.code, 'rest_invalid_param');
      } else {
        assert.equal(res.status, 201, `create ${i}: ${res.text}`);
        assert.equal(res.body.title, `Concurrent ${i}`);
        assert.deepEqual(res.body.tags.map((tag: any) => tag.name), [`fresh-tag-${i}`]);
        assert.equal(res.body.tags[0].count, 1);
      }
    });

    const expected = Array.from({ length: n }, (_, i) => i).filter((i) => !fails(i));
    const listed = await t.get('/events', { as: 'editor', query: { search: 'Concurrent', per_page: 50, start_date: '2031-01-01', end_date: '2031-12-31' } });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.events.map((e: any) => e.title).sort(),
      expected.map((i) => `Concurrent ${i}`).sort(),
    );
    const tags = await t.get('/tags', { query: { search: 'fresh-tag', per_page: 100, hide_empty: 'false' } });
    assert.deepEqual(
      tags.body.tags.map((tag: any) => tag.name).sort(),
      expected.map((i) => `fresh-tag-${i}`).sort(),
      'the failed creates left no tag behind',
    );
    assert.ok(tags.body.tags.every((tag: any) => tag.count === 1));
    if (DIALECT === 'sqlite') assert.ok(commits <= n / 3, `${n} concurrent creates took ${commits} commits`);
  });

  it('a transaction that fails among concurrent ones is undone alone; the others commit', async () => {
    const now = '2031-01-01 00:00:00';
    const term = (name: string) => ({ taxonomy: 'post_tag' as const, name, slug: name, description: '', parent_id: 0, created_at: now, modified_at: now });
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
    const expected = ['grouped-taken', ...Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 4 === 0 || i % 4 === 3).map((i) => `grouped-${i}`)];
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
