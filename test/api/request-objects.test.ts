import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LanIdentity, startHttps } from '../../server/lan';
import { TestServer } from '../helpers/server';

// A request re-parented by Express (Object.setPrototypeOf) or given a getter of its own got a
// shape of its own, and V8 kept all it touched past the young generation (README "Object shapes").
describe('POST /groups, GET /groups/:id, GET /events over HTTPS: request and response objects', () => {
  it('are built with the app’s own prototypes, keep them through Express, and carry no getter of their own', async () => {
    const server = await TestServer.start();
    const seen: { req: IncomingMessage; res: ServerResponse; reqPrototype: object; resPrototype: object }[] = [];
    server.running.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ req, res, reqPrototype: Object.getPrototypeOf(req), resPrototype: Object.getPrototypeOf(res) });
    });
    try {
      const group = await server.request('POST', '/groups', { body: { name: 'Shapes' } });
      assert.equal(group.status, 201);
      assert.equal((await server.request('GET', `/groups/${group.body.id}`)).status, 200);
      assert.equal((await server.request('GET', '/groups/999999')).status, 404);
      assert.equal((await server.request('POST', '/groups', { rawBody: '{"name": ' })).status, 400);
      assert.equal(seen.length, 4);
      for (const { req, res, reqPrototype, resPrototype } of seen) {
        // Express's own request and response methods are there before Express sees them...
        assert.equal(typeof (reqPrototype as { get?: unknown }).get, 'function');
        assert.equal(typeof (resPrototype as { json?: unknown }).json, 'function');
        // ...and Express set the same prototypes again.
        assert.equal(Object.getPrototypeOf(req), reqPrototype);
        assert.equal(Object.getPrototypeOf(res), resPrototype);
        for (const object of [req, res]) {
          const getters = Object.entries(Object.getOwnPropertyDescriptors(object)).filter(([, d]) => d.get !== undefined || d.set !== undefined);
          assert.deepEqual(getters.map(([name]) => name), []);
        }
      }
    } finally {
      await server.stop();
    }
  });

  it('over the LAN’s HTTPS too, as over plain HTTP', async () => {
    const server = await TestServer.start();
    const prototypes: object[] = [];
    server.running.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => prototypes.push(Object.getPrototypeOf(req), Object.getPrototypeOf(res)));
    const { running } = server;
    // The certificate goes into the test's folder (with DOORLIST_TEST_PG the database is a URL).
    const secure = await startHttps(
      (req, res) => {
        prototypes.push(Object.getPrototypeOf(req), Object.getPrototypeOf(res));
        running.app(req, res);
      },
      running.messageClasses,
      { identity: new LanIdentity(path.join(server.dir, 'doorlist.sqlite')), host: '127.0.0.1', port: 0 },
    );
    try {
      assert.equal((await server.request('GET', '/events')).status, 200);
      const status = await new Promise<number>((resolve, reject) => {
        const req = https.get(`https://127.0.0.1:${secure.port}/api/v1/events`, { rejectUnauthorized: false, headers: { authorization: `Token ${server.adminToken}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      });
      assert.equal(status, 200);
      const [httpRequest, httpResponse, httpsRequest, httpsResponse] = prototypes;
      assert.equal(typeof (httpRequest as { get?: unknown }).get, 'function');
      assert.equal(httpsRequest, httpRequest);
      assert.equal(httpsResponse, httpResponse);
    } finally {
      await secure.close();
      await server.stop();
    }
  });
});
