import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from '../../server/schemas/zod';
import { replyDrift } from '../../server/http/reply-check';
import { loadConfig } from '../../server/config';

const Guest = z.object({ id: z.number().int(), name: z.string(), notes: z.string().nullable().optional() });
const json = (schema: z.ZodType) => ({ description: 'ok', content: { 'application/json': { schema } } });
const responses = { 200: json(z.object({ count: z.number().int(), results: z.array(Guest) })), 201: json(Guest), 204: 'Deleted' };

describe('replyDrift: an answer against the responses its route declares', () => {
  it('finds nothing in an answer as documented, whether an object or JSON text built by the database', () => {
    assert.deepEqual(replyDrift(responses, 201, { id: 1, name: 'Ada', notes: null }), []);
    assert.deepEqual(replyDrift(responses, 200, Buffer.from('{"count":1,"results":[{"id":1,"name":"Ada"}]}')), []);
    assert.deepEqual(replyDrift(responses, 204, undefined), []);
  });

  it('names a field answered but not documented, once for every item of a list', () => {
    assert.deepEqual(replyDrift(responses, 201, { id: 1, name: 'Ada', attention: true }), ['attention: answered but not in the schema']);
    const list = { count: 2, results: [{ id: 1, name: 'A', attention: true }, { id: 2, name: 'B', attention: false }] };
    assert.deepEqual(replyDrift(responses, 200, list), ['results.*.attention: answered but not in the schema']);
  });

  it('names a field of the wrong type or missing', () => {
    const drift = replyDrift(responses, 201, { id: '1' });
    assert.equal(drift.length, 2);
    assert.match(drift[0], /^id: /);
    assert.match(drift[1], /^name: /);
  });

  it('refuses a status the route does not declare, and a body where it declares none', () => {
    assert.deepEqual(replyDrift(responses, 202, { id: 1 }), ['status 202 is not declared']);
    assert.deepEqual(replyDrift(responses, 204, { id: 1 }), ['status 204 declares no JSON body but one was sent']);
    assert.deepEqual(replyDrift(responses, 201, undefined), ['status 201 declares a body but none was sent']);
  });

  it('runs only where DOORLIST_CHECK_REPLIES asks for it', () => {
    assert.equal(loadConfig({}, []).checkReplies, false);
    assert.equal(loadConfig({ DOORLIST_CHECK_REPLIES: '1' }, []).checkReplies, true);
  });
});
