/**
 * The original's paths: `/wp-json/tribe/events/v1/…` answers exactly like `/calendar/events/v1/…` (same status,
 * body and headers, emitted URLs canonical), shares the response cache and the rate limit with it, and goes
 * away with WP_PATHS=off.
 *
 * The comparison runs one script of requests in lockstep against two apps on two fresh databases that start
 * identical: one through the canonical paths, one through the WordPress paths. Ids and slugs then agree, so
 * writes compare as well as reads; only the second-precision write times may differ and are masked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE, type Caller, createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeEvent } from '../helpers/factories.js';

const WP = '/wp-json/tribe/events/v1';

interface Sent {
  status: number;
  headers: Record<string, unknown>;
  text: string;
  body: any;
}

interface Request {
  as?: Caller;
  json?: unknown;
  form?: Record<string, string>;
  raw?: { type: string; body: string };
  headers?: Record<string, string>;
}

async function send(t: TestApp, method: string, url: string, request: Request = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...t.authHeader(request.as ?? 'anonymous'), ...(request.headers ?? {}) };
  let payload: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(request.json);
  } else if (request.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(request.form).toString();
  } else if (request.raw !== undefined) {
    headers['content-type'] = request.raw.type;
    payload = request.raw.body;
  }
  const res = await t.app.inject({ method: method as any, url, headers, payload });
  let body: any;
  try {
    body = res.body === '' ? undefined : JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text: res.body, body };
}

interface State {
  category: number;
  tag: number;
  venue: number;
  venueSlug: string;
  organizer: number;
  event: number;
  eventSlug: string;
  draft: number;
}

interface Step extends Omit<Request, 'json'> {
  name: string;
  json?: unknown | ((s: State) => unknown);
  method: string;
  /** Path and query under the namespace. */
  path: (s: State) => string;
  /** What the step is meant to get (so that two equal failures cannot pass for a match). */
  status: number;
  save?: (body: any, s: State) => void;
  /** What the answer must show (the step took effect, not only answered alike on both paths). */
  check?: (res: Sent) => void;
}

const future = { start_date: '+1 week 10am', end_date: '+1 week 12pm' };

const SCRIPT: Step[] = [
  { name: 'namespace index', method: 'GET', path: () => '', status: 200 },
  { name: 'namespace index, trailing slash', method: 'GET', path: () => '/', status: 200 },
  { name: 'namespace index, another namespace', method: 'GET', path: () => '?namespace=wp/v2', status: 404 },
  { name: 'doc', method: 'GET', path: () => '/doc', status: 200 },
  {
    name: 'create a category (form)',
    method: 'POST',
    path: () => '/categories',
    as: 'administrator',
    form: { name: 'Music' },
    status: 201,
    save: (b, s) => (s.category = b.id),
  },
  {
    name: 'create a tag (JSON)',
    method: 'POST',
    path: () => '/tags',
    as: 'editor',
    json: { name: 'Outdoor' },
    status: 201,
    save: (b, s) => (s.tag = b.id),
  },
  {
    name: 'create a venue',
    method: 'POST',
    path: () => '/venues',
    as: 'author',
    json: { venue: 'Blue Hall', city: 'Lyon', country: 'France' },
    status: 201,
    save: (b, s) => {
      s.venue = b.id;
      s.venueSlug = b.slug;
    },
  },
  {
    name: 'create an organizer',
    method: 'POST',
    path: () => '/organizers',
    as: 'administrator',
    json: { organizer: 'Ada Events', email: 'ada@example.org' },
    status: 201,
    save: (b, s) => (s.organizer = b.id),
  },
  {
    name: 'create an event with everything linked',
    method: 'POST',
    path: () => '/events',
    as: 'author',
    json: { title: 'Concert in the park', description: '<p>Bring a chair</p>', cost: '10', categories: ['Music'], tags: ['Outdoor'], ...future },
    status: 201,
    save: (b, s) => {
      s.event = b.id;
      s.eventSlug = b.slug;
    },
  },
  {
    name: 'link the venue and organizer (PUT)',
    method: 'PUT',
    path: (s) => `/events/${s.event}`,
    as: 'author',
    json: (s: State) => ({ venue: s.venue, organizer: [s.organizer] }),
    status: 200,
    check: (r) => assert.equal(r.body.venue.venue, 'Blue Hall'),
  },
  {
    name: 'link a venue that is no venue',
    method: 'PUT',
    path: (s) => `/events/${s.event}`,
    as: 'author',
    json: (s: State) => ({ venue: s.organizer }),
    status: 400,
  },
  {
    name: "a contributor's draft",
    method: 'POST',
    path: () => '/events',
    as: 'contributor',
    json: { title: 'Draft talk', ...future },
    status: 201,
    save: (b, s) => (s.draft = b.id),
  },
  { name: 'list, anonymous', method: 'GET', path: () => '/events', status: 200 },
  {
    name: 'list with filters, one a page',
    method: 'GET',
    path: () => '/events?categories=music&tags=outdoor&per_page=1&start_date=2000-01-01',
    status: 200,
  },
  { name: 'list, search', method: 'GET', path: () => '/events?search=park&featured=false', status: 200 },
  { name: 'list as an editor (drafts too)', method: 'GET', path: () => '/events?status=draft', as: 'editor', status: 200 },
  {
    name: 'list with _fields',
    method: 'GET',
    path: () => '/events?_fields=events.id,events.title,total',
    status: 200,
    check: (r) => assert.deepEqual(Object.keys(r.body), ['events', 'total']),
  },
  { name: 'list with a bad page', method: 'GET', path: () => '/events?page=abc', status: 400 },
  { name: 'single by id', method: 'GET', path: (s) => `/events/${s.event}`, status: 200 },
  { name: 'single by slug', method: 'GET', path: (s) => `/events/by-slug/${s.eventSlug}`, status: 200 },
  { name: 'single, trailing slash', method: 'GET', path: (s) => `/events/${s.event}/`, status: 200 },
  {
    name: 'single with _envelope',
    method: 'GET',
    path: (s) => `/events/${s.event}?_envelope=1`,
    status: 200,
    check: (r) => assert.equal(r.body.status, 200),
  },
  {
    name: 'single with _jsonp',
    method: 'GET',
    path: (s) => `/events/${s.event}?_jsonp=show.event`,
    status: 200,
    check: (r) => assert.ok(r.text.startsWith('/**/show.event({')),
  },
  { name: 'a bad _jsonp callback', method: 'GET', path: (s) => `/events/${s.event}?_jsonp=alert(1)`, status: 400 },
  {
    name: 'an error inside _envelope',
    method: 'GET',
    path: () => '/events/999999?_envelope',
    status: 200,
    check: (r) => assert.equal(r.body.status, 404),
  },
  { name: 'an event that does not exist', method: 'GET', path: () => '/events/999999', status: 404 },
  { name: 'a draft, anonymous', method: 'GET', path: (s) => `/events/${s.draft}`, status: 403 },
  { name: 'HEAD on a list', method: 'HEAD', path: () => '/events', status: 200, check: (r) => assert.equal(r.text, '') },
  { name: 'HEAD on an event', method: 'HEAD', path: (s) => `/events/${s.event}`, status: 200, check: (r) => assert.equal(r.text, '') },
  { name: 'OPTIONS on a collection', method: 'OPTIONS', path: () => '/events', status: 200 },
  {
    name: 'OPTIONS on an event, as its author',
    method: 'OPTIONS',
    path: (s) => `/events/${s.event}`,
    as: 'author',
    status: 200,
    check: (r) => assert.match(String(r.headers.allow), /DELETE/),
  },
  {
    name: 'OPTIONS on an event, anonymous',
    method: 'OPTIONS',
    path: (s) => `/events/${s.event}`,
    status: 200,
    check: (r) => assert.equal(r.headers.allow, 'GET'),
  },
  {
    name: 'update (POST, form)',
    method: 'POST',
    path: (s) => `/events/${s.event}`,
    as: 'author',
    form: { title: 'Concert in the big park' },
    status: 200,
  },
  {
    name: 'update (PATCH by slug)',
    method: 'PATCH',
    path: (s) => `/events/by-slug/${s.eventSlug}`,
    as: 'administrator',
    json: { cost: '12' },
    status: 200,
  },
  {
    name: 'update with _method',
    method: 'POST',
    path: (s) => `/events/${s.event}?_method=PUT`,
    as: 'editor',
    json: { featured: true },
    status: 200,
    check: (r) => assert.equal(r.body.featured, true),
  },
  {
    name: 'update with an invalid value',
    method: 'PATCH',
    path: (s) => `/events/${s.event}`,
    as: 'editor',
    json: { all_day: 'sometimes' },
    status: 400,
  },
  {
    name: "someone else's event, as a contributor",
    method: 'POST',
    path: (s) => `/events/${s.event}`,
    as: 'contributor2',
    json: { title: 'Mine now' },
    status: 403,
  },
  { name: 'delete, anonymous', method: 'DELETE', path: (s) => `/events/${s.event}`, status: 401 },
  { name: 'create with a wrong password', method: 'POST', path: () => '/events', as: 'bad', json: { title: 'x' }, status: 401 },
  { name: 'create, missing title', method: 'POST', path: () => '/events', as: 'administrator', json: { start_date: 'tomorrow' }, status: 400 },
  {
    name: 'create, malformed JSON',
    method: 'POST',
    path: () => '/events',
    as: 'administrator',
    raw: { type: 'application/json', body: '{"title":' },
    status: 400,
  },
  {
    name: 'create, unsupported content type',
    method: 'POST',
    path: () => '/events',
    as: 'administrator',
    raw: { type: 'text/plain', body: 'title=x' },
    status: 415,
  },
  { name: 'no such route', method: 'GET', path: () => '/nothing-here', status: 404 },
  { name: 'no such method', method: 'DELETE', path: () => '/events', as: 'administrator', status: 404 },
  { name: 'venues', method: 'GET', path: () => '/venues?search=blue', status: 200 },
  { name: 'venue by slug', method: 'GET', path: (s) => `/venues/by-slug/${s.venueSlug}`, status: 200 },
  { name: 'update a venue', method: 'PATCH', path: (s) => `/venues/${s.venue}`, as: 'author', json: { city: 'Paris' }, status: 200 },
  { name: 'organizers', method: 'GET', path: () => '/organizers', status: 200 },
  { name: 'organizer', method: 'GET', path: (s) => `/organizers/${s.organizer}`, status: 200 },
  { name: 'categories', method: 'GET', path: () => '/categories?hide_empty=0', status: 200 },
  {
    name: 'update a category',
    method: 'PUT',
    path: (s) => `/categories/${s.category}`,
    as: 'editor',
    json: { description: 'Live music' },
    status: 200,
  },
  { name: 'tags', method: 'GET', path: () => '/tags', status: 200 },
  { name: 'tag', method: 'GET', path: (s) => `/tags/${s.tag}`, status: 200 },
  { name: 'delete a tag as a subscriber', method: 'DELETE', path: (s) => `/tags/${s.tag}`, as: 'subscriber', status: 403 },
  { name: 'delete a tag', method: 'DELETE', path: (s) => `/tags/${s.tag}`, as: 'administrator', status: 200 },
  { name: 'delete the event', method: 'DELETE', path: (s) => `/events/${s.event}`, as: 'author', status: 200 },
  { name: 'delete it again', method: 'DELETE', path: (s) => `/events/${s.event}`, as: 'author', status: 410 },
  {
    name: 'delete the draft with _method',
    method: 'POST',
    path: (s) => `/events/${s.draft}?_method=DELETE`,
    as: 'administrator',
    status: 200,
    check: (r) => assert.equal(r.body.status, 'trash'),
  },
  {
    name: 'delete the organizer with X-HTTP-Method-Override',
    method: 'POST',
    path: (s) => `/organizers/${s.organizer}`,
    as: 'administrator',
    headers: { 'x-http-method-override': 'DELETE' },
    status: 200,
    check: (r) => assert.equal(r.body.status, 'trash'),
  },
  { name: 'the list after the deletes', method: 'GET', path: () => '/events?start_date=2000-01-01', as: 'administrator', status: 200 },
];

/** Write times (and the JSON-LD offer's `validFrom`, the publication time) are to the second, and the two apps write a moment apart. */
const maskTimes = (text: string) => text.replace(/"(date|date_utc|modified|modified_utc|validFrom)":"[^"]*"/g, '"$1":"…"');

const COMPARED_HEADERS = ['content-type', 'allow', 'location', 'x-tec-total', 'x-tec-totalpages', 'link', 'cache-control', 'retry-after'];

describe('the WordPress paths answer like the canonical ones', () => {
  let canonical: TestApp;
  let wordpress: TestApp;
  before(async () => {
    [canonical, wordpress] = await Promise.all([createTestApp(), createTestApp()]);
  });
  after(() => Promise.all([canonical?.close(), wordpress?.close()]));

  it('for every kind of request: same status, body and headers, emitted URLs canonical', async () => {
    const state = {} as State;
    for (const step of SCRIPT) {
      const path = step.path(state);
      const request = { ...step, json: typeof step.json === 'function' ? step.json(state) : step.json };
      const a = await send(canonical, step.method, `${BASE}${path}`, request);
      const b = await send(wordpress, step.method, `${WP}${path}`, request);
      assert.equal(a.status, step.status, `${step.name}: ${a.text}`);
      assert.equal(b.status, a.status, `${step.name}: status`);
      assert.equal(maskTimes(b.text), maskTimes(a.text), `${step.name}: body`);
      for (const name of COMPARED_HEADERS) assert.equal(b.headers[name], a.headers[name], `${step.name}: ${name}`);
      assert.ok(!b.text.includes('wp-json') && !b.text.includes('tribe/events/v1'), `${step.name}: emitted URLs are canonical`);
      if (typeof b.headers.location === 'string') assert.ok(b.headers.location.startsWith(`${PUBLIC_URL}${BASE}/`), step.name);
      step.check?.(b);
      step.save?.(a.body, state);
    }
    // the script did reach what it meant to (a sample of its answers)
    const list = await send(wordpress, 'GET', `${WP}/events?start_date=2000-01-01`);
    assert.ok(list.body.rest_url.startsWith(`${PUBLIC_URL}${BASE}/events`));
    const venue = await send(wordpress, 'GET', `${WP}/venues/${state.venue}`);
    assert.equal(venue.body.city, 'Paris');
  });
});

describe('the WordPress paths share what the canonical ones have', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('the response cache: one entry for both spellings, and a write through either empties it', async () => {
    await makeEvent(t, { title: 'Cached once' });
    const query = '/events?per_page=7';
    const first = await send(t, 'GET', `${BASE}${query}`);
    const second = await send(t, 'GET', `${WP}${query}`);
    const third = await send(t, 'GET', `${WP}${query}`);
    const fourth = await send(t, 'GET', `${BASE}${query}`);
    assert.equal(first.headers['x-cache'], undefined);
    assert.equal(second.headers['x-cache'], undefined, 'kept from the second time it is asked for, whatever the spelling');
    assert.equal(third.headers['x-cache'], 'hit');
    assert.equal(fourth.headers['x-cache'], 'hit');
    assert.equal(third.text, first.text);
    assert.equal(fourth.text, first.text);

    const created = await send(t, 'POST', `${WP}/events`, {
      as: 'administrator',
      json: { title: 'Written through WordPress', start_date: '+1 week 10am', end_date: '+1 week 11am' },
    });
    assert.equal(created.status, 201);
    const after = await send(t, 'GET', `${BASE}${query}`);
    assert.equal(after.headers['x-cache'], undefined);
    assert.equal(after.body.total, first.body.total + 1);
  });

  it('the cache keeps views apart on the WordPress paths too', async () => {
    const draft = await makeEvent(t, { title: 'Draft, not for everyone', status: 'draft' }, 'author');
    const path = `/events?include=${draft.id}&status=draft`;
    for (let i = 0; i < 3; i++) assert.equal((await send(t, 'GET', `${WP}${path}`, { as: 'author' })).body.total, 1);
    for (const as of ['contributor', 'author2'] as const) {
      const other = await send(t, 'GET', `${WP}${path}`, { as });
      assert.equal(other.headers['x-cache'], undefined, as);
      assert.equal(other.body.total ?? 0, 0, as);
    }
  });
});

describe('the rate limit counts both spellings together', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ RATE_LIMIT: '4/60s' })));
  after(() => t.close());

  it('answers 429 on either path once the window is used up through both', async () => {
    for (const url of [`${BASE}/tags`, `${WP}/tags`, `${BASE}/tags`, `${WP}/tags`]) assert.equal((await send(t, 'GET', url)).status, 200, url);
    for (const url of [`${WP}/tags`, `${BASE}/tags`, '/wp-json/']) {
      const res = await send(t, 'GET', url);
      assert.equal(res.status, 429, url);
      assert.equal(res.body.code, 'rest_too_many_requests');
      assert.ok(Number(res.headers['retry-after']) >= 1);
    }
  });
});

describe('WP_PATHS=off', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ WP_PATHS: 'off' })));
  after(() => t.close());

  it('answers the WordPress paths 404 rest_no_route, like any unknown path', async () => {
    const requests: [string, string, Request?][] = [
      ['GET', '/wp-json/'],
      ['GET', '/wp-json'],
      ['GET', WP],
      ['GET', `${WP}/`],
      ['GET', `${WP}/events`],
      ['GET', `${WP}/doc`],
      ['POST', `${WP}/events`, { as: 'administrator', json: { title: 'Nowhere', start_date: 'tomorrow', end_date: 'tomorrow 1pm' } }],
      ['OPTIONS', `${WP}/events`],
      ['OPTIONS', '/wp-json/'],
    ];
    for (const [method, url, request] of requests) {
      const res = await send(t, method, url, request);
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(res.body.code, 'rest_no_route', `${method} ${url}`);
      assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
    }
    assert.equal((await send(t, 'HEAD', `${WP}/events`)).status, 404);
    const list = await send(t, 'GET', `${BASE}/events`, { as: 'administrator' });
    assert.equal(list.status, 200, 'the canonical paths stay');
    assert.equal(list.body.total, 0, 'the refused POST stored nothing');
  });
});
