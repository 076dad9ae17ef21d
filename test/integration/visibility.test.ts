/**
 * The one visibility rule, on the database: for every status (and, for trashed posts, every status before the
 * trash) × own or someone else's × every role, the SQL that lists, counts and caches use selects exactly the
 * posts `canReadPost` lets the caller read — through a bare query, the event list and the venue list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Actor } from '../../src/domain/actor.js';
import { canReadPost } from '../../src/domain/policies.js';
import { STATUSES } from '../../src/domain/posts/post.js';
import { listVisibility, visiblePosts } from '../../src/domain/visibility.js';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';

interface Row {
  id: number;
  type: 'event' | 'venue';
  authorId: number;
  status: string;
  statusBeforeTrash: string | null;
}

const CALLERS: Exclude<Caller, 'bad'>[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];
const STAMP = '2030-01-01 10:00:00';

describe('the visibility rule agrees with canReadPost on the database', () => {
  let t: TestApp;
  const rows: Row[] = [];

  before(async () => {
    t = await createTestApp();
    const db = t.storage.db;
    const owners = [t.users.contributor.id, t.users.author.id, t.users.editor.id];
    for (const type of ['event', 'venue'] as const) {
      for (const authorId of owners) {
        for (const status of STATUSES) {
          for (const before of status === 'trash' ? [...STATUSES.filter((s) => s !== 'trash'), null] : [null]) {
            const { id } = await db
              .insertInto('posts')
              .values({
                type,
                status,
                status_before_trash: before,
                author_id: authorId,
                title: `${type} ${status}`,
                slug: `visibility-${type}-${rows.length}`,
                date: STAMP,
                date_utc: STAMP,
                modified: STAMP,
                modified_utc: STAMP,
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            if (type === 'event') {
              await db
                .insertInto('events')
                .values({
                  post_id: id,
                  status,
                  start_date: STAMP,
                  end_date: STAMP,
                  start_utc: STAMP,
                  end_utc: STAMP,
                  timezone: 'UTC',
                  timezone_abbr: 'UTC',
                  cost: '[]',
                  currency_symbol: '',
                  currency_code: '',
                  currency_position: '',
                  website: null,
                  show_map: 0,
                  show_map_link: 0,
                  hide_from_listings: 0,
                  all_day: 0,
                  featured: 0,
                  venue_id: null,
                })
                .execute();
            } else {
              await db
                .insertInto('venues')
                .values({
                  post_id: id,
                  address: '',
                  city: '',
                  country: '',
                  province: '',
                  state: '',
                  zip: '',
                  phone: '',
                  website: '',
                  stateprovince: '',
                  show_map: 1,
                  show_map_link: 1,
                  geo_lat: null,
                  geo_lng: null,
                })
                .execute();
            }
            rows.push({ id, type, authorId, status, statusBeforeTrash: before });
          }
        }
      }
    }
  });
  after(() => t.close());

  const expected = (actor: Actor, type: Row['type']) =>
    rows
      .filter((r) => r.type === type && canReadPost(actor, r))
      .map((r) => r.id)
      .sort((a, b) => a - b);

  it(`selects what the policy allows, for ${CALLERS.length} callers × 3 owners × every status and status before the trash`, async () => {
    let cells = 0;
    for (const caller of CALLERS) {
      const actor = t.actor(caller);
      const v = listVisibility(actor);
      const got = await t.storage.db
        .selectFrom('posts')
        .select('id')
        .where('type', '=', 'event')
        .where(
          (eb) =>
            visiblePosts(eb, v, { status: 'posts.status', authorId: 'posts.author_id', statusBeforeTrash: 'posts.status_before_trash' }) ??
            sql<boolean>`1 = 1`,
        )
        .orderBy('id')
        .execute();
      assert.deepEqual(
        got.map((r) => Number(r.id)),
        expected(actor, 'event'),
        caller,
      );
      cells += rows.filter((r) => r.type === 'event').length;
    }
    process.stdout.write(`# visibility: ${cells} post × caller cells compared\n`);
  });

  it('lists events and venues by the same rule when every status is asked for', async () => {
    for (const caller of CALLERS) {
      const actor = t.actor(caller);
      const visibility = listVisibility(actor);
      const events = await t.storage.events.list({ visibility, statuses: [...STATUSES] }, 10_000, 0);
      assert.deepEqual(
        events.events.map((e) => e.id).sort((a, b) => a - b),
        expected(actor, 'event'),
        `events for ${caller}`,
      );
      assert.equal(events.total, expected(actor, 'event').length, `event total for ${caller}`);
      const venues = await t.storage.venues.list({ visibility, statuses: [...STATUSES] }, 10_000, 0);
      assert.deepEqual(
        venues.records.map((v) => v.id).sort((a, b) => a - b),
        expected(actor, 'venue'),
        `venues for ${caller}`,
      );
      assert.equal(venues.total, expected(actor, 'venue').length, `venue total for ${caller}`);
    }
  });

  it('gives callers who read exactly the same posts the same cache key, and no one else', () => {
    const keys = new Map<string, string>();
    for (const caller of CALLERS) {
      const actor = t.actor(caller);
      const readable = JSON.stringify(expected(actor, 'event'));
      const key = listVisibility(actor).key;
      for (const [otherKey, otherReadable] of keys) if (otherKey === key) assert.equal(otherReadable, readable, `${caller} shares ${key}`);
      keys.set(key, readable);
    }
    assert.notEqual(listVisibility(t.actor('author')).key, listVisibility(t.actor('author2')).key, 'authors see their own drafts: one key each');
    assert.equal(listVisibility(t.actor('anonymous')).key, 'public');
  });
});
