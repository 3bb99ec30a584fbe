import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ONLINE_WINDOW_MS, StationHeartbeats, stationHealth } from '../../server/services/station-heartbeats';

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

describe('StationHeartbeats', () => {
  it('keeps each event\'s stations apart, the latest beat of each, and forgets the longest silent past 500', () => {
    const beats = new StationHeartbeats();
    beats.beat(1, 'North', 2, 10);
    beats.beat(1, 'North', 0, 20);
    beats.beat(2, 'North', 5, 15);
    assert.deepEqual(beats.of(1).get('North'), { seenAt: 20, queued: 0 });
    assert.deepEqual(beats.of(2).get('North'), { seenAt: 15, queued: 5 });
    assert.equal(beats.of(3).size, 0);
    for (let i = 0; i < 500; i++) beats.beat(1, `Door ${i}`, 0, 100 + i);
    assert.equal(beats.of(1).size, 500);
    assert.equal(beats.of(1).has('North'), false);
    assert.equal(beats.of(1).has('Door 499'), true);
  });
});
