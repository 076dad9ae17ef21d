import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { BIN, databaseUrl, runCli } from '../helpers/cli.js';
import { createTestDatabase, DIALECT, type TestDatabase } from '../helpers/db.js';
import { startServer } from '../helpers/server.js';

describe('calendar CLI', () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-cli-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'cli.db') });
    env = { DATABASE_URL: databaseUrl(db.config), LOG_LEVEL: 'silent' };
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

  /** An app on the same database, as the running service would be. */
  async function withApp<T>(fn: (inject: (auth: string) => Promise<number>) => Promise<T>): Promise<T> {
    const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), db.storage, { logger: false });
    try {
      return await fn(
        async (auth) => (await app.inject({ method: 'GET', url: '/calendar/events/v1/tags', headers: { authorization: auth } })).statusCode,
      );
    } finally {
      await app.close();
    }
  }

  it('prints usage and exits 2 without a command', async () => {
    const res = await runCli([], env);
    assert.equal(res.code, 2);
    assert.match(res.stdout, /usage: calendar/);
  });

  it('import tec takes --images link, download or skip, and nothing else', async () => {
    const res = await runCli(['import', 'tec', 'https://old.example.org', '--images', 'copy'], env);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /^calendar: --images is link, download or skip$/m);
  });

  it('migrates (idempotently)', async () => {
    const res = await runCli(['migrate'], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /up to date/);
  });

  it('adds a user with a generated application password that authenticates against the service', async () => {
    const res = await runCli(['users', 'add', 'bob', '--role', 'editor', '--email', 'bob@example.org'], env);
    assert.equal(res.code, 0, res.stderr);
    const password = res.stdout.trim().split('\n').at(-1)!;
    assert.match(password, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    await withApp(async (inject) => {
      assert.equal(await inject(basic('bob', password)), 200);
      assert.equal(await inject(basic('bob', 'wrong')), 401);
    });
  });

  it('adds a user with a chosen password, lists users, adds and revokes passwords, removes', async () => {
    assert.equal((await runCli(['users', 'add', 'carol', '--role', 'author', '--app-password', 'carol-secret-1'], env)).code, 0);
    const list = await runCli(['users', 'list'], env);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /carol\s+author\s+1/);
    assert.match(list.stdout, /bob\s+editor/);

    const more = await runCli(['users', 'app-password', 'carol'], env);
    assert.equal(more.code, 0, more.stderr);
    const second = more.stdout.trim().split('\n').at(-1)!;
    await withApp(async (inject) => {
      assert.equal(await inject(basic('carol', 'carol-secret-1')), 200);
      assert.equal(await inject(basic('carol', second)), 200);
    });

    const revoke = await runCli(['users', 'revoke', 'carol'], env);
    assert.equal(revoke.code, 0);
    assert.match(revoke.stdout, /revoked 2/);
    await withApp(async (inject) => {
      assert.equal(await inject(basic('carol', 'carol-secret-1')), 401);
      assert.equal(await inject(basic('carol', second)), 401);
    });

    assert.equal((await runCli(['users', 'remove', 'carol'], env)).code, 0);
    assert.doesNotMatch((await runCli(['users', 'list'], env)).stdout, /carol/);
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['users', 'add', 'dave', '--role', 'king'], /role must be one of/],
      [['users', 'add', 'bob', '--role', 'editor'], /already exists/],
      // as WordPress: no login in another case, no e-mail address twice, no login that is another's address
      [['users', 'add', 'BOB', '--role', 'editor'], /^calendar: user bob already exists \(logins differ by more than case\)$/m],
      [
        ['users', 'add', 'robert', '--role', 'editor', '--email', 'Bob@Example.org'],
        /^calendar: Bob@Example\.org is already the e-mail address of bob$/m,
      ],
      [
        ['users', 'add', 'bob@example.org', '--role', 'editor'],
        /^calendar: bob@example\.org is the e-mail address of bob, which signs in with it too$/m,
      ],
      [['users', 'add', 'bad login', '--role', 'editor'], /login may hold/],
      [['users', 'add', 'erin', '--role', 'editor', '--app-password', 'short'], /8 to 256/],
      [['users', 'remove', 'nobody'], /no user nobody/],
      [['users', 'add', 'frank'], /--role/],
      [['users', 'fly'], /unknown users subcommand/],
      [['launch'], /unknown command/],
    ];
    for (const [args, message] of cases) {
      const res = await runCli(args, env);
      assert.notEqual(res.code, 0, args.join(' '));
      assert.match(res.stderr, message, args.join(' '));
    }
    assert.doesNotMatch((await runCli(['users', 'list'], env)).stdout, /^\d+\s+(BOB|robert|bob@example\.org)\s/m);
  });

  it('import ics exits 0 when every event came, 3 when the import was done with records that failed, 66 on a file it cannot read, 1 on one not in UTF-8', async () => {
    assert.equal((await runCli(['users', 'add', 'icsadmin', '--role', 'administrator'], env)).code, 0);
    const vevent = (uid: string, rule = '') =>
      [
        'BEGIN:VEVENT',
        `UID:${uid}`,
        'DTSTAMP:20260101T000000Z',
        'DTSTART:20300105T180000Z',
        'DTEND:20300105T190000Z',
        rule,
        `SUMMARY:${uid}`,
        'END:VEVENT',
      ]
        .filter((line) => line !== '')
        .join('\r\n');
    const calendar = (...events: string[]) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//cli//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
    const good = join(dir, 'good.ics');
    const mixed = join(dir, 'mixed.ics');
    writeFileSync(good, calendar(vevent('cli-good-1')));
    writeFileSync(mixed, calendar(vevent('cli-good-2'), vevent('cli-hourly', 'RRULE:FREQ=HOURLY;COUNT=3')));
    const clean = await runCli(['import', 'ics', good, '--as', 'icsadmin'], env);
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stdout, /created +1\n/);
    const partial = await runCli(['import', 'ics', mixed, '--as', 'icsadmin'], env);
    assert.equal(partial.code, 3, partial.stdout + partial.stderr);
    assert.match(partial.stdout, /import \d+ done/);
    assert.match(partial.stdout, /created +1\n/);
    assert.match(partial.stdout, /failed +1\n/);
    assert.match(partial.stdout, /! line \d+ cli-hourly: .*FREQ=HOURLY/);
    // piped: plain progress lines, no terminal control characters, and the last one once
    assert.ok(!partial.stdout.includes('\u001b') && !partial.stdout.includes('\r'), partial.stdout);
    const progress = partial.stdout.split('\n').filter((l) => /^import \d+: /.test(l));
    assert.ok(progress.length > 0, partial.stdout);
    assert.equal(new Set(progress).size, progress.length, partial.stdout);
    assert.equal((await runCli(['import', 'ics', join(dir, 'missing.ics')], env)).code, 66);
    // Windows-1252 (é is the byte 0xE9): refused whole, as the API refuses it, not imported with U+FFFD
    const latin = join(dir, 'latin.ics');
    writeFileSync(latin, Buffer.from(calendar(vevent('cli-caf\u00e9')), 'latin1'));
    const notUtf8 = await runCli(['import', 'ics', latin, '--as', 'icsadmin'], env);
    assert.equal(notUtf8.code, 1, notUtf8.stdout + notUtf8.stderr);
    assert.equal(notUtf8.stderr, `calendar: cannot import ${latin}: it is not UTF-8 text (RFC 5545 §3.1.4): convert it to UTF-8 and send it again\n`);
    assert.match((await runCli(['--help'], env)).stdout, /3 an import done with failed records/);
  });

  it("--help after a command prints that command's usage and exits 0, doing nothing else", async () => {
    for (const args of [
      ['serve', '--help'],
      ['migrate', '--help'],
      ['openapi', '-h'],
      ['users', 'add', '--help'],
      ['webhooks', '--help'],
      ['import', 'tec', '--help'],
    ]) {
      // even with a bad configuration: help needs none (and `serve --help` must not start the service)
      const res = await runCli(args, { ...env, PORT: 'not-a-port' });
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stdout, new RegExp(`^usage: calendar ${args[0]}`), args.join(' '));
      assert.match(res.stdout, new RegExp(`^  ${args[0]}`, 'm'));
      assert.equal(res.stderr, '');
    }
  });

  it('openapi, migrate and serve refuse what they do not take with a usage message (exit 2)', async () => {
    for (const args of [
      ['openapi', '--out'],
      ['openapi', '--bogus'],
      ['openapi', 'extra'],
      ['migrate', 'extra'],
      ['serve', '--port', '1'],
    ]) {
      const res = await runCli(args, env);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stdout.slice(0, 200)}`);
      assert.match(res.stderr, /^calendar: /);
      assert.doesNotMatch(res.stderr, /\n\s+at /);
    }
  });

  it("import tec and import redirects refuse each other's options (exit 2), before reaching the site", async () => {
    for (const [args, option] of [
      [['import', 'redirects', 'http://127.0.0.1:9/', '--prune'], 'prune'],
      [['import', 'redirects', 'http://127.0.0.1:9/', '--redirects', 'map.conf'], 'redirects'],
      [['import', 'tec', 'http://127.0.0.1:9/', '--out', 'map.conf'], 'out'],
    ] as const) {
      const res = await runCli([...args], env);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, new RegExp(`^calendar: import ${args[1]} does not take --${option}$`, 'm'));
    }
  });

  it('users set-role gives another role, seen by the running service at the next request; a sync token from before answers 410', async () => {
    assert.equal((await runCli(['users', 'add', 'erin', '--role', 'subscriber', '--app-password', 'erin-secret-1'], env)).code, 0);
    const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), db.storage, { logger: false });
    try {
      const auth = { authorization: basic('erin', 'erin-secret-1') };
      const createTag = (name: string) =>
        app.inject({ method: 'POST', url: '/calendar/events/v1/tags', headers: { ...auth, 'content-type': 'application/json' }, payload: { name } });
      // a subscriber may not create terms, and starts a sync as one
      assert.equal((await createTag('erin before')).statusCode, 403);
      const started = await app.inject({ url: '/calendar/events/v1/tags?sync_token=start&per_page=500', headers: auth });
      assert.equal(started.statusCode, 200, started.body);
      const token = started.json().next_sync_token as string;
      assert.ok(token);

      const res = await runCli(['users', 'set-role', 'erin', '--role', 'editor'], env);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout, 'erin: subscriber → editor\n');
      assert.match((await runCli(['users', 'list'], env)).stdout, /erin\s+editor/);
      // the same app, which had the credentials remembered: the next request is an editor's
      assert.equal((await createTag('erin after')).statusCode, 201);
      const resumed = await app.inject({ url: `/calendar/events/v1/tags?sync_token=${encodeURIComponent(token)}`, headers: auth });
      assert.equal(resumed.statusCode, 410, resumed.body);
      assert.equal((await runCli(['users', 'set-role', 'erin', '--role', 'editor'], env)).stdout, 'erin is already editor\n');
    } finally {
      await app.close();
    }
    for (const [args, code] of [
      [['users', 'set-role', 'nobody-here', '--role', 'author'], 67],
      [['users', 'set-role', 'erin', '--role', 'owner'], 2],
      [['users', 'set-role', 'erin'], 2],
      [['users', 'set-role', 'erin', '--role', 'author', '--email', 'x@example.org'], 2],
    ] as const) {
      const out = await runCli([...args], env);
      assert.equal(out.code, code, `${args.join(' ')}: ${out.stderr}`);
    }
    assert.match((await runCli(['users', 'list'], env)).stdout, /erin\s+editor/);
  });

  it('import redirects of a site never imported here says so and exits 1, writing no map', async () => {
    const out = join(dir, 'never.map');
    const res = await runCli(['import', 'redirects', 'http://127.0.0.1:9/', '--out', out], env);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /^calendar: no import of http:\/\/127\.0\.0\.1:9\/ here \(calendar import tec http:\/\/127\.0\.0\.1:9\/ makes one\)$/m);
    assert.equal(existsSync(out), false);
  });

  it('reads a chosen application password from --app-password-file (not in the process list); a file it cannot read is exit 66, both ways at once a usage error', async () => {
    const file = join(dir, 'gina.secret');
    writeFileSync(file, 'gina-file-secret-1\n');
    const res = await runCli(['users', 'add', 'gina', '--role', 'author', '--app-password-file', file], env);
    assert.equal(res.code, 0, res.stderr);
    assert.doesNotMatch(res.stdout, /gina-file-secret-1/);
    await withApp(async (inject) => assert.equal(await inject(basic('gina', 'gina-file-secret-1')), 200));
    const missing = await runCli(['users', 'app-password', 'gina', '--app-password-file', join(dir, 'nothing.secret')], env);
    assert.equal(missing.code, 66, missing.stderr);
    assert.match(missing.stderr, /^calendar: cannot read .*nothing\.secret: ENOENT$/m);
    const both = await runCli(['users', 'app-password', 'gina', '--app-password', 'x-secret-123', '--app-password-file', file], env);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /^calendar: --app-password and --app-password-file are one or the other$/m);
    const tec = await runCli(['import', 'tec', 'http://127.0.0.1:9/', '--app-password-file', join(dir, 'nothing.secret')], env);
    assert.equal(tec.code, 66, tec.stderr);
    writeFileSync(join(dir, 'no-colon.secret'), 'just-a-password\n');
    const noLogin = await runCli(['import', 'tec', 'http://127.0.0.1:9/', '--app-password-file', join(dir, 'no-colon.secret')], env);
    assert.equal(noLogin.code, 2, noLogin.stderr);
    assert.match(noLogin.stderr, /LOGIN:PASSWORD/);
  });

  it('users app-password, revoke and remove of an unknown login exit 67', async () => {
    for (const sub of ['app-password', 'revoke', 'remove']) {
      const res = await runCli(['users', sub, 'nobody-here'], env);
      assert.equal(res.code, 67, `${sub}: ${res.stderr}`);
      assert.match(res.stderr, /^calendar: no user nobody-here$/m);
    }
  });

  it('a reader that goes away (calendar openapi | head -1) ends nothing with a stack trace', async () => {
    const res = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'openapi'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(res.stderr, '');
    assert.equal(res.code, 0);
  });

  it('users: an unknown role or stray arguments are usage errors (exit 2)', async () => {
    for (const args of [
      ['users', 'add', 'dora', '--role', 'owner'],
      ['users', 'list', 'extra'],
      ['users', 'remove', 'dora', '--role', 'editor'],
    ]) {
      const res = await runCli(args, env);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, /^calendar: /);
    }
    assert.doesNotMatch((await runCli(['users', 'list'], env)).stdout, /dora/);
  });

  it('stops on bad configuration, naming the variable', async () => {
    const res = await runCli(['migrate'], { ...env, SITE_TIMEZONE: 'Nowhere/Else' });
    assert.equal(res.code, 78);
    assert.match(res.stderr, /SITE_TIMEZONE/);
  });
});

describe('calendar serve on a database in memory', { skip: DIALECT !== 'sqlite' && 'a database in memory is SQLite’s' }, () => {
  const ADMIN = { ADMIN_LOGIN: 'admin', ADMIN_PASSWORD: 'choose-a-long-one' };

  it('serves the database it migrated, with the first administrator in it: a write is stored and read back', async () => {
    const server = await startServer({ DATABASE_URL: 'sqlite::memory:', ...ADMIN }, { captureLog: true });
    try {
      const created = await fetch(`${server.base}/calendar/events/v1/categories`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('admin:choose-a-long-one').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'name=Music',
      });
      assert.equal(created.status, 201, await created.clone().text());
      assert.equal(((await created.json()) as { name: string }).name, 'Music');
      const list = await fetch(`${server.base}/calendar/events/v1/categories?hide_empty=0`);
      assert.equal(list.status, 200);
      assert.deepEqual(
        ((await list.json()) as { categories: { name: string }[] }).categories.map((c) => c.name),
        ['Music'],
      );
      assert.match(server.log(), /^created the first administrator admin$/m);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('refuses WORKERS above 1, each worker having a database of its own (exit 78, naming WORKERS)', async () => {
    const res = await runCli(['serve'], { DATABASE_URL: 'sqlite::memory:', WORKERS: '2', LOG_LEVEL: 'silent', ...ADMIN });
    assert.equal(res.code, 78);
    assert.match(res.stderr, /WORKERS: a database in memory/);
  });
});
