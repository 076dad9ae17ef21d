/**
 * Conditional requests (issue 16, FEATURES.md §2.3–2.4 cases 1–6): validators on item reads (ETag,
 * Last-Modified, 304 to If-None-Match and If-Modified-Since, HEAD as GET, Vary and Cache-Control), and
 * conditional writes on every item route family — If-Match against the ETag of the caller's own read (stale,
 * current, weak, `*` on a missing item), If-Unmodified-Since both ways, REQUIRE_IF_MATCH's 428, the ETag a write
 * answers equal to the next read's, and two concurrent writers holding the same ETag (exactly one 412), also
 * from two service processes on one database.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UserService } from '../../src/domain/users/user.service.js';
import { strongEtag } from '../../src/http/conditional.js';
import { type Caller, createTestApp, type Response, type TestApp } from '../helpers/app.js';
import { databaseUrl } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { type RunningServer, startServer } from '../helpers/server.js';

const VARY = ['authorization', 'cookie', 'accept-encoding'];
const ANONYMOUS_CACHE = 'public, max-age=0, must-revalidate';
const WORDPRESS_NO_CACHE = 'no-cache, must-revalidate, max-age=0, no-store, private';

const etagOf = (res: Response) => String(res.headers.etag);
const varyOf = (res: Response) =>
  String(res.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());
const httpDate = (ms: number) => new Date(ms).toUTCString();

function assertPreconditionFailed(res: Response, what: string) {
  assert.equal(res.status, 412, `${what}: ${res.text}`);
  assert.equal(res.body.code, 'precondition-failed', what);
  assert.equal(typeof res.body.message, 'string', what);
  assert.deepEqual(res.body.data, { status: 412 }, what);
  assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8', what);
}

/** An item route family: where an item is written and read, and the field a write changes. */
interface Family {
  name: string;
  /** Makes a fresh item; answers its write path (also its read path) and the field's value now. */
  make(t: TestApp): Promise<{ path: string; value: string }>;
  /** The body that sets the field. */
  set(value: string): Record<string, unknown>;
  /** The field as the item's read shows it. */
  read(body: any): string;
  /** A path of this family that names no item. */
  missing: string;
  /** Whether DELETE moves the item to the trash, where its read answers the caller 403 (events). */
  deleteHides: boolean;
  /** Whether the item is gone after DELETE (terms are deleted for good). */
  deleteRemoves: boolean;
}

let n = 0;
const FAMILIES: Family[] = [
  {
    name: 'event by id',
    make: async (t) => {
      const e = await makeEvent(t, { title: `By id ${++n}` });
      return { path: `/events/${e.id}`, value: e.title };
    },
    set: (title) => ({ title }),
    read: (b) => b.title,
    missing: '/events/99999999',
    deleteHides: true,
    deleteRemoves: false,
  },
  {
    name: 'event by slug',
    make: async (t) => {
      const e = await makeEvent(t, { title: `By slug ${++n}` });
      return { path: `/events/by-slug/${e.slug}`, value: e.title };
    },
    set: (title) => ({ title }),
    read: (b) => b.title,
    missing: '/events/by-slug/no-event-has-this-slug',
    deleteHides: true,
    deleteRemoves: false,
  },
  {
    name: 'occurrence',
    make: async (t) => {
      const series = await makeEvent(t, {
        title: `Series ${++n}`,
        start_date: '2031-03-03 10:00:00',
        end_date: '2031-03-03 11:00:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
      });
      const list = await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2031-03-01', end_date: '2031-03-31' } });
      assert.equal(list.status, 200, list.text);
      const occurrence = list.body.events[1];
      return { path: `/events/${occurrence.id}`, value: occurrence.title };
    },
    set: (title) => ({ title }),
    read: (b) => b.title,
    missing: '/events/99999998',
    deleteHides: true,
    deleteRemoves: false,
  },
  {
    name: 'venue',
    make: async (t) => {
      const v = await makeLinked(t, 'venue', { venue: `Hall ${++n}` });
      return { path: `/venues/${v.id}`, value: v.venue };
    },
    set: (venue) => ({ venue }),
    read: (b) => b.venue,
    missing: '/venues/99999999',
    deleteHides: false,
    deleteRemoves: false,
  },
  {
    name: 'venue by slug',
    make: async (t) => {
      const v = await makeLinked(t, 'venue', { venue: `Slug hall ${++n}` });
      return { path: `/venues/by-slug/${v.slug}`, value: v.venue };
    },
    set: (venue) => ({ venue }),
    read: (b) => b.venue,
    missing: '/venues/by-slug/no-venue-has-this-slug',
    deleteHides: false,
    deleteRemoves: false,
  },
  {
    name: 'organizer',
    make: async (t) => {
      const o = await makeLinked(t, 'organizer', { organizer: `Host ${++n}` });
      return { path: `/organizers/${o.id}`, value: o.organizer };
    },
    set: (organizer) => ({ organizer }),
    read: (b) => b.organizer,
    missing: '/organizers/99999999',
    deleteHides: false,
    deleteRemoves: false,
  },
  {
    name: 'category',
    make: async (t) => {
      const c = await makeCategory(t, { name: `Genre ${++n}` });
      return { path: `/categories/${c.id}`, value: c.name };
    },
    set: (name) => ({ name }),
    read: (b) => b.name,
    missing: '/categories/99999999',
    deleteHides: false,
    deleteRemoves: true,
  },
  {
    name: 'tag',
    make: async (t) => {
      const g = await makeTag(t, { name: `Label ${++n}` });
      return { path: `/tags/${g.id}`, value: g.name };
    },
    set: (name) => ({ name }),
    read: (b) => b.name,
    missing: '/tags/99999999',
    deleteHides: false,
    deleteRemoves: true,
  },
];

describe('conditional requests: reads of items', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('an item answers ETag, Last-Modified, Vary and an anonymous Cache-Control; a current copy gets 304 with the same headers and no body (case 1)', async () => {
    const e = await makeEvent(t, { title: 'Validated' });
    const first = await t.get(`/events/${e.id}`);
    assert.equal(first.status, 200);
    assert.equal(etagOf(first), strongEtag(first.text), 'the tag of the exact bytes');
    assert.equal(first.headers['last-modified'], httpDate(Date.parse(`${e.modified_utc.replace(' ', 'T')}Z`)));
    for (const name of VARY) assert.ok(varyOf(first).includes(name), `Vary names ${name}: ${first.headers.vary}`);
    assert.equal(first.headers['cache-control'], ANONYMOUS_CACHE);
    const again = await t.get(`/events/${e.id}`, { headers: { 'if-none-match': etagOf(first) } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.etag, first.headers.etag);
    assert.equal(again.headers.vary, first.headers.vary);
    assert.equal(again.headers['cache-control'], ANONYMOUS_CACHE);
    // a URL asked for again is kept by the response cache: a hit has the same validators and headers, and a
    // current copy gets a 304 from the cache
    await t.get(`/events/${e.id}`);
    const hit = await t.get(`/events/${e.id}`);
    const hit304 = await t.get(`/events/${e.id}`, { headers: { 'if-none-match': etagOf(first) } });
    assert.equal(hit.headers['x-cache'], 'hit');
    assert.equal(hit304.headers['x-cache'], 'hit');
    assert.equal(hit.headers['cache-control'], ANONYMOUS_CACHE);
    assert.equal(hit.headers.etag, first.headers.etag);
    assert.equal(hit.headers.vary, first.headers.vary);
    assert.equal(hit.headers['last-modified'], first.headers['last-modified']);
    assert.equal(hit304.status, 304);
    assert.equal(hit304.headers.vary, first.headers.vary);
  });

  it('If-Modified-Since answers 304 when the item was not modified after it, and counts only without If-None-Match', async () => {
    const v = await makeLinked(t, 'venue', { venue: 'Dated hall' });
    const read = await t.get(`/venues/${v.id}`);
    const modified = String(read.headers['last-modified']);
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-modified-since': modified } })).status, 304);
    const later = httpDate(Date.parse(modified) + 3_600_000);
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-modified-since': later } })).status, 304);
    const earlier = httpDate(Date.parse(modified) - 1000);
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-modified-since': earlier } })).status, 200);
    // If-None-Match wins: another tag is a 200 whatever the date says
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-none-match': '"other"', 'if-modified-since': later } })).status, 200);
    // not an HTTP date: ignored
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-modified-since': 'yesterday' } })).status, 200);
    // nor is a day the month does not have (not read as March 3rd, 2099)
    assert.equal((await t.get(`/venues/${v.id}`, { headers: { 'if-modified-since': 'Sat, 31 Feb 2099 00:00:00 GMT' } })).status, 200);
    // categories and tags carry theirs too
    const c = await makeCategory(t, { name: 'Dated genre' });
    const term = await t.get(`/categories/${c.id}`);
    assert.match(String(term.headers['last-modified']), /GMT$/);
    assert.equal((await t.get(`/categories/${c.id}`, { headers: { 'if-modified-since': String(term.headers['last-modified']) } })).status, 304);
  });

  it("a venue renamed changes its events' ETag and Last-Modified, and a revalidation gets the new body (case 2)", async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Old Hall' });
    const e = await makeEvent(t, { title: 'At the old hall', venue: venue.id });
    const before = await t.get(`/events/${e.id}`);
    // a second passes, so that the rename is later to the second Last-Modified counts in
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await t.post(`/venues/${venue.id}`, { as: 'administrator', json: { venue: 'New Hall' } })).status, 200);
    const after = await t.get(`/events/${e.id}`, { headers: { 'if-none-match': etagOf(before) } });
    assert.equal(after.status, 200);
    assert.equal(after.body.venue.venue, 'New Hall');
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.ok(Date.parse(String(after.headers['last-modified'])) > Date.parse(String(before.headers['last-modified'])));
    assert.equal((await t.get(`/events/${e.id}`, { headers: { 'if-modified-since': String(before.headers['last-modified']) } })).status, 200);
  });

  it('anonymous and editor answers differ and never revalidate each other; each gets its own Cache-Control (case 3)', async () => {
    const draft = await makeLinked(t, 'organizer', { organizer: 'Draft host', status: 'draft' });
    const e = await makeEvent(t, { title: 'Hosted by a draft', organizer: [draft.id] });
    const anonymous = await t.get(`/events/${e.id}`);
    const editor = await t.get(`/events/${e.id}`, { as: 'editor' });
    assert.equal(anonymous.body.organizer.length, 0);
    assert.equal(editor.body.organizer.length, 1);
    assert.notEqual(anonymous.headers.etag, editor.headers.etag);
    assert.equal((await t.get(`/events/${e.id}`, { headers: { 'if-none-match': etagOf(editor) } })).status, 200);
    assert.equal((await t.get(`/events/${e.id}`, { as: 'editor', headers: { 'if-none-match': etagOf(anonymous) } })).status, 200);
    assert.equal((await t.get(`/events/${e.id}`, { as: 'editor', headers: { 'if-none-match': etagOf(editor) } })).status, 304);
    assert.equal(anonymous.headers['cache-control'], ANONYMOUS_CACHE);
    assert.equal(
      editor.headers['cache-control'],
      WORDPRESS_NO_CACHE,
      "an authenticated caller keeps WordPress' no-cache headers (private, no-cache…)",
    );
    for (const res of [anonymous, editor]) assert.ok(varyOf(res).includes('authorization'));
    // lists too: the editor's with a draft event is not the anonymous one
    await makeEvent(t, { title: 'Listed draft', status: 'draft', start_date: '2032-04-04 10:00', end_date: '2032-04-04 11:00' });
    await makeEvent(t, { title: 'Listed public', start_date: '2032-04-04 12:00', end_date: '2032-04-04 13:00' });
    const window = { start_date: '2032-04-01', end_date: '2032-04-30' };
    const editorList = await t.get('/events', { as: 'editor', query: { ...window, status: 'publish,draft' } });
    const anonymousList = await t.get('/events', { query: window });
    assert.equal(editorList.body.events.length, 2);
    assert.equal(anonymousList.body.events.length, 1);
    assert.notEqual(editorList.headers.etag, anonymousList.headers.etag);
    assert.equal((await t.get('/events', { query: window, headers: { 'if-none-match': etagOf(editorList) } })).status, 200);
  });

  it('the ETag follows the bytes: a query that changes them changes it; `password`, which changes nothing here, does not (case 4)', async () => {
    // Posts have no passwords in this service (the original's post passwords are not stored: imports make
    // protected events private or drafts), so `?password=` is an argument no route reads: same bytes, same tag.
    const e = await makeEvent(t, { title: 'No password here' });
    const plain = await t.get(`/events/${e.id}`);
    const withPassword = await t.get(`/events/${e.id}`, { query: { password: 'secret' } });
    assert.equal(withPassword.text, plain.text);
    assert.equal(withPassword.headers.etag, plain.headers.etag);
    const fields = await t.get(`/events/${e.id}`, { query: { _fields: 'id,title' } });
    assert.notEqual(fields.headers.etag, plain.headers.etag);
  });

  it('HEAD answers the headers of GET with no body, and 304 to a current tag or date (case 6)', async () => {
    const e = await makeEvent(t, { title: 'Headed' });
    const get = await t.get(`/events/${e.id}`);
    const head = await t.request('HEAD', `/events/${e.id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    for (const name of ['etag', 'last-modified', 'vary', 'cache-control', 'content-type', 'allow', 'link']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
    assert.equal((await t.request('HEAD', `/events/${e.id}`, { headers: { 'if-none-match': etagOf(get) } })).status, 304);
    assert.equal(
      (await t.request('HEAD', `/events/${e.id}`, { headers: { 'if-modified-since': String(get.headers['last-modified']) } })).status,
      304,
    );
    const venue = await makeLinked(t, 'venue', { venue: 'Headed hall' });
    const venueGet = await t.get(`/venues/${venue.id}`, { as: 'editor' });
    const venueHead = await t.request('HEAD', `/venues/${venue.id}`, { as: 'editor' });
    for (const name of ['etag', 'last-modified', 'vary', 'cache-control']) assert.equal(venueHead.headers[name], venueGet.headers[name], name);
  });
});

describe('conditional requests: writes on every item route family', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const write = (
    method: string,
    path: string,
    json: Record<string, unknown> | undefined,
    headers: Record<string, string> = {},
    as: Caller = 'administrator',
  ) => t.request(method, path, { as, json, headers });
  const read = (path: string, as: Caller = 'administrator') => t.get(path, { as });

  for (const f of FAMILIES) {
    describe(f.name, () => {
      it('a stale If-Match is a 412 that changes nothing; the current one writes and answers the ETag the next read has', async () => {
        const { path, value } = await f.make(t);
        const stale = etagOf(await read(path));
        // someone else's write moves the item on
        const other = await write('PATCH', path, f.set(`${value} (theirs)`));
        assert.equal(other.status, 200, other.text);
        const refused = await write('PATCH', path, f.set(`${value} (mine)`), { 'if-match': stale });
        assertPreconditionFailed(refused, 'stale If-Match');
        const unchanged = await read(path);
        assert.equal(f.read(unchanged.body), `${value} (theirs)`, 'the 412 wrote nothing');

        const current = etagOf(unchanged);
        const accepted = await write('PATCH', path, f.set(`${value} (mine)`), { 'if-match': current });
        assert.equal(accepted.status, 200, accepted.text);
        assert.equal(f.read(accepted.body), `${value} (mine)`);
        const next = await read(path);
        assert.match(String(accepted.headers.etag), /^"[\w-]{32}"$/);
        assert.notEqual(accepted.headers.etag, current);
        assert.equal(accepted.headers.etag, next.headers.etag, "the write's ETag is the next read's");
        assert.equal(etagOf(next), strongEtag(next.text));
        // and it is current: the next conditional write needs no read in between
        const chained = await write('PUT', path, f.set(`${value} (mine, again)`), { 'if-match': String(accepted.headers.etag) });
        assert.equal(chained.status, 200, chained.text);
        // a list of tags holds when one of them is current
        const listed = await write('POST', path, f.set(`${value} (listed)`), { 'if-match': `"nope", ${String(chained.headers.etag)}` });
        assert.equal(listed.status, 200, listed.text);
      });

      it('a weak tag never matches; `*` holds on an existing item and fails on a missing one', async () => {
        const { path, value } = await f.make(t);
        const current = etagOf(await read(path));
        assertPreconditionFailed(await write('PATCH', path, f.set(`${value} weak`), { 'if-match': `W/${current}` }), 'W/ tag');
        assert.equal(f.read((await read(path)).body), value);
        const star = await write('PATCH', path, f.set(`${value} star`), { 'if-match': '*' });
        assert.equal(star.status, 200, star.text);
        assertPreconditionFailed(await write('PATCH', f.missing, f.set('nothing'), { 'if-match': '*' }), 'If-Match: * on a missing item (update)');
        assertPreconditionFailed(await write('DELETE', f.missing, undefined, { 'if-match': '*' }), 'If-Match: * on a missing item (delete)');
        assertPreconditionFailed(await write('PATCH', f.missing, f.set('nothing'), { 'if-match': current }), 'a tag on a missing item');
      });

      it('If-Unmodified-Since: a date before the last modification is a 412, the Last-Modified itself writes; If-Match wins over it', async () => {
        const { path, value } = await f.make(t);
        const modified = String((await read(path)).headers['last-modified']);
        const before = httpDate(Date.parse(modified) - 1000);
        assertPreconditionFailed(await write('PATCH', path, f.set(`${value} late`), { 'if-unmodified-since': before }), 'If-Unmodified-Since before');
        assert.equal(f.read((await read(path)).body), value);
        const ok = await write('PATCH', path, f.set(`${value} on time`), { 'if-unmodified-since': modified });
        assert.equal(ok.status, 200, ok.text);
        assert.equal(f.read((await read(path)).body), `${value} on time`);
        // with If-Match, the date is not looked at (RFC 9110 §13.2.2)
        const current = etagOf(await read(path));
        const both = await write('PATCH', path, f.set(`${value} both`), { 'if-match': current, 'if-unmodified-since': before });
        assert.equal(both.status, 200, both.text);
        // a value that is not an HTTP date is ignored: the write is unconditional
        assert.equal((await write('PATCH', path, f.set(`${value} undated`), { 'if-unmodified-since': 'last tuesday' })).status, 200);
        // …and so is a day the month does not have (not read as March 2nd, 2026, before the last modification)
        const feb30 = await write('PATCH', path, f.set(`${value} feb 30`), { 'if-unmodified-since': 'Mon, 30 Feb 2026 00:00:00 GMT' });
        assert.equal(feb30.status, 200, feb30.text);
      });

      it('of two writers holding the same ETag at once, exactly one succeeds and the other gets 412', async () => {
        const { path, value } = await f.make(t);
        for (let round = 0; round < 3; round++) {
          const current = etagOf(await read(path));
          const results = await Promise.all(
            ['left', 'right'].map((side) => write('PATCH', path, f.set(`${value} ${round} ${side}`), { 'if-match': current })),
          );
          assert.deepEqual(results.map((r) => r.status).sort(), [200, 412], results.map((r) => r.text).join('\n'));
          const winner = results.find((r) => r.status === 200) as Response;
          const now = await read(path);
          assert.equal(f.read(now.body), f.read(winner.body), 'the item is the winner’s write');
          assert.equal(now.headers.etag, winner.headers.etag);
        }
      });

      it('DELETE: a stale If-Match keeps the item, the current one deletes it', async () => {
        const { path, value } = await f.make(t);
        const stale = etagOf(await read(path));
        assert.equal((await write('PATCH', path, f.set(`${value} edited`))).status, 200);
        assertPreconditionFailed(await write('DELETE', path, undefined, { 'if-match': stale }), 'stale DELETE');
        const kept = await read(path);
        assert.equal(kept.status, 200);
        assert.equal(f.read(kept.body), `${value} edited`);
        const deleted = await write('DELETE', path, undefined, { 'if-match': etagOf(kept) });
        assert.equal(deleted.status, 200, deleted.text);
        const after = await read(path);
        if (f.deleteHides || f.deleteRemoves) {
          assert.notEqual(after.status, 200);
          assert.equal(deleted.headers.etag, undefined, 'no ETag: the next read is no 200');
        } else {
          // an administrator still reads a trashed venue or organizer (by id: its slug took the trash suffix)
          const byId = await read(path.replace(/by-slug\/.*$/, String(deleted.body.id)));
          assert.equal(byId.body.status, 'trash');
          assert.equal(deleted.headers.etag, byId.headers.etag);
        }
      });

      it('a caller who may not write gets 401/403, not a verdict on the condition', async () => {
        const { path, value } = await f.make(t);
        const refused = await write('PATCH', path, f.set(`${value} anonymous`), { 'if-match': '"stale"' }, 'anonymous');
        assert.equal(refused.status, 401, refused.text);
        const subscriber = await write('PATCH', path, f.set(`${value} subscriber`), { 'if-match': '"stale"' }, 'subscriber');
        assert.equal(subscriber.status, 403, subscriber.text);
        assert.equal(f.read((await read(path)).body), value);
      });
    });
  }

  it("If-Match is compared with the caller's own read: an author's tag differs from an administrator's when an embedded draft is hidden from the author", async () => {
    const hidden = await makeLinked(t, 'organizer', { organizer: 'Hidden host', status: 'draft' });
    const e = await makeEvent(t, { title: 'Authored', author: t.users.author.id, organizer: [hidden.id] });
    const mine = await read(`/events/${e.id}`, 'author');
    const admins = await read(`/events/${e.id}`, 'administrator');
    assert.equal(mine.body.organizer.length, 0);
    assert.notEqual(mine.headers.etag, admins.headers.etag);
    assertPreconditionFailed(
      await write('PATCH', `/events/${e.id}`, { title: 'Authored, edited' }, { 'if-match': etagOf(admins) }, 'author'),
      "another caller's tag",
    );
    const ok = await write('PATCH', `/events/${e.id}`, { title: 'Authored, edited' }, { 'if-match': etagOf(mine) }, 'author');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers.etag, (await read(`/events/${e.id}`, 'author')).headers.etag);
  });

  it("an event's If-Match fails once its venue is renamed (the venue is part of the event's body)", async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Embedded hall' });
    const e = await makeEvent(t, { title: 'Embedding', venue: venue.id });
    const tag = etagOf(await read(`/events/${e.id}`));
    assert.equal((await write('PATCH', `/venues/${venue.id}`, { venue: 'Embedded hall, renamed' })).status, 200);
    assertPreconditionFailed(await write('PATCH', `/events/${e.id}`, { title: 'Embedding, edited' }, { 'if-match': tag }), 'after the venue rename');
    assert.equal((await read(`/events/${e.id}`)).body.title, 'Embedding');
  });

  it('creates answer the ETag of their first read', async () => {
    const created = [
      await write('POST', '/events', {
        title: 'Created tagged',
        start_date: '2031-06-01 10:00',
        end_date: '2031-06-01 11:00',
        venue: { venue: 'Created hall' },
        categories: ['created-genre'],
      }),
      await write('POST', '/venues', { venue: 'Created venue' }),
      await write('POST', '/organizers', { organizer: 'Created organizer' }),
      await write('POST', '/categories', { name: 'Created category' }),
      await write('POST', '/tags', { name: 'Created tag' }),
    ];
    for (const res of created) {
      assert.equal(res.status, 201, res.text);
      const location = String(res.headers.location).replace(/^.*\/calendar\/events\/v1/, '');
      assert.equal(res.headers.etag, (await read(location)).headers.etag, location);
    }
  });

  it('split ("this and following") is conditional on the occurrence named: stale → 412 with the series unchanged, current → 201 with the new series’ ETag', async () => {
    const series = await makeEvent(t, {
      title: 'Split series',
      start_date: '2031-05-05 09:00:00',
      end_date: '2031-05-05 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=6'],
    });
    const occurrences = (await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2031-05-01', end_date: '2031-05-31' } })).body
      .events;
    const at = occurrences[3];
    const stale = etagOf(await read(`/events/${at.id}`));
    assert.equal((await write('PATCH', `/events/${at.id}`, { description: 'edited alone' })).status, 200);
    const refused = await write('POST', `/events/${at.id}/split`, { title: 'Split series, later' }, { 'if-match': stale });
    assertPreconditionFailed(refused, 'stale split');
    const unchanged = await read(`/events/${series.id}`);
    assert.deepEqual(unchanged.body.recurrence, ['RRULE:FREQ=DAILY;COUNT=6'], 'the series was not split');
    const current = etagOf(await read(`/events/${at.id}`));
    const split = await write('POST', `/events/${at.id}/split`, { title: 'Split series, later' }, { 'if-match': current });
    assert.equal(split.status, 201, split.text);
    assert.equal(split.headers.etag, (await read(`/events/${split.body.id}`)).headers.etag);
    assert.notDeepEqual((await read(`/events/${series.id}`)).body.recurrence, ['RRULE:FREQ=DAILY;COUNT=6']);
    // at the first occurrence a split updates the whole series, still conditional on that occurrence
    const first = (await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2031-05-01', end_date: '2031-05-31' } })).body.events[0];
    assertPreconditionFailed(
      await write('POST', `/events/${first.id}/split`, { title: 'Whole' }, { 'if-match': '"stale"' }),
      'stale split at the first',
    );
    const whole = await write('POST', `/events/${first.id}/split`, { title: 'Whole' }, { 'if-match': etagOf(await read(`/events/${first.id}`)) });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.headers.etag, (await read(`/events/${series.id}`)).headers.etag);
  });

  it('If-None-Match on a write fails while the item is there: `*` (do not overwrite) or its current tag; another tag writes', async () => {
    for (const f of FAMILIES) {
      const { path, value } = await f.make(t);
      const current = etagOf(await read(path));
      for (const header of ['*', current, `"other", W/${current}`]) {
        const refused = await write('PATCH', path, f.set(`${value} (overwritten)`), { 'if-none-match': header });
        assertPreconditionFailed(refused, `${f.name} If-None-Match: ${header}`);
      }
      assert.equal(f.read((await read(path)).body), value, `${f.name}: the 412s wrote nothing`);
      const other = await write('PATCH', path, f.set(`${value} (written)`), { 'if-none-match': '"some-other-state"' });
      assert.equal(other.status, 200, `${f.name}: ${other.text}`);
    }
  });

  it('without conditions, writes answer as before (no 412, no 428), with the new ETag added', async () => {
    const { path } = await FAMILIES[0].make(t);
    const res = await write('PATCH', path, { title: 'Unconditional' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.etag, (await read(path)).headers.etag);
    assert.equal((await write('PATCH', '/events/99999997', { title: 'x' })).status, 404);
  });
});

describe('conditional requests: REQUIRE_IF_MATCH', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ REQUIRE_IF_MATCH: 'on' })));
  after(() => t.close());

  it('writes of an existing item without a condition answer 428 and change nothing; with one they write; creates are not affected', async () => {
    for (const f of FAMILIES) {
      const { path, value } = await f.make(t);
      for (const method of ['PATCH', 'PUT', 'POST', 'DELETE']) {
        const res = await t.request(method, path, { as: 'administrator', json: method === 'DELETE' ? undefined : f.set(`${value} required`) });
        assert.equal(res.status, 428, `${f.name} ${method}: ${res.text}`);
        assert.equal(res.body.code, 'precondition-required');
        assert.deepEqual(res.body.data, { status: 428 });
      }
      const current = await t.get(path, { as: 'administrator' });
      assert.equal(f.read(current.body), value, `${f.name}: the 428s wrote nothing`);
      const tagged = await t.patch(path, { as: 'administrator', json: f.set(`${value} tagged`), headers: { 'if-match': etagOf(current) } });
      assert.equal(tagged.status, 200, tagged.text);
      const dated = await t.patch(path, {
        as: 'administrator',
        json: f.set(`${value} dated`),
        headers: { 'if-unmodified-since': String((await t.get(path, { as: 'administrator' })).headers['last-modified']) },
      });
      assert.equal(dated.status, 200, dated.text);
    }
    const series = await makeEvent(t, {
      title: 'Required split',
      start_date: '2031-07-07 09:00',
      end_date: '2031-07-07 10:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const occurrence = (await t.get(`/events/${series.id}/occurrences`, { query: { start_date: '2031-07-01', end_date: '2031-07-31' } })).body
      .events[1];
    assert.equal((await t.post(`/events/${occurrence.id}/split`, { as: 'administrator', json: { title: 'x' } })).status, 428);
    // creates, and what names no item, answer as without the setting
    assert.equal((await t.post('/tags', { as: 'administrator', json: { name: 'Required create' } })).status, 201);
    assert.equal((await t.patch('/events/99999999', { as: 'administrator', json: { title: 'x' } })).status, 404);
    // who may not write hears that first
    const e = await makeEvent(t, { title: 'Required, anonymous' });
    assert.equal((await t.patch(`/events/${e.id}`, { json: { title: 'x' } })).status, 401);
  });
});

describe('conditional requests: two service processes writing one item', () => {
  const LOGIN = 'cond-admin';
  const PASSWORD = 'cond-admin-password';
  const HEADERS = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
  const NS = '/calendar/events/v1';
  let dir: string;
  let db: TestDatabase;
  let a: RunningServer;
  let b: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-cond-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'cond.db') });
    await new UserService(db.storage).add({ login: LOGIN, role: 'administrator', password: PASSWORD });
    // one PUBLIC_URL for both: the bodies, hence the ETags, name it
    const env = { DATABASE_URL: databaseUrl(db.config), PUBLIC_URL: 'http://calendar.test' };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with the same If-Match, exactly one of the two processes writes each time; the other answers 412', async () => {
    const send = (s: RunningServer, path: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${s.base}${NS}${path}`, { method, headers: { ...HEADERS, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const created = await send(a, '/events', 'POST', { title: 'Contended', start_date: '+3 days', end_date: '+3 days 1 hour' });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: number };
    const tag = await send(b, '/tags', 'POST', { name: 'Contended tag' });
    const tagId = ((await tag.json()) as { id: number }).id;
    for (const path of [`/events/${id}`, `/tags/${tagId}`]) {
      for (let round = 0; round < 6; round++) {
        const etag = String((await send(round % 2 ? a : b, path, 'GET')).headers.get('etag'));
        const body = (side: string) => (path.startsWith('/tags') ? { name: `Contended ${round} ${side}` } : { title: `Contended ${round} ${side}` });
        const results = await Promise.all([
          send(a, path, 'PATCH', body('a'), { 'if-match': etag }),
          send(b, path, 'PATCH', body('b'), { 'if-match': etag }),
        ]);
        const texts = await Promise.all(results.map((r) => r.text()));
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 412], `${path} round ${round}: ${texts.join('\n')}`);
        const winner = JSON.parse(texts[results.findIndex((r) => r.status === 200)]);
        const now = (await (await send(a, path, 'GET')).json()) as { title?: string; name?: string };
        assert.equal(now.title ?? now.name, winner.title ?? winner.name);
      }
    }
  });
});
