import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnMap, flag, jsonList } from './columns.js';

interface Thing {
  title: string;
  showMap: boolean;
  tags: readonly string[];
  zip: string | null;
}
interface ThingRow {
  title: string;
  show_map: 0 | 1;
  tags: string;
  zip: string | null;
}

const things = columnMap<ThingRow>()<Thing>({ title: 'title', showMap: ['show_map', flag], tags: ['tags', jsonList], zip: 'zip' });

describe('columnMap', () => {
  it('reads a row into its record: every field, in the order declared, through its codec', () => {
    const record = things.fromRow({ zip: null, tags: '["a","b"]', show_map: 1, title: 'Hall', other: 'ignored' });
    assert.deepEqual(Object.entries(record), [
      ['title', 'Hall'],
      ['showMap', true],
      ['tags', ['a', 'b']],
      ['zip', null],
    ]);
  });

  it('gives a column the row lacks as undefined, or as its codec reads undefined', () => {
    assert.deepEqual(things.fromRow({ tags: '[]' }), { title: undefined, showMap: false, tags: [], zip: undefined });
  });

  it('writes back the row it read', () => {
    const row = { title: 'Hall', show_map: 0, tags: '["x"]', zip: '75001' };
    assert.deepEqual(things.toRow(things.fromRow(row)), row);
    assert.deepEqual(things.toValues(things.fromRow(row)), ['Hall', 0, '["x"]', '75001']);
  });
});
