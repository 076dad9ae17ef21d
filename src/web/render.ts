/**
 * Rendering: Eta templates with auto-escaping on (`<%= %>` escapes; `<%~ %>` writes raw and is used only for
 * HTML this code built or sanitised, and for JSON made safe by `scriptJson`), the static assets with a content
 * hash in their URLs, and the headers every page carries: a strict Content-Security-Policy (no inline script
 * or style: there is none), who may frame it, the original's discovery headers (CONTRACT.md §9.6), a strong
 * ETag of the exact bytes with 304s.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag, strongEtag } from '../http/conditional.js';

const HERE = new URL('./', import.meta.url);

export const eta = new Eta({
  views: fileURLToPath(new URL('views/', HERE)),
  autoEscape: true,
  autoTrim: [false, 'nl'],
  cache: true,
  useWith: false,
});

export interface Asset {
  readonly name: string;
  readonly type: string;
  readonly body: Buffer;
  /** First characters of the body's SHA-256: the `?v=` of its URL. */
  readonly version: string;
}

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

function loadAsset(name: string): Asset {
  const body = readFileSync(new URL(`assets/${name}`, HERE));
  const ext = name.slice(name.lastIndexOf('.') + 1);
  return { name, type: TYPES[ext], body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  ['calendar.css', 'calendar.js', 'embed.js', 'embed-frame.js'].map((name) => [name, loadAsset(name)]),
);

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>`, `&` and the line separators as `\u` escapes, so
 * no text in it can close the element or be read as markup; JSON.parse gives back the same object.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface PageHeaders {
  /** `frame-ancestors` sources: `'self'` for pages, the embed's allow-list for the embed. */
  readonly frameAncestors: string;
  /** The REST root for this page (CONTRACT.md §9.6). */
  readonly apiRoot: string;
  readonly apiOrigin: string;
}

function csp(frameAncestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    'img-src * data:',
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** Sends a rendered page: HTML, its headers, and a 304 when the caller's copy is these bytes. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, html: string, headers: PageHeaders, status = 200): FastifyReply {
  const etag = strongEtag(html);
  reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', csp(headers.frameAncestors))
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('X-TEC-API-VERSION', 'v1')
    .header('X-TEC-API-ROOT', headers.apiRoot)
    .header('X-TEC-API-ORIGIN', headers.apiOrigin)
    .header('Vary', 'Authorization');
  if (headers.frameAncestors === "'self'") reply.header('X-Frame-Options', 'SAMEORIGIN');
  if (status !== 200) return reply.send(html);
  reply.header('ETag', etag);
  if (request.actor?.kind !== 'user') reply.header('Cache-Control', 'public, max-age=0, must-revalidate');
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send('');
  return reply.send(html);
}
