/**
 * A byte-for-byte record of the v1 read API, taken before the API grows (recurring events), so that later code
 * can show it still answers every v1 request exactly as before: status, the headers a client sees, and the
 * body as served, key order and escaping included.
 *
 * The site is built through the write routes, as an administrator, with the clock fixed (Node's mock timers
 * replace `Date`, which the services read when they are built and at every write; each write moves it a minute
 * on, so publication and modification times are distinct): nothing in it depends on today's date, and ids depend
 * only on creation order on a fresh database.
 *
 * `UPDATE_V1_SNAPSHOT=1` records the answers from SQLite into test/fixtures/v1-compat-snapshot.json (a
 * PostgreSQL run then compares against what was just written); otherwise every recorded request is replayed and
 * must be answered identically, on each database.
 *
 * Not recorded: `/doc` and the namespace index (`/calendar/events/v1/`), which describe the routes and their
 * parameters and rightly change whenever one is added or documented; and the headers that vary per request
 * whatever the code (`Date`, `X-Request-Id`) or belong to the transport (`Connection`).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it, mock } from 'node:test';
import { type Caller, createTestApp, type Response, type TestApp } from '../helpers/app.js';
import { DIALECT } from '../helpers/db.js';

const FIXTURE = new URL('../../../test/fixtures/v1-compat-snapshot.json', import.meta.url);
const WRITE = process.env.UPDATE_V1_SNAPSHOT === '1' && DIALECT === 'sqlite';

/** The instant the clock starts at: a Friday, 09:00 in the site's zone (CST, before the US DST change). */
const CLOCK = '2030-03-01T15:00:00.000Z';
const SITE_TIMEZONE = 'America/Chicago';
/** The response cache is off: a hit adds `X-Cache` (cache.test.ts covers it), and this records what routes answer. */
const ENV = { SITE_TIMEZONE, CACHE_MB: '0' };

/** Headers whose value changes per request (or per connection) whatever the code: left out of the record. */
const UNRECORDED_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Recorded {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Fixture {
  about: string;
  clock: string;
  site_timezone: string;
  responses: Recorded[];
}

interface Planned {
  name: string;
  method: 'GET' | 'HEAD';
  path: string;
  as: Caller;
}

/** The ids and slugs the requests name, as the site setup created them. */
interface Site {
  cat: Record<'music' | 'jazz' | 'workshops', number>;
  tag: Record<'outdoor' | 'family' | 'freeEntry' | 'tech', number>;
  venue: Record<'blueNote' | 'kulturhaus' | 'bengaluru', number>;
  organizer: Record<'jazzSociety' | 'makers' | 'techIndia', number>;
  event: Record<
    | 'jazzNight'
    | 'makerFaire'
    | 'marathon'
    | 'devSummit'
    | 'rockRevival'
    | 'hidden'
    | 'draft'
    | 'private'
    | 'trashed'
    | 'gala'
    | 'pottery'
    | 'comet'
    | 'jazzCamp',
    number
  >;
  slug: { jazzNight: string; venue: string; organizer: string };
}

const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string])).toString();

/** Every recorded request, built from the site's ids (the same on every fresh database). */
function plan(s: Site): Planned[] {
  const out: Planned[] = [];
  const add = (path: string, as: Caller = 'anonymous', method: Planned['method'] = 'GET') =>
    out.push({ name: `${as} ${method} ${path}`, method, path, as });
  const e = s.event;

  // events: the default window, paging, and every filter
  add('/events');
  add('/events?page=2');
  add(`/events?${query({ per_page: 50 })}`);
  add(`/events?${query({ start_date: '2029-01-01', end_date: '2034-01-01', per_page: 50 })}`);
  add(`/events?${query({ start_date: '2030-03-29', end_date: '2030-03-31' })}`);
  add(`/events?${query({ start_date: '2030-03-29 12:00', end_date: '2030-04-01 00:00', strict_dates: 'true' })}`);
  add(`/events?${query({ start_date: '2030-03-14 10:00', end_date: '2030-04-07', strict_dates: 'false' })}`);
  add(`/events?${query({ starts_after: '2030-03-20', ends_before: '2030-05-01' })}`);
  add(`/events?${query({ starts_before: '2030-03-10', ends_after: '2030-03-01' })}`);
  add(`/events?${query({ categories: 'music' })}`);
  add(`/events?${query({ categories: `${s.cat.jazz},${s.cat.workshops}`, per_page: 10 })}`);
  add(`/events?${query({ tags: 'outdoor', start_date: '2029-01-01', end_date: '2034-01-01' })}`);
  add(`/events?${query({ categories: 'jazz', tags: `${s.tag.outdoor}` })}`);
  add(`/events?${query({ venue: s.venue.blueNote })}`);
  add(`/events?${query({ organizer: `${s.organizer.makers},${s.organizer.techIndia}` })}`);
  add(`/events?${query({ featured: 'true' })}`);
  add(`/events?${query({ featured: 'false', per_page: 3, page: 2 })}`);
  add(`/events?${query({ search: 'jazz' })}`);
  add(`/events?${query({ search: 'night -jazz', start_date: '2029-01-01' })}`);
  add(`/events?${query({ has_geoloc: 'true' })}`);
  add(`/events?${query({ geoloc: 'false' })}`);
  add(`/events?${query({ geoloc_lat: 40.75, geoloc_lng: -73.98, geoloc_distance: 25 })}`);
  add(`/events?${query({ include: `${e.comet},${e.pottery},${e.jazzNight},${e.draft}` })}`);
  add(`/events?${query({ post_parent: e.jazzNight })}`);
  add(`/events?${query({ status: 'publish', per_page: 2 })}`);
  add(`/events?${query({ tickets: 'false', per_page: 1, page: 3 })}`);
  add(`/events?${query({ status: 'any', per_page: 50, start_date: '2029-01-01', end_date: '2034-01-01' })}`, 'editor');
  add(`/events?${query({ status: 'draft,private,future' })}`, 'editor');
  add(`/events?${query({ status: 'trash' })}`, 'administrator');
  add(`/events?${query({ include: `${e.hidden},${e.private}` })}`, 'administrator');

  // single events: every kind of event, by id and slug, and what each caller may see of the unpublished ones
  for (const id of [e.jazzNight, e.makerFaire, e.marathon, e.devSummit, e.rockRevival, e.hidden, e.comet, e.jazzCamp]) add(`/events/${id}`);
  add(`/events/by-slug/${s.slug.jazzNight}`);
  add(`/events/${e.draft}`);
  add(`/events/${e.draft}`, 'editor');
  add(`/events/${e.private}`);
  add(`/events/${e.private}`, 'editor');
  add(`/events/${e.gala}`);
  add(`/events/${e.gala}`, 'editor');
  add(`/events/${e.trashed}`);
  add(`/events/${e.trashed}`, 'administrator');
  add(`/events/${e.jazzNight}`, 'editor');
  add('/events/999999');
  add(`/events/${s.venue.blueNote}`);
  add('/events/by-slug/no-such-event');

  // venues and organizers
  add('/venues');
  add(`/venues?${query({ per_page: 2, page: 2 })}`);
  add(`/venues?${query({ search: 'berlin' })}`);
  add(`/venues?${query({ event: e.devSummit })}`);
  add(`/venues?${query({ only_with_upcoming: 'true' })}`);
  add(`/venues/${s.venue.blueNote}`);
  add(`/venues/${s.venue.kulturhaus}`, 'editor');
  add(`/venues/by-slug/${s.slug.venue}`);
  add(`/venues/${e.jazzNight}`);
  add('/organizers');
  add(`/organizers?${query({ has_events: 'true', per_page: 50 })}`);
  add(`/organizers/${s.organizer.jazzSociety}`);
  add(`/organizers/by-slug/${s.slug.organizer}`);

  // categories and tags
  add('/categories');
  add(`/categories?${query({ hide_empty: 'false', orderby: 'count', order: 'desc' })}`);
  add(`/categories?${query({ parent: s.cat.music })}`);
  add(`/categories/${s.cat.jazz}`);
  add('/tags');
  add(`/tags?${query({ event: e.marathon })}`);
  add(`/tags/${s.tag.freeEntry}`);
  add('/tags/999999');

  // HEAD, the envelope and JSONP
  add('/events', 'anonymous', 'HEAD');
  add(`/events/${e.jazzNight}`, 'anonymous', 'HEAD');
  add(`/events/${e.draft}`, 'anonymous', 'HEAD');
  add(`/events?${query({ _envelope: '1', per_page: 1 })}`);
  add(`/events/999999?${query({ _envelope: '' })}`);
  add(`/venues/${s.venue.bengaluru}?${query({ _jsonp: 'showVenue' })}`);
  add(`/events?${query({ _jsonp: 'alert(1)' })}`);

  // errors for bad parameters
  add('/events?page=x');
  add(`/events?${query({ per_page: 0 })}`);
  add(`/events?${query({ page: 99 })}`);
  add(`/events?${query({ start_date: 'not a date' })}`);
  add(`/events?${query({ strict_dates: '' })}`);
  add(`/events?${query({ geoloc_lat: 40.75 })}`);
  add(`/events?${query({ status: 'draft' })}`);
  add(`/events?${query({ tickets: 'true' })}`);
  add(`/events?${query({ categories: 'no-such-category' })}`);
  add(`/events?${query({ venue: s.organizer.makers })}`);
  add(`/events?${query({ post_parent: e.draft })}`);
  add(`/venues?${query({ status: 'publish,draft' })}`);
  add(`/categories?${query({ include: '999999' })}`);
  return out;
}

/** What a client sees of one response, without the headers that vary per request. */
function record(name: string, res: Response): Recorded {
  const headers: Record<string, string> = {};
  for (const key of Object.keys(res.headers).sort()) {
    if (UNRECORDED_HEADERS.has(key)) continue;
    const value = res.headers[key];
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join('\n') : String(value);
  }
  return { request: name, status: res.status, headers, body: res.text };
}

/** Where two strings first differ, with some text around it on each side; undefined when equal. */
function firstDifference(recorded: string, served: string): string | undefined {
  if (recorded === served) return undefined;
  let at = 0;
  while (at < recorded.length && at < served.length && recorded[at] === served[at]) at++;
  const around = (s: string) => JSON.stringify(`${at > 60 ? '…' : ''}${s.slice(Math.max(0, at - 60), at + 60)}${at + 60 < s.length ? '…' : ''}`);
  return `first difference at character ${at} (lengths ${recorded.length} recorded, ${served.length} served)\n  recorded: ${around(recorded)}\n  served:   ${around(served)}`;
}

/** The first way a served response differs from its record (the body before the headers: it explains Content-Length), or undefined. */
function compare(want: Recorded, got: Recorded): string | undefined {
  if (want.status !== got.status) return `status ${got.status}, recorded ${want.status}`;
  const body = firstDifference(want.body, got.body);
  if (body !== undefined) return `body: ${body}`;
  const names = [...new Set([...Object.keys(want.headers), ...Object.keys(got.headers)])].sort();
  const header = names.find((h) => want.headers[h] !== got.headers[h]);
  return header === undefined
    ? undefined
    : `header ${header}: ${JSON.stringify(got.headers[header])}, recorded ${JSON.stringify(want.headers[header])}`;
}

/** Builds the site through the write routes as an administrator, one clock minute per write. */
async function buildSite(t: TestApp): Promise<Site> {
  const write = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, json?: Record<string, unknown>) => {
    mock.timers.tick(60_000);
    const res = await t.request(method, path, { as: 'administrator', json });
    assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const id = async (path: string, json: Record<string, unknown>): Promise<number> => (await write('POST', path, json)).id;

  const music = await id('/categories', { name: 'Music', description: 'Concerts & live music' });
  const cat = {
    music,
    jazz: await id('/categories', { name: 'Jazz', parent: music, slug: 'jazz' }),
    workshops: await id('/categories', { name: 'Workshops' }),
  };
  const tag = {
    outdoor: await id('/tags', { name: 'Outdoor' }),
    family: await id('/tags', { name: 'Family friendly', slug: 'family' }),
    freeEntry: await id('/tags', { name: 'Free entry', description: 'No ticket needed' }),
    tech: await id('/tags', { name: 'Tech' }),
  };
  const venue = {
    blueNote: await id('/venues', {
      venue: 'Blue Note Hall',
      description: '<p>A basement club in the <em>Village</em>.</p>',
      address: '131 W 3rd St',
      city: 'New York',
      country: 'United States',
      state: 'NY',
      zip: '10012',
      phone: '+1 212 555 0100',
      website: 'https://bluenote.example.com',
      geo_lat: 40.7308,
      geo_lng: -73.9973,
    }),
    kulturhaus: await id('/venues', {
      venue: 'Kulturhaus Mitte',
      address: 'Auguststraße 10',
      city: 'Berlin',
      country: 'Germany',
      province: 'Berlin',
      zip: '10117',
      show_map: 'false',
    }),
    bengaluru: await id('/venues', { venue: 'Bengaluru Convention Centre', city: 'Bengaluru', country: 'India', province: 'Karnataka' }),
  };
  const organizer = {
    jazzSociety: await id('/organizers', {
      organizer: 'Village Jazz Society',
      email: 'hello@jazzsociety.example.org',
      phone: '+1 212 555 0199',
      website: 'https://jazzsociety.example.org',
    }),
    makers: await id('/organizers', { organizer: 'Berlin Makers e.V.', website: 'https://makers.example.de', description: 'Werkstatt & Verein' }),
    techIndia: await id('/organizers', { organizer: 'Tech Meetups India', email: 'team@techmeetups.example.in' }),
  };

  const jazzNight = await write('POST', '/events', {
    title: 'Spring Jazz Night',
    description: '<p>An evening of <strong>bebop</strong> &amp; swing.</p>\n\nTwo sets, one break.',
    excerpt: 'Bebop and swing',
    start_date: '2030-03-14 20:00',
    end_date: '2030-03-14 23:00',
    timezone: 'America/New_York',
    venue: venue.blueNote,
    organizer: organizer.jazzSociety,
    categories: [cat.jazz],
    tags: [tag.outdoor],
    cost: '$15',
    featured: true,
    image: 'https://images.example.com/jazz-night.jpg',
  });
  const event = {
    jazzNight: jazzNight.id as number,
    // multi-day, across the European DST change (2030-03-31)
    makerFaire: await id('/events', {
      title: 'Berlin Maker Faire',
      description: 'Three days of soldering, printing and knitting.',
      start_date: '2030-03-29 10:00',
      end_date: '2030-03-31 18:00',
      timezone: 'Europe/Berlin',
      venue: venue.kulturhaus,
      organizer: [organizer.makers],
      categories: [cat.workshops],
      tags: [tag.family, 'Makers'],
      cost: ['10€', '25€'],
    }),
    marathon: await id('/events', {
      title: 'City Marathon',
      start_date: '2030-04-07',
      end_date: '2030-04-07',
      all_day: true,
      timezone: 'UTC',
      tags: [tag.outdoor, tag.freeEntry],
      cost: '0',
      website: 'https://marathon.example.com/2030',
    }),
    devSummit: await id('/events', {
      title: 'Bengaluru Dev Summit',
      start_date: '2030-04-15 09:30',
      end_date: '2030-04-16 17:00',
      timezone: 'UTC+5:30',
      venue: venue.bengaluru,
      organizer: [organizer.techIndia, organizer.jazzSociety],
      categories: [cat.workshops],
      tags: [tag.tech],
      cost: ['₹499', '₹999'],
    }),
    rockRevival: await id('/events', {
      title: `Rock 'n' Roll "Revival" & More -- live`,
      description: 'It\'s the "best" show... <script>alert(1)</script>',
      start_date: '2030-03-05 19:00',
      end_date: '2030-03-05 22:00',
      timezone: 'America/New_York',
      venue: venue.blueNote,
      organizer: [organizer.jazzSociety, organizer.makers],
      categories: [cat.music],
      sticky: true,
      show_map_link: false,
    }),
    hidden: await id('/events', {
      title: 'Hidden Rehearsal',
      start_date: '2030-03-06 18:00',
      end_date: '2030-03-06 20:00',
      timezone: 'Europe/Berlin',
      venue: venue.kulturhaus,
      hide_from_listings: true,
    }),
    draft: await id('/events', {
      title: 'Draft Concert',
      start_date: '2030-03-20 19:00',
      end_date: '2030-03-20 21:00',
      status: 'draft',
      categories: [cat.music],
    }),
    private: await id('/events', { title: 'Private Session', start_date: '2030-03-21 10:00', end_date: '2030-03-21 11:00', status: 'private' }),
    trashed: await id('/events', { title: 'Cancelled Picnic', start_date: '2030-03-22 12:00', end_date: '2030-03-22 15:00', tags: [tag.outdoor] }),
    // published on a date ahead of the clock: scheduled
    gala: await id('/events', {
      title: 'Scheduled Gala',
      date: '2030-06-01 09:00:00',
      start_date: '2030-09-01 19:00',
      end_date: '2030-09-01 23:30',
      timezone: 'America/New_York',
      featured: true,
    }),
    pottery: await id('/events', {
      title: 'Autumn Pottery Workshop',
      start_date: '2029-11-10 10:00',
      end_date: '2029-11-10 13:00',
      timezone: 'Europe/Berlin',
      categories: [cat.workshops],
      date: '2029-09-01 08:00:00',
    }),
    // beyond the default window (24 months ahead)
    comet: await id('/events', {
      title: 'Comet Watch Night',
      start_date: '2033-07-01 22:00',
      end_date: '2033-07-02 02:00',
      timezone: 'Asia/Kolkata',
      venue: venue.bengaluru,
      tags: [tag.outdoor],
    }),
    jazzCamp: await id('/events', {
      title: 'Jazz Camp',
      start_date: '2030-05-01',
      end_date: '2030-05-03',
      all_day: true,
      timezone: 'America/New_York',
      venue: venue.blueNote,
      organizer: organizer.jazzSociety,
      categories: [cat.jazz, cat.music],
      show_map: false,
      website: 'https://jazzcamp.example.org',
      cost: 'Pay what you can',
    }),
  };
  await write('DELETE', `/events/${event.trashed}`);
  // modified later than published
  await write('PATCH', `/events/${event.rockRevival}`, { tags: ['Encore'], excerpt: 'One night only' });
  const slug = {
    jazzNight: jazzNight.slug as string,
    venue: (await t.get(`/venues/${venue.kulturhaus}`)).body.slug as string,
    organizer: (await t.get(`/organizers/${organizer.makers}`)).body.slug as string,
  };
  return { cat, tag, venue, organizer, event, slug };
}

const fixture: Fixture | undefined = !WRITE && existsSync(FIXTURE) ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : undefined;

describe(`v1 compatibility snapshot (${WRITE ? 'recording' : 'comparing'})`, () => {
  let t: TestApp;
  let planned: Planned[];

  before(async () => {
    // before the app: the services keep the `Date.now` they find when they are built
    mock.timers.enable({ apis: ['Date'], now: Date.parse(CLOCK) });
    t = await createTestApp(ENV);
    planned = plan(await buildSite(t));
  });
  after(async () => {
    await t?.close();
    mock.timers.reset();
  });

  const run = async (p: Planned) => record(p.name, await t.request(p.method, p.path, { as: p.as }));

  if (WRITE) {
    it('records every planned request into the fixture', async () => {
      const responses: Recorded[] = [];
      for (const p of planned) responses.push(await run(p));
      assert.equal(new Set(responses.map((r) => r.request)).size, responses.length, 'request names are unique');
      const out: Fixture = {
        about:
          'v1 answers recorded by test/e2e/v1-compat-snapshot.test.ts (UPDATE_V1_SNAPSHOT=1 rewrites it); compared byte for byte on every database.',
        clock: CLOCK,
        site_timezone: SITE_TIMEZONE,
        responses,
      };
      writeFileSync(FIXTURE, `${JSON.stringify(out, null, 2)}\n`);
    });
    return;
  }

  if (!fixture) {
    it('has a recorded fixture', () => assert.fail(`${FIXTURE.pathname} is missing: record it with UPDATE_V1_SNAPSHOT=1`));
    return;
  }

  it('plans exactly the requests the fixture recorded, in its order (same ids, same list)', () => {
    assert.deepEqual(
      planned.map((p) => p.name),
      fixture.responses.map((r) => r.request),
    );
  });

  for (const want of fixture.responses) {
    it(want.request, async () => {
      const p = planned.find((x) => x.name === want.request);
      assert.ok(p, `${want.request}: recorded, but no longer planned`);
      const difference = compare(want, await run(p));
      if (difference !== undefined) assert.fail(`${want.request}: ${difference}`);
    });
  }
});
