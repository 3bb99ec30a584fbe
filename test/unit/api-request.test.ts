import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { apiRequest, OfflineError, SessionExpiredError } from '../../renderer/src/api';

// How the browser's one request function reads an answer: what comes back whole is the
// caller's to read; what never arrives whole is "offline", never an empty answer.

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

function answering(status: number, body: ReadableStream | string, type = 'application/json') {
  globalThis.fetch = async () => new Response(body, { status, headers: { 'content-type': type } });
}

/** A body whose reading fails part-way, as when the request's timeout fires after the status arrived. */
function cutOff(): ReadableStream {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"uid":'));
      controller.error(new DOMException('The operation was aborted.', 'AbortError'));
    },
  });
}

describe('apiRequest', () => {
  it('answers the status and the parsed body of an answer that arrived whole', async () => {
    answering(201, '{"uid":"u-1"}');
    assert.deepEqual(await apiRequest('t', 'POST', '/events/1/checkins', {}), { status: 201, body: { uid: 'u-1' } });
  });

  it('throws OfflineError for an answer cut off after its status, whatever the status', async () => {
    for (const status of [201, 200, 409, 404]) {
      answering(status, cutOff());
      await assert.rejects(apiRequest('t', 'POST', '/events/1/checkins', {}), OfflineError, String(status));
    }
  });

  it('throws OfflineError for no answer and for a 5xx, SessionExpiredError for a 401', async () => {
    globalThis.fetch = async () => {
      throw new TypeError('fetch failed');
    };
    await assert.rejects(apiRequest('t', 'GET', '/me'), OfflineError);
    answering(503, '{"detail":"busy"}');
    await assert.rejects(apiRequest('t', 'GET', '/me'), OfflineError);
    answering(401, '{"detail":"Invalid token."}');
    await assert.rejects(apiRequest('t', 'GET', '/me'), (err: unknown) => err instanceof SessionExpiredError && err.message === 'Invalid token.');
  });
});
