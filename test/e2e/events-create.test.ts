import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { V1_EVENT_KEYS } from '../../src/http/routes/events/events.schemas.js';
import { EmbeddedTermSchema } from '../../src/http/schemas/components.schemas.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { insertRawPost, makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { injectFault, writeSteps } from '../helpers/faults.js';
import { withoutJsonLd } from '../helpers/shapes.js';
import { diffSnapshots, snapshot } from '../helpers/snapshot.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;
/** The event's keys, from its one declaration (shapes.test.ts pins that to the original's). */
const KEYS = V1_EVENT_KEYS.filter((k) => k !== 'json_ld');

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const tomorrowUtc = () => ymd(new Date(Date.now() + 86_400_000));

describe('events: create', () => {
  let t: TestApp;
  const statements: string[] = [];
  before(async () => (t = await createTestApp({}, { onQuery: (sql) => void statements.push(sql) })));
  after(() => t.close());

  it('creates an event: 201 with every key in order and the right types', async () => {
    const res = await t.post('/events', {
      as: 'administrator',
      form: {
        title: 'Event 01',
        description: 'Event 01 description',
        excerpt: 'Event 01 excerpt',
        start_date: '2030-01-05 14:23:36',
        end_date: '2030-01-05 16:00:00',
      },
    });
    assert.equal(res.status, 201);
    const e = res.body;
    assert.deepEqual(Object.keys(e), KEYS);
    assert.equal(typeof e.id, 'number');
    assert.equal(e.global_id, `calendar.test?id=${e.id}`);
    assert.deepEqual(e.global_id_lineage, [e.global_id]);
    assert.equal(e.author, String(t.users.administrator.id));
    assert.equal(e.status, 'publish');
    assert.equal(e.url, `${PUBLIC_URL}/event/event-01/`);
    assert.equal(e.rest_url, `${NS}/events/${e.id}`);
    assert.equal(e.title, 'Event 01');
    assert.equal(e.description, '<p>Event 01 description</p>');
    assert.equal(e.excerpt, '<p>Event 01 excerpt</p>');
    assert.equal(e.slug, 'event-01');
    assert.equal(e.image, false);
    assert.equal(e.all_day, false);
    assert.equal(e.start_date, '2030-01-05 14:23:36');
    assert.deepEqual(e.start_date_details, { year: '2030', month: '01', day: '05', hour: '14', minutes: '23', seconds: '36' });
    assert.equal(e.end_date, '2030-01-05 16:00:00');
    assert.equal(e.utc_start_date, '2030-01-05 14:23:36');
    assert.equal(e.timezone, 'UTC');
    assert.equal(e.timezone_abbr, 'UTC');
    assert.equal(e.cost, '');
    assert.deepEqual(e.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: [] });
    assert.equal(e.website, e.url, 'no website: the permalink');
    for (const k of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured']) assert.equal(e[k], false, k);
    assert.deepEqual([e.categories, e.tags, e.venue, e.organizer, e.custom_fields], [[], [], [], [], []]);
    assert.equal(e.json_ld, undefined, 'json_ld only on single reads');
    assert.equal(res.headers.location, e.rest_url);
  });

  it('needs title, start_date and end_date (all named at once)', async () => {
    const res = await t.post('/events', { as: 'administrator', form: { description: 'x' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_missing_callback_param');
    assert.deepEqual(res.body.data.params, ['title', 'start_date', 'end_date']);
  });

  it('validates every argument with rest_invalid_param', async () => {
    const venue = await insertRawPost(t, 'venue');
    const ok = { title: 'Valid', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' };
    const cases: [string, unknown][] = [
      ['title', ''],
      ['start_date', ''],
      ['start_date', 'before my birthday'],
      ['end_date', 'foo'],
      ['description', ''],
      ['excerpt', ''],
      ['slug', ''],
      ['author', 23999],
      ['author', 'foo'],
      ['author', ''],
      ['date', 'foo'],
      ['date_utc', 'foo'],
      ['status', 'kinda_thinking_about_it'],
      ['timezone', 'Mars/Olympus'],
      ['all_day', 'maybe'],
      ['featured', 'yes'],
      ['sticky', ''],
      ['show_map', 'x'],
      ['image', 23999],
      ['image', String(venue)],
      ['image', 'foo bar'],
      ['image', 'ftp://example.org/a.png'],
      ['website', 'foo'],
      ['cost', { a: 1 }],
      ['title', 42],
    ];
    for (const [name, value] of cases) {
      const res = await t.post('/events', { as: 'administrator', json: { ...ok, [name]: value } });
      assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`);
      assert.equal(res.body.code, 'rest_invalid_param', `${name}=${JSON.stringify(value)}`);
      assert.ok(name in res.body.data.params, `${name}=${JSON.stringify(value)}`);
    }
  });

  it('answers 401 to anonymous and 403 to subscribers, after validation', async () => {
    const ok = { title: 'X', start_date: '2030-01-01', end_date: '2030-01-01' };
    assert.equal((await t.post('/events', { json: ok })).status, 401);
    const sub = await t.post('/events', { as: 'subscriber', json: ok });
    assert.equal(sub.status, 403);
    assert.equal(sub.body.code, 'rest_forbidden');
    assert.equal((await t.post('/events', { json: { title: 'X' } })).status, 400);
  });

  it('applies the status rules: publishers get what they ask, contributors pending/draft', async () => {
    const s = async (as: any, status?: string) => (await makeEvent(t, status ? { status } : {}, as)).status;
    assert.equal(await s('author'), 'publish');
    assert.equal(await s('editor', 'draft'), 'draft');
    assert.equal(await s('administrator', 'private'), 'private');
    assert.equal(await s('contributor'), 'draft');
    assert.equal(await s('contributor', 'publish'), 'pending');
    assert.equal(await s('contributor', 'future'), 'pending');
    assert.equal(await s('contributor', 'draft'), 'draft');
  });

  it('schedules events published with a future publication date', async () => {
    const e = await makeEvent(t, { date: '+2 days' });
    assert.equal(e.status, 'future');
    const past = await makeEvent(t, { status: 'future', date: '2020-01-01 10:00' });
    assert.equal(past.status, 'publish');
    assert.equal(past.date, '2020-01-01 10:00:00');
  });

  it("is last modified at its publication date when created, as WordPress inserts it (the recorded site's events), and at the write's time once updated", async () => {
    const e = await makeEvent(t, { date: '2024-04-14 10:00:00' });
    assert.deepEqual([e.date, e.modified, e.modified_utc], ['2024-04-14 10:00:00', '2024-04-14 10:00:00', e.date_utc]);
    const venue = await t.post('/venues', { as: 'administrator', json: { venue: 'Backdated hall', date: '2023-02-01 09:00:00' } });
    assert.deepEqual([venue.body.date, venue.body.modified], ['2023-02-01 09:00:00', '2023-02-01 09:00:00']);
    const updated = await t.post(`/events/${e.id}`, { as: 'administrator', json: { title: 'Renamed' } });
    assert.equal(updated.body.date, '2024-04-14 10:00:00');
    assert.ok(updated.body.modified > '2026-01-01', updated.body.modified);
  });

  it("answers a draft's or pending post's UTC dates as WordPress' empty date, its modification's until it is first updated (recorded: drafts 78–81, venue 18, organizer 27)", async () => {
    const NO_DATE = '0000-00-00 00:00:00';
    const draft = await makeEvent(t, { status: 'draft', date: '2024-04-14 10:00:00' });
    assert.deepEqual(
      [draft.date, draft.date_utc, draft.modified, draft.modified_utc],
      ['2024-04-14 10:00:00', NO_DATE, '2024-04-14 10:00:00', NO_DATE],
    );
    const read = (await t.get(`/events/${draft.id}`, { as: 'administrator' })).body;
    assert.deepEqual([read.date_utc, read.modified_utc], [NO_DATE, NO_DATE]);
    for (const [type, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const res = await t.post(`/${type}`, { as: 'administrator', json: { [name]: `Pending ${name}`, status: 'pending' } });
      assert.deepEqual([res.body.date_utc, res.body.modified_utc], [NO_DATE, NO_DATE], type);
    }
    // edited: modified now; published: both real
    const edited = (await t.post(`/events/${draft.id}`, { as: 'administrator', json: { title: 'Edited draft' } })).body;
    assert.equal(edited.date_utc, NO_DATE);
    assert.notEqual(edited.modified_utc, NO_DATE);
    const published = (await t.post(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } })).body;
    assert.equal(published.status, 'publish');
    assert.equal(published.date_utc, '2024-04-14 10:00:00');
    assert.notEqual(published.modified_utc, NO_DATE);
  });

  it('reads dates in the event time zone, relative phrases included', async () => {
    const hk = await makeEvent(t, { timezone: 'Asia/Hong_Kong', start_date: '2018-01-01 4pm', end_date: '2018-01-01 6pm' });
    assert.equal(hk.start_date, '2018-01-01 16:00:00');
    assert.equal(hk.utc_start_date, '2018-01-01 08:00:00');
    assert.equal(hk.timezone, 'Asia/Hong_Kong');
    const ny = await makeEvent(t, { timezone: 'America/New_York', start_date: 'tomorrow 9am', end_date: 'tomorrow 11am' });
    assert.match(ny.start_date, / 09:00:00$/);
    assert.match(ny.timezone_abbr, /^E[SD]T$/);
    const offset = await makeEvent(t, { timezone: 'UTC+2', start_date: '2030-06-01 10:00', end_date: '2030-06-01 12:00' });
    assert.equal(offset.utc_start_date, '2030-06-01 08:00:00');
    assert.equal(offset.timezone_abbr, 'UTC+2');
  });

  it('computes UTC and abbreviations across DST', async () => {
    const winter = await makeEvent(t, { timezone: 'America/New_York', start_date: '2030-01-15 10:00', end_date: '2030-01-15 12:00' });
    assert.equal(winter.utc_start_date, '2030-01-15 15:00:00');
    assert.equal(winter.timezone_abbr, 'EST');
    const summer = await makeEvent(t, { timezone: 'America/New_York', start_date: '2030-07-15 10:00', end_date: '2030-07-15 12:00' });
    assert.equal(summer.utc_start_date, '2030-07-15 14:00:00');
    assert.equal(summer.timezone_abbr, 'EDT');
    const across = await makeEvent(t, { timezone: 'Europe/Paris', start_date: '2030-03-30 22:00', end_date: '2030-03-31 05:00' });
    assert.equal(across.utc_start_date, '2030-03-30 21:00:00');
    assert.equal(across.utc_end_date, '2030-03-31 03:00:00');
    assert.equal(across.timezone_abbr, 'CET');
  });

  it('stores a wall time the zone skips as the time it becomes, as the original does (recorded: 02:30 → 03:30, zero-length)', async () => {
    const gap = await makeEvent(t, { timezone: 'America/New_York', start_date: '2026-03-08 02:30:00', end_date: '2026-03-08 03:30:00' });
    assert.deepEqual(
      [gap.start_date, gap.end_date, gap.utc_start_date, gap.utc_end_date, gap.timezone_abbr],
      ['2026-03-08 03:30:00', '2026-03-08 03:30:00', '2026-03-08 07:30:00', '2026-03-08 07:30:00', 'EDT'],
    );
    // an end in the gap moves forward alike; the wall times always say the instants
    const endInGap = await makeEvent(t, { timezone: 'America/New_York', start_date: '2026-03-08 01:00:00', end_date: '2026-03-08 02:15:00' });
    assert.deepEqual(
      [endInGap.start_date, endInGap.end_date, endInGap.utc_start_date, endInGap.utc_end_date],
      ['2026-03-08 01:00:00', '2026-03-08 03:15:00', '2026-03-08 06:00:00', '2026-03-08 07:15:00'],
    );
  });

  it('defaults the time zone to SITE_TIMEZONE', async () => {
    const site = await createTestApp({ SITE_TIMEZONE: 'America/New_York' });
    try {
      const e = await makeEvent(site, { start_date: 'tomorrow 9am', end_date: 'tomorrow 10am' });
      assert.equal(e.timezone, 'America/New_York');
      assert.match(e.start_date, / 09:00:00$/);
      assert.match(e.utc_start_date, / 1[34]:00:00$/);
    } finally {
      await site.close();
    }
  });

  it('keeps the quirks of the original: timestamps as UTC wall clock, written offsets as written', async () => {
    const ts = await makeEvent(t, { timezone: 'America/New_York', start_date: '1893456000', end_date: '1893463200' });
    assert.equal(ts.start_date, '2030-01-01 00:00:00');
    assert.equal(ts.utc_start_date, '2030-01-01 05:00:00');
    const iso = await makeEvent(t, { timezone: 'America/New_York', start_date: '2030-01-01T10:00:00+02:00', end_date: '2030-01-01T11:00:00+02:00' });
    assert.equal(iso.start_date, '2030-01-01 10:00:00');
  });

  it('makes all-day events whole days, multi-day too', async () => {
    const e = await makeEvent(t, { all_day: true, start_date: 'tomorrow 9am', end_date: '+5 days 11am' });
    assert.equal(e.all_day, true);
    assert.equal(e.start_date, `${tomorrowUtc()} 00:00:00`);
    assert.equal(e.end_date, `${ymd(new Date(Date.now() + 5 * 86_400_000))} 23:59:59`);
  });

  it('sets an end before the start to the start', async () => {
    const e = await makeEvent(t, { start_date: '2030-01-02 10:00', end_date: '2030-01-01 10:00' });
    assert.equal(e.end_date, '2030-01-02 10:00:00');
    assert.equal(e.utc_end_date, e.utc_start_date);
  });

  it('formats cost like the original', async () => {
    const plain = await makeEvent(t, { cost: '23' });
    assert.equal(plain.cost, '$23');
    assert.deepEqual(plain.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: ['23'] });
    const postfix = await makeEvent(t, { cost: '20$' });
    assert.equal(postfix.cost, '20$');
    assert.equal(postfix.cost_details.currency_position, 'postfix');
    const range = await makeEvent(t, { cost: ['0$', '20$', '30$'] });
    assert.equal(range.cost, 'Free \u2013 30$');
    assert.deepEqual(range.cost_details.values, ['0', '20', '30']);
    const decimals = await t.post('/events', { as: 'editor', form: 'title=D&start_date=2030-01-01&end_date=2030-01-01&cost[]=8.50&cost[]=6.50' });
    assert.deepEqual(decimals.body.cost_details.values, ['6.50', '8.50']);
    // a word is listed as its slug; a lone "0" is no cost at all (PHP's empty(), as recorded on the original)
    const word = await makeEvent(t, { cost: 'Pay What You Can' });
    assert.equal(word.cost, 'Pay What You Can');
    assert.deepEqual(word.cost_details.values, ['pay-what-you-can']);
    const zero = await makeEvent(t, { cost: '0' });
    assert.equal(zero.cost, '');
    assert.deepEqual(zero.cost_details.values, []);
  });

  it('escapes and validates websites', async () => {
    const e = await makeEvent(t, { website: 'https://example.org/?a=1&b=2' });
    assert.equal(e.website, 'https://example.org/?a=1&amp;b=2');
    const empty = await makeEvent(t, { website: '' });
    assert.equal(empty.website, '');
  });

  it('sets the flags', async () => {
    const e = await makeEvent(t, { show_map: true, show_map_link: '1', hide_from_listings: 'true', sticky: 1, featured: true });
    for (const k of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured']) assert.equal(e[k], true, k);
  });

  it('assigns categories and tags by id, slug or name, creating unknown names, sorted by name', async () => {
    const rock = await makeCategory(t, { name: 'Rock', slug: 'rock-music' });
    const tag = await makeTag(t, { name: 'Loud' });
    const e = await makeEvent(t, { categories: `cat2,${rock.id},cat1`, tags: [tag.id, 'outdoor'] });
    assert.deepEqual(
      e.categories.map((c: any) => c.name),
      ['cat1', 'cat2', 'Rock'],
    );
    assert.deepEqual(Object.keys(e.categories[0]), Object.keys(EmbeddedTermSchema.properties));
    assert.equal(e.categories[2].id, rock.id);
    assert.equal(e.categories[2].count, 1);
    assert.deepEqual(e.categories[2].urls, { self: `${NS}/categories/${rock.id}`, collection: `${NS}/categories` });
    assert.deepEqual(
      e.tags.map((x: any) => x.name),
      ['Loud', 'outdoor'],
    );
    assert.equal(e.tags[0].taxonomy, 'post_tag');
    const bySlug = await makeEvent(t, { categories: 'rock-music', tags: 'LOUD' });
    assert.deepEqual(
      bySlug.categories.map((c: any) => c.id),
      [rock.id],
    );
    assert.deepEqual(
      bySlug.tags.map((x: any) => x.id),
      [tag.id],
    );
    const unknownId = await makeEvent(t, { categories: [999999] });
    assert.deepEqual(unknownId.categories, [], 'unknown ids are skipped, never turned into names');
  });

  it('takes at most 100 terms of at most 200 characters a write: 400 saying which limit, and nothing stored', async () => {
    const ok = { title: 'Too many terms', start_date: '2030-01-01', end_date: '2030-01-01' };
    const before = await snapshot(t.storage.db);
    const many = await t.post('/events', { as: 'administrator', json: { ...ok, tags: Array.from({ length: 101 }, (_, i) => `many-${i}`) } });
    assert.equal(many.status, 400);
    assert.equal(many.body.code, 'rest_invalid_param');
    assert.deepEqual(many.body.data.params, { tags: 'At most 100 terms.' });
    const long = await t.post('/events', { as: 'administrator', json: { ...ok, categories: ['x'.repeat(201)] } });
    assert.equal(long.status, 400);
    assert.equal(long.body.code, 'rest_invalid_param');
    assert.deepEqual(long.body.data.params, { categories: 'A term name is at most 200 characters.' });
    assert.deepEqual(diffSnapshots(before, await snapshot(t.storage.db)), {});
    const hundred = await t.post('/events', { as: 'administrator', json: { ...ok, tags: Array.from({ length: 100 }, (_, i) => `many-${i}`) } });
    assert.equal(hundred.status, 201, hundred.text);
    assert.equal(hundred.body.tags.length, 100);
  });

  it('skips term ids no term can have (a fraction, beyond the id range) like unknown ids, on every database', async () => {
    // PostgreSQL refused these in its lookup (400 rest_bad_request, naming nothing) where SQLite skipped them
    const jazz = await makeCategory(t, { name: 'Jazz odd ids' });
    const tag = await makeTag(t, { name: 'Odd ids' });
    const before = await t.get('/tags', { query: { hide_empty: 'false', per_page: 50 } });
    const cases: unknown[][] = [[2.5], [2_147_483_648], ['99999999999999999999'], [{ id: 1e20 }], [1.5, 'odd-ids']];
    for (const entries of cases) {
      const res = await t.post('/events', {
        as: 'administrator',
        json: {
          title: 'Odd ids',
          start_date: '2031-01-01 10:00',
          end_date: '2031-01-01 11:00',
          categories: [jazz.id, ...entries.filter((e) => e !== 'odd-ids')],
          tags: entries,
        },
      });
      assert.equal(res.status, 201, `${JSON.stringify(entries)}: ${res.text}`);
      assert.deepEqual(
        res.body.categories.map((c: any) => c.id),
        [jazz.id],
        JSON.stringify(entries),
      );
      assert.deepEqual(
        res.body.tags.map((x: any) => x.id),
        entries.includes('odd-ids') ? [tag.id] : [],
        JSON.stringify(entries),
      );
    }
    const after = await t.get('/tags', { query: { hide_empty: 'false', per_page: 50 } });
    assert.equal(after.body.total, before.body.total, 'no term was made of an id');
  });

  it('matches a term entry by slug before name, and by name the oldest term, whichever else the write names', async () => {
    const blues = await makeCategory(t, { name: 'Blues', slug: 'blues-night' });
    const grooveOne = await makeCategory(t, { name: 'Groove', slug: 'g-one' });
    const grooveTwo = await makeCategory(t, { name: 'Groove', slug: 'g-two', parent: grooveOne.id });
    // no slug `BLUES` or `blues`: by name; `g-two` by slug and `groove` by name (the oldest) in the same write
    const byName = await makeEvent(t, { categories: ['BLUES', 'g-two', 'groove'] });
    assert.deepEqual(
      byName.categories.map((c: any) => c.id),
      [blues.id, grooveOne.id, grooveTwo.id],
    );
    // a term whose slug is what the entry sanitises to wins over an older one of that name
    const soul = await makeCategory(t, { name: 'Soul', slug: 'blues' });
    const bySlug = await makeEvent(t, { categories: 'BLUES' });
    assert.deepEqual(
      bySlug.categories.map((c: any) => c.id),
      [soul.id],
    );
  });

  it('keeps HTML for editors and sanitises it for authors and contributors', async () => {
    const html = '<p onclick="x()">Hi <script>alert(1)</script><iframe src="https://e.org"></iframe><b>there</b></p>';
    const editor = await makeEvent(t, { description: html }, 'editor');
    assert.equal(editor.description, html);
    const author = await makeEvent(t, { description: html }, 'author');
    assert.equal(author.description, '<p>Hi <b>there</b></p>');
  });

  it('makes slugs unique among published events, with drafts left empty until published', async () => {
    const a = await makeEvent(t, { title: 'Same Title' });
    const b = await makeEvent(t, { title: 'Same Title' });
    const c = await makeEvent(t, { title: 'Other', slug: 'same-title' });
    assert.deepEqual([a.slug, b.slug, c.slug], ['same-title', 'same-title-2', 'same-title-3']);
    const draft = await makeEvent(t, { title: 'Draft one', status: 'draft' });
    assert.equal(draft.slug, '');
    // WordPress' link of a draft, pending or scheduled post names its type (get_post_permalink), also in website
    assert.equal(draft.url, `${PUBLIC_URL}/?post_type=tribe_events&p=${draft.id}`);
    assert.equal(draft.website, draft.url);
    const pending = await makeEvent(t, { title: 'Pending one', status: 'pending' });
    assert.equal(pending.url, `${PUBLIC_URL}/?post_type=tribe_events&p=${pending.id}`);
    const venue = await makeLinked(t, 'venue', { status: 'draft' });
    assert.equal(venue.url, `${PUBLIC_URL}/?post_type=tribe_venue&p=${venue.id}`);
    const organizer = await makeLinked(t, 'organizer', { status: 'draft' });
    assert.equal(organizer.url, `${PUBLIC_URL}/?post_type=tribe_organizer&p=${organizer.id}`);
    const published = await t.post(`/events/${draft.id}`, { as: 'administrator', json: { status: 'publish' } });
    assert.equal(published.body.url, `${PUBLIC_URL}/event/draft-one/`);
  });

  it('takes images by stored id or by URL (reused), but never from a contributor', async () => {
    const e = await makeEvent(t, { image: 'https://cdn.example.org/pics/photo.JPG' });
    assert.equal(e.image.url, 'https://cdn.example.org/pics/photo.JPG');
    assert.equal(e.image.extension, 'jpg');
    assert.equal(typeof e.image.id, 'number');
    const again = await makeEvent(t, { image: 'https://cdn.example.org/pics/photo.JPG' });
    assert.equal(again.image.id, e.image.id);
    const byId = await makeEvent(t, { image: e.image.id });
    assert.equal(byId.image.url, e.image.url);
    const byNumericString = await makeEvent(t, { image: String(e.image.id) });
    assert.equal(byNumericString.image.id, e.image.id);
    const contributor = await t.post('/events', {
      as: 'contributor',
      json: { title: 'C', start_date: '2030-01-01', end_date: '2030-01-01', image: 'https://cdn.example.org/x.png' },
    });
    assert.equal(contributor.status, 400);
    assert.equal(contributor.body.code, 'rest_invalid_param');
    const contributorById = await makeEvent(t, { image: e.image.id }, 'contributor');
    assert.equal(contributorById.image.id, e.image.id);
  });

  it('lets editors write as another author, not contributors or authors', async () => {
    const e = await makeEvent(t, { author: t.users.author.id }, 'editor');
    assert.equal(e.author, String(t.users.author.id));
    const res = await t.post('/events', {
      as: 'contributor',
      json: { title: 'C', start_date: '2030-01-01', end_date: '2030-01-01', author: t.users.editor.id },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'rest_cannot_edit_others');
    const self = await makeEvent(t, { author: t.users.contributor.id }, 'contributor');
    assert.equal(self.author, String(t.users.contributor.id));
  });

  it("sets publication dates: date in the site time zone (not the event's, as in the original), date_utc in UTC", async () => {
    const e = await makeEvent(t, { date_utc: '2020-05-01 09:00:00' });
    assert.equal(e.date_utc, '2020-05-01 09:00:00');
    assert.equal(e.date, '2020-05-01 09:00:00');
    // the site is UTC here; the event's own zone does not apply to its publication date
    const ny = await makeEvent(t, { timezone: 'America/New_York', date: '2020-05-01 09:00:00' });
    assert.equal(ny.date_utc, '2020-05-01 09:00:00');
    assert.equal(ny.date, '2020-05-01 09:00:00');
  });

  it('answers a create with exactly what reading the event back gives', async () => {
    const venue = await makeLinked(t, 'venue', { city: 'Lyon' });
    const organizer = await makeLinked(t, 'organizer', { email: 'org@example.com' });
    const category = await makeCategory(t, { name: 'Read back' });
    for (const [as, extra] of [
      ['administrator', { image: 'https://images.example.com/read-back.png', sticky: true, featured: true, all_day: true }],
      ['author', { status: 'draft', timezone: 'America/New_York', hide_from_listings: true, show_map: true }],
      ['editor', { status: 'future', date: '2031-06-01 09:00:00', website: 'https://example.com/x', show_map_link: true }],
    ] as const) {
      const created = await t.post('/events', {
        as,
        json: {
          title: `Read back <b>${as}</b>`,
          description: 'Line one\n\nLine two',
          excerpt: 'Short',
          start_date: '2031-05-05 18:30:00',
          end_date: '2031-05-06 01:00:00',
          cost: '$5 - $10',
          categories: [category.id, 'read-back-new'],
          tags: ['Read back tag'],
          venue: venue.id,
          organizer: [organizer.id, { organizer: `New organizer ${as}` }],
          ...extra,
        },
      });
      assert.equal(created.status, 201, created.text);
      const read = await t.get(`/events/${created.body.id}`, { as });
      assert.equal(read.status, 200);
      // json_ld is for single reads only (CONTRACT.md §2.1), on the event and on what it embeds
      assert.ok(read.body.json_ld, 'the single read has json_ld');
      assert.equal(created.body.json_ld, undefined);
      assert.deepEqual(created.body, withoutJsonLd(read.body), `as ${as}`);
      assert.equal(created.body.venue.city, 'Lyon');
      assert.equal(created.body.organizer.length, 2);
    }
  });

  describe('a write that fails inside its transaction leaves nothing behind', () => {
    // Each fault makes one late statement of the create fail (a trigger in the test database, see
    // test/helpers/faults.ts), after the statements before it inserted the event, its image, an inline venue
    // and organizer, new terms and their relationships. The same write without the fault is then stored whole,
    // so the failure came from the fault and nothing else.
    const MARK = '#fault';
    /** What the create inserts before it links its organizers, in order. */
    const INSERTS_BEFORE_LINKS = [
      'insert images',
      'insert venues',
      'insert posts',
      'insert events',
      'insert terms',
      'insert term_relationships',
      'insert organizers',
    ];
    const faults = [
      {
        site: 'the link to its organizer',
        spec: { table: 'event_organizers', on: 'insert', when: `exists (select 1 from posts where id = new.event_id and title like '%${MARK}%')` },
        failing: 'insert event_organizers',
        ranBefore: INSERTS_BEFORE_LINKS,
      },
      {
        site: 'its term counts, its last statement',
        spec: { table: 'terms', on: 'update', when: `new.name like '%${MARK}%' and new.count <> old.count` },
        failing: 'update terms',
        ranBefore: [...INSERTS_BEFORE_LINKS, 'insert event_organizers'],
      },
    ] as const;

    for (const [i, fault] of faults.entries()) {
      it(`a driver error at ${fault.site}: 500 rest_internal_error, and no row of it remains`, async () => {
        const kept = await makeCategory(t, { name: `Atomic kept ${i}` });
        await makeEvent(t, { categories: [kept.id] });
        const body = {
          title: `Atomic ${i} ${MARK}`,
          description: 'Should vanish',
          start_date: '2032-02-02 10:00:00',
          end_date: '2032-02-02 12:00:00',
          image: `https://images.example.com/atomic-${i}.png`,
          venue: { venue: `Atomic Hall ${i}`, city: 'Lyon' },
          organizer: [{ organizer: `Atomic Organizer ${i}`, email: `atomic${i}@example.com` }],
          categories: [kept.id, `Atomic new category ${i}`],
          tags: [`Atomic tag ${i} ${MARK}`],
        };
        const injected = await injectFault(t.storage.db, { name: `fault_create_${i}`, ...fault.spec });
        let removed = false;
        try {
          const before = await snapshot(t.storage.db);
          statements.length = 0;
          const res = await t.post('/events', { as: 'administrator', json: body });
          assert.equal(res.status, 500, res.text);
          assert.match(String(res.headers['content-type']), /^application\/json/);
          assert.deepEqual(Object.keys(res.body), ['code', 'message', 'data']);
          assert.equal(res.body.code, 'rest_internal_error');
          assert.deepEqual(Object.keys(res.body.data).sort(), ['request_id', 'status']);
          assert.equal(res.body.data.status, 500);
          for (const internal of [injected.message, 'trigger', 'insert', 'update', 'sqlite', 'postgres', ' at ']) {
            assert.ok(!res.text.toLowerCase().includes(internal), `the answer shows nothing of "${internal}": ${res.text}`);
          }

          assert.deepEqual(diffSnapshots(before, await snapshot(t.storage.db)), {}, 'no row changed');
          // The log holds the statements that succeeded: the write ran its earlier ones, never completed the
          // faulted one, and was rolled back. (That the trigger is what failed it: the same write stands once the
          // trigger is gone, below.)
          const steps = writeSteps(statements);
          const end = steps.findLastIndex((s) => s.startsWith('rollback'));
          assert.ok(end > 0, `the write was rolled back: ${steps.join(', ')}`);
          const start = steps.slice(0, end).findLastIndex((s) => s.startsWith('begin') || s.startsWith('savepoint'));
          const ran = steps.slice(start + 1, end);
          for (const step of fault.ranBefore) assert.ok(ran.includes(step), `${step} ran before the fault: ${ran.join(', ')}`);
          assert.ok(!ran.includes(fault.failing), `${fault.failing} did not complete: ${ran.join(', ')}`);

          const cat = await t.get(`/categories/${kept.id}`);
          assert.equal(cat.body.count, 1, 'the existing category still counts its one event');
          for (const [path, query] of [
            ['/events', { search: `Atomic ${i}`, status: 'any', start_date: '2000-01-01' }],
            ['/venues', { search: `Atomic Hall ${i}`, status: 'any' }],
            ['/organizers', { search: `Atomic Organizer ${i}`, status: 'any' }],
          ] as const) {
            const found = await t.get(path, { as: 'administrator', query });
            assert.equal(found.status, 200, `${path}: ${found.text}`);
            assert.equal(found.body.total, 0, `${path} finds nothing for ${query.search}`);
          }

          await injected.remove();
          removed = true;
          const stored = await t.post('/events', { as: 'administrator', json: body });
          assert.equal(stored.status, 201, `without the fault the same write stands: ${stored.text}`);
          assert.equal(stored.body.venue.venue, `Atomic Hall ${i}`);
          assert.deepEqual(
            stored.body.organizer.map((o: any) => o.organizer),
            [`Atomic Organizer ${i}`],
          );
          assert.deepEqual(stored.body.categories.map((c: any) => c.name).sort(), [`Atomic kept ${i}`, `Atomic new category ${i}`]);
          assert.deepEqual(
            stored.body.tags.map((tag: any) => tag.name),
            [`Atomic tag ${i} ${MARK}`],
          );
          assert.equal(stored.body.image.url, body.image);
        } finally {
          if (!removed) await injected.remove();
        }
      });
    }
  });
});
