/**
 * Validators on reads (issue 16, FEATURES.md §2.3–2.4 cases 1–3, 6): every GET and HEAD answered 200 carries a
 * strong ETag of the exact bytes the caller gets; If-None-Match with it answers 304 with no body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

describe('conditional reads: ETag and 304', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('an item answers a strong ETag with Vary: Authorization, and 304 with no body and the same ETag to a current copy (case 1)', async () => {
    const e = await makeEvent(t, { title: 'Tagged' });
    const first = await t.get(`/events/${e.id}`);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]{32}"$/);
    assert.match(String(first.headers.vary), /Authorization/);
    const again = await t.get(`/events/${e.id}`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.etag, etag);
    assert.match(String(again.headers.vary), /Authorization/);
    // a list of tags, `*`, and the weak form all match (weak comparison for GET); another tag does not
    for (const header of [`"x", ${etag}`, '*', `W/${etag}`]) {
      assert.equal((await t.get(`/events/${e.id}`, { headers: { 'if-none-match': header } })).status, 304, header);
    }
    assert.equal((await t.get(`/events/${e.id}`, { headers: { 'if-none-match': '"other"' } })).status, 200);
  });

  it("changes when an embedded venue's name changes (case 2)", async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Old Hall' });
    const e = await makeEvent(t, { title: 'At the hall', venue: venue.id });
    const before = String((await t.get(`/events/${e.id}`)).headers.etag);
    const renamed = await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { venue: 'New Hall' } });
    assert.equal(renamed.status, 200);
    const after = await t.get(`/events/${e.id}`, { headers: { 'if-none-match': before } });
    assert.equal(after.status, 200);
    assert.equal(after.body.venue.venue, 'New Hall');
    assert.notEqual(after.headers.etag, before);
  });

  it("differs with the caller's rights: an editor's list with a draft is not an anonymous caller's (case 3)", async () => {
    await makeEvent(t, { title: 'Rights draft', status: 'draft', start_date: '2031-02-02 10:00:00', end_date: '2031-02-02 11:00:00' });
    await makeEvent(t, { title: 'Rights public', start_date: '2031-02-02 12:00:00', end_date: '2031-02-02 13:00:00' });
    const query = { start_date: '2031-02-01', end_date: '2031-02-28', status: 'publish,draft' };
    const editor = await t.get('/events', { as: 'editor', query });
    const anonymous = await t.get('/events', { query: { start_date: '2031-02-01', end_date: '2031-02-28' } });
    assert.equal(editor.body.events.length, 2);
    assert.equal(anonymous.body.events.length, 1);
    assert.notEqual(editor.headers.etag, anonymous.headers.etag);
    // the editor's tag revalidates nothing for an anonymous caller
    const cross = await t.get('/events', {
      query: { start_date: '2031-02-01', end_date: '2031-02-28' },
      headers: { 'if-none-match': String(editor.headers.etag) },
    });
    assert.equal(cross.status, 200);
  });

  it('differs with what the query asks for: the same event with _fields has its own tag', async () => {
    const e = await makeEvent(t, { title: 'Fields' });
    const whole = await t.get(`/events/${e.id}`);
    const some = await t.get(`/events/${e.id}`, { query: { _fields: 'id,title' } });
    assert.deepEqual(Object.keys(some.body), ['id', 'title']);
    assert.notEqual(whole.headers.etag, some.headers.etag);
    assert.equal(
      (await t.get(`/events/${e.id}`, { query: { _fields: 'id,title' }, headers: { 'if-none-match': String(whole.headers.etag) } })).status,
      200,
    );
  });

  it('HEAD answers the headers of GET, and 304 to a matching tag (case 6)', async () => {
    const e = await makeEvent(t, { title: 'Headed' });
    const get = await t.get(`/events/${e.id}`);
    const head = await t.request('HEAD', `/events/${e.id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.etag, get.headers.etag);
    assert.equal(head.headers['content-type'], get.headers['content-type']);
    const conditional = await t.request('HEAD', `/events/${e.id}`, { headers: { 'if-none-match': String(get.headers.etag) } });
    assert.equal(conditional.status, 304);
  });

  it('lists, the documentation, the namespace index and the WordPress index carry ETags; the response cache answers 304 too', async () => {
    for (const path of ['/events', '/venues', '/categories', '/doc', '/calendar/events/v1', '/wp-json/']) {
      const url = path.startsWith('/calendar') || path.startsWith('/wp-json') ? path : `/calendar/events/v1${path}`;
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, path);
      assert.match(String(res.headers.etag), /^"[\w-]{32}"$/, path);
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304, path);
    }
    // the third ask of a URL is a cache hit: same tag, and 304 from the cache
    const a = await t.get('/tags');
    const b = await t.get('/tags');
    const c = await t.get('/tags', { headers: { 'if-none-match': String(a.headers.etag) } });
    assert.equal(b.headers.etag, a.headers.etag);
    assert.equal(c.status, 304);
  });

  it('sends none where the bytes are rewritten afterwards (_envelope, _jsonp) and none on errors', async () => {
    assert.equal((await t.get('/events', { query: { _envelope: '1' } })).headers.etag, undefined);
    assert.equal((await t.get('/events', { query: { _jsonp: 'cb' } })).headers.etag, undefined);
    const missing = await t.get('/events/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.etag, undefined);
  });
  it('moves Last-Modified on with what the body shows: a term whose count changed, a feed that lost an event, an embedded organizer', async () => {
    const category = await t.post('/categories', { as: 'administrator', json: { name: 'Counted' } });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Org before', email: 'org@example.org' });
    const staying = await makeEvent(t, { title: 'Staying', organizer: [organizer.id], start_date: '2031-02-01 10:00', end_date: '2031-02-01 11:00' });
    const leaving = await makeEvent(t, { title: 'Leaving', start_date: '2031-02-02 10:00', end_date: '2031-02-02 11:00' });
    const feedPath = '/events.ics?start_date=2031-01-01&end_date=2031-03-01';
    const term = await t.get(`/categories/${category.body.id}`);
    const feed = await t.get(feedPath);
    const single = await t.get(`/events/${staying.id}.ics`);
    for (const r of [term, feed, single]) assert.ok(r.headers['last-modified'], r.text.slice(0, 100));
    // (HTTP dates count whole seconds)
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await makeEvent(t, { title: 'Counted one', categories: [category.body.id] });
    assert.equal((await t.del(`/events/${leaving.id}`, { as: 'administrator' })).status, 200);
    assert.equal((await t.post(`/organizers/${organizer.id}`, { as: 'administrator', json: { organizer: 'Org after' } })).status, 200);
    for (const [path, before, changed] of [
      [`/categories/${category.body.id}`, term, (r: any) => r.body.count === 1],
      [feedPath, feed, (r: any) => !r.text.includes('Leaving')],
      [`/events/${staying.id}.ics`, single, (r: any) => r.text.includes('Org after')],
    ] as const) {
      const since = await t.get(path, { headers: { 'if-modified-since': String(before.headers['last-modified']) } });
      assert.equal(since.status, 200, path);
      assert.ok(changed(since), path);
      assert.ok(Date.parse(String(since.headers['last-modified'])) > Date.parse(String(before.headers['last-modified'])), path);
      // and a copy as current as the answer is told so
      assert.equal((await t.get(path, { headers: { 'if-modified-since': String(since.headers['last-modified']) } })).status, 304, path);
    }
  });
  it("moves an event's Last-Modified on when what it showed is gone from it: a venue made a draft, an organizer trashed, a tag deleted", async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Soon a draft' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Soon trashed' });
    const tag = await t.post('/tags', { as: 'administrator', json: { name: 'soon-deleted' } });
    const atVenue = await makeEvent(t, { title: 'At the venue', venue: venue.id });
    const byOrganizer = await makeEvent(t, { title: 'By the organizer', organizer: [organizer.id] });
    const tagged = await makeEvent(t, { title: 'Tagged', tags: [tag.body.id] });
    const series = await makeEvent(t, {
      title: 'Weekly at the venue',
      venue: venue.id,
      start_date: '2031-06-02 10:00',
      end_date: '2031-06-02 11:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const occurrence = (await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2031-06-01', end_date: '2031-07-01' } })).body
      .events[1];
    const paths = [atVenue.id, byOrganizer.id, tagged.id, occurrence.id].map((id) => `/events/${id}`);
    const before = await Promise.all(paths.map((path) => t.get(path)));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { status: 'draft' } })).status, 200);
    assert.equal((await t.del(`/organizers/${organizer.id}`, { as: 'administrator' })).status, 200);
    assert.equal((await t.del(`/tags/${tag.body.id}`, { as: 'administrator', query: { force: 'true' } })).status, 200);
    for (const [i, path] of paths.entries()) {
      const since = await t.get(path, { headers: { 'if-modified-since': String(before[i].headers['last-modified']) } });
      assert.equal(since.status, 200, path);
      assert.notEqual(since.headers.etag, before[i].headers.etag, path);
      assert.ok(Date.parse(String(since.headers['last-modified'])) > Date.parse(String(before[i].headers['last-modified'])), path);
    }
  });
});
