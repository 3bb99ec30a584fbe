import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newUid } from '../../core/uid';

describe('newUid', () => {
  it('makes distinct version-7 UUIDs that sort in the order they were made and carry the time', () => {
    const before = Date.now();
    const uids = Array.from({ length: 10_000 }, () => newUid()); // many random draws, many in one millisecond
    const after = Date.now();
    assert.equal(new Set(uids).size, uids.length);
    for (const uid of uids) assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([...uids].sort(), uids);
    const msecs = (uid: string) => parseInt(uid.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(msecs(uids[0]) >= before && msecs(uids[uids.length - 1]) <= after + 1, `${msecs(uids[0])} ${before} ${after}`);
  });

  it('draws fresh random bits for each uid', () => {
    // The last 40 bits are random bytes only (the sequence is before them): two alike would
    // mean a block of the pool served twice.
    const tails = Array.from({ length: 2_000 }, () => newUid().slice(-10));
    assert.equal(new Set(tails).size, tails.length);
  });
});
