import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalWrites } from '../../server/services/local-writes';

describe('LocalWrites.doorActive', () => {
  it('is false until a request writes, true for activeMs (the setting, ten seconds shipped) after, then false again', () => {
    let now = 1_000;
    const writes = new LocalWrites(10_000, () => now);
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

describe('LocalWrites.noteUnfollow', () => {
  it('resolves only once every listener has finished with the event (the follower’s cycle under way)', async () => {
    const writes = new LocalWrites(10_000);
    const events: string[] = [];
    let finishCycle: () => void = () => undefined;
    writes.onUnfollow(async (eventId) => {
      events.push(`waiting for ${eventId}`);
      await new Promise<void>((resolve) => (finishCycle = resolve));
      events.push('cycle ended');
    });
    const unfollowed = writes.noteUnfollow(3).then(() => events.push('answered'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(events, ['waiting for 3']);
    finishCycle();
    await unfollowed;
    assert.deepEqual(events, ['waiting for 3', 'cycle ended', 'answered']);
  });
});
