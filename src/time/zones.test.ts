import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Temporal } from 'temporal-polyfill';
import {
  findZone,
  formatIsoWithOffset,
  formatUtcMs,
  formatWall,
  getZone,
  isValidTimeZone,
  parseWall,
  utcMsToZonedWall,
  zonedWallToUtcMs,
} from './zones.js';

const w = (s: string) => parseWall(s);

describe('time zones', () => {
  it('accepts IANA names, UTC and UTC±N offsets only', () => {
    for (const z of ['UTC', 'America/New_York', 'Asia/Hong_Kong', 'Europe/Paris', 'UTC+2', 'UTC-3.5', 'UTC+5:45', 'UTC+0', 'Etc/GMT+5']) {
      assert.ok(isValidTimeZone(z), z);
    }
    for (const z of ['', 'Mars/Olympus', 'UTC+15', 'EST5EDT,M3', '../../etc/passwd', 'UTC+2x']) assert.equal(isValidTimeZone(z), false, z);
  });

  it('converts wall clocks to UTC across DST (New York)', () => {
    const ny = getZone('America/New_York');
    assert.equal(formatUtcMs(zonedWallToUtcMs(w('2018-01-01 16:00:00'), ny)), '2018-01-01 21:00:00');
    assert.equal(formatUtcMs(zonedWallToUtcMs(w('2018-07-01 16:00:00'), ny)), '2018-07-01 20:00:00');
    // spring-forward gap: 02:30 does not exist, PHP moves it to 03:30 EDT
    assert.equal(formatUtcMs(zonedWallToUtcMs(w('2021-03-14 02:30:00'), ny)), '2021-03-14 07:30:00');
    // autumn overlap: 01:30 happens twice; PHP takes the first (EDT)
    assert.equal(formatUtcMs(zonedWallToUtcMs(w('2021-11-07 01:30:00'), ny)), '2021-11-07 05:30:00');
  });

  it('gives the offset of every second around transitions, as Temporal does (cached per day)', () => {
    // each zone's transitions from mid-1937 to 2040 (Amsterdam's first changed from +00:19:32): every 30 minutes of the
    // day before, of the day of and of the day after, and each second of the minute around the change, asked twice
    // (the second answer comes from the day's cache)
    const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Pacific/Apia', 'Asia/Kolkata', 'Europe/Amsterdam'];
    let checked = 0;
    for (const name of zones) {
      const zone = getZone(name);
      const expected = (ms: number) => {
        const ns = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(name).offsetNanoseconds;
        return Math.round(ns / 60e9);
      };
      let at = Temporal.Instant.from('1937-06-01T00:00:00Z').toZonedDateTimeISO(name);
      const end = Temporal.Instant.from('2040-01-01T00:00:00Z').epochMilliseconds;
      for (;;) {
        const next = at.getTimeZoneTransition('next');
        if (!next || next.epochMilliseconds > end) break;
        at = next;
        const t = next.epochMilliseconds;
        const instants: number[] = [];
        for (let ms = t - 86_400_000; ms <= t + 86_400_000; ms += 1_800_000) instants.push(ms);
        for (let ms = t - 30_000; ms <= t + 30_000; ms += 1000) instants.push(ms, ms + 999);
        for (const pass of [1, 2]) {
          for (const ms of instants) {
            assert.equal(zone.offsetAt(ms), expected(ms), `${name} at ${new Date(ms).toISOString()} (pass ${pass})`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 50_000, `only ${checked} instants`);
  });

  it('converts wall clocks of the years 0–99 with their own offset (local mean time), not one of 1900–1999', () => {
    // tzdata: New York -4:56:02 and Tokyo +9:18:59 before standard time, as Temporal says (offsets are kept in
    // whole minutes here, so the minute is compared)
    for (const [zone, wall] of [
      ['America/New_York', '0050-06-01 12:00:00'],
      ['Asia/Tokyo', '0000-06-01 12:00:00'],
      ['Europe/Paris', '0099-12-31 23:59:59'],
    ] as const) {
      const utc = formatUtcMs(zonedWallToUtcMs(w(wall), getZone(zone)));
      const expected = Temporal.PlainDateTime.from(wall.replace(' ', 'T'))
        .toZonedDateTime(zone)
        .toInstant()
        .toString()
        .slice(0, 19)
        .replace('T', ' ');
      assert.equal(utc.slice(0, 16), expected.slice(0, 16), `${zone} ${wall}`);
      assert.equal(formatWall(utcMsToZonedWall(zonedWallToUtcMs(w(wall), getZone(zone)), getZone(zone))), wall, `${zone} ${wall} back`);
    }
  });

  it('converts UTC to wall clocks', () => {
    assert.equal(formatWall(utcMsToZonedWall(Date.UTC(2018, 0, 1, 8), getZone('Asia/Hong_Kong'))), '2018-01-01 16:00:00');
    assert.equal(formatWall(utcMsToZonedWall(Date.UTC(2018, 0, 1, 8), getZone('UTC-3.5'))), '2018-01-01 04:30:00');
  });

  it('gives DST-aware abbreviations', () => {
    const ny = getZone('America/New_York');
    assert.equal(ny.abbreviationAt(Date.UTC(2018, 0, 1)), 'EST');
    assert.equal(ny.abbreviationAt(Date.UTC(2018, 6, 1)), 'EDT');
    assert.equal(ny.abbreviationAt(Date.UTC(2090, 6, 1)), 'EDT', 'beyond the last transition');
    assert.equal(getZone('Europe/Paris').abbreviationAt(Date.UTC(2018, 6, 1)), 'CEST');
    assert.equal(getZone('UTC').abbreviationAt(0), 'UTC');
    assert.equal(getZone('UTC+2').abbreviationAt(0), 'UTC+2');
    assert.match(getZone('Asia/Hong_Kong').abbreviationAt(Date.UTC(2018, 0, 1)), /^(HKT|GMT\+8|\+08)$/);
  });

  it('formats ISO dates with offsets', () => {
    assert.equal(formatIsoWithOffset(Date.UTC(2017, 0, 5, 19, 23, 36), getZone('America/New_York')), '2017-01-05T14:23:36-05:00');
    assert.equal(formatIsoWithOffset(Date.UTC(2017, 0, 5), findZone('UTC+5:45')!), '2017-01-05T05:45:00+05:45');
  });
});
