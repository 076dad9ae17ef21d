import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.publicUrl, 'http://localhost:8080');
    assert.deepEqual(c.database, { dialect: 'sqlite', path: './data/calendar.db', synchronous: 'NORMAL' });
    assert.equal(c.siteTimezone, 'UTC');
    assert.equal(c.logLevel, 'info');
    assert.equal(c.bodyLimit, 1048576);
    assert.ok(Object.isFrozen(c));
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://events.example.org/api/',
      DATABASE_URL: 'postgres://u@db:5432/cal',
      ADMIN_LOGIN: 'admin',
      ADMIN_PASSWORD: 'long-enough',
      SITE_TIMEZONE: 'America/New_York',
      LOG_LEVEL: 'WARN',
      BODY_LIMIT: '4096',
    });
    assert.equal(c.publicUrl, 'https://events.example.org/api');
    assert.deepEqual(c.database, { dialect: 'postgres', url: 'postgres://u@db:5432/cal' });
    assert.equal(c.logLevel, 'warn');
    assert.equal(c.port, 9000);
    assert.equal(c.bodyLimit, 4096);
  });

  it('takes sqlite: paths', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database, { dialect: 'sqlite', path: '/tmp/x.db', synchronous: 'NORMAL' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, { dialect: 'sqlite', path: ':memory:', synchronous: 'NORMAL' });
  });

  it('takes SQLITE_SYNCHRONOUS (NORMAL or FULL, any case) for SQLite, and checks it whatever the database', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db', SQLITE_SYNCHRONOUS: 'FULL' }).database, {
      dialect: 'sqlite',
      path: '/tmp/x.db',
      synchronous: 'FULL',
    });
    assert.equal((loadConfig({ SQLITE_SYNCHRONOUS: ' full ' }).database as { synchronous: string }).synchronous, 'FULL');
    assert.equal((loadConfig({ SQLITE_SYNCHRONOUS: 'normal' }).database as { synchronous: string }).synchronous, 'NORMAL');
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u@db/cal', SQLITE_SYNCHRONOUS: 'FULL' }).database, { dialect: 'postgres', url: 'postgres://u@db/cal' });
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://u@db/cal', SQLITE_SYNCHRONOUS: 'fast' }), /^ConfigError: SQLITE_SYNCHRONOUS: must be NORMAL or FULL/);
  });

  it('refuses bad values, naming the variable', () => {
    const bad: Record<string, string>[] = [
      { PORT: 'eighty' },
      { PORT: '70000' },
      { PUBLIC_URL: 'not a url' },
      { PUBLIC_URL: 'ftp://x' },
      { PUBLIC_URL: 'http://x/?a=1' },
      { DATABASE_URL: 'mysql://x' },
      { DATABASE_URL: 'sqlite:' },
      { ADMIN_LOGIN: 'admin' },
      { ADMIN_PASSWORD: 'long-enough' },
      { ADMIN_LOGIN: 'admin', ADMIN_PASSWORD: 'short' },
      { ADMIN_LOGIN: 'bad login', ADMIN_PASSWORD: 'long-enough' },
      { SITE_TIMEZONE: 'Mars/Olympus' },
      { LOG_LEVEL: 'loud' },
      { BODY_LIMIT: '10' },
      { SQLITE_SYNCHRONOUS: 'OFF' },
      { SQLITE_SYNCHRONOUS: 'EXTRA' },
      { SQLITE_SYNCHRONOUS: '1' },
    ];
    for (const env of bad) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) =>
          e instanceof ConfigError &&
          // ADMIN_LOGIN without ADMIN_PASSWORD names the missing one
          (Object.keys(env).includes(e.variable) || (e.variable.startsWith('ADMIN_') && 'ADMIN_LOGIN' in env !== 'ADMIN_PASSWORD' in env)) &&
          e.message.startsWith(e.variable),
        JSON.stringify(env),
      );
    }
  });
});
