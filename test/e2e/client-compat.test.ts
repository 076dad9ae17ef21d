/**
 * Behaviour real clients of the original depend on (issue 11 §5), on both databases: loosely shaped term
 * lists, clearing an image with "", publication dates read in the site's zone, slugs for draft venues and
 * organizers, partial venue updates that keep an explicit stateprovince, and long titles' slugs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';

describe('what clients of the original send and expect', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: 'America/New_York' })));
  after(() => t.close());

  it('takes categories and tags sent as a JSON object (its values are the list; {} is none), on create and update', async () => {
    const jazz = await makeCategory(t, { name: 'Object jazz' });
    const blues = await makeCategory(t, { name: 'Object blues' });
    const tag = await makeTag(t, { name: 'object-tag' });
    const created = await t.post('/events', {
      as: 'editor',
      json: {
        title: 'Object terms',
        start_date: '2031-01-01 10:00',
        end_date: '2031-01-01 11:00',
        categories: { id: jazz.id },
        tags: { a: tag.id, b: 'object-new-tag' },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.body.categories.map((c: { id: number }) => c.id),
      [jazz.id],
    );
    assert.deepEqual(created.body.tags.map((c: { slug: string }) => c.slug).sort(), ['object-new-tag', 'object-tag']);

    const updated = await t.patch(`/events/${created.body.id}`, { as: 'editor', json: { categories: { 0: blues.id, 1: jazz.id }, tags: {} } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body.categories.map((c: { id: number }) => c.id).sort(), [jazz.id, blues.id].sort());
    assert.deepEqual(updated.body.tags, [], '{} is the empty list');
    const read = await t.get(`/events/${created.body.id}`);
    assert.deepEqual(read.body.categories.map((c: { id: number }) => c.id).sort(), [jazz.id, blues.id].sort());

    const nested = await t.patch(`/events/${created.body.id}`, { as: 'editor', json: { categories: { a: { b: 1 } } } });
    assert.equal(nested.status, 400, 'an object of objects is still not a list of terms');
    assert.equal(nested.body.code, 'rest_invalid_param');
    assert.ok('categories' in nested.body.data.params);
  });

  it('clears an event image with "" on update, and creates without one', async () => {
    const e = await makeEvent(t, { image: 'https://example.org/poster.png' });
    assert.equal(e.image.url, 'https://example.org/poster.png');
    const cleared = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { image: '' } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.image, false);
    assert.equal((await t.get(`/events/${e.id}`)).body.image, false);
    const none = await t.post('/events', {
      as: 'administrator',
      json: { title: 'No image', start_date: '2031-02-01', end_date: '2031-02-01', image: '' },
    });
    assert.equal(none.status, 201, none.text);
    assert.equal(none.body.image, false);
  });

  it("reads an event's publication date in the site time zone, not the event's, on create and update", async () => {
    // site: New York (UTC-4 in May); event: Tokyo
    const e = await makeEvent(t, { timezone: 'Asia/Tokyo', date: '2020-05-01 09:00:00' });
    assert.equal(e.date, '2020-05-01 09:00:00');
    assert.equal(e.date_utc, '2020-05-01 13:00:00');
    const moved = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { date: '2020-06-01 08:30:00' } });
    assert.equal(moved.body.date, '2020-06-01 08:30:00');
    assert.equal(moved.body.date_utc, '2020-06-01 12:30:00');
    assert.equal(moved.body.timezone, 'Asia/Tokyo', 'the event keeps its own zone for its dates');
    const utc = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { date_utc: '2020-07-01 00:00:00' } });
    assert.equal(utc.body.date_utc, '2020-07-01 00:00:00');
    assert.equal(utc.body.date, '2020-06-30 20:00:00');
  });

  for (const type of ['venue', 'organizer'] as const) {
    it(`gives a draft ${type} a slug from its name, readable by slug to those who may read it`, async () => {
      const draft = await makeLinked(t, type, { [type]: `Draft ${type} place`, status: 'draft' });
      assert.equal(draft.status, 'draft');
      assert.equal(draft.slug, `draft-${type}-place`);
      const byEditor = await t.get(`/${type}s/by-slug/${draft.slug}`, { as: 'editor' });
      assert.equal(byEditor.status, 200, byEditor.text);
      assert.equal(byEditor.body.id, draft.id);
      const byAnonymous = await t.get(`/${type}s/by-slug/${draft.slug}`);
      assert.equal(byAnonymous.status, 403);
      assert.equal(byAnonymous.body.code, `${type}-not-accessible`);
      // drafts skip the uniqueness check (as in WordPress); publishing makes the slug unique
      const twin = await makeLinked(t, type, { [type]: `Draft ${type} place`, description: 'another one', status: 'draft' });
      assert.notEqual(twin.id, draft.id);
      assert.equal(twin.slug, `draft-${type}-place`);
      const published = await t.patch(`/${type}s/${draft.id}`, { as: 'administrator', json: { status: 'publish' } });
      assert.equal(published.body.slug, `draft-${type}-place`);
      const twinPublished = await t.patch(`/${type}s/${twin.id}`, { as: 'administrator', json: { status: 'publish' } });
      assert.equal(twinPublished.body.slug, `draft-${type}-place-2`);
    });
  }

  it('keeps an explicitly set stateprovince through partial updates that send country, state or province', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Explicit SP hall', country: 'US', state: 'NY', stateprovince: 'New York State' });
    assert.equal(v.stateprovince, 'New York State');
    for (const patch of [{ country: 'Canada' }, { province: 'Ontario' }, { state: 'NJ' }]) {
      const res = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: patch });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.stateprovince, 'New York State', JSON.stringify(patch));
    }
    const renamed = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { stateprovince: 'Ontario (set)' } });
    assert.equal(renamed.body.stateprovince, 'Ontario (set)', 'sending the field sets it');
    const cleared = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { stateprovince: '' } });
    assert.equal(cleared.body.stateprovince, 'Ontario', 'empty goes back to deriving it (Canada: the province)');
    const derived = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { country: 'US' } });
    assert.equal(derived.body.stateprovince, 'NJ', 'a derived one follows the country, state and province');
  });

  it('derives stateprovince for a venue that never had one sent', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Derived SP hall', country: 'Germany', state: 'x', province: 'Bavaria' });
    assert.equal(v.stateprovince, 'Bavaria');
    const us = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { country: 'United States' } });
    assert.equal(us.body.stateprovince, 'x');
    const phone = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { phone: '123' } });
    assert.equal(phone.body.stateprovince, 'x', 'an update that touches none of them leaves it');
  });

  it('keeps slugs of long titles within 200 characters when they need a number', async () => {
    const title = 'x'.repeat(200);
    const first = await makeEvent(t, { title });
    const second = await makeEvent(t, { title });
    assert.equal(first.slug, 'x'.repeat(200));
    assert.equal(second.slug, `${'x'.repeat(198)}-2`);
  });
});

/**
 * Public third-party clients of the original, each replayed as its code calls the API (paths, query strings, headers
 * and bodies as it builds them), asserting the fields and headers it reads. One case per client; the comment names
 * the client's repository and file.
 */
describe('third-party clients of the original, replayed', () => {
  const WP = '/wp-json/tribe/events/v1';
  const basic = (t: TestApp) => t.authHeader('administrator');
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: 'America/New_York' })));
  after(() => t.close());

  // amancevice/fest, fest/tribe.py (TribeAPI): mirrors Facebook events into the calendar. add_event/patch_event
  // POST the event as JSON to {TRIBE_ENDPOINT}/events/{post id} with a hand-built `Authorization: Basic` header
  // (login + application password); get_event/iter_events GET {TRIBE_ENDPOINT}/events/{id} with it and read the JSON.
  it('amancevice/fest: updates an event by POST /events/{id} with its Facebook fields, then reads it back', async () => {
    const e = await makeEvent(t, { title: 'Before the sync' });
    const facebookId = '1234567890123456';
    const tribeEvent = {
      description: '<img src="https://scontent.example/cover.jpg"/>\nDance party',
      end_date: '2031-05-01 23:30:00',
      slug: facebookId,
      start_date: '2031-05-01 20:00:00',
      timezone: 'America/Chicago',
      title: 'Facebook party',
      website: `https://www.facebook.com/events/${facebookId}`,
    };
    const posted = await t.post(`${WP}/events/${e.id}`, { headers: basic(t), json: tribeEvent });
    assert.equal(posted.status, 200, posted.text);
    assert.equal(posted.body.id, e.id);
    assert.equal(posted.body.slug, facebookId, 'an all-digit slug is kept as sent');
    assert.equal(posted.body.title, 'Facebook party');
    assert.equal(posted.body.timezone, 'America/Chicago');
    assert.equal(posted.body.start_date, '2031-05-01 20:00:00', 'wall time in the event zone');
    assert.equal(posted.body.end_date, '2031-05-01 23:30:00');
    assert.equal(posted.body.utc_start_date, '2031-05-02 01:00:00');
    assert.equal(posted.body.website, tribeEvent.website);
    assert.match(posted.body.description, /^<p><img src="https:\/\/scontent\.example\/cover\.jpg" ?\/?><br \/>\nDance party<\/p>$/);

    const read = await t.get(`${WP}/events/${e.id}`, { headers: basic(t) });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      { slug: read.body.slug, title: read.body.title, start: read.body.start_date, tz: read.body.timezone },
      { slug: facebookId, title: 'Facebook party', start: '2031-05-01 20:00:00', tz: 'America/Chicago' },
    );

    const wrongPassword = await t.post(`${WP}/events/${e.id}`, { as: 'bad', json: tribeEvent });
    assert.equal(wrongPassword.status, 401, 'a revoked application password is a JSON 401, not an anonymous write');
    assert.equal(wrongPassword.body.code, 'incorrect_password');
  });

  // jonathanmalkin/event-distribution-app, backend/src/services/WordPressImportService.ts (fetchWordPressEvents) and
  // backend/src/services/platforms/WordPressService.ts (createVenue, getOrCreateOrganizer). axios on Node: every
  // request carries `Authorization: Basic` and `Content-Type: application/json`, the GET too (without a body). The
  // import pages with page/per_page=50/status=publish,draft plus start_date_after/start_date_before (ISO 8601, not
  // parameters of the original: ignored there), stops when a page has fewer than 50 events, and reads id, title,
  // status, start_date, url, modified and venue.{id,venue,address,city,state,zip}. It creates venues and organizers by
  // JSON POST and reads `.id`; it takes the organizer list for an array (`data.length`) and, finding none, creates one.
  it('jonathanmalkin/event-distribution-app: imports published and draft events, creates a venue and an organizer', async () => {
    const venue = await makeLinked(t, 'venue', {
      venue: 'Analog Coffee',
      address: '235 Summit Ave E',
      city: 'Seattle',
      state: 'WA',
      zip: '98102',
      country: 'US',
    });
    const published = await makeEvent(t, { title: 'Distribution published', venue: venue.id });
    const draft = await makeEvent(t, { title: 'Distribution draft', status: 'draft' });
    const now = Date.now();
    const params = new URLSearchParams({
      page: '1',
      per_page: '50',
      status: 'publish,draft',
      start_date_after: new Date(now - 182 * 86400_000).toISOString(),
      start_date_before: new Date(now + 365 * 86400_000).toISOString(),
    });
    const headers = { ...basic(t), 'content-type': 'application/json', accept: 'application/json, text/plain, */*' };
    const list = await t.get(`${WP}/events?${params}`, { headers });
    assert.equal(list.status, 200, list.text);
    assert.ok(Array.isArray(list.body.events));
    assert.ok(list.body.events.length < 50, 'a short page ends its paging');
    const byId = new Map(list.body.events.map((e: any) => [e.id, e]));
    const pub: any = byId.get(published.id);
    const dr: any = byId.get(draft.id);
    assert.ok(pub && dr, 'status=publish,draft lists both for an administrator');
    assert.equal(pub.status, 'publish');
    assert.equal(dr.status, 'draft');
    for (const e of [pub, dr]) {
      assert.equal(typeof e.title, 'string');
      assert.match(e.start_date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      assert.match(e.modified, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      assert.ok(!Number.isNaN(new Date(e.modified).getTime()), 'modified parses as a date');
    }
    assert.equal(pub.url, 'http://calendar.test/event/distribution-published/');
    assert.equal(dr.url, `http://calendar.test/?post_type=tribe_events&p=${draft.id}`, 'a draft has no permalink, as recorded');
    assert.deepEqual(
      { id: pub.venue.id, venue: pub.venue.venue, address: pub.venue.address, city: pub.venue.city, state: pub.venue.state, zip: pub.venue.zip },
      { id: venue.id, venue: 'Analog Coffee', address: '235 Summit Ave E', city: 'Seattle', state: 'WA', zip: '98102' },
    );
    assert.deepEqual(dr.venue, [], 'no venue is an empty array, as the client tests with !wpVenue.venue');

    const createdVenue = await t.post(`${WP}/venues`, {
      headers: basic(t),
      json: { venue: 'Kinky Coffee Hall', address: '1 Pike St', city: 'Seattle', state: 'WA', zip: '98101', country: 'US' },
    });
    assert.equal(createdVenue.status, 201, createdVenue.text);
    assert.equal(typeof createdVenue.body.id, 'number');

    const organizers = await t.get(`${WP}/organizers`, { headers: { ...basic(t), accept: 'application/json, text/plain, */*' } });
    assert.equal(organizers.status, 200, organizers.text);
    assert.equal(Array.isArray(organizers.body), false, 'an object, as in the original: the client sees no organizers');
    assert.ok(Array.isArray(organizers.body.organizers));
    const createdOrganizer = await t.post(`${WP}/organizers`, {
      headers: basic(t),
      json: { organizer: 'Event Organizer', email: 'events@kinky.coffee', website: 'https://kinky.coffee' },
    });
    assert.equal(createdOrganizer.status, 201, createdOrganizer.text);
    assert.equal(typeof createdOrganizer.body.id, 'number');
    assert.equal(createdOrganizer.body.email, 'events@kinky.coffee');
  });

  // carlosn96/FundacionGaribiRivera, public/dev/index.php: PHP curl of
  // events?status=publish&start_date=2024-01-01&order=desc&orderby=start_date (http_build_query), anonymous; reads
  // events[].title, description, date, url and image.url. The original has no order/orderby on this route: ignored.
  it('carlosn96/FundacionGaribiRivera: lists published events from a date with order/orderby ignored', async () => {
    const first = await makeEvent(t, {
      title: 'Fundacion first',
      start_date: '+3 days 9am',
      end_date: '+3 days 10am',
      image: 'https://example.org/flyer.png',
    });
    const second = await makeEvent(t, { title: 'Fundacion second', start_date: '+4 days 9am', end_date: '+4 days 10am' });
    const res = await t.get(`${WP}/events?status=publish&start_date=2024-01-01&order=desc&orderby=start_date&per_page=50`);
    assert.equal(res.status, 200, res.text);
    const ids = res.body.events.map((e: any) => e.id);
    assert.ok(ids.indexOf(first.id) >= 0 && ids.indexOf(first.id) < ids.indexOf(second.id), 'still ascending by start');
    const starts = res.body.events.map((e: any) => e.start_date);
    assert.deepEqual(starts, [...starts].sort(), 'order=desc changes nothing');
    assert.match(res.body.rest_url, /start_date=2024-01-01%2000%3A00%3A00/);
    assert.doesNotMatch(res.body.rest_url, /order/);
    const f = res.body.events.find((e: any) => e.id === first.id);
    const s = res.body.events.find((e: any) => e.id === second.id);
    assert.equal(f.title, 'Fundacion first');
    assert.equal(typeof f.description, 'string');
    assert.match(f.date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.match(f.url, /^http:\/\/calendar\.test\/event\/fundacion-first\/$/);
    assert.equal(f.image.url, 'https://example.org/flyer.png');
    assert.equal(s.image, false, 'no image is false (PHP reads false["url"] as null)');

    const anyStatus = await t.get(`${WP}/events?status=draft`);
    assert.equal(anyStatus.status, 400, 'anonymous: only publish');
    assert.equal(anyStatus.body.code, 'rest_invalid_param');
  });

  // tsw38/kdr-alumni, functions-api.php (getAllEvents, getEventData): PHP curl of get_site_url() .
  // "/wp-json/tribe/events/v1/events/" (trailing slash) and ".../events/" . $eventID, anonymous, json_decode.
  it('tsw38/kdr-alumni: reads the list at events/ (trailing slash) and an event at events/{id}', async () => {
    const e = await makeEvent(t, { title: 'Alumni homecoming' });
    const slash = await t.get(`${WP}/events/`);
    const bare = await t.get(`${WP}/events`);
    assert.equal(slash.status, 200, slash.text);
    assert.deepEqual(slash.body, bare.body, 'the trailing slash names the same list');
    assert.equal(slash.headers['x-tec-total'], bare.headers['x-tec-total']);
    assert.ok(slash.body.events.some((x: any) => x.id === e.id));
    const single = await t.get(`${WP}/events/${e.id}`);
    assert.equal(single.status, 200, single.text);
    assert.equal(single.body.title, 'Alumni homecoming');
    assert.equal(typeof single.body.json_ld, 'object', 'a single event carries json_ld');
    const singleSlash = await t.get(`${WP}/events/${e.id}/`);
    assert.equal(singleSlash.status, 200, singleSlash.text);
    assert.equal(singleSlash.body.id, e.id);
    const missing = await t.get(`${WP}/events/999999`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
  });

  // erinoerin/gatsby-source-tribe-events, gatsby-node.js: a Gatsby source plugin. axios GET of events
  // (params per_page=maxEvents, default 10), venues, organizers, categories and tags (per_page=50 each), anonymous;
  // reads data.events / data.venues / data.organizers / data.categories / data.tags, spreads every object into a
  // node keyed by its numeric id; its README queries title, slug, all_day, start_date, end_date, featured,
  // venue {venue, url, slug, address, city, state, zip}, description.
  it('erinoerin/gatsby-source-tribe-events: sources events, venues, organizers, categories and tags', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Gatsby Hall', address: '9 Node St', city: 'Build', state: 'CA', zip: '90001' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Gatsby Org' });
    const category = await makeCategory(t, { name: 'Gatsby category' });
    const tag = await makeTag(t, { name: 'gatsby-tag' });
    const e = await makeEvent(t, {
      title: 'Gatsby build night',
      venue: venue.id,
      organizer: organizer.id,
      categories: [category.id],
      tags: [tag.id],
      featured: true,
      description: 'Static <b>sites</b>',
    });
    const lists: Record<string, any> = {};
    for (const [endpoint, perPage] of [
      ['events', 10],
      ['venues', 50],
      ['organizers', 50],
      ['categories', 50],
      ['tags', 50],
    ] as const) {
      const res = await t.get(`${WP}/${endpoint}`, { query: { per_page: perPage } });
      assert.equal(res.status, 200, `${endpoint}: ${res.text}`);
      assert.ok(Array.isArray(res.body[endpoint]), endpoint);
      assert.ok(res.body[endpoint].length <= perPage);
      for (const item of res.body[endpoint]) assert.equal(typeof item.id, 'number', `${endpoint} items are keyed by a numeric id`);
      lists[endpoint] = res.body[endpoint];
    }
    const node = lists.events.find((x: any) => x.id === e.id);
    assert.ok(node, 'the event is on the first 10');
    assert.equal(node.title, 'Gatsby build night');
    assert.equal(node.slug, 'gatsby-build-night');
    assert.equal(node.all_day, false);
    assert.equal(node.featured, true);
    assert.match(node.start_date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.match(node.end_date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.match(node.description, /Static <b>sites<\/b>/);
    assert.deepEqual(
      {
        venue: node.venue.venue,
        url: node.venue.url,
        slug: node.venue.slug,
        address: node.venue.address,
        city: node.venue.city,
        state: node.venue.state,
        zip: node.venue.zip,
      },
      {
        venue: 'Gatsby Hall',
        url: 'http://calendar.test/venue/gatsby-hall/',
        slug: 'gatsby-hall',
        address: '9 Node St',
        city: 'Build',
        state: 'CA',
        zip: '90001',
      },
    );
    assert.ok(lists.venues.some((v: any) => v.id === venue.id && v.venue === 'Gatsby Hall'));
    assert.ok(lists.organizers.some((o: any) => o.id === organizer.id && o.organizer === 'Gatsby Org'));
    assert.ok(lists.categories.some((c: any) => c.id === category.id && c.slug === 'gatsby-category'));
    assert.ok(lists.tags.some((c: any) => c.id === tag.id && c.slug === 'gatsby-tag'));
  });
});

// Extra-Chill/data-machine-events, inc/Steps/EventImport/Handlers/WebScraper/Extractors/WordPressExtractor.php and
// Paginators/JsonApiPaginator.php: a WordPress importer. It GETs {site}/wp-json/tribe/events/v1/events?per_page=100
// with `Accept: application/json`, takes the answer for TEC's only when it has both `events` and `rest_url`, maps
// start_date/end_date (+ start_date_details.hour/minutes), all_day, title, description, venue.{venue, address, city,
// state|province, zip, country, phone, website|url, geo_lat, geo_lng}, organizer[0].{organizer, website|url}, cost,
// website|url and image.url; then pages by adding page=N to the URL it fetched while N <= total_pages (the body has
// no `page` key, so it reads the page from its URL). per_page=100 is capped at 50 by the original.
describe('Extra-Chill/data-machine-events: imports every event through per_page=100 pages', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: 'America/New_York' })));
  after(() => t.close());

  it('gets 50 a page with total_pages counted at 50, and every field it maps', async () => {
    const venue = await makeLinked(t, 'venue', {
      venue: 'Importer Club',
      address: '1 Loud St',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      country: 'United States',
      phone: '512-555-0100',
      website: 'https://club.example',
    });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Importer Promotions', website: 'https://promo.example' });
    const mapped = await makeEvent(t, {
      title: 'Importer headline show',
      start_date: '+2 days 20:30',
      end_date: '+2 days 23:45',
      venue: venue.id,
      organizer: [organizer.id],
      cost: '15',
      website: 'https://tickets.example/show',
      image: 'https://example.org/band.jpg',
    });
    const allDay = await makeEvent(t, { title: 'Importer all-day fair', start_date: '+3 days', end_date: '+3 days', all_day: true });
    for (let i = 0; i < 49; i++) await makeEvent(t, { title: `Importer filler ${i}`, start_date: '+10 days 10am', end_date: '+10 days 11am' });

    const url = '/wp-json/tribe/events/v1/events?per_page=100';
    const first = await t.get(url, { headers: { accept: 'application/json' } });
    assert.equal(first.status, 200, first.text);
    assert.ok(Array.isArray(first.body.events) && typeof first.body.rest_url === 'string', 'recognised as TEC v1 (events + rest_url)');
    assert.equal(first.body.page, undefined, 'no page key: the client reads the page from its own URL');
    assert.equal(first.body.events.length, 50, 'per_page=100 is capped at 50');
    assert.equal(first.body.total, 51);
    assert.equal(first.body.total_pages, 2);
    assert.equal(first.headers['x-tec-totalpages'], '2');
    assert.match(first.body.rest_url, /per_page=50/);

    const second = await t.get(`${url}&page=2`, { headers: { accept: 'application/json' } });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.events.length, 1);
    assert.equal(second.body.total_pages, 2, 'page 2 of 2: the paging stops');
    const seen = new Set([...first.body.events, ...second.body.events].map((e: any) => e.id));
    assert.equal(seen.size, 51, 'every event once');

    const e = first.body.events.find((x: any) => x.id === mapped.id);
    assert.equal(e.title, 'Importer headline show');
    assert.equal(typeof e.description, 'string');
    assert.match(e.start_date, / 20:30:00$/);
    assert.deepEqual([e.start_date_details.hour, e.start_date_details.minutes], ['20', '30'], 'strings, as sprintf %02d reads them');
    assert.deepEqual([e.end_date_details.hour, e.end_date_details.minutes], ['23', '45']);
    assert.equal(e.all_day, false);
    assert.deepEqual(
      [e.venue.venue, e.venue.address, e.venue.city, e.venue.state, e.venue.zip, e.venue.country, e.venue.phone, e.venue.website],
      ['Importer Club', '1 Loud St', 'Austin', 'TX', '78701', 'United States', '512-555-0100', 'https://club.example'],
    );
    assert.equal(e.venue.geo_lat, undefined, 'no coordinates: no geo fields (the client tests !empty)');
    assert.ok(Array.isArray(e.organizer));
    assert.deepEqual([e.organizer[0].organizer, e.organizer[0].website], ['Importer Promotions', 'https://promo.example']);
    assert.equal(e.cost, '$15');
    assert.equal(e.website, 'https://tickets.example/show');
    assert.equal(e.image.url, 'https://example.org/band.jpg');
    const a = [...first.body.events, ...second.body.events].find((x: any) => x.id === allDay.id);
    assert.equal(a.all_day, true);
    assert.match(a.start_date, / 00:00:00$/);
  });
});

// superartificial/xr, src/app/wordpress/wordpress.service.ts (getEvents) and src/app/model/event.model.ts: an
// Angular site in the browser, on another origin than the calendar. HttpClient GET
// {api-endpoint}tribe/events/v1/events?start_date=now (no credentials); reads events, rest_url, next_rest_url,
// total, total_pages and events[].title, start_date, end_date, all_day, organizer[{organizer, phone, email}],
// categories[{name, slug}]. From another origin it needs CORS: on for every origin by default, as WordPress.
describe('superartificial/xr: a browser app on another origin lists upcoming events', () => {
  const ORIGIN = 'https://xr.example.org';
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: 'America/New_York' })));
  after(() => t.close());

  it('gets events from today with the fields it renders, readable cross-origin with the default settings', async () => {
    const organizer = await makeLinked(t, 'organizer', { organizer: 'XR Local Group', phone: '+64 21 555 0101', email: 'local@xr.example.org' });
    const category = await makeCategory(t, { name: 'Climate Action' });
    const e = await makeEvent(t, { title: 'Rebellion meeting', organizer: organizer.id, categories: [category.id] });
    const res = await t.get('/wp-json/tribe/events/v1/events?start_date=now', {
      headers: { origin: ORIGIN, accept: 'application/json, text/plain, */*' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-expose-headers']), /X-WP-Total/);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date());
    assert.match(res.body.rest_url, new RegExp(`start_date=${today}%2000%3A00%3A00`), '"now" starts the window at the beginning of today');
    assert.equal(typeof res.body.total, 'number');
    assert.equal(typeof res.body.total_pages, 'number');
    const ev = res.body.events.find((x: any) => x.id === e.id);
    assert.ok(ev);
    assert.equal(ev.title, 'Rebellion meeting');
    assert.equal(ev.all_day, false);
    assert.match(ev.start_date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.ok(!Number.isNaN(new Date(ev.end_date).getTime()), 'end_date parses as a date');
    assert.deepEqual(
      ev.organizer.map((o: any) => [o.organizer, o.phone, o.email]),
      [['XR Local Group', '+64 21 555 0101', 'local@xr.example.org']],
    );
    assert.deepEqual(
      ev.categories.map((c: any) => [c.name, c.slug]),
      [['Climate Action', 'climate-action']],
    );

    const bad = await t.get('/wp-json/tribe/events/v1/events?start_date=before%20my%20birthday', { headers: { origin: ORIGIN } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.equal(bad.headers['access-control-allow-origin'], '*', 'errors are readable cross-origin too');
  });
});
