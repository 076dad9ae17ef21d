/**
 * A response cache for reads. A GET's serialised answer is kept for one second at most, keyed by the URL and
 * by what the caller may see (the visibility rule's key: callers who may read exactly the same posts share
 * answers — anonymous callers, each role that reads everything; anyone else has their own), and it is served only while the database's `data_version` is the one it was
 * computed under: any committed write, by any process, makes every entry stale at once. Bounded in entries
 * and bytes; oldest entries go first. An answer is kept only when its key was asked for before (within the
 * last few thousand distinct keys): one-off URLs — a crawler, unique query strings — neither fill the memory
 * nor push out what is read again and again.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../domain/services.js';
import { listVisibility } from '../../domain/visibility.js';
import { matchesEtag } from '../conditional.js';
import { jsonBodyOnGet } from '../json-body.js';
import { WEBHOOKS_PATH } from '../routes/webhooks/index.js';
import { NAMESPACE } from '../urls.js';

interface Entry {
  version: number;
  expires: number;
  status: number;
  headers: Record<string, string>;
  /** Encoded once: a hit writes these bytes as they are. */
  body: Buffer;
  /**
   * The headers of the framework's 304 for this entry, once it sent one (fast-revalidation.ts replays them), as
   * `writeHead` takes them flat — name, value, name, value — ending with `x-request-id` and a value each answer sets.
   */
  notModified?: string[];
}

const KEPT_HEADERS = [
  'content-type',
  'x-tec-total',
  'x-tec-totalpages',
  'allow',
  'etag',
  'last-modified',
  'content-disposition',
  'cache-control',
  'vary',
];

declare module 'fastify' {
  interface FastifyRequest {
    cacheKey?: string;
    cacheVersion?: number;
    /**
     * How long this answer stays right while nothing is written (default one second): a route whose answer
     * depends on the clock only through whole days can say so, and is not recomputed every second.
     */
    cacheTtlMs?: number;
    /** Settles when this request, the first to miss its key, has answered (others wait for it). */
    cacheLead?: () => void;
  }
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Keys asked for once (two generations, so the memory of them is bounded and recent). */
  private seen = new Set<string>();
  private seenBefore = new Set<string>();

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries = 5000,
  ) {}

  /** The entries kept and their bytes (tests, a profile). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Whether an answer for this key is worth keeping: true from the second time the key is asked for. */
  admit(key: string): boolean {
    if (this.seen.has(key) || this.seenBefore.has(key)) return true;
    if (this.seen.size >= this.maxEntries) {
      this.seenBefore = this.seen;
      this.seen = new Set();
    }
    this.seen.add(key);
    return false;
  }

  get(key: string, version: number, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || entry.expires < now) {
      this.delete(key, entry);
      return undefined;
    }
    return entry;
  }

  /**
   * Remembers the headers of the framework's 304 for this entry (without its request id: each answer has its own),
   * when the 304 was of this entry: one answered from an entry that another has replaced since (a write, then a
   * request that answered the URL anew) carries the old entry's tag, which is not this one's.
   */
  setNotModified(key: string, headers: Record<string, string>): void {
    const entry = this.entries.get(key);
    if (entry && entry.headers.etag === headers.etag) entry.notModified = [...Object.entries(headers).flat(), 'x-request-id', ''];
  }

  /**
   * The entry's tag and 304 headers (flat, the last value left for the request id), without checking that it is
   * current (the caller does, with `get`).
   */
  peekNotModified(key: string): { etag: string; headers: string[] } | undefined {
    const entry = this.entries.get(key);
    const etag = entry?.headers.etag;
    return entry?.notModified && etag ? { etag, headers: entry.notModified } : undefined;
  }

  set(key: string, entry: Entry, now = Date.now()): void {
    const size = entry.body.length + 256;
    if (size > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    // the oldest entries that can no longer answer (expired, or kept under an older data version) go now: left
    // until their space was needed, they held CACHE_MB of bodies no request could be sent — in traffic of many
    // distinct URLs, the whole budget, most of it dead (the process' RSS, issue 17)
    for (const [k, e] of this.entries) {
      if (e.expires >= now && e.version >= entry.version) break;
      this.delete(k, e);
    }
    while (this.entries.size > 0 && (this.bytes + size > this.maxBytes || this.entries.size >= this.maxEntries)) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry];
      this.delete(oldestKey, oldest);
    }
    this.entries.set(key, entry);
    this.bytes += size;
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length + 256;
  }
}

const PREFIX = `/${NAMESPACE}`;
const WEBHOOKS_PREFIX = `${PREFIX}${WEBHOOKS_PATH}`;

export function registerResponseCache(app: FastifyInstance, services: Services, maxBytes: number): ResponseCache | undefined {
  if (maxBytes <= 0) return undefined;
  const cache = new ResponseCache(maxBytes);
  const TTL_MS = 1000;
  /** How long a request waits for the one computing its answer before computing it too. */
  const LEAD_WAIT_MS = 2000;

  // One computation per key and version at a time: when an entry expires under load, the first request
  // computes it and the others wait for its answer instead of all computing it at once.
  const computing = new Map<string, { version: number; done: Promise<void> }>();

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' || !request.url.startsWith(PREFIX)) return;
    // a JSON body's parameters shape the answer as the query's do (json-body.ts): not an answer to the URL alone
    if (jsonBodyOnGet(request.method, request.headers)) return;
    // a sync's pages are bound to their caller (FEATURES.md §2.3): never shared, never kept
    const query = request.query as Record<string, unknown> | undefined;
    if (query?.sync_token !== undefined || query?.page_token !== undefined) return;
    // webhooks' endpoints and deliveries change with sends, which move no data version: never kept
    if (request.url.startsWith(WEBHOOKS_PREFIX)) return;
    const key = `${listVisibility(request.actor).key} ${request.url}`;
    const version = request.cacheVersion ?? (await services.dataVersion());
    let hit = cache.get(key, version, Date.now());
    const lead = computing.get(key);
    if (!hit && lead && lead.version === version) {
      // (bounded: a leader whose request never ends must not hold the others for ever)
      const settled = await Promise.race([
        lead.done.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), LEAD_WAIT_MS).unref()),
      ]);
      // a leader that never settled is forgotten: the next request computes and leads
      if (!settled && computing.get(key) === lead) computing.delete(key);
      hit = cache.get(key, version, Date.now());
    }
    if (hit) {
      reply.code(hit.status).headers(hit.headers).header('X-Cache', 'hit');
      // a poller whose copy is current gets a 304, as from the route itself
      if (hit.headers.etag && matchesEtag(request.headers['if-none-match'], hit.headers.etag)) {
        request.cacheHitKey = key;
        return reply.code(304).send('');
      }
      return reply.send(hit.body);
    }
    request.cacheKey = key;
    request.cacheVersion = version;
    if (!computing.has(key)) {
      let settle!: () => void;
      const done = new Promise<void>((resolve) => (settle = resolve));
      computing.set(key, { version, done });
      request.cacheLead = () => {
        if (computing.get(key)?.done === done) computing.delete(key);
        settle();
      };
    }
  });

  // the leader settles whatever happens to its request (answered, failed, or the client went away)
  app.addHook('onResponse', async (request) => request.cacheLead?.());
  app.addHook('onRequestAbort', async (request) => request.cacheLead?.());

  app.addHook('onSend', async (request, reply, payload) => {
    // a 200, or a 304 the ETag plugin made of one (its body kept aside): either is the answer to keep
    const body = reply.statusCode === 200 ? payload : reply.statusCode === 304 ? request.revalidatedBody : undefined;
    if (request.cacheKey === undefined || typeof body !== 'string') return payload;
    if (!cache.admit(request.cacheKey)) {
      request.cacheKey = undefined;
      request.cacheLead?.();
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    // (set with the key in onRequest)
    if (request.cacheVersion !== undefined) {
      cache.set(request.cacheKey, {
        version: request.cacheVersion,
        expires: Date.now() + (request.cacheTtlMs ?? TTL_MS),
        status: 200,
        headers,
        body: Buffer.from(body),
      });
    }
    request.cacheKey = undefined;
    request.cacheLead?.();
    return payload;
  });
  return cache;
}
