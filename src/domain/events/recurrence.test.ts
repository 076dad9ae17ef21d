/**
 * Recurrence rules read, refused and expanded: FEATURES.md §1.6 cases 1–5, 7–9 at the module level, the refusals
 * of §1.5, and the RFC 5545 edge cases E4, E6, E7, E9 and E10. Every instance is asserted as its local wall time
 * and its UTC instant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatUtcMs, formatWall, getZone, parseWall } from '../../time/zones.js';
import {
  describeRecurrence,
  expand,
  type Instance,
  MAX_BOUNDED_INSTANCES,
  occurrenceKey,
  parseRecurrence,
  type Recurrence,
  RecurrenceError,
  type SeriesFrame,
} from './recurrence.js';

function frame(zone: string, start: string, end = start, allDay = false): SeriesFrame {
  return { start: parseWall(start), end: parseWall(end), allDay, zone: getZone(zone) };
}

function read(lines: string[], f: SeriesFrame) {
  const rec = parseRecurrence(lines, f);
  assert.ok(rec, 'a recurrence');
  return rec;
}

/** `local start → UTC start` per instance. */
function starts(lines: string[], f: SeriesFrame, until?: string): string[] {
  return expand(read(lines, f), f, until === undefined ? undefined : parseWall(until)).map(
    (i) => `${formatWall(i.startWall)} = ${formatUtcMs(i.startUtcMs)}Z`,
  );
}

function instances(lines: string[], f: SeriesFrame): Instance[] {
  return expand(read(lines, f), f);
}

function refused(lines: string[], f: SeriesFrame, message: RegExp) {
  assert.throws(
    () => expand(read(lines, f), f),
    (e: unknown) => e instanceof RecurrenceError && message.test(e.message),
    lines.join(' '),
  );
}

const NY = 'America/New_York';

describe('recurrence: wall clock across DST (E1–E3)', () => {
  it('case 1: weekly 09:00 New York stays 09:00 local across the November change (13:00Z, then 14:00Z)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=3'], frame(NY, '2025-10-27 09:00:00', '2025-10-27 10:00:00')), [
      '2025-10-27 09:00:00 = 2025-10-27 13:00:00Z',
      '2025-11-03 09:00:00 = 2025-11-03 14:00:00Z',
      '2025-11-10 09:00:00 = 2025-11-10 14:00:00Z',
    ]);
  });

  it('case 2: daily 02:30 New York moves to 03:30 EDT on the day of the gap, counts it, and is 02:30 again the next day', () => {
    const got = instances(['RRULE:FREQ=DAILY;COUNT=3'], frame(NY, '2025-03-08 02:30:00', '2025-03-08 03:00:00'));
    assert.deepEqual(
      got.map((i) => [
        formatWall(i.originalWall),
        formatWall(i.startWall),
        formatUtcMs(i.startUtcMs),
        formatWall(i.endWall),
        formatUtcMs(i.endUtcMs),
      ]),
      [
        ['2025-03-08 02:30:00', '2025-03-08 02:30:00', '2025-03-08 07:30:00', '2025-03-08 03:00:00', '2025-03-08 08:00:00'],
        // the start moved out of the gap keeps its 30 minutes
        ['2025-03-09 02:30:00', '2025-03-09 03:30:00', '2025-03-09 07:30:00', '2025-03-09 04:00:00', '2025-03-09 08:00:00'],
        ['2025-03-10 02:30:00', '2025-03-10 02:30:00', '2025-03-10 06:30:00', '2025-03-10 03:00:00', '2025-03-10 07:00:00'],
      ],
    );
  });

  it('case 3: daily 01:30 New York takes the first (EDT) 01:30 on the night that has two', () => {
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;COUNT=3'], frame(NY, '2025-11-01 01:30:00')), [
      '2025-11-01 01:30:00 = 2025-11-01 05:30:00Z',
      '2025-11-02 01:30:00 = 2025-11-02 05:30:00Z',
      '2025-11-03 01:30:00 = 2025-11-03 06:30:00Z',
    ]);
  });

  it('a 30-minute DST gap (Australia/Lord_Howe) moves 02:15 to 02:45, and the instance still counts', () => {
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;COUNT=3'], frame('Australia/Lord_Howe', '2025-10-04 02:15:00')), [
      '2025-10-04 02:15:00 = 2025-10-03 15:45:00Z',
      '2025-10-05 02:45:00 = 2025-10-04 15:45:00Z',
      '2025-10-06 02:15:00 = 2025-10-05 15:15:00Z',
    ]);
  });

  it('a day the zone skipped (Pacific/Apia, 2011-12-30) moves onto the next day; one instant is one instance', () => {
    // weekly: the Friday that did not exist becomes Saturday 10:00, and counts
    const weekly = instances(['RRULE:FREQ=WEEKLY;COUNT=3'], frame('Pacific/Apia', '2011-12-23 10:00:00'));
    assert.deepEqual(
      weekly.map((i) => `${formatWall(i.originalWall)} → ${formatWall(i.startWall)} = ${formatUtcMs(i.startUtcMs)}Z`),
      [
        '2011-12-23 10:00:00 → 2011-12-23 10:00:00 = 2011-12-23 20:00:00Z',
        '2011-12-30 10:00:00 → 2011-12-31 10:00:00 = 2011-12-30 20:00:00Z',
        '2012-01-06 10:00:00 → 2012-01-06 10:00:00 = 2012-01-05 20:00:00Z',
      ],
    );
    // daily: 30 December 10:00 and 31 December 10:00 are the same instant; both counted, listed once, under the wall time that exists
    const daily = instances(['RRULE:FREQ=DAILY;COUNT=4'], frame('Pacific/Apia', '2011-12-29 10:00:00'));
    assert.deepEqual(
      daily.map((i) => `${formatWall(i.originalWall)} → ${formatWall(i.startWall)} = ${formatUtcMs(i.startUtcMs)}Z`),
      [
        '2011-12-29 10:00:00 → 2011-12-29 10:00:00 = 2011-12-29 20:00:00Z',
        '2011-12-31 10:00:00 → 2011-12-31 10:00:00 = 2011-12-30 20:00:00Z',
        '2012-01-01 10:00:00 → 2012-01-01 10:00:00 = 2011-12-31 20:00:00Z',
      ],
    );
  });
});

describe('recurrence: dates the rule skips and the first instance (E4, E7, E9)', () => {
  it('case 4: monthly from 31 January skips the months without a 31st (Berlin, +01 then +02)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;COUNT=4'], frame('Europe/Berlin', '2025-01-31 10:00:00')), [
      '2025-01-31 10:00:00 = 2025-01-31 09:00:00Z',
      '2025-03-31 10:00:00 = 2025-03-31 08:00:00Z',
      '2025-05-31 10:00:00 = 2025-05-31 08:00:00Z',
      '2025-07-31 10:00:00 = 2025-07-31 08:00:00Z',
    ]);
  });

  it('E4: yearly from 29 February happens in leap years only; BYMONTHDAY=30 skips February', () => {
    assert.deepEqual(starts(['RRULE:FREQ=YEARLY;COUNT=3'], frame('UTC', '2024-02-29 12:00:00')), [
      '2024-02-29 12:00:00 = 2024-02-29 12:00:00Z',
      '2028-02-29 12:00:00 = 2028-02-29 12:00:00Z',
      '2032-02-29 12:00:00 = 2032-02-29 12:00:00Z',
    ]);
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;BYMONTHDAY=30;COUNT=3'], frame('UTC', '2025-01-30 12:00:00')), [
      '2025-01-30 12:00:00 = 2025-01-30 12:00:00Z',
      '2025-03-30 12:00:00 = 2025-03-30 12:00:00Z',
      '2025-04-30 12:00:00 = 2025-04-30 12:00:00Z',
    ]);
  });

  it('case 5 (E7): BYDAY=-1FR from a Thursday gives that Thursday, then two last Fridays (COUNT counts the Thursday)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3'], frame(NY, '2025-03-06 09:00:00')), [
      '2025-03-06 09:00:00 = 2025-03-06 14:00:00Z',
      '2025-03-28 09:00:00 = 2025-03-28 13:00:00Z',
      '2025-04-25 09:00:00 = 2025-04-25 13:00:00Z',
    ]);
  });

  it('E7: a first instance on the rule weekday but not its ordinal is still instance #1 and counted', () => {
    // 2030-12-21 is a Saturday but the 51st of the year, not the 3rd
    assert.deepEqual(starts(['RRULE:FREQ=YEARLY;BYDAY=3SA;COUNT=2'], frame('UTC', '2030-12-21 08:00:00')), [
      '2030-12-21 08:00:00 = 2030-12-21 08:00:00Z',
      '2031-01-18 08:00:00 = 2031-01-18 08:00:00Z',
    ]);
  });

  it('E9: -1MO,-2MO gives the last two Mondays of each month', () => {
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;BYDAY=-1MO,-2MO;COUNT=5'], frame('UTC', '2025-01-20 08:00:00')), [
      '2025-01-20 08:00:00 = 2025-01-20 08:00:00Z',
      '2025-01-27 08:00:00 = 2025-01-27 08:00:00Z',
      '2025-02-17 08:00:00 = 2025-02-17 08:00:00Z',
      '2025-02-24 08:00:00 = 2025-02-24 08:00:00Z',
      '2025-03-24 08:00:00 = 2025-03-24 08:00:00Z',
    ]);
  });

  it('E9: 5FR skips the months that have no fifth Friday', () => {
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;BYDAY=5FR;COUNT=4'], frame(NY, '2025-01-31 18:00:00')), [
      '2025-01-31 18:00:00 = 2025-01-31 23:00:00Z',
      '2025-05-30 18:00:00 = 2025-05-30 22:00:00Z',
      '2025-08-29 18:00:00 = 2025-08-29 22:00:00Z',
      '2025-10-31 18:00:00 = 2025-10-31 22:00:00Z',
    ]);
  });
});

describe('recurrence: UNTIL (case 7, E5)', () => {
  const f = frame(NY, '2025-10-27 09:00:00');

  it('an UNTIL equal to an instance start includes it; one second earlier excludes it', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;UNTIL=20251103T140000Z'], f), [
      '2025-10-27 09:00:00 = 2025-10-27 13:00:00Z',
      '2025-11-03 09:00:00 = 2025-11-03 14:00:00Z',
    ]);
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;UNTIL=20251103T135959Z'], f), ['2025-10-27 09:00:00 = 2025-10-27 13:00:00Z']);
  });

  it('compares instants near transitions: an instance moved out of the gap, and the first of two 01:30s', () => {
    // 02:30 on 2025-03-09 happens at 03:30 EDT = 07:30Z
    const gap = frame(NY, '2025-03-08 02:30:00');
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20250309T073000Z'], gap), [
      '2025-03-08 02:30:00 = 2025-03-08 07:30:00Z',
      '2025-03-09 03:30:00 = 2025-03-09 07:30:00Z',
    ]);
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20250309T072959Z'], gap), ['2025-03-08 02:30:00 = 2025-03-08 07:30:00Z']);
    // 01:30 EDT on 2025-11-02 (05:30Z) is before an UNTIL of 01:15 EST (06:15Z), though 01:30 > 01:15 on the wall
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20251102T061500Z'], frame(NY, '2025-11-01 01:30:00')), [
      '2025-11-01 01:30:00 = 2025-11-01 05:30:00Z',
      '2025-11-02 01:30:00 = 2025-11-02 05:30:00Z',
    ]);
  });

  it('a date-only UNTIL on a timed series means the end of that local day, stored in UTC', () => {
    const rec = read(['RRULE:FREQ=WEEKLY;UNTIL=20251110'], f);
    assert.deepEqual(rec.lines, ['RRULE:FREQ=WEEKLY;UNTIL=20251111T045959Z']);
    assert.equal(expand(rec, f).length, 3);
  });

  it('a date-only UNTIL on a day the zone skipped ends when the next day begins (Pacific/Apia, 2011-12-30)', () => {
    // the end of 30 December is the start of 31 December (00:00 +14:00 = 10:00Z), not 30 December 23:59:59 moved
    // forward a day with the gap; the 30th's 10:00, which happens on the 31st, is after it too
    const f = frame('Pacific/Apia', '2011-12-28 10:00:00');
    const rec = read(['RRULE:FREQ=DAILY;UNTIL=20111230'], f);
    assert.deepEqual(rec.lines, ['RRULE:FREQ=DAILY;UNTIL=20111230T095959Z']);
    assert.deepEqual(starts(rec.lines as string[], f), ['2011-12-28 10:00:00 = 2011-12-28 20:00:00Z', '2011-12-29 10:00:00 = 2011-12-29 20:00:00Z']);
  });

  it('a floating UNTIL is the series wall time, stored in UTC', () => {
    assert.deepEqual(read(['RRULE:FREQ=WEEKLY;UNTIL=20251103T090000'], f).lines, ['RRULE:FREQ=WEEKLY;UNTIL=20251103T140000Z']);
  });

  it('the first instance stays even when UNTIL is before it (E7)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;UNTIL=20251001T000000Z'], f), ['2025-10-27 09:00:00 = 2025-10-27 13:00:00Z']);
  });
});

describe('recurrence: EXDATE and RDATE (E6, E8)', () => {
  const f = frame(NY, '2025-10-27 09:00:00', '2025-10-27 10:00:00');
  const withoutNov3 = ['2025-10-27 09:00:00 = 2025-10-27 13:00:00Z', '2025-11-10 09:00:00 = 2025-11-10 14:00:00Z'];

  it('E6: COUNT=3 and one EXDATE gives 2 instances (COUNT counts before EXDATE)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=America/New_York:20251103T090000'], f), withoutNov3);
  });

  it('accepts EXDATE as the series zone wall time, as UTC, and as a date, and stores each as the zone wall time', () => {
    for (const exdate of ['EXDATE;TZID=America/New_York:20251103T090000', 'EXDATE:20251103T140000Z', 'EXDATE;VALUE=DATE:20251103']) {
      const rec = read(['RRULE:FREQ=WEEKLY;COUNT=3', exdate], f);
      assert.deepEqual(rec.lines, ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=America/New_York:20251103T090000'], exdate);
      assert.deepEqual(starts(rec.lines as string[], f), withoutNov3, exdate);
    }
  });

  it('an EXDATE that names no instance removes nothing (a different time of day)', () => {
    assert.equal(starts(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=America/New_York:20251103T100000'], f).length, 3);
  });

  it('E8: an EXDATE of the time an instance moved to out of the spring gap removes it; its original time does too', () => {
    const gap = frame(NY, '2025-03-08 02:30:00', '2025-03-08 03:00:00');
    for (const exdate of [
      'EXDATE:20250309T073000Z',
      'EXDATE;TZID=America/New_York:20250309T033000',
      'EXDATE;TZID=America/New_York:20250309T023000',
    ]) {
      assert.deepEqual(
        starts(['RRULE:FREQ=DAILY;COUNT=3', exdate], gap),
        ['2025-03-08 02:30:00 = 2025-03-08 07:30:00Z', '2025-03-10 02:30:00 = 2025-03-10 06:30:00Z'],
        exdate,
      );
    }
  });

  it('refuses an EXDATE in another zone, and a TZID together with a UTC Z', () => {
    refused(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20251103T150000'], f, /TZID=Europe\/Berlin/);
    refused(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=America/New_York:20251103T140000Z'], f, /both a TZID and a UTC/);
  });

  it('adds RDATEs to the rule, in start order, and an EXDATE can remove the first instance', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=2', 'RDATE;TZID=America/New_York:20251029T180000', 'EXDATE:20251027T130000Z'], f), [
      '2025-10-29 18:00:00 = 2025-10-29 22:00:00Z',
      '2025-11-03 09:00:00 = 2025-11-03 14:00:00Z',
    ]);
  });
});

describe('recurrence: all-day series (case 9, E10)', () => {
  it('expands on dates, 00:00:00 to 23:59:59 local, with the zone midnight as the instant, across DST', () => {
    const f = frame(NY, '2025-03-02 00:00:00', '2025-03-02 23:59:59', true);
    const got = instances(['RRULE:FREQ=WEEKLY;COUNT=3'], f);
    assert.deepEqual(
      got.map((i) => [formatWall(i.startWall), formatWall(i.endWall), formatUtcMs(i.startUtcMs), formatUtcMs(i.endUtcMs)]),
      [
        ['2025-03-02 00:00:00', '2025-03-02 23:59:59', '2025-03-02 05:00:00', '2025-03-03 04:59:59'],
        ['2025-03-09 00:00:00', '2025-03-09 23:59:59', '2025-03-09 05:00:00', '2025-03-10 03:59:59'],
        ['2025-03-16 00:00:00', '2025-03-16 23:59:59', '2025-03-16 04:00:00', '2025-03-17 03:59:59'],
      ],
    );
  });

  it('keeps a multi-day length, takes UNTIL and EXDATE as dates, and writes them back as dates', () => {
    const f = frame('Europe/Berlin', '2025-06-06 00:00:00', '2025-06-07 23:59:59', true);
    const rec = read(['RRULE:FREQ=WEEKLY;UNTIL=20250627', 'EXDATE;VALUE=DATE:20250613'], f);
    assert.deepEqual(rec.lines, ['RRULE:FREQ=WEEKLY;UNTIL=20250627', 'EXDATE;VALUE=DATE:20250613']);
    assert.deepEqual(
      expand(rec, f).map((i) => `${formatWall(i.startWall)} – ${formatWall(i.endWall)}`),
      ['2025-06-06 00:00:00 – 2025-06-07 23:59:59', '2025-06-20 00:00:00 – 2025-06-21 23:59:59', '2025-06-27 00:00:00 – 2025-06-28 23:59:59'],
    );
  });
});

describe('recurrence: fixed-offset zones (UTC±N)', () => {
  it('UTC+5:30 has no DST, and dates are written back in UTC', () => {
    const f = frame('UTC+5:30', '2025-03-07 09:00:00');
    const rec = read(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE:20250313T213000Z', 'RDATE:20250315T090000'], f);
    assert.deepEqual(rec.lines, ['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE:20250315T033000Z', 'EXDATE:20250313T213000Z']);
    assert.deepEqual(starts(rec.lines as string[], f), [
      '2025-03-07 09:00:00 = 2025-03-07 03:30:00Z',
      '2025-03-14 09:00:00 = 2025-03-14 03:30:00Z',
      '2025-03-15 09:00:00 = 2025-03-15 03:30:00Z',
      '2025-03-21 09:00:00 = 2025-03-21 03:30:00Z',
    ]);
  });

  it('an EXDATE in UTC on a UTC+5:30 series removes the instance at that instant', () => {
    const f = frame('UTC+5:30', '2025-03-07 09:00:00');
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE:20250314T033000Z'], f), [
      '2025-03-07 09:00:00 = 2025-03-07 03:30:00Z',
      '2025-03-21 09:00:00 = 2025-03-21 03:30:00Z',
    ]);
  });
});

describe('recurrence: unbounded series (E11)', () => {
  const f = frame(NY, '2025-10-27 09:00:00');

  it('expand up to a limit (exclusive, in the series wall time)', () => {
    const rec = read(['RRULE:FREQ=WEEKLY;BYDAY=MO,TH'], f);
    assert.equal(rec.bounded, false);
    assert.deepEqual(starts(rec.lines as string[], f, '2025-11-06 09:00:00'), [
      '2025-10-27 09:00:00 = 2025-10-27 13:00:00Z',
      '2025-10-30 09:00:00 = 2025-10-30 13:00:00Z',
      '2025-11-03 09:00:00 = 2025-11-03 14:00:00Z',
    ]);
  });

  it('refuses to expand without a limit', () => {
    assert.throws(() => expand(read(['RRULE:FREQ=WEEKLY'], f), f), /only up to a limit/);
  });
});

describe('recurrence: what FEATURES.md §1.5 refuses (case 8)', () => {
  const f = frame(NY, '2025-10-27 09:00:00');

  it('refuses EXRULE, DTSTART and DTEND lines, and a second RRULE', () => {
    refused(['RRULE:FREQ=WEEKLY;COUNT=3', 'EXRULE:FREQ=WEEKLY;COUNT=1'], f, /EXRULE/);
    refused(['DTSTART;TZID=America/New_York:20251027T090000', 'RRULE:FREQ=WEEKLY;COUNT=3'], f, /DTSTART is not allowed/);
    refused(['RRULE:FREQ=WEEKLY;COUNT=3', 'DTEND:20251027T140000Z'], f, /DTEND is not allowed/);
    refused(['RRULE:FREQ=WEEKLY;COUNT=3', 'RRULE:FREQ=DAILY;COUNT=3'], f, /Only one RRULE/);
  });

  it('refuses HOURLY, MINUTELY and SECONDLY (E13), and BYHOUR', () => {
    for (const freq of ['HOURLY', 'MINUTELY', 'SECONDLY']) refused([`RRULE:FREQ=${freq};COUNT=3`], f, new RegExp(`FREQ=${freq} is not offered`));
    refused(['RRULE:FREQ=DAILY;BYHOUR=9,17;COUNT=3'], f, /BYHOUR is not offered/);
  });

  it('refuses a BYSETPOS no period can reach, at once (it cost 1.4 s of looking before), and keeps one that can', () => {
    const started = performance.now();
    refused(['RRULE:FREQ=WEEKLY;BYDAY=WE,TH;BYSETPOS=-3;COUNT=10'], f, /BYSETPOS=-3 can never match/);
    refused(['RRULE:FREQ=MONTHLY;BYMONTH=6;BYMONTHDAY=2;BYSETPOS=3'], f, /BYSETPOS=3 can never match/);
    refused(['RRULE:FREQ=MONTHLY;BYDAY=1MO,2TU;BYSETPOS=3;COUNT=3'], f, /BYSETPOS=3 can never match/);
    assert.ok(performance.now() - started < 100);
    const last = parseRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3'], f) as Recurrence;
    assert.deepEqual(
      expand(last, f).map((i) => formatWall(i.startWall)),
      ['2025-10-27 09:00:00', '2025-10-31 09:00:00', '2025-11-28 09:00:00'],
    );
  });

  it('refuses COUNT with UNTIL (E5)', () => {
    refused(['RRULE:FREQ=WEEKLY;COUNT=3;UNTIL=20251231T000000Z'], f, /COUNT and UNTIL/);
  });

  it('refuses an ordinal BYDAY with WEEKLY or DAILY (E9)', () => {
    refused(['RRULE:FREQ=WEEKLY;BYDAY=2TU;COUNT=3'], f, /only allowed with FREQ=MONTHLY or FREQ=YEARLY/);
    refused(['RRULE:FREQ=DAILY;BYDAY=-1FR;COUNT=3'], f, /only allowed with FREQ=MONTHLY or FREQ=YEARLY/);
  });

  it('refuses INTERVAL 0 and 1001, and takes 1000', () => {
    refused(['RRULE:FREQ=DAILY;INTERVAL=0;COUNT=3'], f, /INTERVAL must be between 1 and 1000/);
    refused(['RRULE:FREQ=DAILY;INTERVAL=1001;COUNT=3'], f, /INTERVAL must be between 1 and 1000/);
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;INTERVAL=1000;COUNT=2'], f), [
      '2025-10-27 09:00:00 = 2025-10-27 13:00:00Z',
      '2028-07-23 09:00:00 = 2028-07-23 13:00:00Z',
    ]);
  });

  it(`refuses more than ${MAX_BOUNDED_INSTANCES} instances, by COUNT, by COUNT with RDATEs, and by UNTIL`, () => {
    refused([`RRULE:FREQ=DAILY;COUNT=${MAX_BOUNDED_INSTANCES + 1}`], f, /at most 5000 occurrences/);
    refused([`RRULE:FREQ=DAILY;COUNT=${MAX_BOUNDED_INSTANCES - 1}`, 'RDATE:20240101T140000Z,20240102T140000Z'], f, /at most 5000 occurrences/);
    assert.equal(read([`RRULE:FREQ=DAILY;COUNT=${MAX_BOUNDED_INSTANCES}`], f).bounded, true);
    // daily from 2025-10-27: the 5,000th instance is on 2039-07-05, the 5,001st on 2039-07-06
    assert.equal(instances(['RRULE:FREQ=DAILY;UNTIL=20390705T235959Z'], f).length, MAX_BOUNDED_INSTANCES);
    refused(['RRULE:FREQ=DAILY;UNTIL=20390706T235959Z'], f, /at most 5000 occurrences/);
  });

  it('refuses BYMONTHDAY with WEEKLY (RFC 5545 §3.3.10)', () => {
    refused(['RRULE:FREQ=WEEKLY;BYMONTHDAY=3;COUNT=3'], f, /BYMONTHDAY is not allowed with FREQ=WEEKLY/);
  });

  it('refuses the YEARLY combinations rrule-temporal expands wrongly, and a 53rd weekday', () => {
    refused(['RRULE:FREQ=YEARLY;BYYEARDAY=100;BYDAY=MO;COUNT=3'], f, /BYYEARDAY cannot be combined/);
    refused(['RRULE:FREQ=YEARLY;BYYEARDAY=100;BYMONTHDAY=9;COUNT=3'], f, /BYYEARDAY cannot be combined/);
    refused(['RRULE:FREQ=YEARLY;BYDAY=20MO;BYMONTHDAY=1,2,3;COUNT=3'], f, /need BYMONTH/);
    refused(['RRULE:FREQ=YEARLY;BYDAY=53MO;COUNT=3'], f, /ordinal 53MO is out of range/);
    // with BYMONTH the ordinal counts within the month, which rrule-temporal gets right
    assert.deepEqual(starts(['RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1MO;BYMONTHDAY=1,2,3,4,5,6,7;COUNT=2'], f), [
      '2025-10-27 09:00:00 = 2025-10-27 13:00:00Z',
      '2025-11-03 09:00:00 = 2025-11-03 14:00:00Z',
    ]);
  });

  it('refuses a rule that matches too rarely to expand, instead of failing', () => {
    // Friday the 13th, daily: rrule-temporal gives up after 10,000 days
    refused(['RRULE:FREQ=DAILY;BYMONTHDAY=13;BYDAY=FR;COUNT=50'], f, /too sparse/);
    // the same days, monthly, are fine
    assert.equal(instances(['RRULE:FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;COUNT=50'], f).length, 50);
  });
});

describe('occurrence keys', () => {
  it('are `{series}_{UTC start}` for timed series and `{series}_{date}` for all-day ones', () => {
    assert.equal(occurrenceKey(7, '2025-11-03 14:00:00', false), '7_20251103T140000Z');
    assert.equal(occurrenceKey(7, '2025-03-09 05:00:00', true, parseWall('2025-03-09 00:00:00')), '7_20250309');
  });
});

describe('recurrence descriptions', () => {
  it('say the rule in words, with its end and its EXDATEs', () => {
    const f = frame(NY, '2025-10-27 09:00:00');
    assert.equal(describeRecurrence(read(['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10'], f), f), 'every week on Monday at 9 AM for 10 times');
    assert.equal(describeRecurrence(read(['RRULE:FREQ=DAILY', 'EXDATE:20251028T130000Z'], f), f), 'every day at 9 AM excluding 1 date');
  });

  it('count ordinals below -1 from the end ("2nd to last"), where the library says "last" for all of them', () => {
    const f = frame(NY, '2025-10-27 09:00:00');
    const say = (line: string) => describeRecurrence(read([line], f), f);
    assert.equal(say('RRULE:FREQ=MONTHLY;BYDAY=-2MO;COUNT=3'), 'every month on 2nd to last Monday at 9 AM for 3 times');
    assert.equal(say('RRULE:FREQ=MONTHLY;BYDAY=-1FR,2TU,-3WE'), 'every month on last Friday, 2nd Tuesday and 3rd to last Wednesday at 9 AM');
    assert.equal(say('RRULE:FREQ=MONTHLY;BYMONTHDAY=-2,1'), 'every month on the 2nd to last and 1st day of the month at 9 AM');
    assert.equal(say('RRULE:FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-2'), 'every month on Monday and Tuesday at 9 AM on the 2nd to last instance');
    assert.equal(say('RRULE:FREQ=YEARLY;BYYEARDAY=-11'), 'every year on the 11th to last day of the year at 9 AM');
    // -1 and positive ordinals read as the library words them
    assert.equal(say('RRULE:FREQ=MONTHLY;BYDAY=-1FR'), 'every month on last Friday at 9 AM');
  });
});
