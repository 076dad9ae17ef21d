/**
 * One webhook request: a POST of the body with its headers, through the same address guard as imports
 * (fetch.ts: every address the name resolves to is checked in the socket's own lookup, on every attempt), https
 * only unless private addresses are allowed, redirects never followed (a 3xx is a failure), at most `timeoutMs`
 * from the first byte sent to the last received, and only the first KB of the answer kept.
 */
import http from 'node:http';
import https from 'node:https';
import { checkUrl, FetchError, guardedLookup } from '../imports/fetch.js';

export const RESPONSE_KEPT_BYTES = 1024;

export interface SendResult {
  /** The receiver's status; undefined when none came. */
  readonly status?: number;
  readonly retryAfter?: string;
  /** The start of the answer's body (UTF-8, at most 1 KB). */
  readonly response?: string;
  readonly error?: string;
  readonly durationMs: number;
}

/** `timeoutMs`: this send's own limit, when shorter than the sender's (the check on create: 10 s). */
export type Sender = (url: string, headers: Readonly<Record<string, string>>, body: string, timeoutMs?: number) => Promise<SendResult>;

/** Checks a webhook URL's form: https (or http where private addresses are allowed), no credentials. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  const url = checkUrl(raw, allowPrivate);
  if (url.protocol !== 'https:' && !allowPrivate) throw new FetchError('url-refused', 'webhook URLs must be https');
  return url;
}

export function httpSender(options: {
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly agents?: { http: http.Agent; https: https.Agent };
}): Sender {
  return (raw, headers, body, ownTimeoutMs) =>
    new Promise((resolve) => {
      const timeoutMs = Math.min(ownTimeoutMs ?? options.timeoutMs, options.timeoutMs);
      const started = performance.now();
      const done = (r: Omit<SendResult, 'durationMs'>) => resolve({ ...r, durationMs: Math.round(performance.now() - started) });
      let url: URL;
      try {
        url = checkWebhookUrl(raw, options.allowPrivate);
      } catch (error) {
        return done({ error: (error as Error).message });
      }
      const secure = url.protocol === 'https:';
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        lookup: guardedLookup(options.allowPrivate),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: options.agents ? (secure ? options.agents.https : options.agents.http) : undefined,
      });
      let settled = false;
      const timeout = `timeout: no complete answer within ${timeoutMs / 1000} s`;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        done({ error: timeout });
        req.destroy();
      }, timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_KEPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - size));
          size += chunk.length;
          // the rest is not read: the socket goes
          if (size > 64 * 1024) res.destroy();
        });
        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const retryAfter = res.headers['retry-after'];
          done({
            status: res.statusCode,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
            response: Buffer.concat(chunks).toString('utf8'),
          });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      req.on('error', (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done({ error: error.message });
      });
      req.end(body);
    });
}

/** A `Retry-After` (seconds or an HTTP date) in ms from `nowMs`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
