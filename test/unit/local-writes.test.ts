import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalWrites } from '../../server/local-writes';

describe('LocalWrites.doorActive', () => {
  it('is false until a request writes, true for ten seconds after, then false again', () => {
    let now = 1_000;
    const writes = new LocalWrites(() => now);
    const heard: number[] = [];
    writes.onWrite((eventId) => heard.push(eventId));
    assert.equal(writes.doorActive(), false);
    writes.noteWrite(7);
    assert.deepEqual(heard, [7]);
    now += 9_999;
    assert.equal(writes.doorActive(), true);
    now += 1;
    assert.equal(writes.doorActive(), false);
  });
});
