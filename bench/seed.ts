/**
 * Bulk seeding for benchmarks (not HTTP): events spread over ±2 years with realistic durations, venues with
 * coordinates around a few cities, organizers, categories (some nested), tags, 1–3 terms and 0–2 organizers per
 * event, and a share of drafts and hidden events. Multi-row inserts inside transactions, the same way on both
 * databases; deterministic for a given seed.
 */

import { UserService } from '../src/domain/users/user.service.js';
import { VERSIONED_TABLES } from '../src/storage/migrations/0001-initial.migration.js';
import { rebuildDayCounts } from '../src/storage/migrations/0023-plain-occurrences.migration.js';
import { rebuildEventTerms } from '../src/storage/migrations/0028-event-terms.migration.js';
import type { Storage } from '../src/storage/storage.js';
import { rng, SEARCH_WORDS } from './traffic.js';

export interface SeedOptions {
  events: number;
  venues?: number;
  organizers?: number;
  categories?: number;
  tags?: number;
  seed?: number;
  batch?: number;
  /**
   * No event overlaps [fromMs, toMs): a start that would is drawn again (bench/pages.ts keeps a month for the
   * events it writes itself). Without it the random sequence is the one it always was.
   */
  avoid?: { fromMs: number; toMs: number };
  /** Called after each batch with the number of events written so far. */
  progress?: (done: number) => void;
}

export interface Seeded {
  firstEventId: number;
  lastEventId: number;
  publishedEventId: number;
  seconds: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const fmt = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

/** The words of titles and venue names (the mixed traffic's searches use the same list). */
const WORDS = SEARCH_WORDS;
const CITIES: [string, number, number][] = [
  ['Paris', 48.8566, 2.3522],
  ['Lyon', 45.764, 4.8357],
  ['Berlin', 52.52, 13.405],
  ['Madrid', 40.4168, -3.7038],
  ['New York', 40.7128, -74.006],
  ['Chicago', 41.8781, -87.6298],
];

async function chunks<T>(items: T[], size: number, fn: (chunk: T[]) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await fn(items.slice(i, i + size));
}

export async function seed(storage: Storage, options: SeedOptions): Promise<Seeded> {
  const started = Date.now();
  // a bulk load: no per-row triggers (the version moves once at the end, the day counts and the events' terms
  // are counted at the end), a big page cache
  await storage.dialect.beginBulkLoad();
  await storage.dialect.dropVersionTriggers(storage.db, VERSIONED_TABLES);
  await storage.dialect.dropDayCountTriggers(storage.db);
  await storage.dialect.dropEventTermTriggers(storage.db);
  const random = rng(options.seed ?? 42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const db = storage.db;
  const batch = options.batch ?? 1000;
  const now = Date.now();
  const stamp = fmt(now);
  const post = (type: 'event' | 'venue' | 'organizer', title: string, slug: string, status = 'publish') => ({
    type,
    status,
    author_id: 1,
    title,
    content: `About ${title}: ${WORDS.slice(0, 3 + Math.floor(random() * 10)).join(' ')}.`,
    slug,
    date: stamp,
    date_utc: stamp,
    modified: stamp,
    modified_utc: stamp,
  });

  // terms
  const categoryIds: number[] = [];
  for (let i = 0; i < (options.categories ?? 50); i++) {
    const parent = i >= 10 && random() < 0.5 ? pick(categoryIds.slice(0, 10)) : 0;
    const row = await db
      .insertInto('terms')
      .values({
        taxonomy: 'tribe_events_cat',
        name: `Category ${i}`,
        slug: `category-${i}`,
        description: '',
        parent_id: parent,
        created_at: stamp,
        modified_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    categoryIds.push(row.id);
  }
  const tagIds: number[] = [];
  const nTags = options.tags ?? 200;
  await chunks([...Array(nTags).keys()], 100, async (chunk) => {
    const rows = await db
      .insertInto('terms')
      .values(
        chunk.map((i) => ({
          taxonomy: 'post_tag' as const,
          name: `tag ${i}`,
          slug: `tag-${i}`,
          description: '',
          parent_id: 0,
          created_at: stamp,
          modified_at: stamp,
        })),
      )
      .returning('id')
      .execute();
    tagIds.push(...rows.map((r) => r.id));
  });

  // venues and organizers
  const venueIds: number[] = [];
  await chunks([...Array(options.venues ?? 500).keys()], 250, async (chunk) => {
    await storage.transaction(async (tx) => {
      const ids = (
        await tx.db
          .insertInto('posts')
          .values(chunk.map((i) => post('venue', `${pick(WORDS)} hall ${i}`, `venue-${i}`)))
          .returning('id')
          .execute()
      ).map((r) => r.id);
      await tx.db
        .insertInto('venues')
        .values(
          ids.map((id, k) => {
            const [city, lat, lng] = CITIES[(chunk[k] ?? 0) % CITIES.length];
            return {
              post_id: id,
              address: `${1 + Math.floor(random() * 200)} Main Street`,
              city,
              country: city === 'New York' || city === 'Chicago' ? 'United States' : 'Europe',
              province: '',
              state: '',
              zip: String(10000 + Math.floor(random() * 89999)),
              phone: '',
              website: '',
              stateprovince: '',
              show_map: 1 as const,
              show_map_link: 1 as const,
              geo_lat: lat + (random() - 0.5) * 0.4,
              geo_lng: lng + (random() - 0.5) * 0.4,
            };
          }),
        )
        .execute();
      venueIds.push(...ids);
    });
  });
  const organizerIds: number[] = [];
  await chunks([...Array(options.organizers ?? 300).keys()], 250, async (chunk) => {
    await storage.transaction(async (tx) => {
      const ids = (
        await tx.db
          .insertInto('posts')
          .values(chunk.map((i) => post('organizer', `Organizer ${i}`, `organizer-${i}`)))
          .returning('id')
          .execute()
      ).map((r) => r.id);
      await tx.db
        .insertInto('organizers')
        .values(ids.map((id, k) => ({ post_id: id, email: `org${chunk[k]}@example.org`, phone: '555-0100', website: '' })))
        .execute();
      organizerIds.push(...ids);
    });
  });

  // events
  const counts = new Map<number, number>();
  let first = 0;
  let last = 0;
  let published = 0;
  const span = 2 * 365 * 86_400_000;
  for (let done = 0; done < options.events; done += batch) {
    const n = Math.min(batch, options.events - done);
    await storage.transaction(async (tx) => {
      const statuses = Array.from({ length: n }, () => (random() < 0.05 ? 'draft' : 'publish'));
      const rows = Array.from({ length: n }, (_, k) => {
        const i = done + k;
        return post('event', `${pick(WORDS)} ${pick(WORDS)} ${i}`, `event-${i}`, statuses[k]);
      });
      const ids = (await tx.db.insertInto('posts').values(rows).returning('id').execute()).map((r) => r.id);
      if (first === 0) first = ids[0];
      last = ids[ids.length - 1];
      const events = ids.map((id, k) => {
        let start = Math.floor((now - span + random() * 2 * span) / 900_000) * 900_000;
        let duration = pick([3_600_000, 7_200_000, 10_800_000, 86_400_000 - 1000]);
        const avoid = options.avoid;
        while (avoid && start < avoid.toMs && start + duration > avoid.fromMs) {
          start = Math.floor((now - span + random() * 2 * span) / 900_000) * 900_000;
          duration = pick([3_600_000, 7_200_000, 10_800_000, 86_400_000 - 1000]);
        }
        const hidden = random() < 0.02 ? 1 : 0;
        if (published === 0 && statuses[k] === 'publish' && !hidden && start > now) published = id;
        return {
          post_id: id,
          status: statuses[k],
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
          hide_from_listings: hidden as 0 | 1,
          featured: (random() < 0.1 ? 1 : 0) as 0 | 1,
          venue_id: random() < 0.9 ? pick(venueIds) : null,
          ical_uid: `seed-${id}@bench.invalid`,
        };
      });
      await tx.db.insertInto('events').values(events).execute();
      const rels: { post_id: number; term_id: number }[] = [];
      const publishedIds = new Set(ids.filter((_, k) => statuses[k] === 'publish'));
      const links: { event_id: number; organizer_id: number; position: number }[] = [];
      for (const id of ids) {
        const terms = new Set<number>();
        const k = 1 + Math.floor(random() * 3);
        for (let j = 0; j < k; j++) terms.add(random() < 0.5 ? pick(categoryIds) : pick(tagIds));
        for (const term_id of terms) {
          rels.push({ post_id: id, term_id });
          if (publishedIds.has(id)) counts.set(term_id, (counts.get(term_id) ?? 0) + 1);
        }
        const orgs = new Set<number>();
        const m = Math.floor(random() * 3);
        for (let j = 0; j < m; j++) orgs.add(pick(organizerIds));
        for (const [position, organizer_id] of [...orgs].entries()) links.push({ event_id: id, organizer_id, position });
      }
      if (rels.length > 0) await tx.db.insertInto('term_relationships').values(rels).execute();
      if (links.length > 0) await tx.db.insertInto('event_organizers').values(links).execute();
    });
    options.progress?.(done + n);
  }
  // the term counts, from what was written (a recount would read it all again)
  for (const [id, count] of counts) await storage.db.updateTable('terms').set({ count }).where('id', '=', id).execute();
  await rebuildDayCounts(storage.db);
  await storage.dialect.createDayCountTriggers(storage.db);
  await rebuildEventTerms(storage.db);
  await storage.dialect.createEventTermTriggers(storage.db);
  await storage.dialect.createVersionTriggers(storage.db, VERSIONED_TABLES);
  await storage.db
    .updateTable('data_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .execute();
  await storage.dialect.endBulkLoad();
  return { firstEventId: first, lastEventId: last, publishedEventId: published, seconds: (Date.now() - started) / 1000 };
}

/**
 * A bench's site on a fresh database: migrated, `events` events seeded (the time on the console, after
 * `[label]`), statistics updated, and an administrator with that application password.
 */
export async function prepareSite(storage: Storage, label: string, events: number, admin: { login: string; password: string }): Promise<void> {
  await storage.migrate();
  process.stdout.write(`[${label}] seeding ${events.toLocaleString('en')} events… `);
  const seeded = await seed(storage, { events });
  await storage.optimize();
  process.stdout.write(`${seeded.seconds.toFixed(1)} s\n`);
  await new UserService(storage).add({ login: admin.login, role: 'administrator', password: admin.password });
}
