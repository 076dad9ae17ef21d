/**
 * HTTPS served by the process itself (TLS_CERT / TLS_KEY), with a self-signed certificate made here by the
 * `openssl` binary: reads and authenticated writes over TLS with two workers, emitted URLs in https, and every
 * bad certificate setting stopping the start with exit code 78 and the variable's name.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UserService } from '../../src/domain/users/user.service.js';
import { databaseUrl, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, httpsRequest, type RunningServer, startServer } from '../helpers/server.js';

const LOGIN = 'tls-admin';
const PASSWORD = 'tls-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}` };
const NS = '/calendar/events/v1';

/** A self-signed certificate for 127.0.0.1 (and localhost), valid for two days, and its key. */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

describe('HTTPS', () => {
  let dir: string;
  let db: TestDatabase;
  let server: RunningServer;
  let files: { cert: string; key: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-tls-'));
    files = makeCertificate(dir, 'server');
    db = await createTestDatabase({ sqlitePath: join(dir, 'tls.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    server = await startServer({ DATABASE_URL: databaseUrl(db.config), TLS_CERT: files.cert, TLS_KEY: files.key, WORKERS: '2' });
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves reads and authenticated writes over TLS, with two workers', async () => {
    assert.ok(server.base.startsWith('https://'));
    const ca = server.ca!;
    const created = await httpsRequest(`${server.base}${NS}/events`, {
      ca,
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Over TLS', start_date: '+1 day 10am', end_date: '+1 day 11am' }),
    });
    assert.equal(created.status, 201, created.text);
    const event = JSON.parse(created.text);
    assert.equal(event.title, 'Over TLS');
    assert.equal(event.rest_url, `${server.base}${NS}/events/${event.id}`, 'emitted URLs are the https ones');

    // fresh connections, spread over both workers
    for (let i = 0; i < 6; i++) {
      const read = await httpsRequest(`${server.base}${NS}/events/${event.id}`, { ca });
      assert.equal(read.status, 200);
      assert.equal(JSON.parse(read.text).title, 'Over TLS');
    }
    const viaWordPress = await httpsRequest(`${server.base}/wp-json/tribe/events/v1/events?per_page=50`, { ca });
    assert.equal(viaWordPress.status, 200);
    assert.ok(JSON.parse(viaWordPress.text).events.some((e: { id: number }) => e.id === event.id));

    const anonymousWrite = await httpsRequest(`${server.base}${NS}/events/${event.id}`, { ca, method: 'DELETE' });
    assert.equal(anonymousWrite.status, 401);
    const wrongPassword = await httpsRequest(`${server.base}${NS}/events`, {
      ca,
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${LOGIN}:wrong`).toString('base64')}`, 'content-type': 'application/json' },
      body: '{"title":"x"}',
    });
    assert.equal(wrongPassword.status, 401);
    assert.equal(JSON.parse(wrongPassword.text).code, 'incorrect_password');
  });

  it('refuses a certificate it was not told to trust, and plain HTTP on the TLS port', async () => {
    const other = makeCertificate(dir, 'stranger');
    await assert.rejects(httpsRequest(`${server.base}/healthz`, { ca: readFileSync(other.cert) }));
    const plain = await new Promise<number | Error>((resolve) => {
      const req = httpRequest(`http://127.0.0.1:${server.port}/healthz`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (e) => resolve(e));
      req.end();
    });
    assert.notEqual(plain, 200, 'no answer in clear text');
  });

  it('stops gracefully on SIGTERM, workers and all', async () => {
    assert.equal(await server.stop(), 0);
  });
});

describe('bad TLS settings stop the start (exit 78, naming the variable)', () => {
  let dir: string;
  let good: { cert: string; key: string };
  let other: { cert: string; key: string };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-tls-bad-'));
    good = makeCertificate(dir, 'good');
    other = makeCertificate(dir, 'other');
    writeFileSync(join(dir, 'garbage.pem'), 'not a certificate\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, () => Record<string, string>, string][] = [
    ['a certificate without a key', () => ({ TLS_CERT: good.cert }), 'TLS_KEY'],
    ['a key without a certificate', () => ({ TLS_KEY: good.key }), 'TLS_CERT'],
    ['a certificate file that does not exist', () => ({ TLS_CERT: join(dir, 'missing.crt'), TLS_KEY: good.key }), 'TLS_CERT'],
    ['a key file that does not exist', () => ({ TLS_CERT: good.cert, TLS_KEY: join(dir, 'missing.key') }), 'TLS_KEY'],
    ['a certificate file that is no certificate', () => ({ TLS_CERT: join(dir, 'garbage.pem'), TLS_KEY: good.key }), 'TLS_CERT'],
    ['a key file that is no key', () => ({ TLS_CERT: good.cert, TLS_KEY: join(dir, 'garbage.pem') }), 'TLS_KEY'],
    ['the certificate given as the key', () => ({ TLS_CERT: good.cert, TLS_KEY: good.cert }), 'TLS_KEY'],
    ['the key of another certificate', () => ({ TLS_CERT: good.cert, TLS_KEY: other.key }), 'TLS_KEY'],
  ];
  for (const [name, env, variable] of cases) {
    it(name, async () => {
      const port = String(await freePort());
      const res = await runCli(['serve'], { ...env(), DATABASE_URL: `sqlite:${join(dir, 'never.db')}`, PORT: port, WORKERS: '2' });
      assert.equal(res.code, 78, res.stderr);
      assert.match(res.stderr, new RegExp(`^calendar: bad configuration: ${variable}: `), res.stderr);
    });
  }
});
