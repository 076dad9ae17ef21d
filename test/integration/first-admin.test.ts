/**
 * The first administrator (DECISIONS.md, users and authentication): on an empty database, `ADMIN_LOGIN` /
 * `ADMIN_PASSWORD` make one when the service starts, whose application password works over HTTP Basic at once;
 * on a database that has users, they make nothing and change nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

const NS = '/calendar/events/v1';
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

describe('the first administrator from ADMIN_LOGIN and ADMIN_PASSWORD', () => {
  let dir: string;
  let db: TestDatabase;
  let server: RunningServer | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-first-admin-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'first-admin.db') });
  });
  after(async () => {
    await server?.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A tag written with these credentials: its status and error code (tags are for administrators and editors). */
  async function writeTag(base: string, auth: string, name: string): Promise<{ status: number; code?: string }> {
    const res = await fetch(`${base}${NS}/tags`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    const body = (await res.json()) as { code?: string };
    return { status: res.status, code: res.status === 201 ? undefined : body.code };
  }

  it('is created on an empty database, as an administrator whose password works at once', async () => {
    const env = { DATABASE_URL: databaseUrl(db.config), ADMIN_LOGIN: 'first', ADMIN_PASSWORD: 'first-admin-password' };
    server = await startServer(env, { captureLog: true });
    assert.match(server.log(), /created the first administrator first/);
    assert.deepEqual(await writeTag(server.base, basic('first', 'first-admin-password'), 'by the first'), { status: 201, code: undefined });
    // a webhook is an administrator's alone (an editor gets 403)
    const hooks = await fetch(`${server.base}${NS}/webhooks`, { headers: { authorization: basic('first', 'first-admin-password') } });
    assert.equal(hooks.status, 200);
    assert.deepEqual(await writeTag(server.base, basic('first', 'another-password'), 'wrong'), { status: 401, code: 'incorrect_password' });
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  it('is not made, nor changed, once the database has users', async () => {
    const env = { DATABASE_URL: databaseUrl(db.config), ADMIN_LOGIN: 'second', ADMIN_PASSWORD: 'second-admin-password' };
    server = await startServer(env, { captureLog: true });
    assert.doesNotMatch(server.log(), /created the first administrator/);
    assert.deepEqual(await writeTag(server.base, basic('second', 'second-admin-password'), 'by the second'), {
      status: 401,
      code: 'incorrect_password',
    });
    // the first one's password still works
    assert.deepEqual(await writeTag(server.base, basic('first', 'first-admin-password'), 'again by the first'), { status: 201, code: undefined });
    const again = { DATABASE_URL: databaseUrl(db.config), ADMIN_LOGIN: 'first', ADMIN_PASSWORD: 'a-new-password-for-first' };
    await server.stop();
    server = await startServer(again, { captureLog: true });
    assert.deepEqual(await writeTag(server.base, basic('first', 'a-new-password-for-first'), 'new password'), {
      status: 401,
      code: 'incorrect_password',
    });
    assert.deepEqual(await writeTag(server.base, basic('first', 'first-admin-password'), 'old password'), { status: 201, code: undefined });
  });
});
