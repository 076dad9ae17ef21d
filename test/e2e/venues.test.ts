import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VenueSchema } from '../../src/http/routes/venues-organizers/venues-organizers.schemas.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';
import { keysWith } from '../helpers/shapes.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;

describe('venues: create and read', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('creates a venue: 201, keys in order, empty fields left out, maps on by default', async () => {
    const res = await t.post('/venues', {
      as: 'administrator',
      form: {
        venue: 'Blue Hall',
        address: '1 Main St',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        country: 'United States',
        phone: '555-1234',
        website: 'https://blue.example.org',
      },
    });
    assert.equal(res.status, 201);
    const v = res.body;
    assert.deepEqual(
      Object.keys(v),
      keysWith(VenueSchema, ['author', 'slug', 'address', 'city', 'country', 'state', 'zip', 'phone', 'website', 'stateprovince']),
    );
    assert.equal(v.venue, 'Blue Hall');
    assert.equal(v.slug, 'blue-hall');
    assert.equal(v.url, `${PUBLIC_URL}/venue/blue-hall/`);
    assert.equal(v.stateprovince, 'IL', 'US: the state');
    assert.equal(v.show_map, true);
    assert.equal(v.show_map_link, true);
    assert.equal(v.author, String(t.users.administrator.id));
    assert.equal(res.headers.location, `${NS}/venues/${v.id}`);
  });

  it("makes slugs with WordPress' remove_accents: ß is s, þ th, œ oe (recorded: `„Grüße“` → `gruse`)", async () => {
    // tec-6.17/anonymous/events/single/63.json: `Ünïcödé Ümlaut Fest — „Grüße“` → `unicode-umlaut-fest-gruse`
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Grüße Halle' } });
    assert.equal(venue.body.slug, 'gruse-halle');
    const organizer = await t.post('/organizers', { as: 'administrator', json: { organizer: 'Þórður Œuvre' } });
    assert.equal(organizer.body.slug, 'thordur-oeuvre');
    const tag = await t.post('/tags', { as: 'administrator', json: { name: 'Straße' } });
    assert.equal(tag.body.slug, 'strase');
  });

  it('derives stateprovince from the province outside the US, and takes it when sent', async () => {
    const fr = await makeLinked(t, 'venue', { country: 'France', province: 'Ile de France', state: 'ignored' });
    assert.equal(fr.stateprovince, 'Ile de France');
    const sent = await makeLinked(t, 'venue', { country: 'Canada', province: 'Ontario', stateprovince: 'ON' });
    assert.equal(sent.stateprovince, 'ON');
  });

  it('reads show_map flags as the original (strings: false/0 are false)', async () => {
    const off = await makeLinked(t, 'venue', { show_map: 'false', show_map_link: '0' });
    assert.deepEqual([off.show_map, off.show_map_link], [false, false]);
    const on = await makeLinked(t, 'venue', { show_map: 'yes', show_map_link: 'true' });
    assert.deepEqual([on.show_map, on.show_map_link], [true, true]);
    for (const value of [true, 0]) {
      const typed = await t.post('/venues', { as: 'administrator', json: { venue: `Typed ${value}`, show_map: value } });
      assert.equal(typed.status, 400, `JSON ${value}: a string argument in the original`);
      assert.equal(typed.body.code, 'rest_invalid_param');
      assert.ok(typed.body.data.params.show_map);
    }
  });

  it('stores coordinates and strips tags from text fields', async () => {
    const v = await makeLinked(t, 'venue', { geo_lat: 48.8566, geo_lng: '2.3522', address: '<b>10</b>  rue   X' });
    assert.equal(v.geo_lat, 48.8566);
    assert.equal(v.geo_lng, 2.3522);
    assert.equal(v.address, '10 rue X');
  });

  it('validates: name required and non-empty, website, author, dates, status, coordinates', async () => {
    const missing = await t.post('/venues', { as: 'administrator', form: { city: 'x' } });
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['venue']);
    for (const [k, v] of [
      ['venue', ''],
      ['website', 'foo'],
      ['author', '23999'],
      ['author', 'foo'],
      ['date', 'foo'],
      ['date_utc', 'foo'],
      ['status', 'kinda_thinking_about_it'],
      ['geo_lat', '91'],
      ['geo_lng', 'east'],
      ['image', 'foo bar'],
    ]) {
      const res = await t.post('/venues', { as: 'administrator', form: { venue: 'V', [k]: v } });
      assert.equal(res.status, 400, `${k}=${v}`);
      assert.equal(res.body.code, 'rest_invalid_param', `${k}=${v}`);
      assert.ok(k in res.body.data.params, `${k}=${v}`);
    }
    const extra = await t.post('/venues', { as: 'administrator', form: { venue: 'With extras', timezone: 'nonsense' } });
    assert.equal(extra.status, 201, 'undeclared arguments are ignored');
  });

  it('needs a contributor or more; 401 anonymous (after validation)', async () => {
    assert.equal((await t.post('/venues', { form: { venue: 'Anon' } })).status, 401);
    assert.equal((await t.post('/venues', { form: {} })).status, 400);
    assert.equal((await t.post('/venues', { as: 'subscriber', form: { venue: 'Sub' } })).status, 403);
    const c = await t.post('/venues', { as: 'contributor', form: { venue: 'By contributor' } });
    assert.equal(c.status, 201);
    assert.equal(c.body.status, 'draft');
    assert.equal(c.body.slug, 'by-contributor', 'drafts get a slug from their name, as in the original');
  });

  it('reuses a venue of the same name (any case) instead of making a duplicate', async () => {
    const first = await makeLinked(t, 'venue', { venue: 'The Dome', phone: '111' });
    const again = await t.post('/venues', { as: 'administrator', json: { venue: 'the dome', phone: '222' } });
    assert.equal(again.status, 201);
    assert.equal(again.body.id, first.id);
    assert.equal(again.body.phone, '222', 'the sent fields are written onto it');
    const described = await makeLinked(t, 'venue', { venue: 'The Dome', description: 'Another dome' });
    assert.notEqual(described.id, first.id, 'a different description is a different venue');
    const byContributor = await t.post('/venues', { as: 'contributor', json: { venue: 'THE DOME', phone: '333' } });
    assert.equal(byContributor.body.id, first.id, 'reused');
    assert.equal((await t.get(`/venues/${first.id}`)).body.phone, '222', 'but not changed by someone who may not edit it');
  });

  it('reads a published venue with json_ld; 403 venue-not-accessible for drafts; 400 for wrong ids', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Readable Venue', city: 'Lyon', country: 'France', geo_lat: 45.76, geo_lng: 4.83 });
    const res = await t.get(`/venues/${v.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.json_ld['@type'], 'Place');
    assert.equal(res.body.json_ld.address.addressLocality, 'Lyon');
    assert.deepEqual(res.body.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 45.76, longitude: 4.83 });
    assert.deepEqual(Object.keys(res.body).slice(-5), ['json_ld', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage']);
    assert.deepEqual((await t.get(`/venues/by-slug/${v.slug}`)).body, res.body);

    const draft = await makeLinked(t, 'venue', { venue: 'Draft venue', status: 'draft' }, 'contributor');
    for (const caller of ['anonymous', 'subscriber', 'contributor2', 'author'] as const) {
      const denied = await t.get(`/venues/${draft.id}`, { as: caller });
      assert.equal(denied.status, 403, caller);
      assert.equal(denied.body.code, 'venue-not-accessible');
      // the original's words (recorded: anonymous/venues/single/non-public-18.json)
      assert.equal(denied.body.message, 'The requested venue is not accessible');
    }
    assert.equal((await t.get(`/venues/${draft.id}`, { as: 'editor' })).status, 200);
    assert.equal((await t.get(`/venues/${draft.id}`, { as: 'contributor' })).status, 200);

    const event = await makeEvent(t);
    assert.equal((await t.get('/venues/999999')).status, 400);
    assert.equal((await t.get(`/venues/${event.id}`)).body.code, 'rest_invalid_param');
    assert.equal((await t.get('/venues/foo')).status, 404);
    assert.equal((await t.get('/venues/by-slug/nothing-here')).status, 400);
  });
});

describe('venues: update and delete', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('updates only what is sent; an empty value clears and the key disappears', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Partial', city: 'Nice', phone: '123', country: 'France', province: 'PACA', show_map: 'false' });
    const res = await t.put(`/venues/${v.id}`, { as: 'administrator', form: { phone: '', zip: '06000' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.phone, undefined);
    assert.equal(res.body.zip, '06000');
    assert.equal(res.body.city, 'Nice');
    assert.equal(res.body.stateprovince, 'PACA');
    assert.equal(res.body.show_map, false, 'flags are not reset');
    const renamed = await t.patch(`/venues/${v.id}`, { as: 'administrator', json: { venue: 'Renamed', country: 'United States', state: 'NY' } });
    assert.equal(renamed.body.venue, 'Renamed');
    assert.equal(renamed.body.slug, 'partial', 'renaming keeps the slug');
    assert.equal(renamed.body.stateprovince, 'NY');
    const bySlug = await t.post(`/venues/by-slug/partial`, { as: 'administrator', json: { city: 'Albany' } });
    assert.equal(bySlug.body.city, 'Albany');
  });

  it('enforces per-object permissions on id and slug routes', async () => {
    const admins = await makeLinked(t, 'venue', { venue: 'Admins venue' });
    const own = await makeLinked(t, 'venue', { venue: 'Own draft venue', status: 'draft' }, 'contributor');
    assert.equal((await t.put(`/venues/${admins.id}`, { as: 'contributor', json: { city: 'x' } })).status, 403);
    assert.equal((await t.put(`/venues/by-slug/${admins.slug}`, { as: 'contributor', json: { city: 'x' } })).status, 403);
    assert.equal((await t.del(`/venues/${admins.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.del(`/venues/by-slug/${admins.slug}`, { as: 'author' })).status, 403);
    assert.equal((await t.put(`/venues/${own.id}`, { as: 'contributor', json: { city: 'Mine' } })).status, 200);
    assert.equal((await t.put(`/venues/${admins.id}`, { json: { city: 'x' } })).status, 401);
    assert.equal((await t.put(`/venues/${admins.id}`, { as: 'editor', json: { city: 'Edited' } })).status, 200);
    assert.equal((await t.del('/venues/23999')).status, 400, 'validation before permission');
  });

  it('trashes: 200, then 410 venue-is-in-trash; events lose the venue', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Doomed' });
    const e = await makeEvent(t, { venue: v.id });
    assert.equal(e.venue.id, v.id);
    const res = await t.del(`/venues/${v.id}`, { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'trash');
    const again = await t.del(`/venues/${v.id}`, { as: 'administrator' });
    assert.equal(again.status, 410);
    assert.equal(again.body.code, 'venue-is-in-trash');
    assert.equal(again.body.message, 'The venue is already trashed', "the original's message (REST/V1/Messages.php)");
    assert.deepEqual((await t.get(`/events/${e.id}`)).body.venue, []);
    assert.equal((await t.get(`/venues/${v.id}`)).body.code, 'venue-not-accessible');
    assert.equal((await t.get(`/venues/${v.id}`, { as: 'editor' })).status, 200);
    const fresh = await makeLinked(t, 'venue', { venue: 'Doomed' });
    assert.notEqual(fresh.id, v.id, 'trashed venues are not reused');
    assert.equal(fresh.slug, 'doomed');
  });
});

describe('venues: list', () => {
  let t: TestApp;
  const v: Record<string, any> = {};
  before(async () => {
    t = await createTestApp();
    v.temple = await makeLinked(t, 'venue', {
      date: '2020-01-04',
      venue: 'Temple Hall',
      address: '100, Avenue du Temple',
      city: 'Paris',
      country: 'France',
      province: 'Ile de France',
      stateprovince: 'France, Ile de France',
    });
    v.opera = await makeLinked(t, 'venue', { date: '2020-01-03', venue: 'Opera', city: 'Paris', zip: '75009' });
    v.park = await makeLinked(t, 'venue', { date: '2020-01-02', venue: 'Park', city: 'Lyon', phone: '+33 4 00 00' });
    v.lonely = await makeLinked(t, 'venue', { date: '2020-01-01', venue: 'Lonely', city: 'Nantes' });
    v.draft = await makeLinked(t, 'venue', { venue: 'Draft place', status: 'draft' }, 'contributor');
    await makeEvent(t, { venue: v.temple.id, start_date: '+2 days', end_date: '+2 days 1 hour' });
    v.pastEvent = await makeEvent(t, { venue: v.opera.id, start_date: '2001-01-01', end_date: '2001-01-01' });
    await makeEvent(t, { venue: v.park.id, status: 'draft', start_date: '+3 days', end_date: '+3 days 1 hour' });
  });
  after(() => t.close());

  const names = (res: any) => res.body.venues.map((x: any) => x.venue);

  it('lists published venues, newest first, with the envelope and headers', async () => {
    const res = await t.get('/venues');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['venues', 'rest_url', 'total', 'total_pages']);
    assert.deepEqual(names(res), ['Temple Hall', 'Opera', 'Park', 'Lonely'], 'newest publication date first');
    assert.equal(res.body.total, 4);
    assert.equal(res.headers['x-tec-total'], '4');
    assert.equal(res.body.rest_url, `${NS}/venues/?page=1&per_page=4&status=publish`);
    assert.equal((await t.get('/venues', { as: 'editor' })).body.total, 5);
    assert.equal((await t.get('/venues', { as: 'contributor' })).body.total, 5, 'plus their own draft');
    assert.equal((await t.get('/venues', { as: 'contributor2' })).body.total, 4);
  });

  it('pages, and answers 404 venue-archive-page-not-found past the end', async () => {
    const p1 = await t.get('/venues', { query: { per_page: 3 } });
    assert.equal(p1.body.total_pages, 2);
    const p2 = await t.get(p1.body.next_rest_url.replace(PUBLIC_URL, ''));
    assert.deepEqual(names(p2), ['Lonely']);
    assert.equal(p2.body.previous_rest_url, `${NS}/venues/?per_page=3&status=publish`);
    const past = await t.get('/venues', { query: { page: 3, per_page: 3 } });
    assert.equal(past.status, 404);
    assert.equal(past.body.code, 'venue-archive-page-not-found');
    assert.equal(past.body.message, 'The requested venue archive page does not exist', "the original's message (REST/V1/Messages.php)");
  });

  it('searches tokens within one field, and counts the matches', async () => {
    assert.deepEqual(names(await t.get('/venues', { query: { search: 'temple avenue' } })), ['Temple Hall']);
    assert.deepEqual(names(await t.get('/venues', { query: { search: 'france, ile de' } })), ['Temple Hall']);
    const paris = await t.get('/venues', { query: { search: 'paris' } });
    assert.deepEqual(names(paris), ['Temple Hall', 'Opera']);
    assert.equal(paris.body.total, 2);
    assert.equal((await t.get('/venues', { query: { search: 'nowhere-at-all' } })).body.total, 0);
    assert.equal((await t.get('/venues', { query: { search: '' } })).status, 400);
    assert.equal((await t.get('/venues', { query: { search: 'Draft' } })).body.total, 0, 'no drafts for anonymous');
  });

  it('filters by event, has_events and only_with_upcoming', async () => {
    assert.deepEqual(names(await t.get('/venues', { query: { event: v.pastEvent.id } })), ['Opera']);
    assert.equal((await t.get('/venues', { query: { event: 23999 } })).status, 400);
    assert.equal((await t.get('/venues', { query: { event: v.temple.id } })).status, 400, 'a venue is not an event');
    assert.deepEqual(names(await t.get('/venues', { query: { has_events: 'true' } })), ['Temple Hall', 'Opera']);
    assert.deepEqual(names(await t.get('/venues', { query: { has_events: '0' } })), ['Park', 'Lonely']);
    await makeEvent(t, { title: 'Without a venue' });
    assert.deepEqual(names(await t.get('/venues', { query: { has_events: 'false' } })), ['Park', 'Lonely'], 'events without a venue change nothing');
    assert.deepEqual(names(await t.get('/venues', { query: { only_with_upcoming: '1' } })), ['Temple Hall']);
    assert.deepEqual(names(await t.get('/venues', { query: { only_with_upcoming: 'yes' }, as: 'editor' })), ['Temple Hall', 'Park']);
    assert.equal((await t.get('/venues', { query: { only_with_upcoming: 'false' } })).body.total, 4);
  });

  it('validates status per caller', async () => {
    assert.equal((await t.get('/venues', { query: { status: 'draft' } })).status, 400);
    assert.equal((await t.get('/venues', { query: { status: 'draft' }, as: 'editor' })).body.total, 1);
    assert.equal((await t.get('/venues', { query: { status: 'foo' }, as: 'editor' })).status, 400);
  });
});
