import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

const total = async (t: TestApp, query: Record<string, any>, as: any = 'anonymous') => {
  const res = await t.get('/events', { query: { per_page: 50, ...query }, as });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.total;
};

describe('events with venues and organizers', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('links a venue by id, {id} or fields (creating it, or reusing one of that name)', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Linked Hall', city: 'Paris' });
    assert.equal((await makeEvent(t, { venue: v.id })).venue.id, v.id);
    assert.equal((await makeEvent(t, { venue: String(v.id) })).venue.id, v.id);
    assert.equal((await makeEvent(t, { venue: { id: v.id } })).venue.id, v.id);
    const created = await makeEvent(t, { venue: { venue: 'Inline Hall', city: 'Lyon', country: 'US', state: 'CA' } });
    assert.equal(created.venue.venue, 'Inline Hall');
    assert.equal(created.venue.stateprovince, 'CA');
    const reused = await makeEvent(t, { venue: { venue: 'inline hall' } });
    assert.equal(reused.venue.id, created.venue.id);
    // a name whose case differs in letters beyond ASCII is the same name (the indexed lookup's second look)
    const accented = await makeEvent(t, { venue: { venue: 'CAFÉ ÖSTERMALM' } });
    const again = await makeEvent(t, { venue: { venue: 'café östermalm' } });
    assert.equal(again.venue.id, accented.venue.id);
    assert.notEqual((await makeEvent(t, { venue: { venue: 'café östermalm annex' } })).venue.id, accented.venue.id);
    const form = await t.post('/events', {
      as: 'administrator',
      form: 'title=F&start_date=2030-01-01&end_date=2030-01-01&venue[venue]=Form Hall&venue[city]=Nice',
    });
    assert.equal(form.status, 201);
    assert.equal(form.body.venue.city, 'Nice');
  });

  it('links organizers in the given order: ids, objects, and mixes', async () => {
    const a = await makeLinked(t, 'organizer', { organizer: 'Org A' });
    const b = await makeLinked(t, 'organizer', { organizer: 'Org B' });
    const e = await makeEvent(t, { organizer: [b.id, { organizer: 'New One', email: 'n@x.org' }, { id: a.id }, { organizer: 'New Two' }] });
    assert.deepEqual(
      e.organizer.map((o: any) => o.organizer),
      ['Org B', 'New One', 'Org A', 'New Two'],
    );
    assert.equal((await makeEvent(t, { organizer: a.id })).organizer[0].id, a.id);
    assert.deepEqual(
      (await makeEvent(t, { organizer: `${a.id},${b.id}` })).organizer.map((o: any) => o.id),
      [a.id, b.id],
    );
    const form = await t.post('/events', {
      as: 'administrator',
      form: `title=F&start_date=2030-01-01&end_date=2030-01-01&organizer[0][organizer]=Form Org&organizer[1]=${a.id}`,
    });
    assert.deepEqual(
      form.body.organizer.map((o: any) => o.organizer),
      ['Form Org', 'Org A'],
    );
    // a list a PHP client sent as an object of indexes (json_encode of an array with a gap), as the original reads it
    const indexed = await t.post('/events', {
      as: 'administrator',
      json: {
        title: 'Indexed',
        start_date: '2030-01-01',
        end_date: '2030-01-01',
        organizer: { 0: b.id, 2: { organizer: 'Indexed Org' }, 3: { id: a.id } },
      },
    });
    assert.equal(indexed.status, 201, indexed.text);
    assert.deepEqual(
      indexed.body.organizer.map((o: any) => o.organizer),
      ['Org B', 'Indexed Org', 'Org A'],
    );
  });

  it('refuses references of the wrong type or malformed entries with 400 rest_invalid_param', async () => {
    const o = await makeLinked(t, 'organizer');
    const v = await makeLinked(t, 'venue');
    const ok = { title: 'Bad refs', start_date: '2030-01-01', end_date: '2030-01-01' };
    for (const [k, value] of [
      ['venue', o.id],
      ['venue', { id: 999999 }],
      ['venue', [v.id, v.id]],
      ['venue', 'Not an id'],
      ['venue', { city: 'no name' }],
      ['venue', { venue: 'Bad site', website: 'nope' }],
      ['organizer', v.id],
      ['organizer', [{ organizer: '' }]],
      ['organizer', [{ phone: '1' }]],
    ] as const) {
      const res = await t.post('/events', { as: 'administrator', json: { ...ok, [k]: value } });
      assert.equal(res.status, 400, `${k}=${JSON.stringify(value)}`);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.ok(k in res.body.data.params);
    }
  });

  it('names the kind an id is not, with its article: "… is not a venue.", "… is not an organizer."', async () => {
    const o = await makeLinked(t, 'organizer');
    const v = await makeLinked(t, 'venue');
    const ok = { title: 'Wrong kinds', start_date: '2030-01-01', end_date: '2030-01-01' };
    const asVenue = await t.post('/events', { as: 'administrator', json: { ...ok, venue: o.id } });
    assert.equal(asVenue.status, 400);
    assert.equal(asVenue.body.code, 'rest_invalid_param');
    assert.deepEqual(asVenue.body.data.params, { venue: `${o.id} is not a venue.` });
    const asOrganizer = await t.post('/events', { as: 'administrator', json: { ...ok, organizer: [v.id] } });
    assert.equal(asOrganizer.status, 400);
    assert.equal(asOrganizer.body.code, 'rest_invalid_param');
    assert.deepEqual(asOrganizer.body.data.params, { organizer: `${v.id} is not an organizer.` });
  });

  it('is atomic: when one linked record fails inside the write, nothing of the write is stored', async () => {
    const v = await makeLinked(t, 'venue');
    const before = {
      events: (await t.get('/events', { query: { per_page: 50, search: 'Atomic' }, as: 'editor' })).body.total,
      organizers: (await t.get('/organizers', { query: { search: 'Atomic' }, as: 'editor' })).body.total,
      categories: (await t.get('/categories', { query: { search: 'atomic', hide_empty: 0 } })).body.total,
    };
    const admin = t.actor('administrator');
    // the second organizer reference names a venue: it fails after the first organizer and the category exist
    await assert.rejects(
      t.app.services.events.create(admin, {
        title: 'Atomic event',
        startDate: '2030-01-01',
        endDate: '2030-01-01',
        categories: ['atomic-category'],
        organizers: [{ create: { title: 'Atomic organizer' } }, { id: v.id }],
      }),
      (e: any) => e.code === 'rest_invalid_param',
    );
    const after = {
      events: (await t.get('/events', { query: { per_page: 50, search: 'Atomic' }, as: 'editor' })).body.total,
      organizers: (await t.get('/organizers', { query: { search: 'Atomic' }, as: 'editor' })).body.total,
      categories: (await t.get('/categories', { query: { search: 'atomic', hide_empty: 0 } })).body.total,
    };
    assert.deepEqual(after, before);
  });

  it('keeps links on partial updates; an empty value detaches', async () => {
    const v = await makeLinked(t, 'venue');
    const o = await makeLinked(t, 'organizer');
    const e = await makeEvent(t, { venue: v.id, organizer: [o.id] });
    const kept = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { title: 'Kept links' } });
    assert.equal(kept.body.venue.id, v.id);
    assert.deepEqual(
      kept.body.organizer.map((x: any) => x.id),
      [o.id],
    );
    const detached = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { venue: '', organizer: [] } });
    assert.deepEqual(detached.body.venue, []);
    assert.deepEqual(detached.body.organizer, []);
    const relinked = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { venue: v.id, organizer: o.id } });
    assert.equal(relinked.body.venue.id, v.id);
    const nulled = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { venue: null, organizer: null } });
    assert.deepEqual([nulled.body.venue, nulled.body.organizer], [[], []]);
  });

  it('shows an embedded venue or organizer only to callers who may read it', async () => {
    const draftVenue = await makeLinked(t, 'venue', { venue: 'Secret venue', status: 'draft' }, 'contributor');
    const draftOrg = await makeLinked(t, 'organizer', { organizer: 'Secret org', status: 'draft' }, 'contributor');
    const e = await makeEvent(t, { venue: draftVenue.id, organizer: [draftOrg.id] }, 'editor');
    for (const caller of ['anonymous', 'subscriber', 'author'] as const) {
      const single = await t.get(`/events/${e.id}`, { as: caller });
      assert.deepEqual(single.body.venue, [], caller);
      assert.deepEqual(single.body.organizer, [], caller);
      // (recorded on the original: what the caller may not read is `false` in JSON-LD)
      assert.equal(single.body.json_ld.location, false);
      assert.equal(single.body.json_ld.organizer, false);
      const listed = (await t.get('/events', { query: { include: e.id }, as: caller })).body.events[0];
      assert.deepEqual([listed.venue, listed.organizer], [[], []], caller);
      assert.doesNotMatch(JSON.stringify(single.body), /Secret/);
    }
    for (const caller of ['editor', 'contributor'] as const) {
      const single = await t.get(`/events/${e.id}`, { as: caller });
      assert.equal(single.body.venue.venue, 'Secret venue', caller);
      assert.equal(single.body.organizer[0].organizer, 'Secret org', caller);
    }
  });

  it('embeds json_ld of the venue and organizers in single reads', async () => {
    const e = await makeEvent(t, { venue: { venue: 'LD Hall', city: 'Rome', geo_lat: 41.9, geo_lng: 12.5 }, organizer: [{ organizer: 'LD Org' }] });
    const res = await t.get(`/events/${e.id}`);
    assert.equal(res.body.json_ld.location['@type'], 'Place');
    assert.equal(res.body.json_ld.location.name, 'LD Hall');
    assert.equal(res.body.json_ld.organizer.name, 'LD Org');
    assert.equal(res.body.venue.json_ld['@type'], 'Place', 'the embedded venue carries its json_ld in a single read');
    const listed = (await t.get('/events', { query: { include: e.id } })).body.events[0];
    assert.equal(listed.venue.json_ld, undefined);
  });
});

describe('events list: venue, organizer and location filters', () => {
  let t: TestApp;
  const x: Record<string, any> = {};
  before(async () => {
    t = await createTestApp();
    x.paris = await makeLinked(t, 'venue', { venue: 'Paris', geo_lat: 48.8566, geo_lng: 2.3522 });
    x.versailles = await makeLinked(t, 'venue', { venue: 'Versailles', geo_lat: 48.8049, geo_lng: 2.1204 });
    x.lyon = await makeLinked(t, 'venue', { venue: 'Lyon', geo_lat: 45.764, geo_lng: 4.8357 });
    x.nowhere = await makeLinked(t, 'venue', { venue: 'No coordinates' });
    x.orgA = await makeLinked(t, 'organizer', { organizer: 'A' });
    x.orgB = await makeLinked(t, 'organizer', { organizer: 'B' });
    x.e1 = await makeEvent(t, { title: 'At Lyon', venue: x.lyon.id, organizer: [x.orgA.id], start_date: '+1 day', end_date: '+1 day 1 hour' });
    x.e2 = await makeEvent(t, {
      title: 'At Versailles',
      venue: x.versailles.id,
      organizer: [x.orgB.id],
      start_date: '+2 days',
      end_date: '+2 days 1 hour',
    });
    x.e3 = await makeEvent(t, {
      title: 'At Paris',
      venue: x.paris.id,
      organizer: [x.orgA.id, x.orgB.id],
      start_date: '+3 days',
      end_date: '+3 days 1 hour',
    });
    x.e4 = await makeEvent(t, { title: 'Somewhere', venue: x.nowhere.id, start_date: '+4 days', end_date: '+4 days 1 hour' });
    x.e5 = await makeEvent(t, { title: 'No venue', start_date: '+5 days', end_date: '+5 days 1 hour' });
  });
  after(() => t.close());

  const titles = async (query: Record<string, any>) => (await t.get('/events', { query })).body.events.map((e: any) => e.title);

  it('filters by venue ids and organizer ids (OR inside, AND between)', async () => {
    assert.deepEqual(await titles({ venue: `${x.lyon.id},${x.paris.id}` }), ['At Lyon', 'At Paris']);
    assert.deepEqual(await titles({ organizer: x.orgB.id }), ['At Versailles', 'At Paris']);
    assert.deepEqual(await titles({ organizer: x.orgA.id, venue: x.paris.id }), ['At Paris']);
    for (const q of [{ venue: 'foo' }, { venue: '23999' }, { venue: x.orgA.id }, { organizer: x.paris.id }]) {
      const res = await t.get('/events', { query: q as unknown as Record<string, string> });
      assert.equal(res.status, 400, JSON.stringify(q));
      assert.equal(res.body.code, 'rest_invalid_param');
    }
  });

  it('filters by having coordinates', async () => {
    assert.equal(await total(t, { has_geoloc: 'true' }), 3);
    assert.equal(await total(t, { has_geoloc: 'false' }), 2);
    assert.equal(await total(t, { geoloc: '1' }), 3, "the original's name is an alias");
  });

  it('finds events near a point, nearest first, within geoloc_distance km (default 50)', async () => {
    // a point near the Eiffel tower: Paris ~3 km, Versailles ~14 km, Lyon ~390 km
    const near = { geoloc_lat: 48.8584, geoloc_lng: 2.2945 };
    assert.deepEqual(await titles(near), ['At Paris', 'At Versailles']);
    assert.deepEqual(await titles({ ...near, geoloc_distance: 10 }), ['At Paris']);
    assert.deepEqual(await titles({ ...near, geoloc_distance: 500 }), ['At Paris', 'At Versailles', 'At Lyon']);
    const url = new URL((await t.get('/events', { query: near })).body.rest_url);
    assert.equal(url.searchParams.get('geoloc_lat'), '48.8584');
    assert.equal(url.searchParams.get('geoloc_distance'), '50');
  });

  it('needs both coordinates, in range', async () => {
    for (const q of [
      { geoloc_lat: 48 },
      { geoloc_lng: 2 },
      { geoloc_lat: 91, geoloc_lng: 2 },
      { geoloc_lat: 'x', geoloc_lng: 2 },
      { geoloc_lat: 48, geoloc_lng: 2, geoloc_distance: 0 },
    ]) {
      const res = await t.get('/events', { query: q as Record<string, string | number> });
      assert.equal(res.status, 400, JSON.stringify(q));
      assert.equal(res.body.code, 'rest_invalid_param');
    }
  });
});
