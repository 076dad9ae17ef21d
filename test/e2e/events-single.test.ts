import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';
import { insertRawPost, makeEvent, makeLinked } from '../helpers/factories.js';

describe('events: read', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('reads a published event anonymously, with json_ld', async () => {
    const e = await makeEvent(t, {
      title: 'Readable',
      description: 'Body',
      cost: '10',
      timezone: 'America/New_York',
      start_date: '2030-01-05 14:23:36',
      end_date: '2030-01-05 16:00',
    });
    const res = await t.get(`/events/${e.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, e.id);
    const { json_ld: ld, ...rest } = res.body;
    assert.deepEqual(rest, e);
    assert.equal(ld['@context'], 'http://schema.org');
    assert.equal(ld['@type'], 'Event');
    assert.equal(ld.name, 'Readable');
    assert.equal(ld.startDate, '2030-01-05T14:23:36-05:00');
    assert.equal(ld.endDate, '2030-01-05T16:00:00-05:00');
    assert.equal(ld.url, e.url);
    assert.equal(ld.offers.price, '10');
    assert.equal(ld.offers.priceCurrency, 'USD');
    assert.equal(ld.offers.validFrom, `${e.date.slice(0, 10)}T00:00:00+00:00`);
    // in the original's order: offers before performer
    assert.ok(Object.keys(ld).indexOf('offers') < Object.keys(ld).indexOf('performer'));
  });

  it("gives JSON-LD the original's price of a range or a word, and its first organizer as one object; a range's symbols derive none", async () => {
    const first = await makeLinked(t, 'organizer', { organizer: 'First LD' });
    const second = await makeLinked(t, 'organizer', { organizer: 'Second LD' });
    const range = await makeEvent(t, { title: 'Ranged', cost: '$199 - $499', organizer: [first.id, second.id] });
    const ld = (await t.get(`/events/${range.id}`)).body.json_ld;
    assert.equal(ld.offers.price, '199 \u2013 499');
    assert.equal(ld.organizer.name, 'First LD');
    const word = await makeEvent(t, { title: 'Worded', cost: 'Free' });
    assert.equal((await t.get(`/events/${word.id}`)).body.json_ld.offers.price, '0');
    // another word as written (recorded: `Donation` → "Donation")
    const donation = await makeEvent(t, { title: 'Donated', cost: 'Donation' });
    assert.equal((await t.get(`/events/${donation.id}`)).body.json_ld.offers.price, 'Donation');
    // a range with a symbol on both numbers: no symbol derived, the default `$` shown before both (recorded)
    const ranged = (await t.get(`/events/${range.id}`)).body;
    assert.equal(ranged.cost, '$199 \u2013 $499');
    assert.deepEqual(ranged.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: ['199', '499'] });
    const none = await makeEvent(t, { title: 'Costless' });
    assert.equal((await t.get(`/events/${none.id}`)).body.json_ld.offers, undefined);
  });

  it('reads by slug, with the same answer as by id', async () => {
    const e = await makeEvent(t, { title: 'By Slug' });
    const res = await t.get(`/events/by-slug/${e.slug}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, (await t.get(`/events/${e.id}`)).body);
  });

  it("finds a slug written as WordPress' lookup reads it (any case, spaces or dots for dashes): by-slug reads, writes and deletes, events and venues alike", async () => {
    const e = await makeEvent(t, { title: 'Loose Slug Night' });
    assert.equal(e.slug, 'loose-slug-night');
    for (const asked of ['Loose-Slug-Night', 'LOOSE%20SLUG%20NIGHT', 'loose.slug.night']) {
      const res = await t.get(`/events/by-slug/${asked}`);
      assert.equal(res.status, 200, asked);
      assert.equal(res.body.id, e.id, asked);
    }
    // a write by such a slug edits that event and keeps its slug
    const edited = await t.post('/events/by-slug/Loose-Slug-Night', { as: 'administrator', json: { title: 'Loose Slug Night, edited' } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.id, e.id);
    assert.equal((await t.get(`/events/${e.id}`)).body.slug, 'loose-slug-night');
    const venue = (await t.post('/venues', { as: 'administrator', json: { venue: 'Loose Slug Hall' } })).body;
    const byVenueSlug = await t.get('/venues/by-slug/Loose-Slug-Hall');
    assert.equal(byVenueSlug.status, 200, byVenueSlug.text);
    assert.equal(byVenueSlug.body.id, venue.id);
    // what no spelling of a slug names is still the original's 400
    assert.equal((await t.get('/events/by-slug/Loose-Slug-Day')).status, 400);
    const trashed = await t.del('/events/by-slug/LOOSE-SLUG-NIGHT', { as: 'administrator' });
    assert.equal(trashed.status, 200, trashed.text);
    assert.equal(trashed.body.status, 'trash');
  });

  it('answers the original error codes', async () => {
    const venue = await insertRawPost(t, 'venue');
    const missing = await t.get('/events/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
    assert.match(missing.body.message, /999999/);
    assert.equal((await t.get('/events/0')).body.code, 'rest-event-not-found');
    const wrongType = await t.get(`/events/${venue}`);
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.code, 'rest-invalid-event-id');
    assert.equal((await t.get('/events/foo')).body.code, 'rest_no_route');
    assert.equal((await t.get('/events/by-slug/')).status, 404);
    const unknownSlug = await t.get('/events/by-slug/no-such-event');
    assert.equal(unknownSlug.status, 400);
    assert.equal(unknownSlug.body.code, 'rest_invalid_param');
  });

  it('hides non-published events from those who may not read them (403 event-not-accessible)', async () => {
    const cases: [string, Caller, number][] = [];
    for (const status of ['draft', 'pending', 'private']) {
      cases.push([status, 'anonymous', 403], [status, 'subscriber', 403], [status, 'contributor2', 403], [status, 'author2', 403]);
      cases.push([status, 'editor', 200], [status, 'administrator', 200]);
    }
    for (const [status, caller, expected] of cases) {
      // owned by "contributor" (drafts/pending) or an editor (private: contributors cannot make it... they can, kept as is)
      const e = await makeEvent(t, { status }, status === 'private' ? 'author' : 'contributor');
      const res = await t.get(`/events/${e.id}`, { as: caller });
      assert.equal(res.status, expected, `${status} as ${caller}`);
      if (expected === 403) assert.equal(res.body.code, 'event-not-accessible', `${status} as ${caller}`);
      const bySlugAllowed = e.slug === '' ? undefined : await t.get(`/events/by-slug/${e.slug}`, { as: caller });
      if (bySlugAllowed) assert.equal(bySlugAllowed.status, expected, `by slug: ${status} as ${caller}`);
    }
    const own = await makeEvent(t, { status: 'draft' }, 'contributor');
    assert.equal((await t.get(`/events/${own.id}`, { as: 'contributor' })).status, 200);
    const scheduled = await makeEvent(t, { date: '+3 days' });
    assert.equal(scheduled.status, 'future');
    assert.equal((await t.get(`/events/${scheduled.id}`)).body.code, 'event-not-accessible');
  });

  it('answers 403 event-no-longer-available for trashed events, to everyone', async () => {
    const e = await makeEvent(t);
    await t.del(`/events/${e.id}`, { as: 'administrator' });
    for (const caller of ['anonymous', 'administrator'] as const) {
      const res = await t.get(`/events/${e.id}`, { as: caller });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'event-no-longer-available');
    }
  });
});

describe('events: update', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const full = {
    title: 'Full',
    description: 'Desc',
    excerpt: 'Exc',
    timezone: 'America/New_York',
    all_day: false,
    start_date: '2030-02-01 10:00',
    end_date: '2030-02-01 12:00',
    cost: '15',
    website: 'https://example.org',
    show_map: true,
    show_map_link: true,
    sticky: true,
    featured: true,
    categories: 'Alpha',
    tags: 'beta',
    image: 'https://cdn.example.org/a.png',
  };

  it('changes only what is sent, with POST, PUT and PATCH alike', async () => {
    const e = await makeEvent(t, full);
    for (const [method, field, value] of [
      ['POST', 'title', 'New title'],
      ['PUT', 'description', 'New description'],
      ['PATCH', 'cost', '30'],
    ] as const) {
      const res = await t.request(method, `/events/${e.id}`, { as: 'administrator', json: { [field]: value } });
      assert.equal(res.status, 200, method);
    }
    const after = (await t.get(`/events/${e.id}`)).body;
    assert.equal(after.title, 'New title');
    assert.equal(after.description, '<p>New description</p>');
    assert.equal(after.cost, '$30');
    for (const k of [
      'excerpt',
      'status',
      'slug',
      'timezone',
      'all_day',
      'start_date',
      'end_date',
      'utc_start_date',
      'website',
      'show_map',
      'show_map_link',
      'sticky',
      'featured',
      'image',
      'author',
      'date',
    ]) {
      assert.deepEqual(after[k], e[k], k);
    }
    assert.deepEqual(
      after.categories.map((c: any) => c.name),
      ['Alpha'],
    );
    assert.deepEqual(
      after.tags.map((c: any) => c.name),
      ['beta'],
    );
    assert.notEqual(after.modified_utc < e.modified_utc, true);
  });

  it('clears with null or empty values where the original accepts empty', async () => {
    const e = await makeEvent(t, full);
    const res = await t.patch(`/events/${e.id}`, {
      as: 'administrator',
      json: { website: '', cost: '', image: null, categories: '', tags: [], excerpt: null, featured: null },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.website, '');
    assert.equal(res.body.cost, '');
    assert.deepEqual(res.body.cost_details.values, []);
    assert.equal(res.body.image, false);
    assert.deepEqual(res.body.categories, []);
    assert.deepEqual(res.body.tags, []);
    assert.equal(res.body.excerpt, '');
    assert.equal(res.body.featured, false);
    assert.equal(res.body.title, 'Full');
    const rejects = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { description: '', slug: '' } });
    assert.equal(rejects.status, 400);
    assert.deepEqual(Object.keys(rejects.body.data.params).sort(), ['description', 'slug']);
  });

  it('keeps wall-clock times when only the time zone changes, and recomputes UTC', async () => {
    const e = await makeEvent(t, full);
    const res = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { timezone: 'Europe/Paris' } });
    assert.equal(res.body.start_date, '2030-02-01 10:00:00');
    assert.equal(res.body.utc_start_date, '2030-02-01 09:00:00');
    assert.equal(res.body.timezone_abbr, 'CET');
  });

  it('accepts one date alone, and keeps the end no earlier than the start', async () => {
    const e = await makeEvent(t, full);
    const later = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { end_date: '2030-02-03 12:00' } });
    assert.equal(later.body.start_date, '2030-02-01 10:00:00');
    assert.equal(later.body.end_date, '2030-02-03 12:00:00');
    const moved = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { start_date: '2030-03-01 10:00' } });
    assert.equal(moved.body.end_date, '2030-03-01 10:00:00');
    const allDay = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { all_day: true } });
    assert.equal(allDay.body.start_date, '2030-03-01 00:00:00');
    assert.equal(allDay.body.end_date, '2030-03-01 23:59:59');
  });

  it('applies the status rules on update, and leaves the status alone when none is sent', async () => {
    const draft = await makeEvent(t, { status: 'draft' }, 'contributor');
    const kept = await t.patch(`/events/${draft.id}`, { as: 'contributor', json: { title: 'Still draft' } });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.status, 'draft');
    const asked = await t.patch(`/events/${draft.id}`, { as: 'contributor', json: { status: 'publish' } });
    assert.equal(asked.body.status, 'pending');
    const editor = await t.patch(`/events/${draft.id}`, { as: 'editor', json: { title: 'Edited' } });
    assert.equal(editor.body.status, 'pending', 'an omitted status is not republished');
    const published = await t.patch(`/events/${draft.id}`, { as: 'editor', json: { status: 'publish' } });
    assert.equal(published.body.status, 'publish');
    assert.equal(published.body.slug, 'edited', 'a slug is made when it is published');
  });

  it('renames with slug, keeps slugs unique, and updates by slug', async () => {
    const a = await makeEvent(t, { title: 'Slug A' });
    const b = await makeEvent(t, { title: 'Slug B' });
    const clash = await t.patch(`/events/${b.id}`, { as: 'administrator', json: { slug: 'slug-a' } });
    assert.equal(clash.body.slug, 'slug-a-2');
    const bySlug = await t.put(`/events/by-slug/${a.slug}`, { as: 'administrator', json: { title: 'Slug A renamed', slug: 'renamed' } });
    assert.equal(bySlug.status, 200);
    assert.equal(bySlug.body.id, a.id);
    assert.equal(bySlug.body.slug, 'renamed');
    assert.equal(bySlug.body.title, 'Slug A renamed');
    assert.equal((await t.get('/events/by-slug/renamed')).body.id, a.id);
  });

  it('answers 404, 400 and 401 like the original', async () => {
    const venue = await insertRawPost(t, 'venue');
    const missing = await t.put('/events/2389', { as: 'administrator', json: { title: 'x' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
    const wrongType = await t.put(`/events/${venue}`, { as: 'administrator', json: { title: 'x' } });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.code, 'rest-invalid-event-id');
    assert.equal((await t.put('/events/2389', { json: { title: 'x' } })).status, 401);
    assert.equal((await t.put('/events/2389', { json: { start_date: 'nope' } })).status, 400, 'validation first');
  });

  it('enforces per-object permissions (AuthorizationCest), on id and slug routes', async () => {
    const adminEvent = await makeEvent(t, {}, 'administrator');
    const ownDraft = await makeEvent(t, { status: 'draft', slug: 'contributor-draft' }, 'contributor');
    const ownPublished = await makeEvent(t, {}, 'author');
    await t.patch(`/events/${ownPublished.id}`, { as: 'administrator', json: { author: t.users.contributor.id } });
    for (const route of ['id', 'slug'] as const) {
      const path = (e: any) => (route === 'id' ? `/events/${e.id}` : `/events/by-slug/${e.slug}`);
      assert.equal((await t.put(path(adminEvent), { as: 'contributor', json: { title: 'x' } })).status, 403, route);
      assert.equal((await t.put(path(ownPublished), { as: 'contributor', json: { title: 'x' } })).status, 403, route);
      assert.equal((await t.put(path(ownDraft), { as: 'contributor', json: { title: 'mine' } })).status, 200, route);
      assert.equal((await t.put(path(adminEvent), { as: 'author', json: { title: 'x' } })).status, 403, route);
      assert.equal((await t.put(path(adminEvent), { as: 'editor', json: { title: 'Edited by editor' } })).status, 200, route);
      assert.equal((await t.put(path(ownDraft), { json: { title: 'x' } })).status, 401, route);
      assert.equal((await t.put(path(adminEvent), { as: 'subscriber', json: { title: 'x' } })).status, 403, route);
    }
  });
});

describe('events: delete', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('moves to the trash: 200 with the trashed event, then 410 event-is-in-trash', async () => {
    const e = await makeEvent(t, { title: 'To trash' });
    const res = await t.del(`/events/${e.id}`, { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, e.id);
    assert.equal(res.body.status, 'trash');
    assert.equal(res.body.slug, 'to-trash__trashed');
    assert.equal(res.body.json_ld, undefined);
    const again = await t.del(`/events/${e.id}`, { as: 'administrator', query: { force: 'true' } });
    assert.equal(again.status, 410);
    assert.equal(again.body.code, 'event-is-in-trash');
    const reuse = await makeEvent(t, { title: 'To trash' });
    assert.equal(reuse.slug, 'to-trash', 'a trashed event frees its slug');
  });

  it('deletes by slug, and answers the original errors', async () => {
    const e = await makeEvent(t, { title: 'Slug delete' });
    const res = await t.del(`/events/by-slug/${e.slug}`, { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'trash');
    assert.equal((await t.del('/events/999999', { as: 'administrator' })).body.code, 'rest-event-not-found');
    const venue = await insertRawPost(t, 'venue');
    assert.equal((await t.del(`/events/${venue}`, { as: 'administrator' })).body.code, 'rest-invalid-event-id');
    assert.equal((await t.del('/events/by-slug/never-was', { as: 'administrator' })).status, 400);
  });

  it('enforces per-object permissions', async () => {
    const adminEvent = await makeEvent(t, {}, 'administrator');
    const ownDraft = await makeEvent(t, { status: 'draft' }, 'contributor');
    const othersDraft = await makeEvent(t, { status: 'draft' }, 'contributor2');
    assert.equal((await t.del(`/events/${adminEvent.id}`)).status, 401);
    assert.equal((await t.del(`/events/${ownDraft.id}`)).status, 401);
    assert.equal((await t.del(`/events/${adminEvent.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.del(`/events/${othersDraft.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.del(`/events/${adminEvent.id}`, { as: 'author' })).status, 403);
    assert.equal((await t.del(`/events/${ownDraft.id}`, { as: 'contributor' })).status, 200);
    assert.equal((await t.del(`/events/${adminEvent.id}`, { as: 'editor' })).status, 200);
  });

  it('restores a trashed event with an explicit status, slug back', async () => {
    const e = await makeEvent(t, { title: 'Comeback' });
    await t.del(`/events/${e.id}`, { as: 'administrator' });
    const res = await t.patch(`/events/${e.id}`, { as: 'administrator', json: { status: 'publish' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'publish');
    assert.equal(res.body.slug, 'comeback');
  });
});
