import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIsoBound } from './iso-bound.js';
import { formatWall } from './zones.js';

const read = (s: string) => {
  const b = parseIsoBound(s);
  return b && { wall: formatWall(b.wall), offset: b.offsetMinutes, dateOnly: b.dateOnly };
};

describe('FullCalendar range bounds', () => {
  it('reads the forms FullCalendar sends', () => {
    assert.deepEqual(read('2027-03-01'), { wall: '2027-03-01 00:00:00', offset: undefined, dateOnly: true });
    assert.deepEqual(read('2027-03-01T00:00:00Z'), { wall: '2027-03-01 00:00:00', offset: 0, dateOnly: false });
    assert.deepEqual(read('2027-02-23T00:00:00-05:00'), { wall: '2027-02-23 00:00:00', offset: -300, dateOnly: false });
    assert.deepEqual(read('2027-02-23T00:00:00'), { wall: '2027-02-23 00:00:00', offset: undefined, dateOnly: false });
    assert.deepEqual(read('2027-02-23T10:30'), { wall: '2027-02-23 10:30:00', offset: undefined, dateOnly: false });
    assert.deepEqual(read('2027-02-23T10:30:15.250+0545'), { wall: '2027-02-23 10:30:15', offset: 345, dateOnly: false });
  });

  it('takes an unencoded + (a space once decoded) as the sign of the offset', () => {
    assert.deepEqual(read('2027-03-01T00:00:00 01:00'), { wall: '2027-03-01 00:00:00', offset: 60, dateOnly: false });
  });

  it('refuses anything else', () => {
    for (const s of [
      '',
      'now',
      'next monday',
      '1700000000',
      '2027-13-01',
      '2027-02-30',
      '2027-02-29',
      '2027-03-01T24:00:00',
      '2027-03-01T10:60',
      '2027-03-01T10:00:00+15:00',
      '2027-03-01T10:00:00+01:00junk',
      '27-03-01',
      '2027-3-1',
    ]) {
      assert.equal(parseIsoBound(s), undefined, s);
    }
  });
});
