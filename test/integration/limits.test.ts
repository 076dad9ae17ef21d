/**
 * Hostile clients over a real socket (what app.inject() never sees): oversized URLs and headers, malformed
 * requests, slow clients, many connections at once, and the optional rate limit.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

/** Sends raw bytes and collects everything the server answers until it closes (or `waitMs` passes). */
function raw(port: number, chunks: (string | { pause: number })[], waitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
    setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, waitMs);
    void (async () => {
      for (const chunk of chunks) {
        if (typeof chunk === 'string') socket.write(chunk);
        else await new Promise((r) => setTimeout(r, chunk.pause));
      }
    })();
  });
}

function jsonBody(response: string): any {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}

async function listen(env: Record<string, string>, db: TestDatabase): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', ...env }), db.storage, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

describe('limits and hostile clients', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    db = await createTestDatabase();
    ({ app, port } = await listen({ REQUEST_TIMEOUT: '1' }, db));
  });
  after(async () => {
    await app.close();
    await db.drop();
  });

  it('answers a very long URL with 431 and a JSON error', async () => {
    const res = await raw(port, [`GET /calendar/events/v1/events?search=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    assert.match(res, /^HTTP\/1\.1 431/);
    assert.equal(jsonBody(res).code, 'rest_request_headers_too_large');
  });

  it('answers very long headers with 431 and a JSON error', async () => {
    const res = await raw(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`]);
    assert.match(res, /^HTTP\/1\.1 431/);
    assert.equal(jsonBody(res).data.status, 431);
  });

  it('answers a malformed request with 400 and a JSON error', async () => {
    const res = await raw(port, ['NONSENSE\r\n\r\n']);
    assert.match(res, /^HTTP\/1\.1 400/);
    assert.equal(jsonBody(res).code, 'rest_bad_request');
  });

  it('cuts off a client too slow to send its request (408, JSON)', async () => {
    const started = Date.now();
    const res = await raw(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n', { pause: 8000 }], 8000);
    assert.match(res, /^HTTP\/1\.1 408/);
    assert.equal(jsonBody(res).code, 'rest_request_timeout');
    assert.ok(Date.now() - started < 7000, 'within a few seconds of REQUEST_TIMEOUT=1');
  });

  it('cuts off a client whose body stalls after its headers (408, JSON), and answers a badly chunked body (400, JSON)', async () => {
    const started = Date.now();
    const stalled = await raw(
      port,
      [
        'POST /calendar/events/v1/categories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"name":',
        { pause: 8000 },
      ],
      8000,
    );
    assert.match(stalled, /^HTTP\/1\.1 408/);
    assert.equal(jsonBody(stalled).code, 'rest_request_timeout');
    assert.ok(Date.now() - started < 7000, 'within a few seconds of REQUEST_TIMEOUT=1');
    const chunked = await raw(port, [
      'POST /calendar/events/v1/categories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ]);
    assert.match(chunked, /^HTTP\/1\.1 400/);
    assert.equal(jsonBody(chunked).code, 'rest_bad_request');
  });

  it('refuses an iCalendar body (10 MB allowed for imports) before reading it, where it cannot be taken', async () => {
    // the 10 MB limit is for those who may import; anyone else, or any other route, is answered at once, as a
    // JSON body over BODY_LIMIT is: the server does not wait for (nor hold) megabytes it will refuse
    const head = (path: string, auth = '') =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/calendar\r\nContent-Length: 9000000\r\n${auth}\r\nBEGIN:VCALENDAR\r\n`;
    const cases: [string, string, number, string][] = [
      ['/calendar/events/v1/events', '', 415, 'rest_unsupported_media_type'],
      ['/calendar/events/v1/categories', '', 415, 'rest_unsupported_media_type'],
      ['/calendar/events/v1/imports', '', 401, 'rest_forbidden'],
      ['/calendar/events/v1/imports', `Authorization: Basic ${Buffer.from('nobody:wrong').toString('base64')}\r\n`, 401, 'incorrect_password'],
    ];
    for (const [path, auth, status, code] of cases) {
      const res = await raw(port, [head(path, auth), { pause: 800 }], 800);
      assert.match(res, new RegExp(`^HTTP/1\\.1 ${status}`), `${path} ${auth}: ${res.split('\r\n')[0]}`);
      assert.equal(jsonBody(res).code, code);
    }
  });

  it('serves many connections at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, () => fetch(`http://127.0.0.1:${port}/calendar/events/v1/events`).then((r) => r.status)),
    );
    assert.ok(results.every((s) => s === 200));
  });

  it('limits the rate per client when RATE_LIMIT is set: 429 with Retry-After', async () => {
    const limited = await listen({ RATE_LIMIT: '5/10s' }, db);
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 7; i++) {
        last = await fetch(`http://127.0.0.1:${limited.port}/calendar/events/v1/tags`);
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      assert.ok(Number(last!.headers.get('retry-after')) >= 1);
      const body = (await last!.json()) as { code: string; data: { status: number } };
      assert.equal(body.code, 'rest_too_many_requests');
      assert.equal(body.data.status, 429);
    } finally {
      await limited.app.close();
    }
    // without RATE_LIMIT there is no limit
    for (let i = 0; i < 20; i++) assert.equal((await fetch(`http://127.0.0.1:${port}/calendar/events/v1/tags`)).status, 200);
  });
});
