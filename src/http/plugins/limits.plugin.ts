/**
 * Hostile and careless clients: an optional rate limit per client address (RATE_LIMIT, a fixed window), and JSON
 * answers for what Node's HTTP parser refuses before Fastify sees a request (oversized URLs or headers, malformed
 * requests, requests that arrive too slowly).
 *
 * The limit is @fastify/rate-limit's: its store counts in this process, or, with REDIS_URL, in Redis (one atomic
 * script per request), so that every process of a deployment counts one client together. A client is its
 * address, an IPv6 one by its /64 (the library's default: one host usually holds a whole /64). Our hook around it
 * only shapes the answer (the API's JSON error, Retry-After, X-RateLimit-*) and decides what an unreachable Redis
 * means: the request is served unlimited and a warning logged (at most every WARN_EVERY_MS), never a 500 and never
 * a wait longer than COMMAND_TIMEOUT_MS. The Redis connection closes with the app.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/config.js';
import { type ApiError, errors } from '../../domain/errors.js';

/** A rate-limit check never holds a request longer than this when Redis hangs. */
const COMMAND_TIMEOUT_MS = 500;
const WARN_EVERY_MS = 10_000;
/** Clients counted at once in this process (the in-process store is an LRU of this size). */
const LOCAL_CLIENTS = 50_000;

/** Whether Redis answers, as this process last saw it; one warning per WARN_EVERY_MS while it does not. */
class RedisHealth {
  private down = false;
  private warnedAt = 0;

  constructor(private readonly app: FastifyInstance) {}

  failed(error: unknown): void {
    this.down = true;
    const now = Date.now();
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.app.log.warn({ err: error }, 'rate limit: Redis is unreachable; requests are not limited until it is back');
  }

  ready(): void {
    if (this.down) this.app.log.info('rate limit: Redis is reachable again; requests are counted there');
    this.down = false;
  }
}

async function connectRedis(app: FastifyInstance, redis: NonNullable<Config['redis']>, health: RedisHealth): Promise<Redis> {
  // loaded only when used: most deployments set no REDIS_URL, and start-up should not pay for it
  const { Redis } = await import('ioredis');
  const client = new Redis(redis.url, {
    // named so an operator (and the tests) can tell which process holds a connection
    connectionName: `calendar-${process.pid}`,
    // while disconnected a check fails at once (and the request goes unlimited) rather than queueing
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    // keep trying to come back, at most every 2 s
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  client.on('error', (error) => health.failed(error));
  client.on('ready', () => health.ready());
  app.addHook('onClose', async () => {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  });
  return client;
}

/** Resolves once Redis answers or fails (or after `ms`), so the first requests are already counted there. */
function settle(client: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (client.status === 'ready') return resolve();
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once('ready', done);
    client.once('error', done);
  });
}

export async function registerRateLimit(app: FastifyInstance, limit: Config['rateLimit'], redis: Config['redis']): Promise<void> {
  if (!limit) return;
  const health = new RedisHealth(app);
  const client = redis ? await connectRedis(app, redis, health) : undefined;
  const { default: rateLimit } = await import('@fastify/rate-limit');
  await app.register(rateLimit, {
    // no hook per route: the one hook below sees every request, 404s and OPTIONS included, as before
    global: false,
    max: limit.max,
    timeWindow: limit.windowMs,
    cache: LOCAL_CLIENTS,
    ...(client && redis ? { redis: client, nameSpace: `${redis.prefix}rate-limit:` } : {}),
    skipOnError: false,
  });
  if (client) await settle(client, 2000);
  const check = app.createRateLimit();

  app.addHook('onRequest', async (request, reply) => {
    let result: Awaited<ReturnType<typeof check>>;
    try {
      result = await check(request);
    } catch (error) {
      // only the store can fail here: without Redis nothing throws
      health.failed(error);
      return;
    }
    if (result.isAllowed) return;
    reply.header('X-RateLimit-Limit', result.max);
    reply.header('X-RateLimit-Remaining', result.remaining);
    reply.header('X-RateLimit-Reset', result.ttlInSeconds);
    if (result.isExceeded) {
      const retryAfter = Math.max(1, result.ttlInSeconds);
      reply.header('Retry-After', retryAfter);
      throw errors.tooManyRequests(retryAfter);
    }
  });
}

function rawJson(socket: Socket, error: ApiError): void {
  const body = JSON.stringify(error.toBody());
  const reason =
    { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' }[error.status] ?? 'Bad Request';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The server's `timeout` (a socket idle for `connectionTimeout`): a request that began and stalls — its body
 * not all sent — gets the 408 JSON error before the connection closes (Node's own checks of `requestTimeout`
 * come every 30 s, later than this, and it closed such a socket without a word); an idle keep-alive connection,
 * or one whose answer has begun, just closes.
 */
export function socketTimeoutHandler(socket: Socket): void {
  const response = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && response && !response.headersSent) {
    rawJson(socket, errors.requestTimeout());
    socket.destroySoon();
    return;
  }
  socket.destroy();
}

/** Fastify's `clientErrorHandler`: the parser's refusals as our JSON errors, then the connection closes. */
export function clientErrorHandler(error: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  // (as Node's own handler: an answer is written unless one has begun — a request whose headers were read and
  // whose body stalls or is badly chunked has a response object, not yet sent, and got no answer at all)
  const response = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      rawJson(socket, errors.headersTooLarge());
      return;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      rawJson(socket, errors.requestTimeout());
      return;
    case 'ECONNRESET':
    case 'EPIPE':
      socket.destroy();
      return;
    default:
      rawJson(socket, errors.badRequest('The request could not be parsed.'));
  }
}
