#!/usr/bin/env node
// Regenerates the README's pictures of the calendar pages, docs/month-view.png and docs/list-view.png: a
// service on a fresh in-memory database seeded with a small town's calendar around today (categories,
// venues, organizers, weekly series, multi-day events, a busy day), photographed by the headless Chromium the
// browser tests use (CHROMIUM_PATH, default Debian's chromium-headless-shell) at desktop width.
//   npm run build && node scripts/screenshots.mjs
import { mkdirSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const { createListeningTestApp } = await import(`${root}dist/test/helpers/app.js`);
const { launchBrowser, nextFrames, VIEWPORTS } = await import(`${root}dist/test/helpers/browser.js`);

const ZONE = 'America/New_York';
const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
const month = today.slice(0, 7);
/** `YYYY-MM-DD` of day `n` of the month `by` months from this one (n may run past its end). */
const day = (n, by = 0) => {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 + by, n)).toISOString().slice(0, 10);
};
/** The first `weekday` (0 = Sunday) on or after day 1 of the month. */
const firstWeekday = (weekday) => {
  const first = new Date(`${day(1)}T00:00:00Z`).getUTCDay();
  return 1 + ((weekday - first + 7) % 7);
};

const t = await createListeningTestApp({ SITE_TIMEZONE: ZONE, SITE_NAME: 'Springfield Community Calendar' });
const browser = await launchBrowser();
try {
  const post = async (path, json) => {
    const res = await t.post(path, { as: 'administrator', json });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const category = (name) => post('/categories', { name });
  const [music, family, workshops, sports, markets] = await Promise.all(['Music', 'Family', 'Workshops', 'Sports', 'Markets'].map(category));
  const venue = (venue, address) => post('/venues', { venue, address, city: 'Springfield', state: 'MA', zip: '01103', country: 'United States' });
  const hall = await venue('Town Hall', '36 Court St');
  const park = await venue('Riverside Park', '1 Riverfront Dr');
  const library = await venue('Central Library', '220 State St');
  const center = await venue('Community Center', '45 Maple Ave');
  const arts = await post('/organizers', { organizer: 'Springfield Arts Council', email: 'hello@arts.example.org' });
  const friends = await post('/organizers', { organizer: 'Friends of the Library' });

  const event = (title, start, end, more = {}) =>
    post('/events', { title, start_date: start, end_date: end, timezone: ZONE, status: 'publish', ...more });
  const described = (text) => ({ description: `<p>${text}</p>` });

  await event('Farmers market', `${day(firstWeekday(6))} 08:00:00`, `${day(firstWeekday(6))} 13:00:00`, {
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=10'],
    venue: park.id,
    categories: [markets.id],
    ...described('Local growers, bakers and cheesemakers every Saturday morning by the river.'),
  });
  await event('Toddler story time', `${day(firstWeekday(3))} 10:00:00`, `${day(firstWeekday(3))} 10:45:00`, {
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=10'],
    venue: library.id,
    organizer: [friends.id],
    categories: [family.id],
    ...described('Picture books, songs and rhymes for children up to four and their grown-ups.'),
  });
  await event('Autumn arts festival', day(firstWeekday(5) + 7), day(firstWeekday(5) + 9), {
    all_day: true,
    venue: park.id,
    organizer: [arts.id],
    categories: [music.id, family.id],
    featured: true,
    cost: '10',
    ...described('Three days of local bands, painters and craft stalls along the river, with food trucks and a kids’ corner.'),
  });
  await event('Regional chess open', `${day(firstWeekday(5) + 14)} 09:00:00`, `${day(firstWeekday(5) + 16)} 17:00:00`, {
    venue: center.id,
    categories: [sports.id],
    cost: '25',
    ...described('Five rounds over a weekend, open to all ratings.'),
  });
  const singles = [
    [
      'Jazz in the park',
      3,
      '18:30',
      '20:30',
      'The Riverside Quartet plays standards on the bandstand; bring a blanket.',
      { venue: park.id, categories: [music.id], organizer: [arts.id] },
    ],
    ['Town meeting', 6, '19:00', '21:00', 'The budget for next year and the new bike lanes on Main Street.', { venue: hall.id }],
    [
      'Pottery for beginners',
      9,
      '14:00',
      '16:00',
      'Two hours at the wheel with a local potter; clay and firing included.',
      { venue: center.id, categories: [workshops.id], cost: '35' },
    ],
    [
      '5K fun run',
      13,
      '08:00',
      '10:00',
      'A flat loop along the river for runners, walkers and strollers.',
      { venue: park.id, categories: [sports.id], featured: true, cost: '15' },
    ],
    [
      'Choir concert',
      16,
      '19:30',
      '21:00',
      'The Springfield Community Choir sings Rutter, Fauré and folk songs.',
      { venue: hall.id, categories: [music.id], cost: '12' },
    ],
    [
      'Coding club for teens',
      16,
      '16:00',
      '17:30',
      'Build a small web game in an afternoon; laptops provided.',
      { venue: library.id, categories: [workshops.id] },
    ],
    ['Film night: classics', 16, '20:00', '22:30', 'A black-and-white comedy on the big screen, with popcorn.', { venue: center.id, cost: '5' }],
    [
      'Book swap',
      16,
      '11:00',
      '13:00',
      'Bring a book, take a book; children’s corner with free picture books.',
      { venue: library.id, organizer: [friends.id], categories: [family.id] },
    ],
    [
      'Open mic',
      21,
      '19:00',
      '22:00',
      'Songs, poems and stand-up: sign up at the door for a ten-minute slot.',
      { venue: center.id, categories: [music.id] },
    ],
    [
      'Repair café',
      27,
      '10:00',
      '13:00',
      'Volunteers fix lamps, bikes, toasters and torn jackets with you, for free.',
      { venue: center.id, categories: [workshops.id] },
    ],
  ];
  // the same program this month and the next, so that the list of upcoming events is full on any day
  for (const by of [0, 1]) {
    for (const [title, n, from, to, text, more] of singles)
      await event(title, `${day(n, by)} ${from}:00`, `${day(n, by)} ${to}:00`, { ...more, ...described(text) });
  }

  mkdirSync(`${root}docs`, { recursive: true });
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.emulateTimezone(ZONE);
  for (const [name, path, fullPage] of [
    ['month-view', `/events/month/${month}/`, true],
    ['list-view', '/events/list/', false],
  ]) {
    // the month as tall as it is; the list in a tall window, cut below an event card
    await page.setViewport({ ...VIEWPORTS.desktop, height: fullPage ? VIEWPORTS.desktop.height : 1400 });
    const res = await page.goto(`${t.base}${path}`, { waitUntil: 'load' });
    if (res?.status() !== 200) throw new Error(`${path}: ${res?.status()}`);
    await nextFrames(page);
    const height = fullPage
      ? undefined
      : await page.$$eval(
          '.event-card',
          (cards, max) => Math.max(...cards.map((c) => c.getBoundingClientRect().bottom).filter((b) => b <= max)) + 16,
          1400,
        );
    const clip = height === undefined ? undefined : { x: 0, y: 0, width: VIEWPORTS.desktop.width, height };
    await page.screenshot({ path: `${root}docs/${name}.png`, fullPage, clip });
    console.log(`docs/${name}.png  ${path}`);
  }
} finally {
  await browser.close();
  await t.close();
}
