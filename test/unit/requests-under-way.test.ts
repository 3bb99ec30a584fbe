import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestsUnderWay } from '../../server/http/requests-under-way';

// A stopping server waits for handlers still running before its database closes, and no longer
// than its grace.

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('RequestsUnderWay', () => {
  it('is settled at once with nothing running', async () => {
    await new RequestsUnderWay().settled(60_000);
  });

  it('is settled when the last handler ends, whether it answered or threw', async () => {
    const underWay = new RequestsUnderWay();
    const first = deferred();
    const second = deferred();
    const answered = underWay.run(() => first.promise.then(() => 'answer'));
    const failed = underWay.run(() => second.promise.then(() => Promise.reject(new Error('refused'))));
    let settled = false;
    const waiting = underWay.settled(60_000).then(() => (settled = true));
    first.resolve();
    assert.equal(await answered, 'answer');
    await Promise.resolve();
    assert.equal(settled, false, 'one handler still runs');
    second.resolve();
    await assert.rejects(failed, /refused/);
    await waiting;
    assert.equal(settled, true);
  });

  // The grace's timer is unref'd (it must not hold a stopping process open), so nothing real would
  // keep this test's event loop alive until it fires: the clock is mocked and moved by hand.
  it('gives up waiting after its grace', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const underWay = new RequestsUnderWay();
    const never = deferred();
    void underWay.run(() => never.promise);
    let settled = false;
    const waiting = underWay.settled(5_000).then(() => (settled = true));
    t.mock.timers.tick(4_999);
    await Promise.resolve();
    assert.equal(settled, false, 'still within its grace');
    t.mock.timers.tick(1);
    await waiting;
    assert.equal(settled, true);
    never.resolve();
  });
});
