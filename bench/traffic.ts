/**
 * What the benchmark sends: the request lists of every scenario and the bodies of the writes. Everything is
 * derived from a seed (and from the ids the seeder wrote, and today's date), so two runs on the same day with
 * the same options send the same requests in the same order.
 */
export const NS = '/calendar/events/v1';
export const EVENTS_PATH = `${NS}/events`;

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Sent with the benchmark administrator's Basic credentials. */
  auth?: boolean;
  /** A create: the body is made afresh for every request (unique titles), in the load process. */
  body?: 'minimal' | 'realistic';
  /** Sent as they are (a conditional GET's If-None-Match). */
  headers?: Record<string, string>;
}

/** What the baseline serves (bench/baseline.ts): the captured answers, their bodies in a file beside it. */
export interface Manifest {
  entries: { key: string; status: number; headers: Record<string, string>; offset: number; length: number }[];
}

/** `METHOD URL`, plus ` auth` when the request carries credentials (the service answers those differently). */
export const baselineKey = (method: string, url: string, auth: boolean) => `${method} ${url}${auth ? ' auth' : ''}`;

/** xorshift32: small, fast and the same everywhere (Math.random cannot be seeded). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Picks 1..n with weight 1/k: a few popular values and a long tail, as real traffic has. */
export function zipf(random: () => number, n: number): () => number {
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    sum += 1 / k;
    cdf.push(sum);
  }
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

/** `count` distinct values of `from` (all of them if it has fewer), in a seeded random order. */
export function sample<T>(from: readonly T[], count: number, seed: number): T[] {
  const random = rng(seed);
  const pool = [...from];
  const n = Math.min(count, pool.length);
  // the first n steps of a Fisher–Yates shuffle
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, n);
}

/** The words the seeder puts in titles and venue names (bench/seed.ts takes them from here): searches find something. */
export const SEARCH_WORDS = [
  'jazz',
  'rock',
  'festival',
  'market',
  'yoga',
  'lecture',
  'film',
  'workshop',
  'concert',
  'tour',
  'family',
  'night',
  'morning',
  'garden',
  'art',
  'food',
  'wine',
  'dance',
  'poetry',
  'science',
];

export const FILTERED_PATH = `${EVENTS_PATH}?categories=category-3&search=jazz&start_date=-1%20year&end_date=%2B1%20year`;
export const GEOLOCATION_PATH = `${EVENTS_PATH}?geoloc_lat=48.8566&geoloc_lng=2.3522`;

const day = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface MixOptions {
  seed: number;
  eventIds: readonly number[];
  venueIds: readonly number[];
  categories: number;
  /** Midnight UTC of the day the date windows are drawn around. */
  today: number;
}

/**
 * Mixed traffic, an endless stream of read URLs: the shapes of request a calendar front end and its crawlers
 * send, in these shares — 10% the front page (`/events`), 10% later pages, 5% other page sizes, 15% date
 * windows (a day, a week, a month, anywhere within a year of today), 12% a category (sometimes with a window
 * or a later page), 8% a text search (sometimes within a category), 25% one event by id (uniform over the
 * published events: mostly cold), 5% venue searches and pages, 5% one venue, 5% the events at a venue. Popular
 * values (early pages, some categories) follow 1/k, so some URLs come back often and most do not. No
 * geolocation search: its uncached cost at a million events would make the mix a measurement of that alone
 * (it has its own scenario).
 */
export function* mixedReads(o: MixOptions): Generator<string, never> {
  const random = rng(o.seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]) => list[int(list.length)];
  const page = zipf(random, 30);
  const category = zipf(random, o.categories);
  const window = () => {
    const start = o.today + (int(731) - 365) * day;
    return `start_date=${isoDay(start)}&end_date=${isoDay(start + pick([0, 6, 29]) * day)}`;
  };
  const kinds: [number, () => string][] = [
    [10, () => EVENTS_PATH],
    [10, () => `${EVENTS_PATH}?page=${1 + page()}`],
    [5, () => `${EVENTS_PATH}?per_page=${pick([10, 20])}${random() < 0.3 ? `&page=${1 + int(3)}` : ''}`],
    [15, () => `${EVENTS_PATH}?${window()}${random() < 0.2 ? '&page=2' : ''}`],
    [12, () => `${EVENTS_PATH}?categories=category-${category() - 1}${random() < 0.3 ? `&${window()}` : random() < 0.3 ? '&page=2' : ''}`],
    [8, () => `${EVENTS_PATH}?search=${pick(SEARCH_WORDS)}${random() < 0.3 ? `&categories=category-${category() - 1}` : ''}`],
    [25, () => `${EVENTS_PATH}/${pick(o.eventIds)}`],
    [5, () => (random() < 0.5 ? `${NS}/venues?search=${pick(SEARCH_WORDS)}` : `${NS}/venues?page=${page()}`)],
    [5, () => `${NS}/venues/${pick(o.venueIds)}`],
    [5, () => `${EVENTS_PATH}?venue=${pick(o.venueIds)}`],
  ];
  const total = kinds.reduce((sum, [w]) => sum + w, 0);
  for (;;) {
    let x = random() * total;
    let path = kinds[0][1];
    for (const [w, make] of kinds) {
      x -= w;
      if (x < 0) {
        path = make;
        break;
      }
    }
    yield path();
  }
}

/**
 * The reads as anonymous GETs, with creates (authenticated, realistic body) mixed in at `writeShare` of the
 * requests, at positions drawn from their own seed: the reads are the same with or without writes.
 */
export function withWrites(paths: readonly string[], writeShare: number, seed: number): RequestSpec[] {
  const random = rng(seed ^ 0x5bd1e995);
  const out: RequestSpec[] = [];
  for (const path of paths) {
    // before each read, a create with probability writeShare / (1 - writeShare): writeShare of the total
    if (writeShare > 0 && random() < writeShare / (1 - writeShare)) out.push({ method: 'POST', path: EVENTS_PATH, auth: true, body: 'realistic' });
    out.push({ method: 'GET', path });
  }
  return out;
}

/**
 * The body of the n-th create. `minimal`: what the old harness sent (title, dates, a category, a tag, a cost).
 * `realistic`: what a calendar's editing form sends — a description, a time zone, a website, an image URL,
 * two categories and a tag, a venue written inline with its address (one of 500 names: the first use creates
 * it, later ones reuse it, as the original does) and an organizer by name (likewise, one of 300).
 */
export function createBody(kind: 'minimal' | 'realistic', n: number, nonce: string): string {
  const start = isoDay(Date.now() + (n % 700) * day);
  if (kind === 'minimal') {
    return JSON.stringify({
      title: `Bench event ${nonce}-${n}`,
      start_date: `${start} 19:00:00`,
      end_date: `${start} 21:00:00`,
      categories: [`category-${n % 50}`],
      tags: [`tag-${n % 200}`],
      cost: String(n % 40),
    });
  }
  const word = SEARCH_WORDS[n % SEARCH_WORDS.length];
  return JSON.stringify({
    title: `Bench ${word} evening ${nonce}-${n}`,
    description: `<p>An evening of ${word} with guests from the neighbourhood.</p><p>Doors open at 18:30; <strong>bring a friend</strong>.</p>`,
    excerpt: `An evening of ${word}.`,
    start_date: `${start} 19:00:00`,
    end_date: `${start} 21:30:00`,
    timezone: 'Europe/Paris',
    cost: `${5 + (n % 30)}`,
    website: `https://example.org/events/${nonce}-${n}`,
    image: `https://images.example.org/bench/${n % 1000}.jpg`,
    categories: [`category-${n % 50}`, `category-${(n + 17) % 50}`],
    tags: [`tag-${n % 200}`],
    venue: {
      venue: `Bench hall ${n % 500}`,
      address: `${1 + (n % 120)} Rue de la République`,
      city: 'Lyon',
      country: 'France',
      zip: `690${String(n % 10).padStart(2, '0')}`,
      phone: '+33 4 72 00 00 00',
    },
    organizer: { organizer: `Bench organizer ${n % 300}`, email: `organizer${n % 300}@example.org` },
  });
}
