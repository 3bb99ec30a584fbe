import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from '../../server/schemas/zod';
import { replyDrift } from '../../server/http/reply-check';
import { loadConfig } from '../../server/config';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { DECLARED_REPLIES, errorDrift } from '../../server/http/reply-check';
import { errorHandler } from '../../server/http/error-handler';
import { HttpError } from '../../server/http/errors';
import { DetailResponse, FieldErrorsResponse } from '../../server/schemas/fields';

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

describe('the error handler holds an error answer to its route\'s declaration (test servers)', () => {
  const declared = { route: 'PUT /things/{id}', responses: { 200: json(Guest), 400: json(FieldErrorsResponse), 404: json(DetailResponse) } };

  it('finds nothing in an error in the declared shape, and skips a 500 (a fault whatever its body)', () => {
    assert.deepEqual(errorDrift(declared, 400, { name: ['This field is required.'] }), []);
    assert.deepEqual(errorDrift(declared, 404, { detail: 'Not found.' }), []);
    assert.deepEqual(errorDrift(declared, 500, { anything: 1 }), []);
    assert.deepEqual(errorDrift(undefined, 418, { anything: 1 }), []);
  });

  it('names an error status not declared and an error body off its schema', () => {
    assert.deepEqual(errorDrift(declared, 409, { detail: 'x' }), ['status 409 is not declared']);
    assert.deepEqual(errorDrift(declared, 404, { details: 'Not found.' }), ['detail: Invalid input: expected string, received undefined']);
  });

  it('answers 500 with the drift in place of an off-schema error, where a route declared its answers', async () => {
    const app = express();
    app.get('/declared', (_req, res) => {
      res.locals[DECLARED_REPLIES] = declared;
      throw new HttpError(404, { details: 'Not found.' });
    });
    app.get('/undeclared', () => {
      throw new HttpError(404, { details: 'Not found.' });
    });
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const original = console.error;
    console.error = () => undefined;
    try {
      const checked = await fetch(`${base}/declared`);
      assert.equal(checked.status, 500);
      assert.deepEqual((await checked.json()).drift, errorDrift(declared, 404, { details: 'Not found.' }));
      const unchecked = await fetch(`${base}/undeclared`);
      assert.deepEqual([unchecked.status, await unchecked.json()], [404, { details: 'Not found.' }]);
    } finally {
      console.error = original;
      server.close();
    }
  });
});
