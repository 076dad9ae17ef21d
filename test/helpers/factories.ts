/**
 * Factories: each test builds the data it asserts on. Terms go through the services (what the routes use);
 * events are written straight into storage here until the events service exists to make them.
 */

import type { Taxonomy } from '../../src/storage/database.js';
import type { TestApp } from './app.js';

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

export async function makeTerm(
  t: TestApp,
  taxonomy: Taxonomy,
  overrides: { name?: string; slug?: string; description?: string; parent?: number } = {},
) {
  const svc = taxonomy === 'tribe_events_cat' ? t.app.services.categories : t.app.services.tags;
  return svc.create(t.actor('administrator'), { name: overrides.name ?? unique('Term'), ...overrides });
}

export const makeCategory = (t: TestApp, o: Parameters<typeof makeTerm>[2] = {}) => makeTerm(t, 'tribe_events_cat', o);
export const makeTag = (t: TestApp, o: Parameters<typeof makeTerm>[2] = {}) => makeTerm(t, 'post_tag', o);

/** A bare event row with terms, for term counts and filters (the events service replaces this in time). */
export async function insertRawEvent(
  t: TestApp,
  options: { status?: string; termIds?: number[]; title?: string; authorId?: number } = {},
): Promise<number> {
  const db = t.storage.db as any;
  const now = '2030-01-01 10:00:00';
  const post = await db
    .insertInto('posts')
    .values({
      type: 'event',
      status: options.status ?? 'publish',
      author_id: options.authorId ?? t.users.administrator.id,
      title: options.title ?? unique('Event'),
      slug: unique('event').replace(' ', '-'),
      date: now,
      date_utc: now,
      modified: now,
      modified_utc: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('events')
    .values({
      post_id: post.id,
      status: options.status ?? 'publish',
      start_date: '2030-02-01 10:00:00',
      end_date: '2030-02-01 12:00:00',
      start_utc: '2030-02-01 10:00:00',
      end_utc: '2030-02-01 12:00:00',
      timezone: 'UTC',
      timezone_abbr: 'UTC',
    })
    .execute();
  for (const termId of options.termIds ?? []) {
    await db.insertInto('term_relationships').values({ post_id: post.id, term_id: termId }).execute();
  }
  await t.storage.terms.recount();
  return post.id;
}

/** A post of another type (venue/organizer), to test "id of the wrong type" answers. */
export async function insertRawPost(t: TestApp, type: 'venue' | 'organizer' | 'image', status = 'publish'): Promise<number> {
  const db = t.storage.db as any;
  const now = '2030-01-01 10:00:00';
  const post = await db
    .insertInto('posts')
    .values({
      type,
      status,
      author_id: t.users.administrator.id,
      title: unique(type),
      slug: '',
      date: now,
      date_utc: now,
      modified: now,
      modified_utc: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return post.id;
}

/** Creates an event through the API (as an administrator unless told otherwise) and returns its JSON. */
export async function makeEvent(
  t: TestApp,
  fields: Record<string, unknown> = {},
  as: Parameters<TestApp['post']>[1] extends infer O ? (O extends { as?: infer C } ? C : never) : never = 'administrator',
): Promise<any> {
  const res = await t.post('/events', {
    as,
    json: { title: unique('Event'), start_date: '+1 week 10am', end_date: '+1 week 12pm', ...fields },
  });
  if (res.status !== 201) throw new Error(`makeEvent failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Creates a venue or organizer through the API and returns its JSON. */
export async function makeLinked(
  t: TestApp,
  type: 'venue' | 'organizer',
  fields: Record<string, unknown> = {},
  as: 'administrator' | 'editor' | 'author' | 'contributor' | 'contributor2' | 'author2' = 'administrator',
): Promise<any> {
  const res = await t.post(`/${type}s`, { as, json: { [type]: unique(type === 'venue' ? 'Venue' : 'Organizer'), ...fields } });
  if (res.status !== 201) throw new Error(`make ${type} failed: ${res.status} ${res.text}`);
  return res.body;
}
