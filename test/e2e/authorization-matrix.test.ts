/**
 * The authorization matrix: every route and method × every kind of caller × objects owned by each role that
 * can own one, in every status. Expectations come from a model written here from CONTRACT.md §7 and §8 and
 * DECISIONS.md (per-object rules on slug routes too; bad credentials are `401 incorrect_password`) — not from
 * the service's own policy code in src/domain/policies.ts.
 *
 * Each cell checks the status and the error code; a refused write must leave the object's rows unchanged (its
 * posts row, details row, term relationships and the terms' counts, organizer and venue links) and an allowed
 * one must change them, with the new value reading back. HEAD answers what GET answers, with no body; OPTIONS
 * lists in `Allow` exactly the methods the model says this caller may call on that object.
 *
 * Objects are made through the HTTP API by the administrator, naming the owner (`author`) and the `status`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Caller, createTestApp, type Response, type TestApp } from '../helpers/app.js';
import { databaseDigest, postDigest, termDigest } from '../helpers/digest.js';
import { runInfo, writeMeasured } from '../helpers/measured.js';

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
type PostType = 'event' | 'venue' | 'organizer';
const CALLERS: Caller[] = ['anonymous', 'bad', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];
const OWNERS = ['contributor', 'author', 'editor', 'administrator'] as const;
type Owner = (typeof OWNERS)[number];
const STATUSES = ['draft', 'pending', 'future', 'publish', 'private', 'trash'] as const;
type Status = (typeof STATUSES)[number];
const UPDATE_METHODS = ['POST', 'PUT', 'PATCH'] as const;

/** The capability table of CONTRACT.md §7.1, as data (`delete_*` is granted exactly where `edit_*` is). */
const CAPS: Record<Role, string[]> = {
  administrator: ['edit', 'publish', 'edit_published', 'edit_others', 'private', 'manage_categories'],
  editor: ['edit', 'publish', 'edit_published', 'edit_others', 'private', 'manage_categories'],
  author: ['edit', 'publish', 'edit_published'],
  contributor: ['edit'],
  subscriber: [],
};
const has = (caller: Caller, cap: string) => caller in CAPS && CAPS[caller as Role].includes(cap);

interface Obj {
  type: PostType;
  id: number;
  slug: string;
  owner: Owner;
  status: Status;
  /** For trashed objects: what they were. */
  before: Status;
}

/** May the caller edit (or delete) it: own → edit, or edit_published once published; others' → edit_others, +private. */
function mayEdit(caller: Caller, o: Obj): boolean {
  const status = o.status === 'trash' ? o.before : o.status;
  const published = status === 'publish' || status === 'future';
  if (o.owner === caller) return has(caller, published ? 'edit_published' : 'edit');
  if (!has(caller, 'edit_others')) return false;
  if (published) return has(caller, 'edit_published');
  if (status === 'private') return has(caller, 'private');
  return true;
}

function mayRead(caller: Caller, o: Obj): boolean {
  if (o.status === 'publish') return true;
  if (caller === 'anonymous' || caller === 'bad') return false;
  if (o.status === 'trash') return mayEdit(caller, o);
  if (o.owner === caller) return true;
  if (o.status === 'private') return has(caller, 'private');
  return mayEdit(caller, o);
}

interface Expect {
  status: number;
  code?: string;
}

const BAD_CREDENTIALS: Expect = { status: 401, code: 'incorrect_password' };
/** A failed permission check: 401 for anonymous callers, 403 for known ones (CONTRACT.md §7.2). */
const forbidden = (caller: Caller): Expect => ({ status: caller === 'anonymous' ? 401 : 403, code: 'rest_forbidden' });

function expectRead(caller: Caller, o: Obj): Expect {
  if (caller === 'bad') return BAD_CREDENTIALS;
  // a trashed event is gone for everyone, administrators included (CONTRACT.md §6.8)
  if (o.type === 'event' && o.status === 'trash') return { status: 403, code: 'event-no-longer-available' };
  return mayRead(caller, o) ? { status: 200 } : { status: 403, code: `${o.type}-not-accessible` };
}
function expectUpdate(caller: Caller, o: Obj): Expect {
  if (caller === 'bad') return BAD_CREDENTIALS;
  return mayEdit(caller, o) ? { status: 200 } : forbidden(caller);
}
function expectDelete(caller: Caller, o: Obj): Expect {
  if (caller === 'bad') return BAD_CREDENTIALS;
  if (!mayEdit(caller, o)) return forbidden(caller);
  return o.status === 'trash' ? { status: 410, code: `${o.type}-is-in-trash` } : { status: 200 };
}
/** WordPress' `Allow`: the methods whose permission check this caller passes on this object (reads always do). */
function expectAllow(caller: Caller, o: Obj): string[] {
  return (mayEdit(caller, o) ? ['GET', 'DELETE', ...UPDATE_METHODS] : ['GET']).sort();
}

const allowOf = (res: Response) =>
  String(res.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();

describe('authorization matrix', () => {
  let t: TestApp;
  let cells = 0;
  let counter = 0;
  /** What the cells covered, for the summary `npm run matrix` keeps (test/measured). */
  const tally = { sections: {} as Record<string, number>, methods: {} as Record<string, number>, outcomes: {} as Record<string, number> };
  const started = Date.now();
  const bump = (into: Record<string, number>, key: string) => (into[key] = (into[key] ?? 0) + 1);
  /** Published, administrator-owned things the events made here link to, so their rows are part of each digest. */
  let fixtures: { venue: number; organizer: number; category: number; tag: number };

  before(async () => {
    t = await createTestApp();
    const made = async (path: string, json: Record<string, unknown>) => {
      const res = await t.post(path, { as: 'administrator', json });
      assert.equal(res.status, 201, `fixture ${path}: ${res.text.slice(0, 300)}`);
      return res.body.id as number;
    };
    fixtures = {
      venue: await made('/venues', { venue: 'Matrix fixture venue' }),
      organizer: await made('/organizers', { organizer: 'Matrix fixture organizer' }),
      category: await made('/categories', { name: 'Matrix fixture category' }),
      tag: await made('/tags', { name: 'Matrix fixture tag' }),
    };
  });
  after(() => {
    process.stdout.write(`# authorization matrix: ${cells} cells checked\n`);
    const file = writeMeasured('matrix', { ...runInfo(), duration_ms: Date.now() - started, cells, ...tally });
    if (file) process.stdout.write(`# authorization matrix summary written to ${file}\n`);
    return t.close();
  });

  type Check = (res: Response, expected: Expect, label: string) => void;
  /** One cell: the status, and the error code when one is expected (counted under `section`). */
  const checker =
    (section: string): Check =>
    (res, expected, label) => {
      assert.equal(res.status, expected.status, `${label}: ${res.text.slice(0, 300)}`);
      if (expected.code !== undefined) assert.equal(res.body?.code, expected.code, `${label}: ${res.text.slice(0, 300)}`);
      cells++;
      bump(tally.sections, section);
      const method = label.split(/[: ]/)[0];
      bump(tally.methods, method);
      bump(
        tally.outcomes,
        method === 'HEAD' ? `${expected.status} (HEAD: no body, no code)` : `${expected.status}${expected.code ? ` ${expected.code}` : ''}`,
      );
    };

  const storedSlug = async (id: number) =>
    (await t.storage.db.selectFrom('posts').select('slug').where('id', '=', id).executeTakeFirstOrThrow()).slug;

  /**
   * Draft and pending events made without a slug have none until published (CONTRACT.md §6.7; venues and
   * organizers get one from their name), and the by-slug routes need one. A post that already has a slug is
   * left alone.
   */
  async function ensureSlug(type: PostType, id: number): Promise<void> {
    if ((await storedSlug(id)) !== '') return;
    // (a prefix no title here sanitizes to: a slug shared with a published post would send the route elsewhere)
    await t.storage.db
      .updateTable('posts')
      .set({ slug: `unpublished-${type}-${id}` })
      .where('id', '=', id)
      .execute();
  }

  const eventTimes = () => ({ start_date: '+1 day 10:00', end_date: '+1 day 11:00' });

  /** An object of this type, owner and status, made through the API by the administrator. */
  async function make(type: PostType, owner: Owner, status: Status): Promise<Obj> {
    const n = ++counter;
    const before: Status = status === 'trash' ? (owner === 'contributor' ? 'draft' : 'publish') : status;
    const common = { status: before, author: t.users[owner].id, ...(before === 'future' ? { date: '+5 days' } : {}) };
    const json =
      type === 'event'
        ? {
            title: `Matrix event ${n}`,
            ...eventTimes(),
            venue: fixtures.venue,
            organizer: [fixtures.organizer],
            categories: [fixtures.category],
            tags: [fixtures.tag],
            ...common,
          }
        : { [type]: `Matrix ${type} ${n}`, ...common };
    const res = await t.post(`/${type}s`, { as: 'administrator', json });
    assert.equal(res.status, 201, `make a ${before} ${type} of ${owner}: ${res.text.slice(0, 300)}`);
    assert.equal(res.body.status, before, `made a ${before} ${type}`);
    assert.equal(Number(res.body.author), t.users[owner].id, `made a ${type} of ${owner}`);
    const id = res.body.id as number;
    if (type !== 'event') {
      // an event linking to it, so the links are part of its digest (and a delete must cut them)
      const link = await t.post('/events', {
        as: 'administrator',
        json: { title: `Linked to matrix ${type} ${n}`, ...eventTimes(), ...(type === 'venue' ? { venue: id } : { organizer: [id] }) },
      });
      assert.equal(link.status, 201, `link an event to the ${type}: ${link.text.slice(0, 300)}`);
    }
    await ensureSlug(type, id);
    if (status === 'trash') assert.equal((await t.del(`/${type}s/${id}`, { as: 'administrator' })).status, 200, `trash the ${type}`);
    const slug = await storedSlug(id);
    return { type, id, slug, owner, status, before };
  }

  /** The object as the administrator reads it through the API (a trashed event only through the list). */
  async function readBack(o: Obj): Promise<any> {
    if (o.type === 'event' && o.status === 'trash') {
      const res = await t.get('/events', { as: 'administrator', query: { status: 'trash', include: o.id } });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      return res.body.events.find((e: { id: number }) => e.id === o.id);
    }
    const res = await t.get(`/${o.type}s/${o.id}`, { as: 'administrator' });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return res.body;
  }

  const nameField = (type: PostType) => (type === 'event' ? 'title' : type);
  const pathOf = (o: Obj, route: 'id' | 'slug') => (route === 'id' ? `/${o.type}s/${o.id}` : `/${o.type}s/by-slug/${o.slug}`);

  /** GET, HEAD, OPTIONS and an update (POST, PUT or PATCH) by id and by slug, for every caller, owner and status. */
  async function readsAndUpdates(type: PostType, check: Check): Promise<void> {
    let objectIndex = 0;
    for (const owner of OWNERS) {
      for (const status of STATUSES) {
        const o = await make(type, owner, status);
        objectIndex++;
        for (const [callerIndex, caller] of CALLERS.entries()) {
          for (const [routeIndex, route] of (['id', 'slug'] as const).entries()) {
            const path = pathOf(o, route);
            const label = `${caller} on ${owner}'s ${status} ${type} by ${route}`;
            const read = expectRead(caller, o);
            const got = await t.get(path, { as: caller });
            check(got, read, `GET: ${label}`);
            if (got.status === 200) assert.equal(got.body.id, o.id, `GET: ${label}`);

            const head = await t.request('HEAD', path, { as: caller });
            check(head, { status: read.status }, `HEAD: ${label}`);
            assert.equal(head.text, '', `HEAD: ${label} has a body`);

            const options = await t.request('OPTIONS', path, { as: caller });
            if (caller === 'bad') check(options, BAD_CREDENTIALS, `OPTIONS: ${label}`);
            else {
              check(options, { status: 200 }, `OPTIONS: ${label}`);
              assert.deepEqual(allowOf(options), expectAllow(caller, o), `OPTIONS Allow: ${label}`);
            }

            // The three update methods share one handler and one rule (CONTRACT.md §1), so each cell takes one of
            // them in turn: the two routes of a caller get different ones, and across the objects every method
            // meets every caller on both routes.
            {
              const method = UPDATE_METHODS[(objectIndex + callerIndex + routeIndex) % UPDATE_METHODS.length];
              const value = `Matrix edit ${++counter}`;
              const before = await postDigest(t.storage, o.id);
              const res = await t.request(method, path, { as: caller, json: { [nameField(type)]: value } });
              const expected = expectUpdate(caller, o);
              check(res, expected, `${method}: ${label}`);
              const after = await postDigest(t.storage, o.id);
              if (expected.status >= 400) {
                assert.equal(after, before, `${method}: a refused update changed ${label}`);
              } else {
                assert.notEqual(after, before, `${method}: an allowed update left ${label} as it was`);
                assert.equal(res.body[nameField(type)], value, `${method}: the answer to ${label}`);
                const stored = await readBack(o);
                assert.equal(stored?.[nameField(type)], value, `${method}: ${label} does not read back`);
                assert.equal(stored.status, o.status, `${method}: a partial update changed the status of ${label}`);
                o.slug = await storedSlug(o.id);
              }
            }
          }
        }
      }
    }
  }

  /** DELETE by id and by slug, for every caller, owner and status. */
  async function deletes(type: PostType, check: Check): Promise<void> {
    for (const owner of OWNERS) {
      for (const status of STATUSES) {
        // a refused delete leaves the object for the next caller; an allowed one uses it up
        let o = await make(type, owner, status);
        for (const caller of CALLERS) {
          for (const route of ['id', 'slug'] as const) {
            const label = `${caller} on ${owner}'s ${status} ${type} by ${route}`;
            const expected = expectDelete(caller, o);
            const before = await postDigest(t.storage, o.id);
            const res = await t.del(pathOf(o, route), { as: caller });
            check(res, expected, `DELETE: ${label}`);
            const after = await postDigest(t.storage, o.id);
            if (expected.status >= 400) {
              assert.equal(after, before, `DELETE: a refused delete changed ${label}`);
              continue;
            }
            assert.notEqual(after, before, `DELETE: an allowed delete left ${label} as it was`);
            assert.equal(res.body.status, 'trash', `DELETE: the answer to ${label}`);
            assert.equal((await readBack({ ...o, status: 'trash' })).status, 'trash', `DELETE: ${label} is not in the trash`);
            o = await make(type, owner, status);
          }
        }
      }
    }
  }

  // The three post types share no row a post digest reads (events carry the fixture terms; venues and
  // organizers only their own linking events), so their cells run side by side; what digests the whole
  // database runs alone, after them.
  describe('events, venues and organizers by id and by slug', { concurrency: true }, () => {
    for (const type of ['event', 'venue', 'organizer'] as const) {
      it(`${type}s: GET, HEAD, OPTIONS, an update, and DELETE, for every caller, owner and status`, async () => {
        await readsAndUpdates(type, checker(`${type}s: GET, HEAD, OPTIONS and an update (POST, PUT or PATCH) by id and by slug`));
        await deletes(type, checker(`${type}s: DELETE by id and by slug`));
      });
    }
  });

  for (const type of ['event', 'venue', 'organizer'] as const) {
    it(`${type}s: create, list, HEAD and OPTIONS on the collection, for every caller`, async (ctx) => {
      const check = checker(ctx.name);
      const plural = `${type}s`;
      for (const caller of CALLERS) {
        const name = `New ${type} by ${caller} ${++counter}`;
        const json = type === 'event' ? { title: name, ...eventTimes() } : { [type]: name };
        const expected: Expect = caller === 'bad' ? BAD_CREDENTIALS : has(caller, 'edit') ? { status: 201 } : forbidden(caller);
        const before = await databaseDigest(t.storage);
        const res = await t.post(`/${plural}`, { as: caller, json });
        check(res, expected, `POST ${plural} as ${caller}`);
        if (expected.status >= 400) assert.equal(await databaseDigest(t.storage), before, `a refused create by ${caller} changed the database`);
        else {
          assert.notEqual(await databaseDigest(t.storage), before, `an allowed create by ${caller} stored nothing`);
          const stored = await t.get(`/${plural}/${res.body.id}`, { as: 'administrator' });
          assert.equal(stored.body?.[nameField(type)], name, `the ${type} created by ${caller} does not read back`);
        }

        const list = caller === 'bad' ? BAD_CREDENTIALS : { status: 200 };
        check(await t.get(`/${plural}`, { as: caller }), list, `GET ${plural} as ${caller}`);
        const head = await t.request('HEAD', `/${plural}`, { as: caller });
        check(head, { status: list.status }, `HEAD ${plural} as ${caller}`);
        assert.equal(head.text, '');
        const options = await t.request('OPTIONS', `/${plural}`, { as: caller });
        if (caller === 'bad') check(options, BAD_CREDENTIALS, `OPTIONS ${plural} as ${caller}`);
        else {
          check(options, { status: 200 }, `OPTIONS ${plural} as ${caller}`);
          assert.deepEqual(allowOf(options), has(caller, 'edit') ? ['GET', 'POST'] : ['GET'], `OPTIONS ${plural} Allow as ${caller}`);
        }
      }
    });
  }

  for (const taxonomy of ['categories', 'tags'] as const) {
    it(`${taxonomy}: every route and method for every caller`, async (ctx) => {
      const check = checker(ctx.name);
      // categories: edit_tribe_events and publish_tribe_events; tags: and manage_categories (CONTRACT.md §7.2)
      const manage = (c: Caller) => has(c, 'edit') && (taxonomy === 'categories' ? has(c, 'publish') : has(c, 'manage_categories'));
      for (const caller of CALLERS) {
        const write = (ok: number): Expect => (caller === 'bad' ? BAD_CREDENTIALS : manage(caller) ? { status: ok } : forbidden(caller));
        const read: Expect = caller === 'bad' ? BAD_CREDENTIALS : { status: 200 };
        const made = await t.post(`/${taxonomy}`, { as: 'administrator', json: { name: `Matrix ${taxonomy} ${++counter}` } });
        assert.equal(made.status, 201, made.text.slice(0, 300));
        const id = made.body.id as number;
        // a published event carrying the term, so its relationships and count are part of the digest
        const carrier = await t.post('/events', { as: 'administrator', json: { title: `Carries term ${id}`, ...eventTimes(), [taxonomy]: [id] } });
        assert.equal(carrier.status, 201, carrier.text.slice(0, 300));

        check(await t.get(`/${taxonomy}`, { as: caller }), read, `GET ${taxonomy} as ${caller}`);
        const listHead = await t.request('HEAD', `/${taxonomy}`, { as: caller });
        check(listHead, { status: read.status }, `HEAD ${taxonomy} as ${caller}`);
        assert.equal(listHead.text, '');
        const listOptions = await t.request('OPTIONS', `/${taxonomy}`, { as: caller });
        check(listOptions, read, `OPTIONS ${taxonomy} as ${caller}`);
        if (caller !== 'bad')
          assert.deepEqual(allowOf(listOptions), manage(caller) ? ['GET', 'POST'] : ['GET'], `OPTIONS ${taxonomy} Allow as ${caller}`);

        const newName = `By ${caller} ${++counter}`;
        let before = await databaseDigest(t.storage);
        const created = await t.post(`/${taxonomy}`, { as: caller, json: { name: newName } });
        check(created, write(201), `POST ${taxonomy} as ${caller}`);
        if (created.status >= 400)
          assert.equal(await databaseDigest(t.storage), before, `a refused ${taxonomy} create by ${caller} changed the database`);
        else assert.equal((await t.get(`/${taxonomy}/${created.body.id}`)).body.name, newName);

        const item = `/${taxonomy}/${id}`;
        check(await t.get(item, { as: caller }), read, `GET one of ${taxonomy} as ${caller}`);
        const head = await t.request('HEAD', item, { as: caller });
        check(head, { status: read.status }, `HEAD one of ${taxonomy} as ${caller}`);
        assert.equal(head.text, '');
        const options = await t.request('OPTIONS', item, { as: caller });
        check(options, read, `OPTIONS one of ${taxonomy} as ${caller}`);
        if (caller !== 'bad') {
          assert.deepEqual(
            allowOf(options),
            manage(caller) ? ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'] : ['GET'],
            `OPTIONS one of ${taxonomy} Allow as ${caller}`,
          );
        }

        for (const method of UPDATE_METHODS) {
          const description = `Matrix description ${++counter}`;
          before = await termDigest(t.storage, id);
          const res = await t.request(method, item, { as: caller, json: { description } });
          check(res, write(200), `${method} ${taxonomy} as ${caller}`);
          const after = await termDigest(t.storage, id);
          if (res.status >= 400) assert.equal(after, before, `a refused ${method} of ${taxonomy} by ${caller} changed the term`);
          else {
            assert.notEqual(after, before, `an allowed ${method} of ${taxonomy} by ${caller} changed nothing`);
            assert.equal((await t.get(item)).body.description, description, `${method} ${taxonomy} by ${caller} does not read back`);
          }
        }

        before = await termDigest(t.storage, id);
        const removed = await t.del(item, { as: caller });
        check(removed, write(200), `DELETE ${taxonomy} as ${caller}`);
        const after = await termDigest(t.storage, id);
        if (removed.status >= 400) assert.equal(after, before, `a refused DELETE of ${taxonomy} by ${caller} changed the term`);
        else {
          assert.notEqual(after, before, `an allowed DELETE of ${taxonomy} by ${caller} left the term`);
          assert.equal((await t.get(item)).status, 400, `the ${taxonomy} deleted by ${caller} can still be read`);
        }
      }
    });
  }

  it('the namespace index and /doc answer everyone (GET, HEAD, OPTIONS)', async (ctx) => {
    const check = checker(ctx.name);
    for (const caller of CALLERS) {
      const expected = caller === 'bad' ? BAD_CREDENTIALS : { status: 200 };
      for (const path of ['/calendar/events/v1', '/doc']) {
        check(await t.get(path, { as: caller }), expected, `GET ${path} as ${caller}`);
        const head = await t.request('HEAD', path, { as: caller });
        check(head, { status: expected.status }, `HEAD ${path} as ${caller}`);
        assert.equal(head.text, '');
        const options = await t.request('OPTIONS', path, { as: caller });
        check(options, expected, `OPTIONS ${path} as ${caller}`);
        if (caller !== 'bad') assert.deepEqual(allowOf(options), ['GET'], `OPTIONS ${path} Allow as ${caller}`);
      }
    }
  });
});
