/**
 * The authorization matrix: every route and method × every kind of caller × objects that are the caller's own
 * or someone else's, in every status. The expected status comes from a model written here from CONTRACT.md §7
 * and DECISIONS.md (per-object rules on slug routes too) — not from the service's own policy code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/actor.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
const CALLERS: Caller[] = ['anonymous', 'bad', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];
const STATUSES = ['draft', 'pending', 'future', 'publish', 'private', 'trash'] as const;
type Status = (typeof STATUSES)[number];

/** The capability table of CONTRACT.md §7.1, as data. */
const CAPS: Record<Role, string[]> = {
  administrator: ['edit', 'publish', 'edit_published', 'edit_others', 'private', 'manage_categories'],
  editor: ['edit', 'publish', 'edit_published', 'edit_others', 'private', 'manage_categories'],
  author: ['edit', 'publish', 'edit_published'],
  contributor: ['edit'],
  subscriber: [],
};
const has = (caller: Caller, cap: string) => caller in CAPS && CAPS[caller as Role].includes(cap);

interface Obj {
  id: number;
  slug: string;
  owner: Caller;
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

const anon = (c: Caller) => c === 'anonymous';

function expectRead(type: string, caller: Caller, o: Obj): number {
  if (caller === 'bad') return 401;
  if (type === 'event' && o.status === 'trash') return 403;
  return mayRead(caller, o) ? 200 : 403;
}
function expectUpdate(caller: Caller, o: Obj): number {
  if (caller === 'bad' || anon(caller)) return 401;
  return mayEdit(caller, o) ? 200 : 403;
}
function expectDelete(caller: Caller, o: Obj): number {
  if (caller === 'bad' || anon(caller)) return 401;
  if (!mayEdit(caller, o)) return 403;
  return o.status === 'trash' ? 410 : 200;
}

describe('authorization matrix', () => {
  let t: TestApp;
  let cells = 0;
  before(async () => (t = await createTestApp()));
  after(() => {
    process.stdout.write(`# authorization matrix: ${cells} cells checked\n`);
    return t.close();
  });

  const admin = (): Actor => t.actor('administrator');
  let counter = 0;

  async function make(type: 'event' | 'venue' | 'organizer', owner: Caller, status: Status): Promise<Obj> {
    const author = t.users[owner as Role].id;
    const n = ++counter;
    const before: Status = status === 'trash' ? (owner === 'contributor' ? 'draft' : 'publish') : status;
    const wanted = before === 'future' ? 'publish' : before;
    const date = before === 'future' ? '+5 days' : undefined;
    let id: number;
    if (type === 'event') {
      id = (await t.app.services.events.create(admin(), { title: `Matrix ${n}`, startDate: '+1 day', endDate: '+1 day 1 hour', status: wanted, author, date })).record.id;
    } else {
      const svc = type === 'venue' ? t.app.services.venues : t.app.services.organizers;
      id = (await svc.create(admin(), { title: `Matrix ${type} ${n}`, status: wanted, author, date })).record.id;
    }
    // a draft or pending post gets a slug only once published; give them one to reach the slug routes
    const slug = `matrix-${type}-${n}`;
    await t.storage.db.updateTable('posts').set({ slug }).where('id', '=', id).execute();
    if (status === 'trash') {
      if (type === 'event') await t.app.services.events.remove(admin(), id);
      else await (type === 'venue' ? t.app.services.venues : t.app.services.organizers).remove(admin(), id);
    }
    const stored = (await t.storage.db.selectFrom('posts').select(['status', 'slug']).where('id', '=', id).executeTakeFirstOrThrow());
    assert.equal(stored.status, status, `made a ${status} ${type}`);
    return { id, slug: stored.slug, owner, status, before };
  }

  for (const type of ['event', 'venue', 'organizer'] as const) {
    it(`${type}s: read, update and delete, by id and by slug, for every caller, owner and status`, async () => {
      const plural = `${type}s`;
      const owners: Caller[] = ['contributor', 'author'];
      const objects: Obj[] = [];
      for (const owner of owners) for (const status of STATUSES) objects.push(await make(type, owner, status));
      const body = type === 'event' ? { title: 'Matrix edit' } : { description: 'Matrix edit' };
      for (const o of objects) {
        for (const caller of CALLERS) {
          for (const route of ['id', 'slug'] as const) {
            const path = route === 'id' ? `/${plural}/${o.id}` : `/${plural}/by-slug/${o.slug}`;
            const label = `${caller} on ${o.owner}'s ${o.status} ${type} by ${route}`;
            assert.equal((await t.get(path, { as: caller })).status, expectRead(type, caller, o), `GET: ${label}`);
            assert.equal((await t.put(path, { as: caller, json: body })).status, expectUpdate(caller, o), `PUT: ${label}`);
            cells += 2;
          }
        }
      }
      // deletes change the object: each cell gets its own
      for (const owner of owners) {
        for (const status of STATUSES) {
          for (const caller of CALLERS) {
            for (const route of ['id', 'slug'] as const) {
              const o = await make(type, owner, status);
              const path = route === 'id' ? `/${plural}/${o.id}` : `/${plural}/by-slug/${o.slug}`;
              const res = await t.del(path, { as: caller });
              assert.equal(res.status, expectDelete(caller, o), `DELETE: ${caller} on ${owner}'s ${status} ${type} by ${route}: ${res.text.slice(0, 200)}`);
              cells++;
            }
          }
        }
      }
    });

    it(`${type}s: create and list`, async () => {
      const plural = `${type}s`;
      const body = type === 'event' ? { title: 'New', start_date: '2030-01-01', end_date: '2030-01-01' } : { [type]: `New ${type} ${++counter}` };
      const expected: Record<string, number> = { anonymous: 401, bad: 401, subscriber: 403, contributor: 201, author: 201, editor: 201, administrator: 201 };
      for (const caller of CALLERS) {
        assert.equal((await t.post(`/${plural}`, { as: caller, json: { ...body, [type === 'event' ? 'title' : type]: `New ${++counter}` } })).status, expected[caller], `POST ${caller}`);
        assert.equal((await t.get(`/${plural}`, { as: caller })).status, caller === 'bad' ? 401 : 200, `list ${caller}`);
        cells += 2;
      }
    });
  }

  for (const taxonomy of ['categories', 'tags'] as const) {
    it(`${taxonomy}: every route for every caller`, async () => {
      const manage = (c: Caller) => has(c, 'edit') && (taxonomy === 'categories' ? has(c, 'publish') : has(c, 'manage_categories'));
      for (const caller of CALLERS) {
        const writeStatus = (ok: number) => (caller === 'bad' || anon(caller) ? 401 : manage(caller) ? ok : 403);
        const svc = taxonomy === 'categories' ? t.app.services.categories : t.app.services.tags;
        const term = await svc.create(admin(), { name: `Matrix ${taxonomy} ${++counter}` });
        const checks: [string, Promise<{ status: number }>, number][] = [
          ['GET list', t.get(`/${taxonomy}`, { as: caller }), caller === 'bad' ? 401 : 200],
          ['GET one', t.get(`/${taxonomy}/${term.id}`, { as: caller }), caller === 'bad' ? 401 : 200],
          ['POST', t.post(`/${taxonomy}`, { as: caller, json: { name: `By ${caller} ${++counter}` } }), writeStatus(201)],
          ['PATCH', t.patch(`/${taxonomy}/${term.id}`, { as: caller, json: { description: 'x' } }), writeStatus(200)],
        ];
        for (const [label, promise, status] of checks) {
          assert.equal((await promise).status, status, `${label} ${taxonomy} as ${caller}`);
          cells++;
        }
        assert.equal((await t.del(`/${taxonomy}/${term.id}`, { as: caller })).status, writeStatus(200), `DELETE ${taxonomy} as ${caller}`);
        cells++;
      }
    });
  }

  it('the namespace index and /doc answer everyone', async () => {
    for (const caller of CALLERS) {
      for (const path of ['/calendar/events/v1', '/doc']) {
        assert.equal((await t.get(path, { as: caller })).status, caller === 'bad' ? 401 : 200);
        cells++;
      }
    }
  });
});
