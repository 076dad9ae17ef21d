/**
 * The FullCalendar feed (issue 14, FEATURES.md §5.3, §5.5 case 7): `GET /events/feed?start=…&end=…&timeZone=…`
 * answers a plain array of FullCalendar event objects overlapping [start, end) as FullCalendar counts it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCategory, makeLinked, makeTag } from '../helpers/factories.js';

const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';

describe('FullCalendar feed', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SITE_TIMEZONE: BERLIN })));
  after(() => t.close());

  async function create(fields: Record<string, unknown>) {
    const res = await t.post('/events', { as: 'administrator', json: { title: 'Event', ...fields } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function feed(query: Record<string, string>, as: 'anonymous' | 'administrator' = 'anonymous') {
    const res = await t.get('/events/feed', { query, as });
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body), 'a plain array, no envelope');
    return res.body as any[];
  }

  const titles = (items: any[]) => items.map((i) => i.title);

  it('answers FullCalendar event objects: ids as strings, the times with their offset, the page URL and extendedProps', async () => {
    const venue = await makeLinked(t, 'venue', { venue: 'Shape Hall' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Shape Org' });
    const category = await makeCategory(t, { name: 'Shape Cat' });
    const tag = await makeTag(t, { name: 'Shape Tag' });
    const e = await create({
      title: 'Shape event',
      timezone: NY,
      start_date: '2027-03-10 09:00:00',
      end_date: '2027-03-10 10:30:00',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
      cost: '10',
      featured: true,
    });
    const items = await feed({ start: '2027-03-01T00:00:00-05:00', end: '2027-04-01T00:00:00-04:00', search: 'Shape event' });
    assert.equal(items.length, 1);
    assert.deepEqual(items[0], {
      id: String(e.id),
      title: 'Shape event',
      start: '2027-03-10T09:00:00-05:00',
      end: '2027-03-10T10:30:00-05:00',
      allDay: false,
      url: e.url,
      extendedProps: {
        venue: 'Shape Hall',
        organizers: ['Shape Org'],
        categories: [category.slug],
        tags: [tag.slug],
        cost: e.cost,
        featured: true,
        timezone: NY,
        rest_url: e.rest_url,
      },
    });
    assert.ok(e.cost !== '', 'the cost is shown');
  });

  it('gives all-day events date-only starts and exclusive ends, in the window by their days', async () => {
    await create({ title: 'Allday three', all_day: true, timezone: NY, start_date: '2027-03-05', end_date: '2027-03-07' });
    const [item] = await feed({ start: '2027-03-01', end: '2027-04-01', search: 'Allday three' });
    assert.equal(item.start, '2027-03-05');
    assert.equal(item.end, '2027-03-08');
    assert.equal(item.allDay, true);
    // its last day is in [Mar 7, Mar 8); the day after it is not; the range ending at its first day excludes it
    assert.equal((await feed({ start: '2027-03-07', end: '2027-03-08', search: 'Allday three' })).length, 1);
    assert.equal((await feed({ start: '2027-03-08', end: '2027-03-09', search: 'Allday three' })).length, 0);
    assert.equal((await feed({ start: '2027-03-01', end: '2027-03-05', search: 'Allday three' })).length, 0);
    assert.equal((await feed({ start: '2027-03-01', end: '2027-03-06', search: 'Allday three' })).length, 1);
    // the days float: a browser in Tokyo asks from its local midnight, and still gets it on Mar 7
    const tokyo = await feed({ start: '2027-03-07T00:00:00+09:00', end: '2027-03-08T00:00:00+09:00', search: 'Allday three' });
    assert.deepEqual(titles(tokyo), ['Allday three']);
    const named = await feed({ start: '2027-03-08T00:00:00', end: '2027-03-09T00:00:00', timeZone: 'Asia/Tokyo', search: 'Allday three' });
    assert.deepEqual(named, []);
  });

  it('expands a series into its occurrences, each with the series as groupId, across the DST change', async () => {
    const series = await create({
      title: 'Weekly group',
      timezone: NY,
      start_date: '2027-03-01 09:00:00',
      end_date: '2027-03-01 10:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const items = await feed({ start: '2027-02-28T00:00:00-05:00', end: '2027-04-04T00:00:00-04:00', search: 'Weekly group' });
    assert.deepEqual(
      items.map((i) => i.start),
      ['2027-03-01T09:00:00-05:00', '2027-03-08T09:00:00-05:00', '2027-03-15T09:00:00-04:00', '2027-03-22T09:00:00-04:00'],
    );
    for (const i of items) {
      assert.equal(i.groupId, String(series.id));
      assert.equal(i.extendedProps.series_id, series.id);
      assert.match(i.extendedProps.occurrence_key, new RegExp(`^${series.id}_`));
      assert.notEqual(i.id, String(series.id), 'occurrences, not the series itself');
    }
    assert.equal(new Set(items.map((i) => i.id)).size, 4);
    // a window of one week holds one occurrence
    const week = await feed({ start: '2027-03-14T00:00:00-05:00', end: '2027-03-21T00:00:00-04:00', search: 'Weekly group' });
    assert.deepEqual(
      week.map((i) => i.start),
      ['2027-03-15T09:00:00-04:00'],
    );
  });

  it('includes events crossing either edge of the window and excludes those that only touch it', async () => {
    await create({ title: 'Edge across start', timezone: 'UTC', start_date: '2027-06-01 23:00:00', end_date: '2027-06-02 01:00:00' });
    await create({ title: 'Edge across end', timezone: 'UTC', start_date: '2027-06-02 23:30:00', end_date: '2027-06-03 00:30:00' });
    await create({ title: 'Edge ends at start', timezone: 'UTC', start_date: '2027-06-01 22:00:00', end_date: '2027-06-02 00:00:00' });
    await create({ title: 'Edge starts at end', timezone: 'UTC', start_date: '2027-06-03 00:00:00', end_date: '2027-06-03 01:00:00' });
    await create({ title: 'Edge inside', timezone: BERLIN, start_date: '2027-06-02 12:00:00', end_date: '2027-06-02 13:00:00' });
    const items = await feed({ start: '2027-06-02T00:00:00Z', end: '2027-06-03T00:00:00Z', timeZone: 'UTC', search: 'Edge' });
    assert.deepEqual(titles(items), ['Edge across start', 'Edge inside', 'Edge across end']);
  });

  it('converts times to timeZone, and reads bounds without an offset in it; without timeZone each event keeps its own offset', async () => {
    await create({ title: 'Zoned nine', timezone: NY, start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 10:00:00' });
    const range = { start: '2027-03-10', end: '2027-03-11', search: 'Zoned nine' };
    const [own] = await feed(range);
    assert.equal(own.start, '2027-03-10T09:00:00-05:00');
    const [local] = await feed({ ...range, timeZone: 'local' });
    assert.equal(local.start, '2027-03-10T09:00:00-05:00');
    const [berlin] = await feed({ ...range, timeZone: BERLIN });
    assert.equal(berlin.start, '2027-03-10T15:00:00+01:00');
    assert.equal(berlin.end, '2027-03-10T16:00:00+01:00');
    const [utc] = await feed({ ...range, timeZone: 'UTC' });
    assert.equal(utc.start, '2027-03-10T14:00:00+00:00');
    assert.equal(Date.parse(own.start), Date.parse(berlin.start), 'the same instant');

    // 00:30 in Berlin on July 1 is June 30 in UTC: a July 1 asked for in Berlin has it, in UTC it does not
    await create({ title: 'Zoned midnight', timezone: BERLIN, start_date: '2027-07-01 00:30:00', end_date: '2027-07-01 01:00:00' });
    const day = { start: '2027-07-01T00:00:00', end: '2027-07-02T00:00:00', search: 'Zoned midnight' };
    assert.deepEqual(titles(await feed({ ...day, timeZone: BERLIN })), ['Zoned midnight']);
    assert.deepEqual(await feed({ ...day, timeZone: 'UTC' }), []);
  });

  it('orders by the start instant, whatever the zones', async () => {
    await create({ title: 'Order Berlin', timezone: BERLIN, start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' });
    await create({ title: 'Order Tokyo', timezone: 'Asia/Tokyo', start_date: '2027-08-01 12:00:00', end_date: '2027-08-01 13:00:00' });
    await create({ title: 'Order New York', timezone: NY, start_date: '2027-07-31 22:00:00', end_date: '2027-07-31 23:00:00' });
    const items = await feed({ start: '2027-07-31T00:00:00Z', end: '2027-08-02T00:00:00Z', search: 'Order' });
    assert.deepEqual(titles(items), ['Order New York', 'Order Tokyo', 'Order Berlin']);
  });

  it("takes the list's filters: categories, tags, venue, organizer, featured, search", async () => {
    const category = await makeCategory(t, { name: 'Filter Cat' });
    const tag = await makeTag(t, { name: 'Filter Tag' });
    const venue = await makeLinked(t, 'venue', { venue: 'Filter Hall' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Filter Org' });
    const at = { timezone: BERLIN, start_date: '2027-09-01 10:00:00', end_date: '2027-09-01 11:00:00' };
    await create({ ...at, title: 'Filter cat', categories: [category.id] });
    await create({ ...at, title: 'Filter tag', tags: [tag.id] });
    await create({ ...at, title: 'Filter venue', venue: venue.id });
    await create({ ...at, title: 'Filter organizer', organizer: [organizer.id] });
    await create({ ...at, title: 'Filter featured', featured: true });
    const range = { start: '2027-09-01', end: '2027-09-02', search: 'Filter' };
    assert.equal((await feed(range)).length, 5);
    assert.deepEqual(titles(await feed({ ...range, categories: category.slug })), ['Filter cat']);
    assert.deepEqual(titles(await feed({ ...range, tags: String(tag.id) })), ['Filter tag']);
    assert.deepEqual(titles(await feed({ ...range, venue: String(venue.id) })), ['Filter venue']);
    assert.deepEqual(titles(await feed({ ...range, organizer: String(organizer.id) })), ['Filter organizer']);
    assert.deepEqual(titles(await feed({ ...range, featured: 'true' })), ['Filter featured']);
    assert.deepEqual(titles(await feed({ ...range, search: 'Filter organizer' })), ['Filter organizer']);
  });

  it('shows only what the caller may read: a draft is in the administrator’s feed, not in the anonymous one', async () => {
    await create({ title: 'Visible published', start_date: '2027-10-01 10:00:00', end_date: '2027-10-01 11:00:00' });
    await create({ title: 'Visible draft', status: 'draft', start_date: '2027-10-01 12:00:00', end_date: '2027-10-01 13:00:00' });
    const range = { start: '2027-10-01', end: '2027-10-02', search: 'Visible' };
    assert.deepEqual(titles(await feed(range)), ['Visible published']);
    assert.deepEqual(titles(await feed(range, 'administrator')), ['Visible published', 'Visible draft']);
  });

  it('answers at most limit events (X-TEC-Total: how many overlap), and refuses a limit above 5000', async () => {
    for (const h of ['10', '11', '12']) {
      await create({ title: `Limited ${h}`, start_date: `2027-11-01 ${h}:00:00`, end_date: `2027-11-01 ${h}:30:00` });
    }
    const res = await t.get('/events/feed', { query: { start: '2027-11-01', end: '2027-11-02', search: 'Limited', limit: '2' } });
    assert.equal(res.status, 200);
    assert.deepEqual(titles(res.body), ['Limited 10', 'Limited 11']);
    assert.equal(String(res.headers['x-tec-total']), '3');
    const over = await t.get('/events/feed', { query: { start: '2027-11-01', end: '2027-11-02', limit: '5001' } });
    assert.equal(over.status, 400);
    assert.equal(over.body.code, 'rest_invalid_param');
    assert.ok(over.body.data.params.limit);
  });

  it('refuses bad ranges and zones with a 400 naming the parameter', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ start: 'next monday', end: '2027-11-02' }, 'start'],
      [{ start: '2027-11-01', end: '2027-02-30' }, 'end'],
      [{ start: '2027-11-01', end: '1700000000' }, 'end'],
      [{ start: '2027-11-02', end: '2027-11-01' }, 'end'],
      [{ start: '2027-11-01T00:00:00Z', end: '2027-11-01T00:00:00Z' }, 'end'],
      [{ start: '2027-11-01', end: '2027-11-02', timeZone: 'Mars/Olympus' }, 'timeZone'],
    ];
    for (const [query, name] of cases) {
      const res = await t.get('/events/feed', { query });
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.equal(res.body.code, 'rest_invalid_param', JSON.stringify(query));
      assert.ok(res.body.data.params[name], `${JSON.stringify(query)} names ${name}: ${res.text}`);
    }
    const missing = await t.get('/events/feed', { query: { end: '2027-11-02' } });
    assert.equal(missing.status, 400);
    assert.match(missing.text, /start/);
  });

  it('sends a strong ETag of the bytes and answers 304 while the feed is unchanged', async () => {
    const e = await create({ title: 'Tagged feed', start_date: '2027-12-01 10:00:00', end_date: '2027-12-01 11:00:00' });
    const query = { start: '2027-12-01', end: '2027-12-02', search: 'Tagged feed' };
    const first = await t.get('/events/feed', { query });
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/, 'strong');
    const again = await t.get('/events/feed', { query, headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const moved = await t.post(`/events/${e.id}`, { as: 'administrator', json: { start_date: '2027-12-01 10:15:00' } });
    assert.equal(moved.status, 200, moved.text);
    const changed = await t.get('/events/feed', { query, headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.equal(changed.body[0].start, '2027-12-01T10:15:00+01:00');
  });
});
