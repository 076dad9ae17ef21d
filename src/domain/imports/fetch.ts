/**
 * Fetching a calendar by URL without letting the URL reach inside the network (SSRF): http(s) only; every
 * address the host name resolves to must be public — not private, loopback, link-local, unique-local,
 * unspecified, multicast or reserved, IPv4 or IPv6, IPv4-mapped and NAT64 forms included — unless
 * IMPORT_ALLOW_PRIVATE is on. The check sits in the socket's own DNS lookup, so the address connected to is
 * the address checked (no second resolution an attacker's DNS could answer differently). Redirects are
 * followed by hand, each one checked the same way, at most five; the body is cut at a size limit and the whole
 * fetch at a time limit.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { icsText } from './ics.structure.js';

export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export class FetchError extends Error {
  constructor(
    readonly code: 'url-refused' | 'fetch-failed' | 'too-large',
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fe80::', 10], // link-local
  ['fc00::', 7], // unique-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): whatever IPv4 network the site translates to
  ['2001::', 32], // Teredo (RFC 4380): tunnels to an IPv4 address that cannot be checked here
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address. */
function groups(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  const out = tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  return out.length === 8 && out.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? out : undefined;
}

/** Whether an address is one a fetch must not reach (unless private addresses are allowed). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const g = groups(bare);
  if (!g) return true;
  const embeddedV4 = () => `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7] > 1)))) return isPrivateAddress(embeddedV4());
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPrivateAddress(embeddedV4());
  // SIIT's translated form (::ffff:0:a.b.c.d, RFC 7915) carries one too
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return isPrivateAddress(embeddedV4());
  // 6to4 (2002:AABB:CCDD::/16, RFC 3056) routes to the IPv4 address in its second and third groups
  if (g[0] === 0x2002) return isPrivateAddress(`${g[1] >> 8}.${g[1] & 0xff}.${g[2] >> 8}.${g[2] & 0xff}`);
  return blocked.check(bare, 'ipv6');
}

/** A DNS lookup that fails for private addresses (all of a name's addresses are checked, not just the first). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (refused) {
        return callback(new FetchError('url-refused', `${hostname} resolves to ${refused.address}, a private or reserved address`), '', 0);
      }
      if (list.length === 0) return callback(new FetchError('fetch-failed', `${hostname} has no address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

export interface FetchOptions {
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

/**
 * A feed's subscription URL as it is fetched: `webcal://` (and `webcals://`), which sites and calendar apps give
 * for "subscribe", is http (https) spelled for calendar apps — Apple's and Google's read it so; other URLs as given.
 */
export function feedUrl(raw: string): string {
  const m = /^webcal(s?):\/\//i.exec(raw.trim());
  return m ? `http${m[1].toLowerCase()}://${raw.trim().slice(m[0].length)}` : raw;
}

/** Checks a URL's form (the address is checked when it is connected to). */
export function checkUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('url-refused', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError('url-refused', `${url.protocol} URLs are not fetched (http and https only)`);
  if (url.username !== '' || url.password !== '') throw new FetchError('url-refused', 'URLs with credentials are not fetched');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new FetchError('url-refused', `${host} is a private or reserved address`);
  }
  if (!allowPrivate && /^localhost$|\.localhost$/i.test(host)) throw new FetchError('url-refused', `${host} is a loopback name`);
  return url;
}

/**
 * A fetched .ics body as text: in the charset its Content-Type names, when it names one other than UTF-8 (feeds
 * of older servers declare windows-1252 or ISO-8859-1), else as UTF-8, strictly (undefined when it is not UTF-8:
 * read leniently, every byte of another charset would be imported as U+FFFD without a word; see icsText).
 */
export function feedText(body: Uint8Array, contentType: string | undefined): string | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    let text: string | undefined;
    try {
      text = new TextDecoder(charset).decode(body);
    } catch {
      text = undefined; // a label TextDecoder does not know (RangeError): read as UTF-8
    }
    if (text !== undefined) return text.replace(/^\uFEFF/, '');
  }
  return icsText(body);
}

/**
 * GETs a URL's body as text (see feedText: undefined when it is not text in a charset it names or UTF-8),
 * following up to five redirects, each checked.
 */
export async function fetchText(raw: string, options: FetchOptions): Promise<{ text: string | undefined; finalUrl: string }> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let url = checkUrl(raw, options.allowPrivate);
  for (let hop = 0; ; hop++) {
    const result = await getOnce(url, options, deadline);
    if (result.kind === 'body') return { text: feedText(result.body, result.contentType), finalUrl: url.href };
    if (hop >= MAX_REDIRECTS) throw new FetchError('fetch-failed', `more than ${MAX_REDIRECTS} redirects`);
    url = checkUrl(new URL(result.location, url).href, options.allowPrivate);
  }
}

function getOnce(
  url: URL,
  options: FetchOptions,
  deadline: number,
): Promise<{ kind: 'body'; body: Buffer; contentType: string | undefined } | { kind: 'redirect'; location: string }> {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchError('fetch-failed', 'the fetch took too long'));
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(
      url,
      {
        lookup: guardedLookup(options.allowPrivate),
        headers: { 'user-agent': 'calendar-events-service importer', accept: 'text/calendar, */*;q=0.5' },
        timeout: remaining,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ kind: 'redirect', location: res.headers.location });
        }
        if (status !== 200) {
          res.resume();
          return reject(new FetchError('fetch-failed', `the server answered ${status}`));
        }
        readCapped(res, maxBytes, 'document').then((body) => resolve({ kind: 'body', body, contentType: res.headers['content-type'] }), reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new FetchError('fetch-failed', 'the fetch took too long')), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new FetchError('fetch-failed', 'the fetch took too long')));
    req.on('error', (error) => reject(error instanceof FetchError ? error : new FetchError('fetch-failed', error.message)));
  });
}

/** An answer of any status, as `fetchRaw` gives it. */
export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: string;
}

export interface RawOptions extends FetchOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** Keep-alive agents for http and https (a client that sends many requests reuses its connections). */
  readonly agents?: { readonly http: http.Agent; readonly https: https.Agent };
}

/**
 * GETs a URL and answers whatever the server says (any status, headers, body up to the size limit), through
 * the same guard as `fetchText`: redirects followed by hand, each target checked; credentials (an
 * `authorization` header) are sent to the first origin only, never to another one a redirect names.
 */
export async function fetchRaw(raw: string, options: RawOptions): Promise<RawResponse> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const first = checkUrl(raw, options.allowPrivate);
  let url = first;
  for (let hop = 0; ; hop++) {
    const headers = { ...(options.headers ?? {}) };
    if (url.origin !== first.origin) delete headers.authorization;
    const res = await getAny(url, options, headers, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && typeof location === 'string') {
      if (hop >= MAX_REDIRECTS) throw new FetchError('fetch-failed', `more than ${MAX_REDIRECTS} redirects`);
      url = checkUrl(new URL(location, url).href, options.allowPrivate);
      continue;
    }
    return { ...res, url: url.href };
  }
}

function getAny(
  url: URL,
  options: RawOptions,
  headers: Record<string, string>,
  deadline: number,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchError('fetch-failed', 'the fetch took too long'));
    const secure = url.protocol === 'https:';
    const client = secure ? https : http;
    const agent = options.agents ? (secure ? options.agents.https : options.agents.http) : undefined;
    const req = client.get(url, { lookup: guardedLookup(options.allowPrivate), headers, timeout: remaining, agent }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return resolve({ status, headers: res.headers, body: Buffer.alloc(0) });
      }
      readCapped(res, maxBytes, 'answer').then((body) => resolve({ status, headers: res.headers, body }), reject);
    });
    const timer = setTimeout(() => req.destroy(new FetchError('fetch-failed', 'the fetch took too long')), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new FetchError('fetch-failed', 'the fetch took too long')));
    req.on('error', (error) => reject(error instanceof FetchError ? error : new FetchError('fetch-failed', error.message)));
  });
}

/** A response's body, refused as `too-large` past `maxBytes` (declared or received), the socket then closed. */
function readCapped(res: http.IncomingMessage, maxBytes: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new FetchError('too-large', `the ${what} is larger than ${maxBytes} bytes`);
    if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
      res.destroy();
      return reject(tooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', (error) => reject(new FetchError('fetch-failed', error.message)));
  });
}
