/**
 * Bulk seeding for benchmarks (not HTTP): events spread over ±2 years with realistic durations, categories
 * (some nested), tags, 1–3 terms per event, a share of drafts and hidden events. Rows go in with multi-row
 * inserts inside transactions, the same way on both databases.
 */
import type { Storage } from '../src/storage/storage.js';

export interface SeedOptions {
  events: number;
  categories?: number;
  tags?: number;
  /** Deterministic pseudo-random data for a given seed. */
  seed?: number;
  batch?: number;
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const fmt = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

const WORDS = ['jazz', 'rock', 'festival', 'market', 'yoga', 'lecture', 'film', 'workshop', 'concert', 'tour', 'family', 'night', 'morning', 'garden', 'art', 'food', 'wine', 'dance', 'poetry', 'science'];

export async function seed(storage: Storage, options: SeedOptions): Promise<{ eventIds: [number, number]; seconds: number }> {
  const started = Date.now();
  const random = rng(options.seed ?? 42);
  const db = storage.db;
  const batch = options.batch ?? 500;
  const now = Date.now();
  const stamp = fmt(now);

  const categoryIds: number[] = [];
  const nCategories = options.categories ?? 50;
  for (let i = 0; i < nCategories; i++) {
    const parent = i >= 10 && random() < 0.5 ? categoryIds[Math.floor(random() * 10)] : 0;
    const row = await db
      .insertInto('terms')
      .values({ taxonomy: 'tribe_events_cat', name: `Category ${i}`, slug: `category-${i}`, description: '', parent_id: parent, created_at: stamp, modified_at: stamp })
      .returning('id')
      .executeTakeFirstOrThrow();
    categoryIds.push(row.id);
  }
  const tagIds: number[] = [];
  const nTags = options.tags ?? 200;
  for (let i = 0; i < nTags; i += 100) {
    const rows = await db
      .insertInto('terms')
      .values(
        Array.from({ length: Math.min(100, nTags - i) }, (_, k) => ({
          taxonomy: 'post_tag' as const,
          name: `tag ${i + k}`,
          slug: `tag-${i + k}`,
          description: '',
          parent_id: 0,
          created_at: stamp,
          modified_at: stamp,
        })),
      )
      .returning('id')
      .execute();
    tagIds.push(...rows.map((r) => r.id));
  }

  let first = 0;
  let last = 0;
  const span = 2 * 365 * 86_400_000;
  for (let done = 0; done < options.events; done += batch) {
    const n = Math.min(batch, options.events - done);
    await storage.transaction(async (tx) => {
      const txDb = tx.db;
      const posts = Array.from({ length: n }, (_, k) => {
        const i = done + k;
        const title = `${WORDS[Math.floor(random() * WORDS.length)]} ${WORDS[Math.floor(random() * WORDS.length)]} ${i}`;
        return {
          type: 'event' as const,
          status: random() < 0.05 ? 'draft' : 'publish',
          author_id: 1,
          title,
          content: `About ${title}: ${WORDS.slice(0, 3 + Math.floor(random() * 10)).join(' ')}.`,
          slug: `event-${i}`,
          date: stamp,
          date_utc: stamp,
          modified: stamp,
          modified_utc: stamp,
        };
      });
      const ids = (await txDb.insertInto('posts').values(posts).returning('id').execute()).map((r) => r.id);
      if (first === 0) first = ids[0];
      last = ids[ids.length - 1];
      const events = ids.map((id) => {
        const start = Math.floor((now - span + random() * 2 * span) / 900_000) * 900_000;
        const duration = [3_600_000, 7_200_000, 10_800_000, 86_400_000 - 1000][Math.floor(random() * 4)];
        return {
          post_id: id,
          start_date: fmt(start),
          end_date: fmt(start + duration),
          start_utc: fmt(start),
          end_utc: fmt(start + duration),
          timezone: 'UTC',
          timezone_abbr: 'UTC',
          all_day: 0 as const,
          cost: random() < 0.5 ? JSON.stringify([String(Math.floor(random() * 50))]) : '[]',
          currency_symbol: '',
          currency_code: '',
          currency_position: '',
          website: null,
          show_map: 1 as const,
          show_map_link: 1 as const,
          hide_from_listings: (random() < 0.02 ? 1 : 0) as 0 | 1,
          featured: (random() < 0.1 ? 1 : 0) as 0 | 1,
          venue_id: null,
        };
      });
      await txDb.insertInto('events').values(events).execute();
      const rels: { post_id: number; term_id: number }[] = [];
      for (const id of ids) {
        const terms = new Set<number>();
        const k = 1 + Math.floor(random() * 3);
        for (let j = 0; j < k; j++) {
          terms.add(random() < 0.5 ? categoryIds[Math.floor(random() * categoryIds.length)] : tagIds[Math.floor(random() * tagIds.length)]);
        }
        for (const term_id of terms) rels.push({ post_id: id, term_id });
      }
      await txDb.insertInto('term_relationships').values(rels).execute();
    });
  }
  await storage.terms.recount();
  return { eventIds: [first, last], seconds: (Date.now() - started) / 1000 };
}
