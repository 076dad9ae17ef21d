/**
 * WordPress' `?_envelope` and `?_jsonp=callback`, for clients that cannot read statuses or headers, or that
 * load data with a script tag. `_envelope` (any value) answers 200 with `{body, status, headers}`, the headers
 * being the ones the route set; `_jsonp` answers `/**\/callback(json)` as JavaScript, and a callback that is
 * not a plain name is refused. No credentials ride along on a script tag: the service never asks browsers
 * for them (no WWW-Authenticate), so a JSONP answer shows only what anyone may see.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../domain/errors.js';

/** The response headers a route sets (what WordPress keeps in the envelope), with their usual spelling. */
const ENVELOPED = ['Allow', 'Location', 'X-TEC-Total', 'X-TEC-TotalPages'];

function queryParam(request: FastifyRequest, name: string): unknown {
  return (request.query as Record<string, unknown> | undefined)?.[name];
}

/** WordPress' `wp_check_jsonp_callback`: letters, digits, `_` and `.` only. */
const validCallback = (callback: unknown): callback is string => typeof callback === 'string' && !/[^\w.]/.test(callback);

export function registerEnvelope(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const callback = queryParam(request, '_jsonp');
    if (callback !== undefined && !validCallback(callback)) throw errors.callbackInvalid();
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const envelope = queryParam(request, '_envelope') !== undefined;
    const raw = queryParam(request, '_jsonp');
    const callback = validCallback(raw) ? raw : undefined;
    if ((!envelope && callback === undefined) || request.method === 'HEAD') return payload;
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
    let text = Buffer.isBuffer(payload) ? payload.toString('utf8') : typeof payload === 'string' ? payload : undefined;
    if (text === undefined) return payload;
    if (envelope) {
      const headers: Record<string, string> = {};
      for (const name of ENVELOPED) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      text = `{"body":${text || 'null'},"status":${reply.statusCode},"headers":${JSON.stringify(headers)}}`;
      reply.code(200);
    }
    if (callback !== undefined) {
      reply.header('content-type', 'application/javascript; charset=UTF-8');
      text = `/**/${callback}(${text})`;
    }
    reply.removeHeader('content-length');
    return text;
  });
}
