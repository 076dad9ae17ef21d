/**
 * No leaks: a caller never sees an event, venue or organizer they may not read — through single reads (by id
 * or slug), lists, searches, totals and headers, embedded objects, `include`, filters that take ids, emitted
 * URLs, or term counts. Everything secret carries a marker that must appear in no answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';

const MARK = 'ZZSECRETZZ';

describe('no leaks of what a caller may not read', () => {
  let t: TestApp;
  const secretIds: number[] = [];
  const secretSlugs: string[] = [];
  let publicEvent: number;
  let secretCategory: number;
  let checked = 0;

  before(async () => {
    t = await createTestApp();
    const admin = t.actor('administrator');
    const owner = t.users.contributor.id;
    const { events, venues, organizers, categories } = t.app.services;
    // terms are public: the category itself carries no marker
    const cat = await categories.create(admin, { name: 'Leak test category' });
    secretCategory = cat.id;
    const venue = await venues.create(admin, { title: `${MARK} venue`, status: 'draft', author: owner, city: MARK });
    const trashedVenue = await venues.create(admin, { title: `${MARK} trashed venue`, author: owner });
    await venues.remove(admin, trashedVenue.record.id);
    const organizer = await organizers.create(admin, { title: `${MARK} organizer`, status: 'pending', author: owner, email: `${MARK}@x.org` });
    secretIds.push(venue.record.id, trashedVenue.record.id, organizer.record.id);
    for (const status of ['draft', 'pending', 'private', 'publish', 'trash'] as const) {
      const e = await events.create(admin, {
        title: `${MARK} ${status} event`,
        description: MARK,
        startDate: '+2 days',
        endDate: '+2 days 1 hour',
        status: status === 'trash' ? 'publish' : status,
        author: owner,
        slug: status === 'publish' ? 'public-event' : `${MARK.toLowerCase()}-${status}`,
        categories: [cat.id],
        venue: { id: venue.record.id },
        organizers: [{ id: organizer.record.id }],
      });
      if (status === 'trash') await events.remove(admin, e.record.id);
      if (status === 'publish') {
        publicEvent = e.record.id;
        // the published one is not secret, but its title must not carry the marker
        await events.update(admin, e.record.id, { title: 'Public event', description: 'Public' });
      } else {
        secretIds.push(e.record.id);
      }
    }
    const scheduled = await events.create(admin, {
      title: `${MARK} scheduled`,
      startDate: '+3 days',
      endDate: '+3 days 1 hour',
      date: '+10 days',
      author: owner,
    });
    secretIds.push(scheduled.record.id);
    const rows = await t.storage.db.selectFrom('posts').select(['slug']).where('id', 'in', secretIds).execute();
    secretSlugs.push(...rows.map((r) => r.slug).filter((s) => s !== ''));
  });
  after(() => {
    process.stdout.write(`# no-leak crawl: ${checked} answers checked\n`);
    return t.close();
  });

  const CALLERS: Caller[] = ['anonymous', 'subscriber', 'contributor2', 'author2'];

  async function noMark(caller: Caller, path: string, query?: Record<string, string | number>) {
    const res = await t.get(path, { as: caller, query });
    checked++;
    assert.ok(res.status < 500, `${path} ${res.status}`);
    // a URL that echoes the caller's own search is not a leak
    const echoed = JSON.stringify(query ?? {}).includes(MARK);
    const text = echoed && res.body ? JSON.stringify({ ...res.body, rest_url: '', next_rest_url: '', previous_rest_url: '' }) : res.text;
    assert.doesNotMatch(text, new RegExp(MARK, 'i'), `${caller} saw the secret through ${path} ${JSON.stringify(query ?? {})}`);
    // every event, venue and organizer in the answer (they carry a global_id) must be readable
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) {
        value.forEach(walk);
        return;
      }
      if (value === null || typeof value !== 'object') return;
      const o = value as Record<string, unknown>;
      if ('global_id' in o)
        assert.ok(!secretIds.includes(o.id as number), `${caller} saw secret post ${String(o.id)} through ${path} ${JSON.stringify(query ?? {})}`);
      Object.values(o).forEach(walk);
    };
    walk(res.body);
    return res;
  }

  it('single reads by id and slug refuse, and say nothing', async () => {
    for (const caller of CALLERS) {
      for (const id of secretIds) {
        for (const type of ['events', 'venues', 'organizers']) {
          const res = await noMark(caller, `/${type}/${id}`);
          assert.ok([400, 403, 404].includes(res.status), `${caller} GET /${type}/${id} → ${res.status}`);
        }
      }
      for (const slug of secretSlugs) {
        for (const type of ['events', 'venues', 'organizers']) {
          const res = await noMark(caller, `/${type}/by-slug/${slug}`);
          assert.ok([400, 403].includes(res.status), `${caller} by slug ${slug} → ${res.status}`);
        }
      }
    }
  });

  it('lists, searches, includes and id filters show nothing and count nothing', async () => {
    for (const caller of CALLERS) {
      const all = await noMark(caller, '/events', { per_page: 50, start_date: '2000-01-01', end_date: '2100-01-01' });
      assert.equal(all.body.total, 1, `${caller} counts only the published event`);
      assert.equal(all.headers['x-tec-total'], '1');
      const search = await noMark(caller, '/events', { search: MARK });
      assert.equal(search.body.total, 0);
      assert.equal((await noMark(caller, '/events', { include: secretIds.join(',') })).body.total, 0);
      await noMark(caller, '/events', { categories: secretCategory });
      for (const filter of ['venue', 'organizer', 'post_parent']) {
        for (const id of secretIds) {
          const res = await noMark(caller, '/events', { [filter]: id });
          assert.ok(res.status === 400 || res.body.total === 0, `${caller} ${filter}=${id}`);
        }
      }
      for (const type of ['venues', 'organizers']) {
        assert.equal((await noMark(caller, `/${type}`, { per_page: 50 })).body.total, 0, `${caller} ${type}`);
        assert.equal((await noMark(caller, `/${type}`, { search: MARK })).body.total, 0);
        assert.equal((await noMark(caller, `/${type}`, { has_events: 1 })).body.total, 0);
        assert.equal((await noMark(caller, `/${type}`, { only_with_upcoming: 1 })).body.total, 0);
        for (const id of secretIds) {
          const res = await noMark(caller, `/${type}`, { event: id });
          assert.equal(res.status, 400, `${caller} ${type}?event=${id}: an unreadable event is not an event`);
        }
      }
      for (const id of secretIds) {
        assert.equal((await noMark(caller, '/categories', { post: id })).status, 400);
        assert.equal((await noMark(caller, '/tags', { event: id })).status, 400);
      }
    }
  });

  it('embedded venues and organizers of a published event stay hidden', async () => {
    for (const caller of CALLERS) {
      const single = await noMark(caller, `/events/${publicEvent}`);
      assert.deepEqual([single.body.venue, single.body.organizer], [[], []]);
      const listed = await noMark(caller, '/events', { include: publicEvent });
      assert.deepEqual([listed.body.events[0].venue, listed.body.events[0].organizer], [[], []]);
    }
  });

  it('term counts count only published events', async () => {
    for (const caller of CALLERS) {
      const res = await t.get(`/categories/${secretCategory}`, { as: caller });
      assert.equal(res.body.count, 1, 'the published event only');
      checked++;
    }
  });

  it('emitted URLs carry no secret', async () => {
    for (const caller of CALLERS) {
      const res = await noMark(caller, '/events', { per_page: 1, start_date: '2000-01-01' });
      for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url']) {
        if (res.body[key]) assert.doesNotMatch(res.body[key], new RegExp(MARK, 'i'));
      }
    }
  });

  it('the owner and editors do see them (the marker is real)', async () => {
    const own = await t.get('/events', { as: 'contributor', query: { search: MARK, per_page: 50 } });
    assert.ok(own.body.total >= 3);
    const editor = await t.get('/venues', { as: 'editor', query: { search: MARK } });
    assert.equal(editor.body.total, 1);
  });
});
