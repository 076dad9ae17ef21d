/**
 * Bad input for every route and method, from every kind of caller: unicode, huge strings, SQL and HTML
 * fragments, malformed percent-encoding, NUL, deep JSON, values of the wrong shape, wrong content types,
 * duplicate and nested parameters.
 *
 * Argument names come from the routes' own declarations (`app.registry.specs`), and each value goes where the
 * method reads it: the query string for GET, HEAD, DELETE and OPTIONS, a JSON or form body (or the query) for
 * writes; purely random names ride along. Two phases:
 *
 * 1. a deterministic sweep: every route × method (HEAD for each GET, OPTIONS for each path, POST turned into
 *    each other method by `_method` and by `X-HTTP-Method-Override`), each declared argument given hostile
 *    values one at a time (the others valid, so the value gets past validation where it can) and all at once;
 *    the test fails if any route, method or argument was left out;
 * 2. random sampling with fast-check (FUZZ_RUNS runs, seed FUZZ_SEED).
 *
 * Properties, for every request: never a 5xx; JSON (or JSONP when asked for) with errors in the documented
 * shape `{code, message, data: {status}}`; HEAD answers GET's status with no body; a read, or a refused write,
 * changes nothing (a digest of every table before and after).
 *
 * `npm test` runs the sweep and 250 sampled requests with a fixed seed. `npm run fuzz` runs more (FUZZ_RUNS,
 * default 5,000; FUZZ_SEED, default random; FUZZ_SWEEP hostile values per argument in the sweep, default 4)
 * and writes a JSON summary of what ran into test/measured/fuzz-<date>-<dialect>-<seed>.json (SECURITY.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import qs from 'qs';
import type { RouteSpec } from '../../src/http/route.js';
import { BASE, type Caller, createTestApp, type Response, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';
import { databaseDigest } from '../helpers/digest.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { runInfo, writeMeasured } from '../helpers/measured.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : process.env.FUZZ_SEED !== undefined
      ? Number(process.env.FUZZ_SEED)
      : 20261122;
/** Hostile values per declared argument in the sweep (alternately a hostile text and a value of the wrong shape). */
const SWEEP_VALUES = Math.max(1, Number(process.env.FUZZ_SWEEP ?? 1));

// ---- hostile values ------------------------------------------------------------------------------------

/** `RAW:` values go into URLs and forms as they are (malformed percent-encoding); elsewhere without the prefix. */
const HOSTILE_TEXT = [
  "' OR 1=1 --",
  '1; DROP TABLE posts; --',
  '"); delete from events; --',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '../../etc/passwd',
  '%00',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '😀🎉',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1.5',
  '1e309',
  '-1e309',
  '99999999999999999999999',
  '2147483648',
  'true',
  'false',
  ' ',
  '',
  ',,,',
  '1,,2, ,x',
  'publish,draft,trash',
  'any',
  'trash',
  'tomorrow 9am',
  '2018-02-30 25:61',
  '0000-00-00 00:00:00',
  '+99999 years',
  '@99999999999999',
  'http://',
  'javascript:alert(1)',
  'https://example.org/a.png',
  'RAW:%E0%A4%A',
  'RAW:%',
  'RAW:%zz%%',
  'RAW:a%00b',
  '__proto__',
  'constructor',
  'ÅÄÖ \u202e\u200b',
  'x'.repeat(20_000),
  '𝔘'.repeat(3_000),
];

/** Values of the wrong shape: JSON bodies get them as they are, query strings and forms in qs' bracket syntax. */
const HOSTILE_SHAPES: unknown[] = [
  [],
  ['1', 'x', ''],
  {},
  { id: '1', name: '<b>x</b>', __proto__x: 1 },
  -1,
  1.5,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  false,
  null,
  [[['deep']]],
  { a: { b: { c: { d: { e: { f: 1 } } } } } },
  Array.from({ length: 300 }, (_, i) => i),
  [{ id: 1 }, { venue: 'x' }, null],
];

/** Path ids that match the route's pattern but name nothing, something else, or overflow. */
const HOSTILE_IDS = ['0', '99999', '2147483648', '9007199254740993', '00001', `1${'0'.repeat(30)}`];

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(...HOSTILE_TEXT.filter((s) => s.length < 1000)),
  fc.integer().map(String),
  fc.string({ minLength: 2000, maxLength: 20000 }),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(nasty, fc.constantFrom('id', 'venue', 'organizer', 'name', '__proto__')), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** JSON nested deeper than any handler walks. */
const deepJson = fc.integer({ min: 50, max: 3000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** Names that mean something to every route (WordPress' global parameters among them), beside declared ones. */
const GLOBAL_NAMES = [
  'page',
  'per_page',
  'status',
  'include',
  'categories',
  'search',
  '_fields',
  '_method',
  '_envelope',
  '_jsonp',
  'id',
  'start_date',
  'x[y][z]',
  'a[]',
  '__proto__',
];

/** Valid values for required arguments, so that a hostile value in another argument is validated, not pre-empted. */
let uniqueCounter = 0;
const VALID: Record<string, () => string> = {
  title: () => `Fuzz event ${++uniqueCounter}`,
  start_date: () => '+2 days 10am',
  end_date: () => '+2 days 11am',
  venue: () => `Fuzz venue ${++uniqueCounter}`,
  organizer: () => `Fuzz organizer ${++uniqueCounter}`,
  name: () => `Fuzz term ${++uniqueCounter}`,
  // the FullCalendar feed's range
  start: () => '2027-03-01T00:00:00Z',
  end: () => '2027-04-01T00:00:00Z',
  // a webhook endpoint's (a name that does not resolve: refused after the other arguments' checks) and a replay's
  url: () => `https://hooks-${++uniqueCounter}.invalid/fuzz`,
  since_seq: () => '1',
};

/** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD); `RAW:` strings go through untouched. */
function enc(text: string): string {
  if (text.startsWith('RAW:')) return text.slice(4);
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

const unraw = (v: unknown): unknown => (typeof v === 'string' && v.startsWith('RAW:') ? v.slice(4) : v);

/** A value as query or form pairs, in the bracket syntax qs reads (`a[]=1&a[]=2`, `a[b]=c`); null → a bare name. */
function toPairs(name: string, value: unknown, depth = 0): [string, string | null][] {
  if (value === null || value === undefined) return [[name, null]];
  if (typeof value !== 'object') return [[name, String(value)]];
  // a `RAW:` name with brackets after it would send the bracketed text unencoded (a `#` would cut the URL)
  if (name.startsWith('RAW:')) name = name.slice(4);
  if (depth >= 6) return [[name, JSON.stringify(value)]];
  const entries = Object.entries(value as object);
  if (entries.length === 0) return [[`${name}[]`, '']];
  if (Array.isArray(value))
    return value.flatMap((v, i) => toPairs(typeof v === 'object' && v !== null ? `${name}[${i}]` : `${name}[]`, v, depth + 1));
  return entries.flatMap(([k, v]) => toPairs(`${name}[${k}]`, v, depth + 1));
}

const encodePairs = (pairs: [string, string | null][]) => pairs.map(([k, v]) => (v === null ? enc(k) : `${enc(k)}=${enc(v)}`)).join('&');

// ---- what to exercise ----------------------------------------------------------------------------------

/** One way of calling a route: the HTTP method sent, and the method the route sees. */
interface Target {
  key: string;
  /** The method on the wire. */
  transport: string;
  /** The method the route answers as (HEAD → GET, POST with an override → that method). */
  method: string;
  override?: 'query' | 'header';
  path: string;
  /** Declared arguments (wire names) of the spec that answers, path parameters included. */
  args: string[];
  pathArgs: string[];
  requiredArgs: string[];
  /** Body fields the handler reads itself (`body:<name>` in the counts). */
  bodyOnly: string[];
  /** Where this method reads arguments: the query string only, or a body (JSON or form) and the query. */
  reads: 'query' | 'body';
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every way to call every route: each declared method, HEAD for GET, POST overrides for the others, OPTIONS. */
function targetsOf(specs: readonly RouteSpec[]): Target[] {
  const targets: Target[] = [];
  const paths = new Set<string>();
  for (const spec of specs) {
    paths.add(spec.path);
    const args = Object.keys(spec.args);
    const pathArgs = [...spec.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const requiredArgs = Object.entries(spec.args)
      .filter(([name, a]) => a.required && !pathArgs.includes(name))
      .map(([name]) => name);
    const bodyOnly = Object.keys(spec.bodyOnly ?? {});
    const base = { path: spec.path, args, pathArgs, requiredArgs };
    for (const method of spec.methods) {
      const reads = (m: string) => (m === 'GET' || m === 'HEAD' || m === 'DELETE' ? 'query' : 'body') as Target['reads'];
      targets.push({
        ...base,
        key: `${method} ${spec.path || '/'}`,
        transport: method,
        method,
        bodyOnly: reads(method) === 'body' ? bodyOnly : [],
        reads: reads(method),
      });
      if (method === 'GET') targets.push({ ...base, key: `HEAD ${spec.path || '/'}`, transport: 'HEAD', method, bodyOnly: [], reads: 'query' });
      if (method !== 'POST') {
        for (const override of ['query', 'header'] as const) {
          const how = override === 'query' ? `?_method=${method}` : `X-HTTP-Method-Override: ${method}`;
          targets.push({ ...base, key: `POST ${spec.path || '/'} (${how})`, transport: 'POST', method, override, bodyOnly, reads: 'body' });
        }
      }
    }
  }
  for (const path of paths) {
    const pathArgs = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    targets.push({
      key: `OPTIONS ${path || '/'}`,
      transport: 'OPTIONS',
      method: 'OPTIONS',
      path,
      args: [],
      pathArgs,
      requiredArgs: [],
      bodyOnly: [],
      reads: 'query',
    });
  }
  return targets;
}

/** What a request carries, before it is encoded. */
interface Planned {
  target: Target;
  caller: Caller;
  /** Path parameter values, raw (`:slug` is percent-encoded when the URL is built, `RAW:` aside). */
  params: Record<string, string>;
  /** Hostile named values, and where they go (with `valid`). */
  named: [string, unknown][];
  /** Valid values for required arguments, beside the hostile ones (not counted as exercised). */
  valid?: [string, unknown][];
  placement: 'query' | 'json' | 'form';
  /** Extra query pairs (random names, WordPress' global parameters). */
  extraQuery: [string, string][];
  /** A body that is not made of named values (random JSON, raw text, a wrong content type). */
  body?: { type: string; text: string };
  /** Path parameters whose value here is hostile (counted as exercised). */
  hostileParams: string[];
}

interface Failure {
  phase: string;
  target: string;
  error: string;
  request?: { method: string; url: string; caller: Caller; headers: Record<string, string>; content_type?: string; body?: string };
  status?: number;
  answer?: string;
}

interface Counts {
  requests: number;
  byTarget: Record<string, number>;
  /** Per target: declared argument → how many requests gave it a value. */
  args: Record<string, Record<string, number>>;
}

const newCounts = (): Counts => ({ requests: 0, byTarget: {}, args: {} });

/**
 * Counts a sent request, and the declared arguments it gave a hostile value, from what it carried: a path
 * parameter with a hostile value; a named value under a declared argument's name, in the query or body (a
 * body-only field only in a body); a name sent twice counts once.
 */
function count(counts: Counts, p: Planned): void {
  const { target } = p;
  counts.requests++;
  counts.byTarget[target.key] = (counts.byTarget[target.key] ?? 0) + 1;
  const hit = new Set<string>(p.hostileParams.filter((n) => target.pathArgs.includes(n) && p.params[n] !== undefined));
  for (const [name] of p.named) {
    if (target.bodyOnly.includes(name) && p.placement !== 'query') hit.add(`body:${name}`);
    else if (target.args.includes(name) && !target.pathArgs.includes(name)) hit.add(name);
  }
  counts.args[target.key] ??= {};
  const perArg = counts.args[target.key];
  for (const name of hit) perArg[name] = (perArg[name] ?? 0) + 1;
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The method the route answers as, the way WordPress picks it (CONTRACT.md §0): HEAD is GET; POST may be
 * overridden, by `_method` first and by the header without it.
 */
function effectiveMethod(transport: string, headers: Record<string, string>, query: Record<string, unknown>): string {
  if (transport === 'HEAD') return 'GET';
  if (transport !== 'POST') return transport;
  if (typeof query._method === 'string' && query._method !== '') return query._method.toUpperCase();
  const header = headers['x-http-method-override'];
  return typeof header === 'string' && header !== '' ? header.toUpperCase() : 'POST';
}

describe('fuzzing every route with bad input', () => {
  let t: TestApp;
  let targets: Target[];
  let ids: { event: number[]; venue: number[]; organizer: number[]; category: number[]; tag: number[] };
  let slugs: { event: string; venue: string; organizer: string };
  /** Digest of the whole database as the last request left it. */
  let state: string;
  const sweepCounts = newCounts();
  const sampleCounts = newCounts();
  const failures: Failure[] = [];
  /** A failing request, whole (long values capped at 50,000 characters), with what it got. */
  const failure = (phase: string, target: string, error: unknown): Failure => {
    const e = error as Partial<Failure> & { message?: string };
    return { phase, target, error: String(e?.message ?? error).slice(0, 2000), request: e?.request, status: e?.status, answer: e?.answer };
  };
  const started = Date.now();

  before(async () => {
    t = await createTestApp({ BODY_LIMIT: '65536' });
    const cat = await makeCategory(t, { name: 'Fuzz cat' });
    const tag = await makeTag(t, { name: 'fuzz tag' });
    const venue = await makeLinked(t, 'venue', { venue: 'Fuzz venue' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Fuzz organizer' });
    const published = await makeEvent(t, { title: 'Fuzz event', categories: [cat.id], tags: [tag.id], venue: venue.id, organizer: [organizer.id] });
    const draft = await makeEvent(t, { title: 'Fuzz draft', status: 'draft' }, 'contributor');
    ids = { event: [published.id, draft.id], venue: [venue.id], organizer: [organizer.id], category: [cat.id], tag: [tag.id] };
    slugs = { event: published.slug, venue: venue.slug, organizer: organizer.slug };
    targets = targetsOf(t.app.registry.specs);
    state = await databaseDigest(t.storage);
  });

  after(async () => {
    const summary = {
      ...runInfo(),
      /** Route paths below are relative to this (`/` is the namespace index). */
      namespace: BASE,
      seed: SEED,
      runs: RUNS,
      sweep_values_per_argument: SWEEP_VALUES,
      duration_ms: Date.now() - started,
      requests: { total: sweepCounts.requests + sampleCounts.requests, sweep: sweepCounts.requests, sampled: sampleCounts.requests },
      targets: targets?.length ?? 0,
      failures,
      routes: Object.fromEntries(
        (targets ?? []).map((tg) => [tg.key, { sweep: sweepCounts.byTarget[tg.key] ?? 0, sampled: sampleCounts.byTarget[tg.key] ?? 0 }]),
      ),
      arguments: Object.fromEntries(
        (targets ?? []).map((tg) => {
          const names = [...tg.args, ...tg.bodyOnly.map((n) => `body:${n}`)];
          return [
            tg.key,
            Object.fromEntries(names.map((n) => [n, { sweep: sweepCounts.args[tg.key]?.[n] ?? 0, sampled: sampleCounts.args[tg.key]?.[n] ?? 0 }])),
          ];
        }),
      ),
    };
    process.stdout.write(
      `# fuzz (${DIALECT}): ${summary.requests.total} requests (sweep ${summary.requests.sweep} over ${summary.targets} route × method targets, ${summary.requests.sampled} sampled), seed ${SEED}, ${failures.length} failure(s)\n`,
    );
    const file = writeMeasured('fuzz', summary, `-${SEED}`);
    if (file) process.stdout.write(`# fuzz summary written to ${file}\n`);
    await t?.close();
  });

  // ---- sending and checking --------------------------------------------------------------------------

  const poolFor = (path: string): number[] =>
    path.startsWith('/events')
      ? ids.event
      : path.startsWith('/venues')
        ? ids.venue
        : path.startsWith('/organizers')
          ? ids.organizer
          : path.startsWith('/categories')
            ? ids.category
            : ids.tag;
  const slugFor = (path: string): string => (path.startsWith('/events') ? slugs.event : path.startsWith('/venues') ? slugs.venue : slugs.organizer);

  /** Real path values for the target's path parameters. */
  const realParams = (target: Target): Record<string, string> => {
    const params: Record<string, string> = {};
    if (target.pathArgs.includes('id')) params.id = String(poolFor(target.path)[0]);
    if (target.pathArgs.includes('slug')) params.slug = slugFor(target.path);
    return params;
  };

  function build(p: Planned) {
    const { target } = p;
    let path = target.path;
    for (const [name, value] of Object.entries(p.params)) path = path.replace(`:${name}`, name === 'id' ? value : enc(value));
    const queryPairs: [string, string | null][] = [];
    if (target.override === 'query') queryPairs.push(['_method', target.method]);
    const headers: Record<string, string> = {};
    if (target.override === 'header') headers['x-http-method-override'] = target.method;
    let raw: { type: string; body: string } | undefined = p.body ? { type: p.body.type, body: p.body.text } : undefined;
    const named = [...(p.valid ?? []), ...p.named];
    if (p.placement === 'query') for (const [name, value] of named) queryPairs.push(...toPairs(name, value));
    if (p.placement === 'json') {
      const body: Record<string, unknown> = {};
      for (const [name, value] of named) body[name] = unraw(value);
      raw = { type: 'application/json', body: JSON.stringify(body) };
    }
    if (p.placement === 'form') raw = { type: 'application/x-www-form-urlencoded', body: encodePairs(named.flatMap(([n, v]) => toPairs(n, v))) };
    queryPairs.push(...p.extraQuery);
    const query = encodePairs(queryPairs);
    return { path: path === '' ? BASE : path, query, raw, headers };
  }

  const describeRequest = (p: Planned, b: ReturnType<typeof build>) =>
    `${p.target.transport} ${b.path}${b.query ? `?${b.query.slice(0, 300)}` : ''} as ${p.caller}` +
    (Object.keys(b.headers).length ? ` ${JSON.stringify(b.headers)}` : '') +
    (b.raw ? ` [${b.raw.type}] ${b.raw.body.slice(0, 300)}` : '');

  /** The answer as the client meant to read it: JSONP unwrapped, `_envelope` opened. */
  function reading(res: Response, query: Record<string, unknown>, label: string, path: string): { status: number; body: any } {
    const type = String(res.headers['content-type'] ?? '');
    let text = res.text;
    if (!decodable(path)) {
      // a path the router cannot decode is refused before the query string is read: no envelope, no JSONP
      assert.equal(res.status, 400, `an undecodable path: ${label}`);
      assert.equal(JSON.parse(text).code, 'rest_bad_request', `an undecodable path: ${label} → ${text.slice(0, 200)}`);
      return { status: res.status, body: JSON.parse(text) };
    }
    if (type.startsWith('text/calendar')) {
      // the iCalendar routes answer a calendar whatever `_envelope`/`_jsonp` say (they wrap JSON only); errors stay JSON
      assert.ok(path.endsWith('.ics'), `a calendar from a route that is not an .ics one: ${label}`);
      assert.ok(res.status === 200 || res.status === 304, `a calendar with status ${res.status}: ${label}`);
      assert.ok(res.status === 304 || (text.startsWith('BEGIN:VCALENDAR\r\n') && text.endsWith('END:VCALENDAR\r\n')), `not a calendar: ${label}`);
      return { status: res.status, body: { calendar: text.length } };
    }
    if (type.startsWith('application/javascript')) {
      // (an empty callback is valid, as in WordPress: the answer is then `/**/(json)`, still a JSON value)
      assert.ok(typeof query._jsonp === 'string' && /^[\w.]*$/.test(query._jsonp), `JavaScript without a valid _jsonp: ${label}`);
      const m = /^\/\*\*\/([\w.]*)\(([\s\S]*)\)$/.exec(text);
      assert.ok(m && m[1] === query._jsonp, `JSONP not wrapped in the callback: ${label} → ${text.slice(0, 200)}`);
      text = m[2];
    } else {
      assert.match(type, /^application\/json/, `not JSON: ${label} → ${res.status} ${type}`);
    }
    let body: any;
    assert.doesNotThrow(() => (body = JSON.parse(text)), `unparsable JSON: ${label} → ${text.slice(0, 200)}`);
    let status = res.status;
    if (query._envelope !== undefined) {
      assert.equal(res.status, 200, `an enveloped answer is a 200: ${label}`);
      assert.deepEqual(Object.keys(body).sort(), ['body', 'headers', 'status'], `not an envelope: ${label} → ${text.slice(0, 200)}`);
      status = body.status;
      body = body.body;
    }
    return { status, body };
  }

  function checkAnswer(status: number, body: any, label: string): void {
    assert.ok(status < 500, `${label} → ${status} ${JSON.stringify(body)?.slice(0, 500)}`);
    if (status >= 400) {
      assert.equal(typeof body?.code, 'string', `error without a code: ${label} → ${JSON.stringify(body)?.slice(0, 300)}`);
      assert.equal(typeof body.message, 'string', `error without a message: ${label}`);
      assert.equal(body.data?.status, status, `data.status is not the status: ${label}`);
    } else {
      assert.ok(body !== undefined && body !== null, `a success without a JSON body: ${label}`);
    }
  }

  /** Sends one planned request (and GET beside each HEAD), checks every property, and counts it. */
  async function send(p: Planned, counts: Counts): Promise<void> {
    const b = build(p);
    const label = describeRequest(p, b);
    // (what the server parses: the query string up to a fragment)
    const query = qs.parse(b.query.split('#')[0], {
      depth: 5,
      arrayLimit: 200,
      parameterLimit: 1000,
      duplicates: 'last',
      allowPrototypes: false,
    }) as Record<string, unknown>;
    const options = { as: p.caller, query: b.query || undefined, raw: b.raw, headers: b.headers };
    const res = await t.request(p.target.transport, b.path, options);
    const asGet = p.target.transport === 'HEAD' ? await t.request('GET', b.path, options) : undefined;
    const beforeDigest = state;
    state = await databaseDigest(t.storage);
    count(counts, p);

    try {
      checkExchange(p, b, query, label, res, asGet, beforeDigest);
    } catch (error) {
      const cap = (text: string) => (text.length > 50_000 ? `${text.slice(0, 50_000)}… (${text.length} characters)` : text);
      const request: Failure['request'] = {
        method: p.target.transport,
        url: cap(`${b.path.startsWith('/calendar') ? b.path : BASE + b.path}${b.query ? `?${b.query}` : ''}`),
        caller: p.caller,
        headers: b.headers,
        ...(b.raw ? { content_type: b.raw.type, body: cap(b.raw.body) } : {}),
      };
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), {
        request,
        status: res.status,
        answer: res.text.slice(0, 1000),
      });
    }
  }

  /** Every property of one exchange (see the file's head); throws on the first that fails. */
  function checkExchange(
    p: Planned,
    b: ReturnType<typeof build>,
    query: Record<string, unknown>,
    label: string,
    res: Response,
    asGet: Response | undefined,
    beforeDigest: string,
  ): void {
    const method = effectiveMethod(p.target.transport, b.headers, query);
    if (asGet) {
      assert.equal(res.text, '', `HEAD with a body: ${label}`);
      const get = reading(asGet, query, `GET beside ${label}`, b.path);
      checkAnswer(get.status, get.body, `GET beside ${label}`);
      assert.equal(res.status, get.status, `HEAD and GET disagree: ${label}`);
      assert.ok(res.status < 500, `${label} → ${res.status}`);
    } else {
      const answer = reading(res, query, label, b.path);
      checkAnswer(answer.status, answer.body, label);
      if (answer.status < 400 && !READ_METHODS.has(method)) return;
    }
    assert.equal(state, beforeDigest, `${READ_METHODS.has(method) ? 'a read' : 'a refused write'} changed the database: ${label} → ${res.status}`);
  }

  it('reads _envelope and _jsonp the same way on an unknown path as on a known one', async () => {
    // found by the fuzzer (seed 879710205 on PostgreSQL, 147288545 on SQLite): Fastify's 404 router parsed
    // query strings with its own parser, so `_envelope[name]=x` enveloped a known route's answer and not a 404
    for (const [path, status] of [
      ['/doc', 200],
      ['/no-such-route', 404],
    ] as const) {
      const enveloped = await t.get(path, { query: '_envelope%5Bname%5D=x' });
      assert.equal(enveloped.status, 200, `${path}: ${enveloped.text.slice(0, 200)}`);
      assert.equal(enveloped.body.status, status, path);
      const jsonp = await t.get(path, { query: '_jsonp%5B%5D=cb' });
      assert.equal(jsonp.status, 400, `${path}: ${jsonp.text.slice(0, 200)}`);
      assert.equal(jsonp.body.code, 'rest_callback_invalid', path);
    }
  });

  // ---- phase 1: the sweep ----------------------------------------------------------------------------

  it('sweeps every route × method with hostile values in every declared argument, and misses none', async () => {
    // deletes last, so the objects the other routes name are still there while they are swept
    const ordered = [...targets].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    const missingValid = ordered.flatMap((tg) => tg.requiredArgs.filter((name) => !(name in VALID)).map((name) => `${tg.key}: ${name}`));
    assert.deepEqual(missingValid, [], 'required arguments the sweep has no valid value for (add them to VALID)');

    let k = 0;
    const placements = (tg: Target): Planned['placement'][] => (tg.reads === 'query' ? ['query'] : ['json', 'form', 'query']);
    const baseline = (tg: Target, except: string): [string, unknown][] => tg.requiredArgs.filter((n) => n !== except).map((n) => [n, VALID[n]()]);
    const plans: Planned[] = [];
    const plan = (p: Omit<Planned, 'extraQuery'> & { extraQuery?: Planned['extraQuery'] }) => plans.push({ extraQuery: [], ...p });
    const callers: Caller[] = ['anonymous', 'bad', 'subscriber', 'contributor', 'author', 'editor', 'administrator', 'author2', 'contributor2'];

    // hostile values in turn: a text, then a value of the wrong shape, each list walked through in order
    let v = 0;
    const nextHostile = (): unknown => {
      const n = v++;
      return n % 2 === 0 ? HOSTILE_TEXT[(n >> 1) % HOSTILE_TEXT.length] : HOSTILE_SHAPES[(n >> 1) % HOSTILE_SHAPES.length];
    };
    const nextPathValue = (name: string): string => (name === 'id' ? HOSTILE_IDS[k % HOSTILE_IDS.length] : HOSTILE_TEXT[k % HOSTILE_TEXT.length]);

    for (const tg of ordered) {
      const place = placements(tg);
      const direct = tg.transport === tg.method && tg.method !== 'OPTIONS';
      if (direct) {
        // one argument at a time, the others valid: the value reaches its check and, when it passes, the handler
        for (const name of tg.args) {
          for (let i = 0; i < SWEEP_VALUES; i++, k++) {
            const placement = place[k % place.length];
            if (tg.pathArgs.includes(name)) {
              plan({
                target: tg,
                caller: 'administrator',
                params: { ...realParams(tg), [name]: nextPathValue(name) },
                named: [],
                valid: baseline(tg, ''),
                placement,
                hostileParams: [name],
              });
            } else {
              plan({
                target: tg,
                caller: 'administrator',
                params: realParams(tg),
                named: [[name, nextHostile()]],
                valid: baseline(tg, name),
                placement,
                hostileParams: [],
              });
            }
          }
        }
        for (const name of tg.bodyOnly) {
          for (let i = 0; i < SWEEP_VALUES; i++, k++) {
            const placement = (['json', 'form'] as const)[k % 2];
            plan({
              target: tg,
              caller: 'administrator',
              params: realParams(tg),
              named: [[name, nextHostile()]],
              valid: baseline(tg, ''),
              placement,
              hostileParams: [],
            });
          }
        }
      }
      // every argument hostile at once (path parameters too), with a body-or-query `id` that must not win
      const params = realParams(tg);
      for (const name of tg.pathArgs) params[name] = nextPathValue(name);
      const all: [string, unknown][] = tg.args
        .filter((n) => !tg.pathArgs.includes(n))
        .map((n) => [n, HOSTILE_TEXT[(k + n.length) % HOSTILE_TEXT.length]]);
      for (const name of tg.bodyOnly) all.push([name, HOSTILE_TEXT[k % HOSTILE_TEXT.length]]);
      if (tg.pathArgs.includes('id')) all.push(['id', String(ids.venue[0])]);
      const placement = tg.bodyOnly.length > 0 ? 'json' : place[k % place.length];
      plan({
        target: tg,
        caller: 'administrator',
        params,
        named: all,
        placement,
        hostileParams: tg.pathArgs,
        extraQuery:
          tg.method === 'OPTIONS'
            ? [
                ["' OR 1=1 --", '<script>'],
                ['_fields', '__proto__'],
              ]
            : [],
      });
      k++;
      // and the route as an ordinary caller would call it, from each kind of caller in turn
      plan({
        target: tg,
        caller: callers[k++ % callers.length],
        params: realParams(tg),
        named: [],
        valid: baseline(tg, ''),
        placement: place[0],
        hostileParams: [],
      });
    }

    for (const p of plans) {
      try {
        await send(p, sweepCounts);
      } catch (error) {
        failures.push(failure('sweep', p.target.key, error));
      }
    }

    // what was exercised, counted from what was sent, against what the routes declare
    const missedTargets = targets.filter((tg) => !sweepCounts.byTarget[tg.key]).map((tg) => tg.key);
    const missedArgs = targets.flatMap((tg) =>
      [...tg.args, ...tg.bodyOnly.map((n) => `body:${n}`)].filter((n) => !sweepCounts.args[tg.key]?.[n]).map((n) => `${tg.key}: ${n}`),
    );
    const expected = new Set<string>();
    for (const spec of t.app.registry.specs) {
      expected.add(`OPTIONS ${spec.path || '/'}`);
      for (const m of spec.methods) {
        expected.add(`${m} ${spec.path || '/'}`);
        if (m === 'GET') expected.add(`HEAD ${spec.path || '/'}`);
        if (m !== 'POST') for (const how of ['?_method=', 'X-HTTP-Method-Override: ']) expected.add(`POST ${spec.path || '/'} (${how}${m})`);
      }
    }
    const unregistered = [...expected].filter((key) => !sweepCounts.byTarget[key]);
    assert.deepEqual(
      { failures, missedTargets, unregistered, missedArgs },
      { failures: [], missedTargets: [], unregistered: [], missedArgs: [] },
      `the sweep: ${failures.length} failing request(s); route × method targets never called; declared arguments never given a hostile value`,
    );
  });

  // ---- phase 2: random sampling ----------------------------------------------------------------------

  it(`samples ${RUNS} random requests: never a 5xx, errors in the documented shape, refused writes and reads change nothing`, async () => {
    const idValue = fc.oneof(fc.constantFrom(...[0, 1, 2, 3, 5, 8, 13, 99999, 2147483648, 9007199254740991].map(String)), fc.constant('ID'));
    const realSlugs = [slugs.event, slugs.venue, slugs.organizer];
    const requestArb = fc.constantFrom(...targets).chain((target) => {
      const declared = [...target.args.filter((n) => !target.pathArgs.includes(n)), ...target.bodyOnly];
      const name = declared.length
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...declared) },
            { weight: 1, arbitrary: fc.constantFrom(...GLOBAL_NAMES) },
            { weight: 1, arbitrary: nasty },
          )
        : fc.oneof(fc.constantFrom(...GLOBAL_NAMES), nasty);
      return fc.record({
        target: fc.constant(target),
        id: idValue,
        slug: fc.oneof(
          fc.constantFrom(...realSlugs),
          nasty.filter((s) => s.length > 0 && s.length < 300),
        ),
        caller: fc.constantFrom<Caller>('anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator', 'bad'),
        named: fc.array(fc.tuple(name, jsonValue), { maxLength: 6 }),
        placement: target.reads === 'query' ? fc.constant('query' as const) : fc.constantFrom('json' as const, 'form' as const, 'query' as const),
        extraQuery: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...GLOBAL_NAMES), nasty), nasty), { maxLength: 4 }),
        body: fc.oneof(
          fc.record({ kind: fc.constant('json' as const), value: fc.dictionary(nasty, jsonValue, { maxKeys: 8 }) }),
          fc.record({ kind: fc.constant('raw-json' as const), value: fc.oneof(nasty, deepJson) }),
          fc.record({ kind: fc.constant('form' as const), value: fc.array(fc.tuple(nasty, nasty), { maxLength: 8 }) }),
          fc.record({
            kind: fc.constant('other' as const),
            value: fc.tuple(fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/xml', 'image/png'), nasty),
          }),
          fc.constant({ kind: 'none' as const, value: undefined }),
        ),
      });
    });

    // A failure is recorded and the run goes on, so that a long run reports every failing request (each one
    // described in full, replayable with the same seed) rather than stopping at the first and shrinking it
    // against a database the earlier requests have changed.
    const earlier = failures.length;
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const { target } = r;
        const params: Record<string, string> = {};
        const hostileParams: string[] = [];
        if (target.pathArgs.includes('id')) {
          params.id = r.id === 'ID' ? String(poolFor(target.path)[0]) : r.id;
          if (r.id !== 'ID') hostileParams.push('id');
        }
        if (target.pathArgs.includes('slug')) {
          params.slug = r.slug;
          if (!realSlugs.includes(r.slug)) hostileParams.push('slug');
        }
        // a body goes with the named values when they travel in one; otherwise one of the random kinds
        let body: Planned['body'];
        const b = r.body;
        if (r.placement === 'query') {
          if (b.kind === 'json') body = { type: 'application/json', text: JSON.stringify(b.value) };
          if (b.kind === 'raw-json') body = { type: 'application/json', text: b.value };
          if (b.kind === 'form') body = { type: 'application/x-www-form-urlencoded', text: encodePairs(b.value) };
          if (b.kind === 'other') body = { type: b.value[0], text: b.value[1] };
        }
        try {
          await send(
            { target, caller: r.caller, params, named: r.named, placement: r.placement, extraQuery: r.extraQuery, body, hostileParams },
            sampleCounts,
          );
        } catch (error) {
          if (failures.length < 200) failures.push(failure('sampling', target.key, error));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    assert.deepEqual(failures.slice(earlier), [], `${failures.length - earlier} failing sampled request(s), seed ${SEED}`);
  });
});
