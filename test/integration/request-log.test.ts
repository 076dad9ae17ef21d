/**
 * The access log shows the URL as the client sent it: a request on the original's paths is rewritten to the
 * canonical namespace before routing, and the log must still tell which clients use `/wp-json/…`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

describe('request log', () => {
  let dir: string;
  let db: TestDatabase;
  let server: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-log-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'log.db') });
    server = await startServer({ DATABASE_URL: databaseUrl(db.config), LOG_LEVEL: 'info' }, { captureLog: true });
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs the path the client sent, the WordPress one or the canonical one', async () => {
    const sent = ['/wp-json/tribe/events/v1/events?per_page=1', '/calendar/events/v1/tags?per_page=2'];
    for (const path of sent) assert.equal((await fetch(`${server.base}${path}`)).status, 200);
    await server.stop();
    const urls = server
      .log()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'incoming request')
      .map((entry) => entry.req.url);
    for (const path of sent) assert.ok(urls.includes(path), `${path} in ${JSON.stringify(urls)}`);
  });
});
