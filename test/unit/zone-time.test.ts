import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utcToZoneInput, zoneInputToUtc } from '../../renderer/src/zone-time';

describe('console times on the event\'s clock', () => {
  it('shows a UTC Datetime on the event\'s clock, summer and winter, east and west, half hours', () => {
    assert.equal(utcToZoneInput('2026-12-01T18:00:00', 'Europe/Amsterdam'), '2026-12-01T19:00');
    assert.equal(utcToZoneInput('2026-07-01T18:00:00', 'Europe/Amsterdam'), '2026-07-01T20:00');
    assert.equal(utcToZoneInput('2026-12-01T02:30:00', 'US/Pacific'), '2026-11-30T18:30');
    assert.equal(utcToZoneInput('2026-12-01T18:00:00', 'Asia/Calcutta'), '2026-12-01T23:30');
    assert.equal(utcToZoneInput('2026-12-01T18:00:00', 'GMT'), '2026-12-01T18:00');
    assert.equal(utcToZoneInput(null, 'GMT'), '');
  });

  it('takes a time typed on the event\'s clock back to UTC, the same both ways', () => {
    assert.equal(zoneInputToUtc('2026-12-01T19:00', 'Europe/Amsterdam'), '2026-12-01T18:00');
    assert.equal(zoneInputToUtc('2026-07-01T20:00', 'Europe/Amsterdam'), '2026-07-01T18:00');
    assert.equal(zoneInputToUtc('2026-11-30T18:30', 'US/Pacific'), '2026-12-01T02:30');
    assert.equal(zoneInputToUtc('2026-12-01T23:30', 'Asia/Calcutta'), '2026-12-01T18:00');
    // Around the changes: 2026-03-29 02:30 does not exist in Amsterdam; 2026-10-25 02:30 twice.
    assert.equal(zoneInputToUtc('2026-03-29T03:30', 'Europe/Amsterdam'), '2026-03-29T01:30');
    assert.equal(zoneInputToUtc('2026-03-29T01:30', 'Europe/Amsterdam'), '2026-03-29T00:30');
    assert.match(zoneInputToUtc('2026-03-29T02:30', 'Europe/Amsterdam'), /^2026-03-29T0[01]:30$/);
    for (const utc of ['2026-10-25T00:30', '2026-10-25T01:30', '2026-03-29T00:59', '2026-03-29T01:00']) {
      const wall = utcToZoneInput(`${utc}:00`, 'Europe/Amsterdam');
      const back = zoneInputToUtc(wall, 'Europe/Amsterdam');
      assert.equal(utcToZoneInput(`${back}:00`, 'Europe/Amsterdam'), wall, utc);
    }
  });

  it('hands on what is not a time as typed, for the server to refuse', () => {
    assert.equal(zoneInputToUtc('2026-02-30T10:00', 'GMT'), '2026-02-30T10:00');
    assert.equal(zoneInputToUtc('tomorrow', 'GMT'), 'tomorrow');
    assert.equal(zoneInputToUtc('', 'GMT'), '');
  });
});
