/**
 * A webhook receiver on 127.0.0.1 that records every request and answers as the test scripts it, and the
 * machinery (service + runner) over a test app's storage with a clock the test moves.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpSender, type Sender } from '../../src/domain/webhooks/send.js';
import { startWebhookRunner, type WebhookRunner } from '../../src/domain/webhooks/webhook.runner.js';
import { WebhookService } from '../../src/domain/webhooks/webhook.service.js';
import type { TestApp } from './app.js';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: any;
  /** When it arrived (the test clock's ms when one is given, else Date.now()). */
  readonly at: number;
}

/** How the receiver answers one request: a status, headers, a body, after a delay. */
export interface Answer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly delayMs?: number;
}

export interface Receiver {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly received: Received[];
  /** Answers for the next requests, in order; when none is left, 200. */
  script(...answers: Answer[]): void;
  /** Resolves once `n` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `port`: listen there (a URL given out before the receiver is up); otherwise any free port. */
export async function startReceiver(clock: () => number = Date.now, options: { readonly port?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      received.push({ path: req.url ?? '/', headers: req.headers, body, json, at: clock() });
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      const a = answers.shift() ?? {};
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end(a.body ?? 'ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (...a) => answers.push(...a),
    waitFor(n, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${n} requests arrived`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock a test moves by hand. */
export interface TestClock {
  (): number;
  advance(ms: number): void;
}

export function testClock(start = Date.UTC(2032, 2, 1, 12)): TestClock {
  let now = start;
  const clock = (() => now) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface Machinery {
  readonly service: WebhookService;
  readonly runner: WebhookRunner;
  /** One round (fan out, start what is due) and wait for the sends it started. */
  round(): Promise<void>;
}

/** The webhook machinery over a test app's database, on a test clock, without a timer. */
export function machinery(t: TestApp, clock: () => number, options: { timeoutMs?: number; sender?: Sender } = {}): Machinery {
  const service = new WebhookService(t.storage, {
    allowPrivate: true,
    verifyUrl: false,
    sender: options.sender ?? httpSender({ allowPrivate: true, timeoutMs: options.timeoutMs ?? 15_000 }),
    userAgent: 'events-api-webhooks/test',
    clock,
    random: () => 0,
  });
  const failures: unknown[] = [];
  const runner = startWebhookRunner(service, t.app.webhookObjects, (error) => failures.push(error), { timer: false });
  return {
    service,
    runner,
    async round() {
      await runner.tick();
      await runner.idle();
      if (failures.length > 0) throw failures[0];
    },
  };
}
