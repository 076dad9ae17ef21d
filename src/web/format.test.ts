import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownTimes } from './format.js';

const e = (startDate: string, endDate: string, startUtc: string, endUtc: string, allDay = false, timezone = 'America/New_York') => ({
  startDate,
  endDate,
  startUtc,
  endUtc,
  allDay,
  timezone,
});

describe('shown times', () => {
  it("writes a timed event's range in its zone with the zone's abbreviation at that date", () => {
    const t = shownTimes(e('2025-11-03 09:00:00', '2025-11-03 10:00:00', '2025-11-03 14:00:00', '2025-11-03 15:00:00'), 2025);
    assert.equal(t.range, 'November 3 @ 9:00 am – 10:00 am EST');
    assert.equal(t.startIso, '2025-11-03T14:00:00.000Z');
    const summer = shownTimes(e('2025-07-03 12:30:00', '2025-07-03 13:00:00', '2025-07-03 16:30:00', '2025-07-03 17:00:00'), 2024);
    assert.equal(summer.range, 'July 3, 2025 @ 12:30 pm – 1:00 pm EDT');
  });

  it('spans days: multi-day ranges name both days; an end at midnight does not take the next day', () => {
    const multi = shownTimes(e('2026-01-30 10:00:00', '2026-02-02 17:00:00', '2026-01-30 15:00:00', '2026-02-02 22:00:00'), 2026);
    assert.equal(multi.range, 'January 30 @ 10:00 am – February 2 @ 5:00 pm EST');
    assert.deepEqual([multi.firstDay, multi.lastDay], ['2026-01-30', '2026-02-02']);
    const toMidnight = shownTimes(e('2026-03-10 20:00:00', '2026-03-11 00:00:00', '2026-03-11 00:00:00', '2026-03-11 04:00:00'), 2026);
    assert.deepEqual([toMidnight.firstDay, toMidnight.lastDay], ['2026-03-10', '2026-03-10']);
  });

  it('writes all-day events as dates', () => {
    const one = shownTimes(e('2026-01-01 00:00:00', '2026-01-01 23:59:59', '2026-01-01 05:00:00', '2026-01-02 04:59:59', true), 2026);
    assert.equal(one.range, 'January 1, 2026');
    const two = shownTimes(e('2026-01-01 00:00:00', '2026-01-03 23:59:59', '2026-01-01 05:00:00', '2026-01-04 04:59:59', true), 2026);
    assert.equal(two.range, 'January 1 – January 3, 2026');
    assert.deepEqual([two.firstDay, two.lastDay], ['2026-01-01', '2026-01-03']);
  });
});
