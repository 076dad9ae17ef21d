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
