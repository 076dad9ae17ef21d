import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OrganizerSchema } from '../../src/http/routes/venues-organizers/venues-organizers.schemas.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';
import { keysWith } from '../helpers/shapes.js';

describe('organizers', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('creates an organizer: 201, every empty key left out', async () => {
    const res = await t.post('/organizers', { as: 'author', form: { organizer: 'Org One', email: 'not-an-email', phone: '' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), keysWith(OrganizerSchema, ['author', 'slug', 'email']));
    assert.equal(res.body.email, 'not-an-email', 'no e-mail format check, as in the original');
    assert.equal(res.body.url, `${PUBLIC_URL}/organizer/org-one/`);
    const missing = await t.post('/organizers', { as: 'author', form: { email: 'x' } });
    assert.deepEqual(missing.body.data.params, ['organizer']);
    assert.equal((await t.post('/organizers', { as: 'author', form: { organizer: 'W', website: 'nope' } })).status, 400);
  });

  it("reads with json_ld, 403 organizer-not-accessible for others' drafts", async () => {
    const o = await makeLinked(t, 'organizer', {
      organizer: 'Readable Org',
      email: 'r@x.org',
      website: 'https://r.example.org',
      description: 'We organise',
    });
    const res = await t.get(`/organizers/${o.id}`);
    assert.equal(res.body.description, '<p>We organise</p>');
    assert.equal(res.body.json_ld['@type'], 'Person');
    assert.equal(res.body.json_ld.email, 'r@x.org');
    const draft = await makeLinked(t, 'organizer', { status: 'draft' }, 'contributor');
    const denied = await t.get(`/organizers/${draft.id}`);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'organizer-not-accessible');
    // the original's words (recorded: anonymous/organizers/single/non-public-27.json)
    assert.equal(denied.body.message, 'The requested organizer is not accessible');
    assert.equal((await t.get(`/organizers/${draft.id}`, { as: 'editor' })).status, 200);
  });

  it('searches email and website tokens', async () => {
    const fresh = await createTestApp();
    try {
      await makeLinked(fresh, 'organizer', { organizer: 'One', email: 'one@common.com', website: 'http://one.com' });
      await makeLinked(fresh, 'organizer', { organizer: 'Two', email: 'two@common.com', website: 'http://two.com' });
      await makeLinked(fresh, 'organizer', { organizer: 'Three', email: 'three@other.org' });
      assert.equal((await fresh.get('/organizers', { query: { search: '@common.com' } })).body.total, 2);
      assert.equal((await fresh.get('/organizers', { query: { search: 'http://one.com' } })).body.total, 1);
      assert.equal((await fresh.get('/organizers')).body.total, 3);
    } finally {
      await fresh.close();
    }
  });

  it('trashes: 410 the second time; events lose only that organizer', async () => {
    const a = await makeLinked(t, 'organizer', { organizer: 'Stays' });
    const b = await makeLinked(t, 'organizer', { organizer: 'Goes' });
    const e = await makeEvent(t, { organizer: [a.id, b.id] });
    assert.deepEqual(
      e.organizer.map((o: any) => o.id),
      [a.id, b.id],
    );
    assert.equal((await t.del(`/organizers/${b.id}`, { as: 'administrator' })).status, 200);
    const again = await t.del(`/organizers/${b.id}`, { as: 'administrator' });
    assert.equal(again.status, 410);
    assert.equal(again.body.code, 'organizer-is-in-trash');
    assert.equal(again.body.message, 'The organizer is already trashed', "the original's message (REST/V1/Messages.php)");
    assert.deepEqual(
      (await t.get(`/events/${e.id}`)).body.organizer.map((o: any) => o.id),
      [a.id],
    );
  });

  it('checks per-object permissions', async () => {
    const o = await makeLinked(t, 'organizer', {}, 'administrator');
    assert.equal((await t.put(`/organizers/${o.id}`, { as: 'contributor', json: { phone: '1' } })).status, 403);
    assert.equal((await t.del(`/organizers/${o.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.put(`/organizers/${o.id}`, { json: { phone: '1' } })).status, 401);
    assert.equal((await t.put(`/organizers/${o.id}`, { as: 'editor', json: { phone: '1' } })).body.phone, '1');
  });
});
