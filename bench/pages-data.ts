/**
 * The site bench/pages.ts measures: background events in bulk (bench/seed.ts, every month but the busy one) and
 * a busy month written through the API, as an editor's form would — weekly series first (their occurrences in
 * the month count toward its total), then single events up to the total: timed ones in the site's zone and a
 * few in New York, all-day ones, multi-day ones (some all-day), 1–2 of the 10 categories, 0–2 tags, a venue
 * and organizers for most, HTML descriptions, costs, some images and featured events. Weekends are busier, so
 * one day stands out. Deterministic for a given seed.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { UserService } from '../src/domain/users/user.service.js';
import type { Storage } from '../src/storage/storage.js';
import { seed } from './seed.js';
import { NS, rng, SEARCH_WORDS } from './traffic.js';

export const CATEGORIES = 10;
export const TAGS = 40;
export const SITE_TIMEZONE = 'Europe/Paris';
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const AUTH = { authorization: `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`, 'content-type': 'application/json' };

export interface BusySite {
  /** `YYYY-MM` */
  month: string;
  /** Events and occurrences overlapping the month (the API's total for the month's window). */
  eventsInMonth: number;
  series: number;
  occurrencesInMonth: number;
  singlesInMonth: number;
  backgroundEvents: number;
  /** The day with the most events starting on it, and how many. */
  busyDay: string;
  busyDayStarts: number;
  /** A single timed event with a venue, organizers and categories: the event page. */
  eventSlug: string;
  categorySlug: string;
  seconds: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const daysIn = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();

export async function seedBusySite(storage: Storage, o: { month: string; total: number; busy: number; seed: number }): Promise<BusySite> {
  const started = Date.now();
  const monthStart = Date.parse(`${o.month}-01T00:00:00Z`);
  const days = daysIn(o.month);
  await storage.migrate();
  // two days of margin either side: a background event in another zone must not reach into the month
  const backgroundEvents = o.total - o.busy;
  await seed(storage, {
    events: backgroundEvents,
    categories: CATEGORIES,
    tags: TAGS,
    seed: o.seed,
    avoid: { fromMs: monthStart - 2 * 86_400_000, toMs: monthStart + (days + 2) * 86_400_000 },
  });
  await new UserService(storage).add({ login: ADMIN.login, role: 'administrator', password: ADMIN.password });
  const ids = async (type: 'venue' | 'organizer') =>
    (await storage.db.selectFrom('posts').select('id').where('type', '=', type).where('status', '=', 'publish').orderBy('id').execute()).map(
      (r) => r.id,
    );
  const venues = await ids('venue');
  const organizers = await ids('organizer');

  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0', SITE_TIMEZONE }), storage, { logger: false });
  await app.ready();
  const random = rng(o.seed + 7);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]) => list[int(list.length)];
  const create = async (body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: `${NS}/events`, headers: AUTH, payload: JSON.stringify(body) });
    if (res.statusCode !== 201) throw new Error(`POST /events: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json() as { id: number; slug: string };
  };
  const common = (n: number) => {
    const word = pick(SEARCH_WORDS);
    const cats = new Set([`category-${Math.min(int(CATEGORIES), int(CATEGORIES))}`, ...(random() < 0.4 ? [`category-${int(CATEGORIES)}`] : [])]);
    const tags = new Set(Array.from({ length: int(3) }, () => `tag-${int(TAGS)}`));
    const orgs = new Set(Array.from({ length: int(3) }, () => pick(organizers)));
    return {
      title: `${word[0].toUpperCase()}${word.slice(1)} ${pick(SEARCH_WORDS)} ${n}`,
      description: `<p>An afternoon of ${word} &amp; friends, ${n}.</p><p>${SEARCH_WORDS.slice(0, 4 + int(12)).join(' ')}.</p><ul><li>Doors at the hour</li><li><strong>Bring a friend</strong></li></ul>`,
      ...(random() < 0.5 ? { excerpt: `${word} for everyone` } : {}),
      categories: [...cats],
      tags: [...tags],
      ...(random() < 0.85 ? { venue: pick(venues) } : {}),
      ...(orgs.size > 0 ? { organizer: [...orgs] } : {}),
      ...(random() < 0.5 ? { cost: String(5 + int(40)) } : {}),
      ...(random() < 0.3 ? { image: `https://images.example.org/pages/${n % 200}.jpg` } : {}),
      ...(random() < 0.08 ? { featured: true } : {}),
    };
  };

  // weekly series: some begin three weeks before the month, some in it; each has 10 occurrences
  const SERIES = 8;
  for (let i = 0; i < SERIES; i++) {
    const start = new Date(monthStart + (i * 3 - 21) * 86_400_000).toISOString().slice(0, 10);
    await create({
      ...common(-i),
      title: `Weekly ${pick(SEARCH_WORDS)} club ${i}`,
      timezone: SITE_TIMEZONE,
      start_date: `${start} 19:00:00`,
      end_date: `${start} 21:00:00`,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'],
    });
  }
  const monthTotal = async () => {
    const res = await app.inject({ method: 'GET', url: `${NS}/events?per_page=1&start_date=${o.month}-01&end_date=${o.month}-${days}` });
    return Number(res.headers['x-tec-total']);
  };
  const occurrencesInMonth = await monthTotal();

  // singles up to the total, weekends busier (Saturday twice a weekday)
  const weights = Array.from({ length: days }, (_, d) => [1, 1, 1, 1, 1.5, 2, 1.5][(new Date(monthStart + d * 86_400_000).getUTCDay() + 6) % 7]);
  const sum = weights.reduce((a, b) => a + b, 0);
  const drawDay = () => {
    let x = random() * sum;
    for (let d = 0; d < days; d++) {
      x -= weights[d];
      if (x < 0) return d + 1;
    }
    return days;
  };
  const starts = new Map<string, number>();
  let eventSlug = '';
  const singles = o.busy - occurrencesInMonth;
  for (let n = 0; n < singles; n++) {
    const r = random();
    let day = drawDay();
    const body = common(n);
    let when: Record<string, unknown>;
    if (r < 0.12) {
      when = { all_day: true, start_date: `${o.month}-${pad(day)} 00:00:00`, end_date: `${o.month}-${pad(day)} 23:59:59` };
    } else if (r < 0.2) {
      // multi-day, within the month: a festival (all-day) or a conference (timed)
      const span = 1 + int(4);
      day = Math.min(day, days - span);
      const last = `${o.month}-${pad(day + span)}`;
      when =
        r < 0.16
          ? { all_day: true, start_date: `${o.month}-${pad(day)} 00:00:00`, end_date: `${last} 23:59:59` }
          : { timezone: SITE_TIMEZONE, start_date: `${o.month}-${pad(day)} 10:00:00`, end_date: `${last} 18:00:00` };
    } else {
      const at = 8 * 60 + int(14 * 4) * 15;
      const end = at + 60 * (1 + int(3));
      const time = (m: number) => `${pad(Math.floor(m / 60))}:${pad(m % 60)}:00`;
      when = {
        timezone: random() < 0.1 ? 'America/New_York' : SITE_TIMEZONE,
        start_date: `${o.month}-${pad(day)} ${time(at)}`,
        end_date: `${o.month}-${pad(day)} ${time(Math.min(end, 23 * 60 + 45))}`,
      };
    }
    const made = await create({ ...body, ...when });
    const key = `${o.month}-${pad(day)}`;
    starts.set(key, (starts.get(key) ?? 0) + 1);
    if (!eventSlug && r >= 0.2 && 'venue' in body && 'organizer' in body) eventSlug = made.slug;
  }
  const eventsInMonth = await monthTotal();
  await app.close();
  await storage.optimize();
  const [busyDay, busyDayStarts] = [...starts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  return {
    month: o.month,
    eventsInMonth,
    series: SERIES,
    occurrencesInMonth,
    singlesInMonth: singles,
    backgroundEvents,
    busyDay,
    busyDayStarts,
    eventSlug,
    categorySlug: 'category-0',
    seconds: (Date.now() - started) / 1000,
  };
}
