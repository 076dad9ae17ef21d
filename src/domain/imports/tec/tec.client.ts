/**
 * The polite HTTP client of a site import (FEATURES.md §6.3): a user agent naming the service, at most N
 * requests in flight, `Retry-After` honoured on 429 and 503 (every request waits, not just the one that was
 * told), exponential backoff on other 5xx answers and network errors, and an abort after repeated failures
 * in a row (the import stops with its checkpoint, to be resumed later). Every fetch goes through the SSRF
 * guard of fetch.ts; credentials are sent to the site's own origin only.
 */
import http from 'node:http';
import https from 'node:https';
import { FetchError, fetchRaw, type RawResponse } from '../fetch.js';

export interface ClientOptions {
  readonly allowPrivate: boolean;
  /** Requests in flight at most. */
  readonly concurrency: number;
  readonly userAgent: string;
  /** `login:password` of an application password (HTTP Basic). */
  readonly appPassword?: string;
  /** The first backoff (doubles on each retry, at most a minute). */
  readonly retryBaseMs: number;
  /** Failed attempts in a row (any request) before the import stops. */
  readonly maxFailures: number;
  readonly timeoutMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** An answer the caller has to judge (4xx), or a body that is not what was expected. */
export class TecHttpError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TecHttpError';
  }
}

/** Too many failures in a row: the import stops here, resumable from its checkpoint. */
export class TecAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TecAbort';
  }
}

export interface JsonResponse {
  readonly status: number;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed body (undefined when it was not JSON). */
  readonly json: unknown;
  readonly text: string;
}

const MAX_WAIT_MS = 120_000;

/** How one request differs from the site's JSON requests (see `TecClient.get`). */
export interface GetOptions {
  /** Headers besides the user agent (an `accept` here replaces the JSON one). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  /** At most this many tries, and a failure that is the caller's to report (see `TecClient.get`). */
  readonly attempts?: number;
}

/** Seconds or an HTTP date, as milliseconds from now (undefined when absent or unreadable). */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export class TecClient {
  /** Requests sent (retries included), and how long the server asked us to wait in all. */
  requests = 0;
  waitedMs = 0;
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];
  private failuresInRow = 0;
  private pausedUntil = 0;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Whether it sends an application password (to requests that ask for it). */
  get authenticated(): boolean {
    return this.options.appPassword !== undefined;
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async slot(): Promise<() => void> {
    if (this.inFlight >= Math.max(1, this.options.concurrency)) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.inFlight++;
    return () => {
      this.inFlight--;
      this.queue.shift()?.();
    };
  }

  /**
   * GETs a URL: answers every status below 500 but 429 (the caller judges 4xx); waits and retries 429, 5xx and
   * network errors; throws TecAbort after `maxFailures` failed attempts in a row. `authenticated`: send the
   * application password (always to the site's origin only). With `attempts` (an image: its failure is the
   * caller's to report, not the import's), at most that many tries: the last answer is returned whatever its
   * status, the last error thrown, a body too large is not asked for again, and none of it counts toward the
   * abort (nor resets it).
   */
  async get(url: string, authenticated = true, options: GetOptions = {}): Promise<RawResponse> {
    const release = await this.slot();
    const own = options.attempts !== undefined;
    try {
      for (let attempt = 0; ; attempt++) {
        const wait = this.pausedUntil - Date.now();
        if (wait > 0) await this.sleep(wait);
        const headers: Record<string, string> = { 'user-agent': this.options.userAgent, accept: 'application/json', ...options.headers };
        if (authenticated && this.options.appPassword) headers.authorization = `Basic ${Buffer.from(this.options.appPassword).toString('base64')}`;
        const last = own && attempt + 1 >= (options.attempts ?? 1);
        let problem: string;
        let delay: number | undefined;
        try {
          this.requests++;
          const res = await fetchRaw(url, {
            allowPrivate: this.options.allowPrivate,
            headers,
            agents: this.agents,
            timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
            maxBytes: options.maxBytes,
          });
          if (res.status < 500 && res.status !== 429) {
            if (!own) this.failuresInRow = 0;
            return res;
          }
          if (last) return res;
          problem = `HTTP ${res.status}`;
          if (res.status === 429 || res.status === 503) delay = retryAfterMs(res.headers['retry-after'], Date.now());
        } catch (error) {
          if (error instanceof FetchError && (error.code === 'url-refused' || (own && error.code === 'too-large'))) throw error;
          problem = error instanceof Error ? error.message : String(error);
          if (last) throw error instanceof FetchError ? error : new FetchError('fetch-failed', problem);
        }
        if (!own) {
          this.failuresInRow++;
          if (this.failuresInRow >= this.options.maxFailures) {
            throw new TecAbort(`${this.failuresInRow} failed requests in a row (last: ${problem} from ${url})`);
          }
        }
        const backoff = Math.min(60_000, this.options.retryBaseMs * 2 ** attempt);
        const pause = Math.min(MAX_WAIT_MS, delay ?? backoff);
        if (delay !== undefined) {
          // the server asked everyone to wait: no request of ours goes out before then
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pause);
          this.waitedMs += pause;
        }
        await this.sleep(pause);
      }
    } finally {
      release();
    }
  }

  /** GETs JSON: the parsed body with the status and headers (json undefined when the body is not JSON). */
  async getJson(url: string, authenticated = true): Promise<JsonResponse> {
    const res = await this.get(url, authenticated);
    const text = res.body.toString('utf8').replace(/^\uFEFF/, '');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, url: res.url, headers: res.headers, json, text };
  }
}

/** The error code of a WordPress error body (`{code, message, data: {status}}`), or ''. */
export function wpErrorCode(json: unknown): string {
  return json !== null && typeof json === 'object' && typeof (json as { code?: unknown }).code === 'string' ? (json as { code: string }).code : '';
}
