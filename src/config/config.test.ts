import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, readTls, VARIABLES } from './config.js';

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
    assert.equal(c.wpPaths, true);
    assert.equal(c.siteName, 'Events Calendar');
    assert.equal(c.tls, undefined);
    assert.equal(c.rateLimit, undefined);
    assert.equal(c.redis, undefined);
    assert.ok(Object.isFrozen(c));
  });

  it('turns the WordPress paths off with WP_PATHS=off (and its usual spellings)', () => {
    for (const off of ['off', 'OFF', 'false', '0', 'no']) assert.equal(loadConfig({ WP_PATHS: off }).wpPaths, false, off);
    for (const on of ['on', 'true', '1', 'yes', ' ']) assert.equal(loadConfig({ WP_PATHS: on }).wpPaths, true, on);
  });

  it('serves the pages by default with the list as /events/, framable by any site in the embed; PAGES, PAGES_DEFAULT_VIEW and EMBED_ORIGINS change that', () => {
    const c = loadConfig({});
    assert.equal(c.pages, true);
    assert.equal(c.pagesDefaultView, 'list');
    assert.deepEqual(c.embedOrigins, ['*']);
    const d = loadConfig({ PAGES: 'off', PAGES_DEFAULT_VIEW: 'Month', EMBED_ORIGINS: 'https://a.example/, https://b.example:8443' });
    assert.equal(d.pages, false);
    assert.equal(d.pagesDefaultView, 'month');
    assert.deepEqual(d.embedOrigins, ['https://a.example', 'https://b.example:8443']);
    assert.deepEqual(loadConfig({ EMBED_ORIGINS: 'none' }).embedOrigins, []);
    assert.throws(
      () => loadConfig({ PAGES_DEFAULT_VIEW: 'week' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'PAGES_DEFAULT_VIEW',
    );
    assert.throws(
      () => loadConfig({ EMBED_ORIGINS: 'https://a.example/path' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'EMBED_ORIGINS',
    );
  });

  it('takes the site name and description for the WordPress root index', () => {
    const c = loadConfig({ SITE_NAME: 'Jazz Club', SITE_DESCRIPTION: 'Concerts every night' });
    assert.equal(c.siteName, 'Jazz Club');
    assert.equal(c.siteDescription, 'Concerts every night');
  });

  it('serves TLS with TLS_CERT and TLS_KEY together, and then emits https URLs by default', () => {
    const c = loadConfig({ TLS_CERT: '/etc/calendar/cert.pem', TLS_KEY: '/etc/calendar/key.pem', PORT: '8443' });
    assert.deepEqual(c.tls, { certPath: '/etc/calendar/cert.pem', keyPath: '/etc/calendar/key.pem' });
    assert.equal(c.publicUrl, 'https://localhost:8443');
    const behindProxy = loadConfig({ TLS_CERT: '/c', TLS_KEY: '/k', PUBLIC_URL: 'https://events.example.org' });
    assert.equal(behindProxy.publicUrl, 'https://events.example.org', 'an explicit PUBLIC_URL wins');
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
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u@db/cal', SQLITE_SYNCHRONOUS: 'FULL' }).database, {
      dialect: 'postgres',
      url: 'postgres://u@db/cal',
    });
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://u@db/cal', SQLITE_SYNCHRONOUS: 'fast' }),
      /^ConfigError: SQLITE_SYNCHRONOUS: must be NORMAL or FULL/,
    );
  });

  it('reads RATE_LIMIT and the Redis that counts it for every process', () => {
    assert.deepEqual(loadConfig({ RATE_LIMIT: '600/60s' }).rateLimit, { max: 600, windowMs: 60_000 });
    assert.deepEqual(loadConfig({ RATE_LIMIT: '20/s' }).rateLimit, { max: 20, windowMs: 1000 });
    assert.equal(loadConfig({ RATE_LIMIT: 'off' }).rateLimit, undefined);
    assert.deepEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis, { url: 'redis://127.0.0.1:6379', prefix: 'calendar:' });
    const c = loadConfig({ REDIS_URL: ' rediss://user:p%40ss@cache.internal:6380/2 ', REDIS_PREFIX: 'staging:calendar:' });
    assert.deepEqual(c.redis, { url: 'rediss://user:p%40ss@cache.internal:6380/2', prefix: 'staging:calendar:' });
    assert.ok(Object.isFrozen(c.redis));
  });

  it('never repeats a Redis password in its message', () => {
    for (const url of ['http://user:s3cret@host:6379', 'redis://user:s3cret@host:6379/db?x=1', 'redis://user:s3cret@host/x']) {
      assert.throws(
        () => loadConfig({ REDIS_URL: url }),
        (e: unknown) => e instanceof ConfigError && e.variable === 'REDIS_URL' && !e.message.includes('s3cret'),
        url,
      );
    }
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
      { WP_PATHS: 'maybe' },
      { TLS_CERT: '/c' },
      { TLS_KEY: '/k' },
      { RATE_LIMIT: '600' },
      { RATE_LIMIT: '0/60s' },
      { RATE_LIMIT: '10/60d' },
      { REDIS_URL: 'localhost:6379' },
      { REDIS_URL: 'redis://' },
      { REDIS_URL: 'redis://host:6379/zero' },
      { REDIS_URL: 'redis://host:6379/0?keyPrefix=x' },
      { REDIS_PREFIX: 'has space' },
      { REDIS_PREFIX: 'x'.repeat(101) },
      { SQLITE_SYNCHRONOUS: 'OFF' },
      { SQLITE_SYNCHRONOUS: 'EXTRA' },
      { SQLITE_SYNCHRONOUS: '1' },
      // every worker would open a database of its own
      { DATABASE_URL: 'sqlite::memory:', WORKERS: '2' },
    ];
    for (const env of bad) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) =>
          e instanceof ConfigError &&
          // ADMIN_LOGIN without ADMIN_PASSWORD names the missing one
          (Object.keys(env).includes(e.variable) ||
            (e.variable.startsWith('ADMIN_') && 'ADMIN_LOGIN' in env !== 'ADMIN_PASSWORD' in env) ||
            (e.variable.startsWith('TLS_') && 'TLS_CERT' in env !== 'TLS_KEY' in env)) &&
          e.message.startsWith(e.variable),
        JSON.stringify(env),
      );
    }
  });
});

describe('VARIABLES', () => {
  it('names every variable loadConfig reads, and no other', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    assert.deepEqual([...read].sort(), VARIABLES.map((v) => v.name).sort());
  });

  it("is the README's configuration table, row for row", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').split('\n');
    const header = readme.indexOf('| variable | default | meaning |');
    assert.ok(header > 0, 'the README has its configuration table');
    const rows = [];
    for (let i = header + 2; readme[i]?.startsWith('|'); i++) rows.push(readme[i]);
    assert.deepEqual(
      rows,
      VARIABLES.map((v) => `| \`${v.name}\` | ${v.default} | ${v.description} |`),
    );
  });
});

describe('readTls', () => {
  it('reads nothing without TLS', () => {
    assert.equal(readTls(loadConfig({})), undefined);
  });

  it('names the variable whose file cannot be read or holds no PEM', () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-config-'));
    try {
      const garbage = join(dir, 'garbage.pem');
      writeFileSync(garbage, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
      const cases: [Record<string, string>, string][] = [
        [{ TLS_CERT: join(dir, 'missing.pem'), TLS_KEY: garbage }, 'TLS_CERT'],
        [{ TLS_CERT: garbage, TLS_KEY: join(dir, 'missing.pem') }, 'TLS_KEY'],
        [{ TLS_CERT: garbage, TLS_KEY: garbage }, 'TLS_CERT'],
        [{ TLS_CERT: dir, TLS_KEY: garbage }, 'TLS_CERT'],
      ];
      for (const [env, variable] of cases) {
        assert.throws(
          () => readTls(loadConfig(env)),
          (e: unknown) => e instanceof ConfigError && e.variable === variable && e.message.startsWith(`${variable}: `),
          JSON.stringify(env),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
