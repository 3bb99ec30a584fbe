import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEFT_AFTER_MS, MAX_STATIONS_PER_CALLER, ONLINE_WINDOW_MS, StationHeartbeats, stationHealth, stationPresence } from '../../server/services/station-heartbeats';

describe('stationHealth', () => {
  const now = 1_000_000_000;
  it('is online when heard within the window, queued when it also holds unsent scans, offline after', () => {
    assert.equal(stationHealth(now - 1000, 0, now), 'online');
    assert.equal(stationHealth(now - ONLINE_WINDOW_MS, 3, now), 'queued');
    assert.equal(stationHealth(now - ONLINE_WINDOW_MS - 1, 0, now), 'offline');
    assert.equal(stationHealth(now - ONLINE_WINDOW_MS - 1, 3, now), 'offline');
    assert.equal(stationHealth(undefined, 0, now), 'offline');
  });
});

describe('stationPresence', () => {
  const now = 1_000_000_000;
  const table: [string, number | undefined, number | undefined, number, string][] = [
    ['heard by heartbeat just now', now - 1000, now - 1000, 0, 'online'],
    ['heard just now, holding scans', now - 1000, now - 1000, 2, 'queued'],
    ['heartbeats stopped a minute ago', now - 60_000, now - 60_000, 0, 'offline'],
    ['heartbeats stopped past the left window', now - LEFT_AFTER_MS - 1, now - LEFT_AFTER_MS - 1, 0, 'left'],
    ['scanned just now, never a heartbeat', now - 1000, undefined, 0, 'online'],
    ['scanned a minute ago, never a heartbeat', now - 60_000, undefined, 0, 'left'],
    ['never heard at all', undefined, undefined, 0, 'left'],
  ];
  for (const [what, seen, beat, queued, expected] of table) {
    it(`is ${expected} when ${what}`, () => assert.equal(stationPresence(seen, beat, queued, now), expected));
  }
});

describe('StationHeartbeats', () => {
  it("keeps each event's stations apart, the latest beat of each, and forgets the longest silent past the bounds", () => {
    const beats = new StationHeartbeats();
    beats.beat(1, 'North', 2, 'key:1', 10);
    beats.beat(1, 'North', 0, 'key:1', 20);
    beats.beat(2, 'North', 5, 'key:1', 15);
    assert.deepEqual(beats.of(1).get('North'), { seenAt: 20, queued: 0, caller: 'key:1' });
    assert.deepEqual(beats.of(2).get('North'), { seenAt: 15, queued: 5, caller: 'key:1' });
    assert.equal(beats.of(3).size, 0);
    // One caller inventing names holds at most its bound of them; others keep theirs.
    for (let i = 0; i < 100; i++) beats.beat(1, `Ghost ${i}`, 0, 'key:9', 100 + i);
    assert.equal([...beats.of(1).values()].filter((b) => b.caller === 'key:9').length, MAX_STATIONS_PER_CALLER);
    assert.equal(beats.of(1).has('Ghost 99'), true);
    assert.equal(beats.of(1).has('North'), true);
    // Many callers: the event's bound holds too.
    for (let i = 0; i < 300; i++) beats.beat(1, `Door ${i}`, 0, `user:${i}`, 1000 + i);
    assert.equal(beats.of(1).size, 200);
    assert.equal(beats.of(1).has('North'), false);
  });

  it("forgets a renamed station's old name, in its event only", () => {
    const beats = new StationHeartbeats();
    beats.beat(1, 'Door', 0, 'key:1', 10);
    beats.beat(2, 'Door', 0, 'key:1', 10);
    beats.forget(1, 'Door');
    assert.equal(beats.of(1).has('Door'), false);
    assert.equal(beats.of(2).has('Door'), true);
  });
});
