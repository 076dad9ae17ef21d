/**
 * Hostile and careless clients: an optional rate limit per client address (RATE_LIMIT, a fixed window
 * counted in this process), and JSON answers for what Node's HTTP parser refuses before Fastify sees a
 * request (oversized URLs or headers, malformed requests, requests that arrive too slowly).
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errors, type ApiError } from '../../domain/errors.js';

export function registerRateLimit(app: FastifyInstance, limit: { max: number; windowMs: number } | undefined): void {
  if (!limit) return;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = Date.now();
  app.addHook('onRequest', async (request, reply) => {
    const now = Date.now();
    if (now - lastSweep > limit.windowMs) {
      for (const [ip, w] of windows) if (now - w.start >= limit.windowMs) windows.delete(ip);
      lastSweep = now;
    }
    let w = windows.get(request.ip);
    if (!w || now - w.start >= limit.windowMs) {
      w = { start: now, count: 0 };
      windows.set(request.ip, w);
    }
    w.count++;
    reply.header('X-RateLimit-Limit', limit.max);
    reply.header('X-RateLimit-Remaining', Math.max(0, limit.max - w.count));
    if (w.count > limit.max) {
      const retryAfter = Math.max(1, Math.ceil((w.start + limit.windowMs - now) / 1000));
      reply.header('Retry-After', retryAfter);
      throw errors.tooManyRequests(retryAfter);
    }
  });
}

function rawJson(socket: Socket, error: ApiError): void {
  const body = JSON.stringify(error.toBody());
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' }[error.status] ?? 'Bad Request';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Fastify's `clientErrorHandler`: the parser's refusals as our JSON errors, then the connection closes. */
export function clientErrorHandler(error: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  if (!socket.writable || (socket as unknown as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawJson(socket, errors.headersTooLarge());
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawJson(socket, errors.requestTimeout());
    case 'ECONNRESET':
    case 'EPIPE':
      socket.destroy();
      return;
    default:
      return rawJson(socket, errors.badRequest('The request could not be parsed.'));
  }
}
