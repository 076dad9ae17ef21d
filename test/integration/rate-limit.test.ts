/**
 * RATE_LIMIT across processes: with REDIS_URL every process counts a client in one Redis, so requests spread
 * over two `calendar serve` processes are limited as one; without it each process counts alone. What an
 * unreachable or stalled Redis means (requests go unlimited, a warning is logged, no 500, no long wait), and that
 * a process closes its Redis connection when it stops.
 *
 * Each test counts under its own REDIS_PREFIX and sends from its own loopback address (127.x.y.z), so parallel
 * runs share no counter, and the health checks that wait for a server to start are not counted with the test's
 * requests. Needs the Redis of TEST_REDIS_URL (default redis://127.0.0.1:6379); without one those tests are
 * skipped, saying so.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, type RunningServer, startServer } from '../helpers/server.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PATH = '/calendar/events/v1/tags';

async function redisAnswers(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const SKIP_WITHOUT_REDIS = (await redisAnswers()) ? false : `Redis at ${REDIS_URL} does not answer (set TEST_REDIS_URL)`;
// CI requires it: a shared limit that is never tested is not a feature
if (SKIP_WITHOUT_REDIS && process.env.TEST_REDIS_REQUIRED === '1') throw new Error(`${SKIP_WITHOUT_REDIS}, and TEST_REDIS_REQUIRED=1`);
if (SKIP_WITHOUT_REDIS) console.log(`# ${SKIP_WITHOUT_REDIS}: the Redis rate-limit tests are skipped`);

const prefix = () => `calendar-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
/** A loopback address of its own for each test: its requests are a client nobody else counts. */
const clientAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

/** GET from a chosen source address (fetch cannot choose one). */
function hit(port: number, from: string): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: PATH, localAddress: from, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A TCP proxy in front of Redis that can go away, come back on the same port, or stall. */
class RedisProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  port = 0;

  async start(): Promise<this> {
    const target = new URL(REDIS_URL);
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.stalled) client.pause();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(): string {
    const url = new URL(REDIS_URL);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Redis goes away: the listener closes and every connection drops. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** Redis hangs: what clients send is held back (not lost) until `resume`. */
  stall(): void {
    this.stalled = true;
    for (const s of this.sockets) s.pause();
  }

  resume(): void {
    this.stalled = false;
    for (const s of this.sockets) s.resume();
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An app on a real port whose warnings are kept in `log`. */
async function listen(env: Record<string, string>, db: TestDatabase): Promise<{ app: FastifyInstance; port: number; log: string[] }> {
  const log: string[] = [];
  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', ...env }), db.storage, {
    logger: { level: 'info', stream: { write: (line: string) => void log.push(line) } },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port, log };
}

const messages = (log: string[], text: string) => log.filter((line) => (JSON.parse(line) as { msg: string }).msg.includes(text));

describe('rate limit in Redis', { skip: SKIP_WITHOUT_REDIS }, () => {
  let db: TestDatabase;
  let redis: Redis;
  const prefixes: string[] = [];
  before(async () => {
    db = await createTestDatabase();
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    for (const p of prefixes) {
      const keys = await redis.keys(`${p}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
    await db.drop();
  });

  it('counts in Redis under REDIS_PREFIX: headers, then 429 rest_too_many_requests with Retry-After', async () => {
    const p = prefix();
    prefixes.push(p);
    const { app, port } = await listen({ RATE_LIMIT: '3/20s', REDIS_URL, REDIS_PREFIX: p }, db);
    try {
      const from = clientAddress();
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push(await hit(port, from));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 429],
      );
      assert.deepEqual(
        answers.map((a) => a.headers['x-ratelimit-limit']),
        ['3', '3', '3', '3'],
      );
      assert.deepEqual(
        answers.map((a) => a.headers['x-ratelimit-remaining']),
        ['2', '1', '0', '0'],
      );
      const limited = answers[3];
      assert.equal(limited.body.code, 'rest_too_many_requests');
      assert.equal(limited.body.data.status, 429);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 20, `Retry-After ${retryAfter}`);
      assert.equal(limited.body.data.retry_after, retryAfter);
      // the count lives in Redis, under the prefix, and dies with the window
      const key = `${p}rate-limit:${from}`;
      assert.equal(await redis.get(key), '4');
      const ttl = await redis.pttl(key);
      assert.ok(ttl > 0 && ttl <= 20_000, `PTTL ${ttl}`);
    } finally {
      await app.close();
    }
  });

  it('limits requests spread over two processes as one client, and each closes its Redis connection on SIGTERM', async () => {
    const p = prefix();
    prefixes.push(p);
    const dir = mkdtempSync(join(tmpdir(), 'calendar-rate-'));
    const shared = await createTestDatabase({ sqlitePath: join(dir, 'rate.db') });
    let a: RunningServer | undefined;
    let b: RunningServer | undefined;
    try {
      const env = { DATABASE_URL: databaseUrl(shared.config), RATE_LIMIT: '10/60s', REDIS_URL, REDIS_PREFIX: p };
      [a, b] = await Promise.all([startServer(env), startServer(env)]);
      const from = clientAddress();
      const answers: Answer[] = [];
      for (let i = 0; i < 16; i++) answers.push(await hit((i % 2 === 0 ? a : b).port, from));
      assert.deepEqual(
        answers.map((x) => x.status),
        [...Array(10).fill(200), ...Array(6).fill(429)],
        'ten requests in all, whichever process answered',
      );
      assert.deepEqual(
        answers.slice(0, 10).map((x) => Number(x.headers['x-ratelimit-remaining'])),
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
        'one count, shared',
      );
      assert.ok(answers.slice(10).every((x) => x.body.code === 'rest_too_many_requests' && Number(x.headers['retry-after']) >= 1));

      const names = (list: string) => [...list.matchAll(/ name=(\S+)/g)].map((m) => m[1]);
      const connected = names(String(await redis.client('LIST')));
      for (const s of [a, b]) assert.ok(connected.includes(`calendar-${s.child.pid}`), `process ${s.child.pid} holds a named connection`);
      const pids = [a.child.pid, b.child.pid];
      assert.deepEqual(await Promise.all([a.stop(), b.stop()]), [0, 0], 'clean exits');
      await waitFor('the connections to close', async () => {
        const left = names(String(await redis.client('LIST')));
        return pids.every((pid) => !left.includes(`calendar-${pid}`)) ? true : undefined;
      });
    } finally {
      await Promise.all([a?.stop(), b?.stop()]);
      await shared.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves requests unlimited while Redis is gone (a warning, no 500), and counts there again once it is back', async () => {
    const p = prefix();
    prefixes.push(p);
    const proxy = await new RedisProxy().start();
    const { app, port, log } = await listen({ RATE_LIMIT: '3/30s', REDIS_URL: proxy.url(), REDIS_PREFIX: p }, db);
    try {
      const from = clientAddress();
      const first: number[] = [];
      for (let i = 0; i < 4; i++) first.push((await hit(port, from)).status);
      assert.deepEqual(first, [200, 200, 200, 429]);

      await proxy.stop();
      for (let i = 0; i < 6; i++) {
        const res = await hit(port, from);
        assert.equal(res.status, 200, 'unlimited, not a 500 and not the 429 of before');
        assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no rate headers when nothing was counted');
        assert.ok(res.ms < 1500, `answered in ${res.ms} ms`);
      }
      const warnings = messages(log, 'Redis is unreachable');
      assert.ok(warnings.length >= 1 && warnings.length <= 2, `warned, but not for every request: ${warnings.length}`);
      assert.equal(JSON.parse(warnings[0]).level, 40, 'at warn level');

      await proxy.start();
      const back = await waitFor('Redis to be counted in again', async () => {
        const res = await hit(port, from);
        return res.headers['x-ratelimit-limit'] === undefined ? undefined : res;
      });
      assert.equal(back.status, 429, 'the count kept in Redis while this process could not reach it');
      assert.equal(messages(log, 'reachable again').length, 1);
    } finally {
      await app.close();
      await proxy.stop();
    }
  });

  it('does not hold a request longer than half a second when Redis stalls', async () => {
    const p = prefix();
    prefixes.push(p);
    const proxy = await new RedisProxy().start();
    const { app, port, log } = await listen({ RATE_LIMIT: '5/30s', REDIS_URL: proxy.url(), REDIS_PREFIX: p }, db);
    try {
      const from = clientAddress();
      assert.equal((await hit(port, from)).headers['x-ratelimit-remaining'], '4');
      proxy.stall();
      const stalled = await hit(port, from);
      assert.equal(stalled.status, 200);
      assert.equal(stalled.headers['x-ratelimit-limit'], undefined);
      assert.ok(stalled.ms >= 400 && stalled.ms < 1500, `gave up on Redis after ${stalled.ms} ms`);
      assert.equal(messages(log, 'Redis is unreachable').length, 1);
      proxy.resume();
      // the stalled count reaches Redis late: it is counted too
      const after = await waitFor('counting to resume', async () => {
        const res = await hit(port, from);
        return res.headers['x-ratelimit-limit'] === undefined ? undefined : res;
      });
      assert.equal(after.status, 200);
      assert.equal(after.headers['x-ratelimit-remaining'], '2');
    } finally {
      await app.close();
      await proxy.stop();
    }
  });
});

describe('rate limit without Redis', () => {
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase()));
  after(() => db.drop());

  it('starts with an unreachable REDIS_URL and serves unlimited, with one warning, no 500', async () => {
    const { app, port, log } = await listen({ RATE_LIMIT: '2/30s', REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_PREFIX: prefix() }, db);
    try {
      const from = clientAddress();
      for (let i = 0; i < 5; i++) {
        const res = await hit(port, from);
        assert.equal(res.status, 200);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
      assert.equal(messages(log, 'Redis is unreachable').length, 1);
    } finally {
      const closing = Date.now();
      await app.close();
      assert.ok(Date.now() - closing < 2000, 'closing does not wait for a Redis that is not there');
    }
  });

  it('counts in each process alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-rate-'));
    const shared = await createTestDatabase({ sqlitePath: join(dir, 'rate.db') });
    let a: RunningServer | undefined;
    let b: RunningServer | undefined;
    try {
      const env = { DATABASE_URL: databaseUrl(shared.config), RATE_LIMIT: '10/60s' };
      [a, b] = await Promise.all([startServer(env), startServer(env)]);
      const from = clientAddress();
      const answers: Answer[] = [];
      for (let i = 0; i < 20; i++) answers.push(await hit((i % 2 === 0 ? a : b).port, from));
      assert.ok(
        answers.every((x) => x.status === 200),
        'ten in each process',
      );
      assert.deepEqual(
        answers.map((x) => Number(x.headers['x-ratelimit-remaining'])),
        [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0],
        'two counts',
      );
      assert.equal((await hit(a.port, from)).status, 429);
      assert.equal((await hit(b.port, from)).status, 429);
    } finally {
      await Promise.all([a?.stop(), b?.stop()]);
      await shared.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
