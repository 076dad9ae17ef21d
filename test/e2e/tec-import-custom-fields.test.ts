/**
 * Pro's "additional fields" in a site import (FEATURES.md §6.3: `custom_fields` → our custom fields, labels kept),
 * on a site we wrote (test/fixtures/tec-written/custom-fields.json): our events answer them as the original does
 * (CONTRACT.md §2.1: an object by meta name, `[]` when none), reruns change nothing, a remote edit updates them,
 * malformed entries are left out with a warning, and the occurrences of a grouped series show their series'.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createListeningTestApp, createTestApp, type ListeningTestApp, type TestApp } from '../helpers/app.js';
import { runImport, zero } from '../helpers/tec-import.js';
import { type SiteEntry, TecSite, writtenEntries } from '../helpers/tec-site.js';

const site = () => writtenEntries('custom-fields');

/** The remote event of this id, as the written site answers it. */
function remote(id: number): any {
  for (const e of site()) {
    const found = (JSON.parse(e.body).events ?? []).find((x: any) => x.id === id);
    if (found) return found;
  }
  throw new Error(`no event ${id}`);
}

const OPEN_DAY = 101;
const WINTER_RETREAT = 102;
const FIRST_YOGA = 10000001;

/** A transform that changes the events of every list answer the site gives. */
const editEvents =
  (edit: (e: any) => any) =>
  (entry: SiteEntry): SiteEntry => {
    const body = JSON.parse(entry.body);
    if (!Array.isArray(body.events)) return entry;
    return { ...entry, body: JSON.stringify({ ...body, events: body.events.map(edit) }) };
  };
const withFieldsOf = (id: number, fields: unknown) => editEvents((e) => (e.id === id ? { ...e, custom_fields: fields } : e));

describe('a Pro site with additional fields, one event per occurrence', () => {
  let t: TestApp;
  let tec: TecSite;
  let job: any;
  const ids: Record<string, number> = {};
  before(async () => {
    tec = await TecSite.start(site());
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: tec.url });
    for (const slug of ['open-day', 'winter-retreat', 'weekly-yoga', 'weekly-yoga-5']) {
      ids[slug] = (await t.get(`/events/by-slug/${slug}`, { as: 'administrator' })).body.id;
    }
  });
  after(async () => {
    await t.close();
    await tec.close();
  });

  it("answers each event's fields exactly as the site did: keys, labels, values and order", async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(tec.misses, []);
    assert.deepEqual(job.report.resources.events, { ...zero, created: 12 });
    assert.deepEqual(job.report.warnings, []);
    const open = await t.get(`/events/${ids['open-day']}`);
    assert.equal(open.status, 200, open.text);
    assert.equal(JSON.stringify(open.body.custom_fields), JSON.stringify(remote(OPEN_DAY).custom_fields));
    assert.deepEqual(Object.keys(open.body.custom_fields), ['_ecp_custom_2', '_ecp_custom_3', '_ecp_custom_5']);
    assert.deepEqual(open.body.custom_fields._ecp_custom_5, { label: 'Places left', value: '0' }, '"0" is a value');
    // every occurrence, as its own event here, has the fields the site gave it
    const yoga = await t.get(`/events/${ids['weekly-yoga-5']}`);
    assert.equal(JSON.stringify(yoga.body.custom_fields), JSON.stringify(remote(FIRST_YOGA + 4).custom_fields));
    assert.equal(yoga.body.custom_fields._ecp_custom_4.label, 'Level (1–3)');
    // and in lists
    const list = await t.get('/events', { query: { start_date: '2026-09-01', end_date: '2026-09-30' } });
    assert.equal(
      JSON.stringify(list.body.events.find((e: any) => e.id === ids['open-day']).custom_fields),
      JSON.stringify(remote(OPEN_DAY).custom_fields),
    );
  });

  it("an event without fields still answers an empty array (the site's `[]`, and one made here)", async () => {
    const retreat = await t.get(`/events/${ids['winter-retreat']}`);
    assert.deepEqual(remote(WINTER_RETREAT).custom_fields, []);
    assert.ok(Array.isArray(retreat.body.custom_fields));
    assert.deepEqual(retreat.body.custom_fields, []);
    const mine = await t.post('/events', {
      as: 'administrator',
      json: {
        title: 'Made here',
        start_date: '2026-10-01 10:00:00',
        end_date: '2026-10-01 11:00:00',
        custom_fields: { _ecp_custom_1: { label: 'X', value: 'Y' } },
      },
    });
    assert.equal(mine.status, 201, mine.text);
    assert.deepEqual(mine.body.custom_fields, [], 'the API takes no custom_fields on writes, as the original');
    assert.deepEqual((await t.get(`/events/${mine.body.id}`)).body.custom_fields, []);
  });

  it('the event page shows them in an "Other" group, as the original does', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/event/open-day/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2 id="other">Other<\/h2>/);
    assert.match(page.body, /<dt>Accessibility<\/dt><dd>Step-free entrance, lift to all floors<\/dd>/);
    assert.match(page.body, /<dt>Places left<\/dt><dd>0<\/dd>/);
    const none = await t.app.inject({ method: 'GET', url: '/event/winter-retreat/' });
    assert.doesNotMatch(none.body, /id="other"/);
  });

  it('a second run changes nothing', async () => {
    const again = await runImport(t, { url: tec.url });
    assert.equal(again.state, 'done', again.failure);
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 12 });
  });

  it('a remote edit of a field updates the same event; fields gone from the site go here too', async () => {
    const fields = remote(OPEN_DAY).custom_fields;
    tec.transform = withFieldsOf(OPEN_DAY, { ...fields, _ecp_custom_5: { label: 'Places left', value: '3' } });
    const edited = await runImport(t, { url: tec.url });
    assert.deepEqual(edited.report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    const open = (await t.get(`/events/${ids['open-day']}`)).body;
    assert.equal(open.id, ids['open-day']);
    assert.deepEqual(open.custom_fields._ecp_custom_5, { label: 'Places left', value: '3' });
    assert.equal(open.custom_fields._ecp_custom_2.value, fields._ecp_custom_2.value);

    // a label renamed on the site is a change too
    tec.transform = withFieldsOf(OPEN_DAY, { ...fields, _ecp_custom_2: { label: 'Access', value: fields._ecp_custom_2.value } });
    assert.deepEqual((await runImport(t, { url: tec.url })).report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    assert.equal((await t.get(`/events/${ids['open-day']}`)).body.custom_fields._ecp_custom_2.label, 'Access');

    tec.transform = withFieldsOf(OPEN_DAY, []);
    const cleared = await runImport(t, { url: tec.url });
    assert.deepEqual(cleared.report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    assert.deepEqual((await t.get(`/events/${ids['open-day']}`)).body.custom_fields, []);

    tec.transform = undefined;
    const back = await runImport(t, { url: tec.url });
    assert.deepEqual(back.report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    assert.equal(JSON.stringify((await t.get(`/events/${ids['open-day']}`)).body.custom_fields), JSON.stringify(fields));
    assert.deepEqual((await runImport(t, { url: tec.url })).report.resources.events, { ...zero, unchanged: 12 });
  });

  it('malformed entries are left out with a warning naming the event; the rest come across', async () => {
    tec.transform = withFieldsOf(OPEN_DAY, {
      _ecp_custom_2: { label: 'Accessibility', value: 'Step-free' },
      _ecp_custom_7: 'loose text',
      _ecp_custom_8: { label: 'Seats', value: 12 },
      _ecp_custom_9: { value: 'no label' },
      _ecp_custom_6: { label: 'Empty', value: '' },
    });
    const job = await runImport(t, { url: tec.url });
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(job.report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    assert.deepEqual((await t.get(`/events/${ids['open-day']}`)).body.custom_fields, {
      _ecp_custom_2: { label: 'Accessibility', value: 'Step-free' },
    });
    const mine = job.report.warnings.filter((w: any) => w.remote_id === String(OPEN_DAY));
    for (const name of ['_ecp_custom_7', '_ecp_custom_8', '_ecp_custom_9']) {
      assert.ok(
        mine.some((w: any) => w.resource === 'events' && w.reason.includes(name)),
        `${name}: ${JSON.stringify(mine)}`,
      );
    }
    assert.ok(!mine.some((w: any) => w.reason.includes('_ecp_custom_6')), 'an empty value is none, not an error');

    tec.transform = withFieldsOf(OPEN_DAY, [{ label: 'Accessibility', value: 'Step-free' }]);
    const listed = await runImport(t, { url: tec.url });
    assert.deepEqual(listed.report.resources.events, { ...zero, updated: 1, unchanged: 11 });
    assert.ok(listed.report.warnings.some((w: any) => w.remote_id === String(OPEN_DAY) && /custom_fields is not an object/.test(w.reason)));
    assert.deepEqual((await t.get(`/events/${ids['open-day']}`)).body.custom_fields, []);
    tec.transform = undefined;
    assert.deepEqual((await runImport(t, { url: tec.url })).report.resources.events, { ...zero, updated: 1, unchanged: 11 });
  });
});

describe('a Pro site with additional fields, group_series', () => {
  let t: TestApp;
  let tec: TecSite;
  let job: any;
  let seriesId: number;
  const occurrences = async () => {
    const res = await t.get(`/events/${seriesId}/occurrences`, {
      as: 'administrator',
      query: { start_date: '2026-01-01', end_date: '2026-12-31', per_page: 50 },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.events as any[];
  };
  before(async () => {
    tec = await TecSite.start(site());
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: tec.url, group_series: true });
    seriesId = (await t.get('/events/by-slug/weekly-yoga', { as: 'administrator' })).body.id;
  });
  after(async () => {
    await t.close();
    await tec.close();
  });

  it('the series and each of its occurrences show the fields the occurrences had on the site', async () => {
    assert.equal(job.state, 'done', job.failure);
    assert.deepEqual(job.report.resources.events, { ...zero, created: 12 });
    const expected = JSON.stringify(remote(FIRST_YOGA).custom_fields);
    const series = await t.get(`/events/${seriesId}`);
    assert.equal(JSON.stringify(series.body.custom_fields), expected);
    const list = await occurrences();
    assert.equal(list.length, 10);
    for (const o of list) {
      assert.equal(JSON.stringify(o.custom_fields), expected, `occurrence ${o.id} in the list`);
      assert.equal(JSON.stringify((await t.get(`/events/${o.id}`)).body.custom_fields), expected, `occurrence ${o.id}`);
    }
    assert.deepEqual((await t.get('/events/by-slug/winter-retreat')).body.custom_fields, []);
  });

  it('a second run changes nothing', async () => {
    const again = await runImport(t, { url: tec.url, group_series: true });
    assert.deepEqual(again.report.resources.events, { ...zero, unchanged: 12 });
  });

  it('a remote edit of the fields reaches every occurrence, which keep their ids', async () => {
    const before = (await occurrences()).map((o) => o.id);
    const fields = { _ecp_custom_2: { label: 'Accessibility', value: 'Ground floor, step-free' } };
    tec.transform = editEvents((e) => (e.slug === 'weekly-yoga' ? { ...e, custom_fields: fields } : e));
    const edited = await runImport(t, { url: tec.url, group_series: true });
    assert.deepEqual(edited.report.resources.events, { ...zero, updated: 10, unchanged: 2 });
    const after = await occurrences();
    assert.deepEqual(
      after.map((o) => o.id),
      before,
    );
    for (const o of after) assert.deepEqual(o.custom_fields, fields, `occurrence ${o.id}`);
    assert.deepEqual((await t.get(`/events/${seriesId}`)).body.custom_fields, fields);
    tec.transform = undefined;
  });

  it('an occurrence whose fields differ from the first one is named in a warning', async () => {
    tec.transform = withFieldsOf(FIRST_YOGA + 3, []);
    const job = await runImport(t, { url: tec.url, group_series: true });
    assert.equal(job.state, 'done', job.failure);
    assert.ok(
      job.report.warnings.some((w: any) => w.remote_id === String(FIRST_YOGA + 3) && /additional fields differ/.test(w.reason)),
      JSON.stringify(job.report.warnings),
    );
    tec.transform = undefined;
  });
});

describe('additional fields from our own service as the source', () => {
  let tec: TecSite;
  let source: ListeningTestApp;
  let target: TestApp;
  before(async () => {
    tec = await TecSite.start(site());
    source = await createListeningTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
    target = await createTestApp({ SITE_TIMEZONE: 'Europe/Berlin', IMPORT_ALLOW_PRIVATE: 'on' });
  });
  after(async () => {
    await target.close();
    await source.close();
    await tec.close();
  });

  it('come across again, as this service answers them', async () => {
    assert.equal((await runImport(source, { url: tec.url })).state, 'done');
    const job = await runImport(target, { url: source.base });
    assert.equal(job.state, 'done', job.failure);
    for (const slug of ['open-day', 'winter-retreat', 'weekly-yoga-3']) {
      const a = (await source.get(`/events/by-slug/${slug}`)).body;
      const b = (await target.get(`/events/by-slug/${slug}`)).body;
      assert.equal(JSON.stringify(b.custom_fields), JSON.stringify(a.custom_fields), slug);
    }
    assert.equal((await target.get('/events/by-slug/open-day')).body.custom_fields._ecp_custom_3.value, 'Mat, Towel, Water');
  });
});
