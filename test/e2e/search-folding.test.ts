import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeEvent, makeLinked } from '../helpers/factories.js';

/**
 * Searches fold case over every script, on both databases alike. On SQLite an ASCII search is decided by
 * SQLite's own LIKE (which folds ASCII letters), and the Unicode lower case only for text holding one of the two
 * characters whose lower case is ASCII (U+212A KELVIN SIGN → k, U+0130 → i̇): see like.ts, containsFolded.
 */
describe('searches fold case', () => {
  let t: TestApp;
  const titles = async (search: string) =>
    (
      (await t.get('/events', { query: { search, start_date: '2031-01-01', end_date: '2031-12-31', per_page: 50 } })).body.events as {
        title: string;
      }[]
    )
      .map((e) => e.title)
      .sort();

  before(async () => {
    t = await createTestApp();
    for (const [title, content] of [
      ['JAZZ IN CAPITALS', ''],
      ['Quiet evening', '<p>Late JaZz set</p>'],
      ['\u212Aelvin hall opening', ''], // KELVIN SIGN, not K
      ['X\u0130 night', ''], // İ: lower case i + U+0307
      ['CAFÉ CONCERT', ''],
      ['Unrelated', 'nothing here'],
    ]) {
      await makeEvent(t, { title, ...(content ? { description: content } : {}), start_date: '2031-04-01 10:00:00', end_date: '2031-04-01 11:00:00' });
    }
  });
  after(() => t.close());

  it('finds ASCII words whatever their case, in titles and descriptions', async () => {
    assert.deepEqual(await titles('jazz'), ['JAZZ IN CAPITALS', 'Quiet evening']);
    assert.deepEqual(await titles('JAZZ'), ['JAZZ IN CAPITALS', 'Quiet evening']);
  });

  it('finds ASCII words in text whose lower case makes them (Kelvin sign, dotted capital I)', async () => {
    assert.deepEqual(await titles('kelvin'), ['\u212Aelvin hall opening']);
    assert.deepEqual(await titles('xi'), ['X\u0130 night']);
    assert.deepEqual(await titles('hall -kelvin'), []);
  });

  it('finds words beyond ASCII, and excludes with a minus', async () => {
    assert.deepEqual(await titles('café'), ['CAFÉ CONCERT']);
    assert.deepEqual(await titles('concert -café'), []);
    assert.deepEqual(await titles('evening -jazz'), []);
  });

  it('folds venues and categories the same way', async () => {
    await makeLinked(t, 'venue', { venue: '\u212Arypton Hall' });
    const venues = await t.get('/venues', { query: { search: 'krypton' } });
    assert.equal(venues.status, 200);
    assert.deepEqual(
      venues.body.venues.map((v: { venue: string }) => v.venue),
      ['\u212Arypton Hall'],
    );
    const cat = await t.post('/categories', { as: 'administrator', json: { name: '\u212Aids Corner' } });
    assert.equal(cat.status, 201, cat.text);
    const cats = await t.get('/categories', { query: { search: 'kids', hide_empty: 0 } });
    assert.deepEqual(
      cats.body.categories.map((c: { name: string }) => c.name),
      ['\u212Aids Corner'],
    );
  });
});
