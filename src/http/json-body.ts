/**
 * JSON request bodies as WordPress reads them (CONTRACT.md §0): UTF-8 or nothing, an object, at most 512 levels
 * deep (PHP's json_decode), every failure `400 rest_invalid_json` with PHP's error code and message.
 *
 * WordPress takes a JSON body's parameters on every method, GET too: they come first, before the query string
 * (`WP_REST_Request::get_parameter_order`). Fastify reads no body for GET and HEAD, so such a body is read by a
 * hook of its own (registerGetJsonBodies); the response cache and the fast revalidation, which key answers by
 * URL alone, neither serve nor keep an answer to a request that carries one (jsonBodyOnGet).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { errors } from '../domain/errors.js';

/** A JSON media type, parameters allowed (`application/json; charset=utf-8`, `application/ld+json`). */
export const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;.*)?$/i;

/** PHP's json_decode default depth, which WordPress reads request bodies with. */
const JSON_MAX_DEPTH = 512;

/** UTF-8 that refuses what is not. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A JSON body's object (an empty body is an empty object); throws `rest_invalid_json` as WordPress answers it. */
export function parseJsonBody(body: Uint8Array): Record<string, unknown> {
  // UTF-8 or nothing, whatever charset the header names, as PHP's json_decode reads it (a byte that is not
  // UTF-8 is its "Malformed UTF-8 characters"), where a lenient decoding would store U+FFFD in its place
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    throw errors.invalidJson('Malformed UTF-8 characters, possibly incorrectly encoded', 5);
  }
  if (text.trim() === '') return {};
  // nested deeper than PHP's json_decode reads (512): its "Maximum stack depth exceeded", not a syntax error
  // (before parsing: JSON.parse of a body thousands deep overflows the stack; a text of at most 512 characters
  // cannot open 513 levels)
  if (text.length > JSON_MAX_DEPTH && jsonDepthOver(text, JSON_MAX_DEPTH)) throw errors.invalidJson('Maximum stack depth exceeded', 1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value) => (key === '__proto__' ? undefined : value));
  } catch {
    throw errors.invalidJson('Syntax error');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw errors.invalidJson('The JSON body must be an object.');
  return parsed as Record<string, unknown>;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count). A scan of
 * the text, so that it holds for text JSON.parse would fail on too: depth is what PHP reports first.
 */
function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // (a backslash escapes the character after it)
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a GET or HEAD request carries a JSON body (whose parameters shape the answer, as in WordPress). */
export function jsonBodyOnGet(method: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return false;
  const type = headers['content-type'];
  return type !== undefined && JSON_TYPE.test(type);
}

/**
 * Reads the JSON body of a GET or HEAD (see jsonBodyOnGet) into `request.body`, where the route's arguments find
 * it as a POST's: before the query string. Other bodies of a GET are left unread, as WordPress ignores them.
 */
export function registerGetJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  // (a callback hook: every other request passes with a call, not a promise)
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.is404 || !jsonBodyOnGet(request.method, request.headers)) return done();
    readCapped(request.raw, bodyLimit)
      .then((bytes) => {
        request.body = parseJsonBody(bytes);
      })
      .then(() => done(), done);
  });
}

async function readCapped(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) throw errors.payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
