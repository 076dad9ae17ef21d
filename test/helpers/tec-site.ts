/**
 * A fixture server that replays a site running The Events Calendar: the answers recorded from a real TEC 6.17
 * site (test/fixtures/tec-6.17, a verbatim copy of ../shared/fixtures/tec-6.17), plus answers we wrote for what
 * the recording lacks (test/fixtures/tec-written, each file says so). Requests match a recorded one by method,
 * credentials, path and query (decoded, in any order); anything else is answered 404 `fixture-not-recorded`
 * and listed in `misses`, so a test can assert the importer asked only what was recorded.
 *
 * The recording names its site `http://tec.example.test`; served here it is `http://127.0.0.1:PORT`, so bodies
 * and headers get the recorder's host rewrite undone the other way (`rewriteHost`), nothing else.
 *
 * Ids the recorder probed between the listed events and did not record answered `rest-invalid-event-id` (its
 * record.mjs records every other answer, and one sample of that one: id 30), so an unrecorded `/events/<id>`
 * in the probed range is answered with that sample. No post was made on the site after its last event, so an
 * unrecorded `/events/<id>` above the highest event id the answers show (Pro's provisional occurrence ids,
 * from 10,000,000, aside) is an id no post has: answered as the site answered one (its 404 for 999999).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url);
export const RECORDED_HOST = 'tec.example.test';
/** The application password the replayed administrator (`tecadmin`) accepts (the recorded one is not stored). */
export const ADMIN_APP_PASSWORD = 'tecadmin:abcd efgh ijkl mnop';

export interface SiteEntry {
  readonly method: string;
  readonly path: string;
  readonly auth: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Bytes served as they are instead of `body` (image files): no host rewrite. */
  readonly bytes?: Buffer;
}

interface Stored {
  request: { method: string; path: string; auth: string };
  response: { status: number; headers: Record<string, string>; body: string };
}

const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');

/** Every answer recorded from the TEC 6.17 site. */
export function recordedEntries(): SiteEntry[] {
  const index = JSON.parse(read('tec-6.17/index.json')) as {
    entries: { method: string; path: string; auth: string; status: number; file: string; headers?: Record<string, string> }[];
  };
  return index.entries.map((e) => {
    if (e.file.endsWith('.ics'))
      return { method: e.method, path: e.path, auth: e.auth, status: e.status, headers: e.headers ?? {}, body: read(`tec-6.17/${e.file}`) };
    const stored = JSON.parse(read(`tec-6.17/${e.file}`)) as Stored;
    return { ...stored.request, status: stored.response.status, headers: stored.response.headers, body: stored.response.body };
  });
}

/** A file of answers we wrote (test/fixtures/tec-written/NAME.json). */
export function writtenEntries(name: string): SiteEntry[] {
  const file = JSON.parse(read(`tec-written/${name}.json`)) as { entries: Stored[] };
  return file.entries.map((s) => ({ ...s.request, status: s.response.status, headers: s.response.headers, body: s.response.body }));
}

/** One recorded answer's body, by its file under tec-6.17/. */
export function recordedBody(file: string): string {
  return (JSON.parse(read(`tec-6.17/${file}`)) as Stored).response.body;
}

/** The recorded host → this server (URLs with the port; bare hosts, as in global ids and UIDs, without). */
export function rewriteHost(text: string, origin: string): string {
  const url = new URL(origin);
  return text
    .replaceAll(`http://${RECORDED_HOST}`, url.origin)
    .replaceAll(`http:\\/\\/${RECORDED_HOST}`, url.origin.replaceAll('/', '\\/'))
    .replaceAll(`http%3A%2F%2F${RECORDED_HOST}`, encodeURIComponent(url.origin))
    .replaceAll(RECORDED_HOST, url.hostname);
}

/** A request key: method, credentials, path and the query's decoded pairs in order. */
export function requestKey(method: string, auth: string, pathAndQuery: string): string {
  const [path, query = ''] = pathAndQuery.split('?');
  const d = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => p.split('=').map(d).join('='))
    .sort();
  return `${method} ${auth} ${d(path).replace(/\/+$/, '')}?${pairs.join('&')}`;
}

/** Where Pro's provisional occurrence ids start (FEATURES.md §6.1): not post ids. */
const PROVISIONAL_IDS = 10_000_000;

/** The site's answer for an event id no post has (recorded for 999999). */
function noSuchEvent(path: string, auth: string, id: number): SiteEntry {
  return {
    method: 'GET',
    path,
    auth,
    status: 404,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify({ code: 'rest-event-not-found', message: `Event with ID ${id} does not exist.`, data: { status: 404 } }),
  };
}

export interface Fault {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface Served {
  readonly method: string;
  readonly path: string;
  readonly auth: string;
  readonly status: number;
  readonly at: number;
  readonly userAgent: string;
  readonly headers: IncomingHttpHeaders;
}

export class TecSite {
  readonly log: Served[] = [];
  readonly misses: string[] = [];
  /** Answers in place of the recorded one (429s, 503s, a site going down). */
  fault: ((req: { path: string; auth: string; n: number }) => Fault | undefined) | undefined;
  /** Changes an answer before it is served (a remote edit, a deleted event). */
  transform: ((entry: SiteEntry) => SiteEntry) | undefined;
  /** Answers what the recording does not hold (a test's own written answer), before the 404. */
  extra: ((req: { path: string; auth: string; headers: IncomingHttpHeaders }) => SiteEntry | undefined) | undefined;
  /** Requests in flight now, and the most at once. */
  inFlight = 0;
  maxInFlight = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly entries: Map<string, SiteEntry>,
  ) {}

  static async start(entries: readonly SiteEntry[], options: { probeRange?: [number, number]; delayMs?: number } = {}): Promise<TecSite> {
    const map = new Map(entries.map((e) => [requestKey(e.method, e.auth, e.path), e]));
    const sample = entries.find((e) => e.path === '/wp-json/tribe/events/v1/events/30' && e.auth === 'anonymous');
    const lastId = Math.max(
      0,
      ...entries.flatMap((e) => [...e.body.matchAll(/"id":(\d+),"global_id"/g)].map((m) => Number(m[1])).filter((id) => id < PROVISIONAL_IDS)),
    );
    let site: TecSite | undefined;
    const server = createServer((req, res) => {
      void site?.answer(req, options, sample, lastId).then(({ status, headers, body }) => {
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    site = new TecSite(server, url, map);
    return site;
  }

  private authOf(req: IncomingMessage): string | undefined {
    const header = req.headers.authorization;
    if (!header) return 'anonymous';
    const given = Buffer.from(header.replace(/^Basic /i, ''), 'base64').toString('utf8');
    return given === ADMIN_APP_PASSWORD ? 'admin' : undefined;
  }

  private async answer(
    req: IncomingMessage,
    options: { probeRange?: [number, number]; delayMs?: number },
    sample: SiteEntry | undefined,
    lastId: number,
  ): Promise<{ status: number; headers: Record<string, string>; body: string | Buffer }> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      const path = req.url ?? '/';
      const auth = this.authOf(req);
      const n = this.log.length + 1;
      const served = (status: number) =>
        this.log.push({
          method: req.method ?? 'GET',
          path,
          auth: auth ?? 'bad',
          status,
          at: Date.now(),
          userAgent: String(req.headers['user-agent'] ?? ''),
          headers: req.headers,
        });
      if (auth === undefined) {
        served(401);
        return {
          status: 401,
          headers: { 'content-type': 'application/json' },
          body: '{"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}',
        };
      }
      const fault = this.fault?.({ path, auth, n });
      if (fault) {
        served(fault.status);
        return {
          status: fault.status,
          headers: fault.headers ?? { 'content-type': 'text/html' },
          body: fault.body ?? `<html><body>${fault.status}</body></html>`,
        };
      }
      let entry = this.entries.get(requestKey(req.method ?? 'GET', auth, path));
      const probe = /^\/wp-json\/tribe\/events\/v1\/events\/(\d+)$/.exec(path);
      const [lo, hi] = options.probeRange ?? [28, 189];
      if (!entry && probe && sample && Number(probe[1]) >= lo && Number(probe[1]) <= hi) entry = sample;
      if (!entry && probe && Number(probe[1]) > lastId) entry = noSuchEvent(path, auth, Number(probe[1]));
      entry ??= this.extra?.({ path, auth, headers: req.headers });
      if (entry && this.transform) entry = this.transform(entry);
      if (!entry) {
        this.misses.push(`${req.method} ${auth} ${path}`);
        served(404);
        return {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: '{"code":"fixture-not-recorded","message":"Not in the recording.","data":{"status":404}}',
        };
      }
      served(entry.status);
      const headers = Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k, rewriteHost(v, this.url)]));
      return { status: entry.status, headers, body: entry.bytes ?? rewriteHost(entry.body, this.url) };
    } finally {
      this.inFlight--;
    }
  }

  /** Requests served so far whose path starts with this. */
  count(prefix: string): number {
    return this.log.filter((l) => l.path.startsWith(prefix)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
