import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ParseContext, parseDateInput } from './strtotime.js';
import { formatWall, getZone } from './zones.js';

// Wednesday 2025-01-15 10:30:45 UTC
const NOW = Date.UTC(2025, 0, 15, 10, 30, 45);
const utc: ParseContext = { nowMs: NOW, zone: getZone('UTC') };
const ny: ParseContext = { nowMs: NOW, zone: getZone('America/New_York') };

const wall = (input: string, ctx = utc) => {
  const p = parseDateInput(input, ctx);
  return p ? formatWall(p.wall) : undefined;
};

describe('parseDateInput', () => {
  it('reads plain dates and date-times', () => {
    assert.equal(wall('2018-01-01'), '2018-01-01 00:00:00');
    assert.equal(wall('2018-1-5'), '2018-01-05 00:00:00');
    assert.equal(wall('2018-01-01 16:00'), '2018-01-01 16:00:00');
    assert.equal(wall('2018-01-01 16:00:30'), '2018-01-01 16:00:30');
    assert.equal(wall('2018-01-01T16:00:30'), '2018-01-01 16:00:30');
    assert.equal(wall('2018-01-01T16:00:30.123'), '2018-01-01 16:00:30');
    assert.equal(wall('2018/01/31'), '2018-01-31 00:00:00');
    assert.equal(wall('01/31/2018'), '2018-01-31 00:00:00');
    assert.equal(wall('31-01-2018'), '2018-01-31 00:00:00');
    assert.equal(wall('31.01.2018 9:15'), '2018-01-31 09:15:00');
  });

  it('reads month names', () => {
    assert.equal(wall('January 5, 2018'), '2018-01-05 00:00:00');
    assert.equal(wall('Jan 5th 2018 10am'), '2018-01-05 10:00:00');
    assert.equal(wall('5 January 2018'), '2018-01-05 00:00:00');
    assert.equal(wall('Sept 3'), '2025-09-03 00:00:00');
  });

  it('reads 12-hour times', () => {
    assert.equal(wall('2018-01-01 4pm'), '2018-01-01 16:00:00');
    assert.equal(wall('2018-01-01 4:30 pm'), '2018-01-01 16:30:00');
    assert.equal(wall('2018-01-01 12am'), '2018-01-01 00:00:00');
    assert.equal(wall('2018-01-01 12pm'), '2018-01-01 12:00:00');
    assert.equal(wall('2018-01-01 11 a.m.'), '2018-01-01 11:00:00');
    assert.equal(wall('2018-01-01 13pm'), undefined);
  });

  it('rolls overflowing days over like PHP', () => {
    assert.equal(wall('2018-02-30'), '2018-03-02 00:00:00');
    assert.equal(wall('2018-01-01 24:00'), '2018-01-02 00:00:00');
    assert.equal(wall('2018-13-01'), undefined);
  });

  it('reads unix timestamps as absolute instants with their UTC wall clock', () => {
    const p = parseDateInput('1514764800', ny)!;
    assert.equal(p.timestamp, true);
    assert.equal(p.instantMs, 1514764800000);
    assert.equal(formatWall(p.wall), '2018-01-01 00:00:00');
    assert.equal(parseDateInput('@1514764800', ny)!.instantMs, 1514764800000);
  });

  it('keeps the written wall clock of an explicit offset and pins the instant', () => {
    const p = parseDateInput('2018-01-01T10:00:00+02:00', utc)!;
    assert.equal(formatWall(p.wall), '2018-01-01 10:00:00');
    assert.equal(p.instantMs, Date.UTC(2018, 0, 1, 8));
    assert.equal(parseDateInput('2018-01-01T10:00:00Z', ny)!.instantMs, Date.UTC(2018, 0, 1, 10));
    assert.equal(parseDateInput('2018-01-01 10:00 -0500', utc)!.instantMs, Date.UTC(2018, 0, 1, 15));
    assert.equal(parseDateInput('2018-01-01 10:00 UTC', ny)!.instantMs, Date.UTC(2018, 0, 1, 10));
  });

  it('counts relative phrases from now, in the context zone', () => {
    assert.equal(wall('now'), '2025-01-15 10:30:45');
    assert.equal(wall('today'), '2025-01-15 00:00:00');
    assert.equal(wall('midnight'), '2025-01-15 00:00:00');
    assert.equal(wall('noon'), '2025-01-15 12:00:00');
    assert.equal(wall('tomorrow'), '2025-01-16 00:00:00');
    assert.equal(wall('yesterday'), '2025-01-14 00:00:00');
    assert.equal(wall('tomorrow 9am'), '2025-01-16 09:00:00');
    assert.equal(wall('tomorrow 9:30'), '2025-01-16 09:30:00');
    assert.equal(wall('+5 days'), '2025-01-20 10:30:45');
    assert.equal(wall('+5 days 11am'), '2025-01-20 11:00:00');
    assert.equal(wall('+10 days'), '2025-01-25 10:30:45');
    assert.equal(wall('+20 days 2 hours'), '2025-02-04 12:30:45');
    assert.equal(wall('+12 hours'), '2025-01-15 22:30:45');
    assert.equal(wall('+1 week'), '2025-01-22 10:30:45');
    assert.equal(wall('+5 weeks'), '2025-02-19 10:30:45');
    assert.equal(wall('-2 hours'), '2025-01-15 08:30:45');
    assert.equal(wall('+1 week 2 days'), '2025-01-24 10:30:45');
    assert.equal(wall('3 days ago'), '2025-01-12 10:30:45');
    assert.equal(wall('+1 month'), '2025-02-15 10:30:45');
    assert.equal(wall('next week'), '2025-01-22 10:30:45');
    assert.equal(wall('last year'), '2024-01-15 10:30:45');
    // "now" in New York is 05:30:45 on the same day
    assert.equal(wall('now', ny), '2025-01-15 05:30:45');
    assert.equal(wall('tomorrow 9am', ny), '2025-01-16 09:00:00');
  });

  it('moves to weekdays like PHP (2025-01-15 is a Wednesday)', () => {
    assert.equal(wall('wednesday'), '2025-01-15 00:00:00');
    assert.equal(wall('this wednesday'), '2025-01-15 00:00:00');
    assert.equal(wall('next wednesday'), '2025-01-22 00:00:00');
    assert.equal(wall('next wednesday 4pm'), '2025-01-22 16:00:00');
    assert.equal(wall('friday'), '2025-01-17 00:00:00');
    assert.equal(wall('next friday'), '2025-01-17 00:00:00');
    assert.equal(wall('last monday'), '2025-01-13 00:00:00');
    assert.equal(wall('last wednesday'), '2025-01-08 00:00:00');
    assert.equal(wall('monday 10:00'), '2025-01-20 10:00:00');
  });

  it("reads a month's days as PHP does: a month and year, first/last day of, the nth weekday of", () => {
    assert.equal(wall('March 2030'), '2030-03-01 00:00:00');
    assert.equal(wall('march'), '2025-03-15 10:30:45', 'a month alone keeps the day and time');
    // (relative phrases keep the time of day; a named weekday resets it)
    assert.equal(wall('first day of next month'), '2025-02-01 10:30:45');
    assert.equal(wall('last day of next month'), '2025-02-28 10:30:45');
    assert.equal(wall('last day of this month'), '2025-01-31 10:30:45');
    assert.equal(wall('first day of march 2030'), '2030-03-01 00:00:00');
    assert.equal(wall('last day of february 2028'), '2028-02-29 00:00:00');
    assert.equal(wall('last day of next month midnight'), '2025-02-28 00:00:00');
    assert.equal(wall('third friday of march 2030'), '2030-03-15 00:00:00');
    assert.equal(wall('first monday of next month'), '2025-02-03 00:00:00');
    assert.equal(wall('last friday of this month'), '2025-01-31 00:00:00');
    assert.equal(wall('last monday of february 2030 6pm'), '2030-02-25 18:00:00');
    // from the 31st, the next month is the next month (no overflow into the one after)
    const jan31: ParseContext = { nowMs: Date.UTC(2025, 0, 31, 12), zone: getZone('UTC') };
    assert.equal(wall('last day of next month', jan31), '2025-02-28 12:00:00');
    for (const input of ['sixth monday of march 2030', 'march 20301', 'first day']) assert.equal(parseDateInput(input, utc), undefined, input);
  });

  it('refuses anything else', () => {
    for (const input of [
      '',
      '   ',
      'before my birthday',
      'foo',
      '2018-01-01 foo',
      '2018-01-01 2018-01-02',
      '25:00',
      '2018-01-01 10:61',
      '+5 parsecs',
      // a timestamp before year 0
      '@-99999999999',
      '-99999999999',
      'next',
      'x'.repeat(200),
    ]) {
      assert.equal(parseDateInput(input, utc), undefined, input);
    }
  });

  it('is case- and space-insensitive', () => {
    assert.equal(wall('  Tomorrow   9AM '), '2025-01-16 09:00:00');
    assert.equal(wall('NEXT Wednesday'), '2025-01-22 00:00:00');
  });
});
