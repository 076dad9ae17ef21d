import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
