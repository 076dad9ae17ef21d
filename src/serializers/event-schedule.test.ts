import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventSchedule } from './event-schedule.js';

const timed = { startDate: '2025-10-27 09:00:00', endDate: '2025-10-27 10:00:00', timezone: 'America/New_York', allDay: false };

describe('eventSchedule (schema.org Schedule of a series)', () => {
  it('says a weekly rule with days, its times, zone, count and exceptions', () => {
    assert.deepEqual(eventSchedule(['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=10', 'EXDATE;TZID=America/New_York:20251103T090000'], timed), {
      '@type': 'Schedule',
      repeatFrequency: 'P2W',
      startDate: '2025-10-27',
      byDay: ['https://schema.org/Monday', 'https://schema.org/Wednesday'],
      repeatCount: 10,
      startTime: '09:00:00',
      endTime: '10:00:00',
      scheduleTimezone: 'America/New_York',
      exceptDate: ['2025-11-03'],
    });
  });

  it('says a monthly all-day rule until a date, without times', () => {
    const allDay = { ...timed, startDate: '2026-01-15 00:00:00', endDate: '2026-01-15 23:59:59', allDay: true };
    assert.deepEqual(eventSchedule(['RRULE:FREQ=MONTHLY;BYMONTHDAY=15;UNTIL=20261231'], allDay), {
      '@type': 'Schedule',
      repeatFrequency: 'P1M',
      startDate: '2026-01-15',
      byMonthDay: [15],
      endDate: '2026-12-31',
      scheduleTimezone: 'America/New_York',
    });
  });

  it('gives none for what a Schedule cannot say exactly: ordinal weekdays, BYSETPOS, RDATEs', () => {
    assert.equal(eventSchedule(['RRULE:FREQ=MONTHLY;BYDAY=2TU'], timed), undefined);
    assert.equal(eventSchedule(['RRULE:FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=1'], timed), undefined);
    assert.equal(eventSchedule(['RRULE:FREQ=WEEKLY', 'RDATE;TZID=America/New_York:20251201T090000'], timed), undefined);
    assert.equal(eventSchedule(['RDATE;TZID=America/New_York:20251201T090000'], timed), undefined);
  });
});
