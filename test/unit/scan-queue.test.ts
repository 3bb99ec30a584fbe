import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OfflineError, SignedOutError, type Api, type ApiAnswer } from '../../renderer/src/api';
import { scanAnswered, sendItems, type QueuedItem, type QueuedScan, type QueueStore } from '../../renderer/src/scan-queue';

// The queue's sending rule: a queued scan leaves the queue only once the server has decided it.

function scan(uid: string, code: string, queuedAt: number): QueuedScan {
  return { uid, kind: 'guest_id', code, nfcFallback: false, direction: 'in', scannedAt: '2026-12-01T20:00:00', station: 'Front door', eventId: 1, queuedAt };
}

function memoryStore(items: QueuedItem[]): QueueStore & { left: () => string[] } {
  let kept = [...items];
  return {
    items: async () => [...kept],
    drop: async (uid) => {
      kept = kept.filter((item) => item.uid !== uid);
    },
    left: () => kept.map((item) => item.uid),
  };
}

/** An API whose answers (or failures) are given per request, in order; it records each body's uid. */
function fakeApi(replies: (ApiAnswer | Error)[]): { api: Api; sent: string[] } {
  const sent: string[] = [];
  const api = {
    request: async (_method: string, _path: string, body: { uid: string }) => {
      sent.push(body.uid);
      const reply = replies.shift();
      if (!reply) throw new Error('no reply left');
      if (reply instanceof Error) throw reply;
      return reply;
    },
  } as unknown as Api;
  return { api, sent };
}

describe('scanAnswered', () => {
  it('is true for the server\'s decisions on a scan', () => {
    for (const status of [201, 200, 400, 404, 409]) assert.equal(scanAnswered({ status }), true, String(status));
  });
  it('is false for anything that decides nothing', () => {
    for (const status of [0, 204, 301, 304, 401, 403, 408, 429]) assert.equal(scanAnswered({ status }), false, String(status));
  });
});

describe('sendItems', () => {
  it('drops each scan the server answered, oldest first', async () => {
    const store = memoryStore([scan('b', '2', 2), scan('a', '1', 1)]);
    const { api, sent } = fakeApi([
      { status: 201, body: { status: 'checked_in' } },
      { status: 409, body: { status: 'already_checked_in' } },
    ]);
    const answers: string[] = [];
    await sendItems(api, { onScanAnswer: (item, answer) => answers.push(`${item.uid}:${answer.status}`) }, { items: async () => (await store.items()).sort((x, y) => x.queuedAt - y.queuedAt), drop: store.drop });
    assert.deepEqual(sent, ['a', 'b']);
    assert.deepEqual(answers, ['a:201', 'b:409']);
    assert.deepEqual(store.left(), []);
  });

  it('sends every scan with no handlers at all (a sign-out\'s hand-over), and keeps what the network lost', async () => {
    const store = memoryStore([scan('a', '1', 1), scan('b', '2', 2)]);
    const { api, sent } = fakeApi([{ status: 201, body: { status: 'checked_in' } }, new OfflineError()]);
    await sendItems(api, {}, store);
    assert.deepEqual(sent, ['a', 'b']);
    assert.deepEqual(store.left(), ['b']);
  });

  it('keeps a scan whose request failed on the network, and every one after it', async () => {
    const store = memoryStore([scan('a', '1', 1), scan('b', '2', 2)]);
    const { api, sent } = fakeApi([new OfflineError()]);
    let reachable: boolean | undefined;
    await sendItems(api, { onReachable: (r) => (reachable = r) }, store);
    assert.deepEqual(sent, ['a']);
    assert.equal(reachable, false);
    assert.deepEqual(store.left(), ['a', 'b']);
  });

  it('keeps a scan whose answer was dropped by a sign-out', async () => {
    const store = memoryStore([scan('a', '1', 1)]);
    const { api } = fakeApi([new SignedOutError()]);
    await sendItems(api, {}, store);
    assert.deepEqual(store.left(), ['a']);
  });

  it('keeps a scan answered with no decision (a 403, a 429) and stops there', async () => {
    for (const status of [403, 429]) {
      const store = memoryStore([scan('a', '1', 1), scan('b', '2', 2)]);
      const { api, sent } = fakeApi([{ status, body: {} }]);
      const answers: number[] = [];
      await sendItems(api, { onScanAnswer: (_item, answer) => answers.push(answer.status) }, store);
      assert.deepEqual(sent, ['a'], String(status));
      assert.deepEqual(answers, []);
      assert.deepEqual(store.left(), ['a', 'b']);
    }
  });

  it('drops what was answered before the network went', async () => {
    const store = memoryStore([scan('a', '1', 1), scan('b', '2', 2)]);
    const { api } = fakeApi([{ status: 404, body: { status: 'not_found' } }, new OfflineError()]);
    await sendItems(api, {}, store);
    assert.deepEqual(store.left(), ['b']);
  });
});
