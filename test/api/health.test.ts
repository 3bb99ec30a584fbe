import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';

describe('GET /api/v1/openapi.json', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('describes the API with paths under /api/v1', async () => {
    const res = await server.get('/openapi.json', { token: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.0.3');
    assert.ok(res.body.paths['/events/{event_id}/duplicate_event'].post);
  });
});
