import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { lanAddresses } from '../../server/lan';
import { ADMIN, TestServer } from '../helpers/server';

const FIRST = { username: 'owner', password: 'first run secret' };
// No DOORLIST_ADMIN_*: a freshly installed laptop.
const FRESH = { adminUsername: undefined, adminPassword: undefined };

/** A request from another device: over the LAN address, as a phone on the venue Wi-Fi sends it. */
function fromLan(server: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const url = `${server.running.lan.https!.urls[0]}/api/v1${path}`;
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, rejectUnauthorized: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A loopback request that names another host, as a page served from that name would send it. */
function rawLoopbackPost(port: number, host: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/setup', method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('first run: /setup', () => {
  describe('on a fresh laptop', () => {
    let server: TestServer;
    before(async () => {
      server = await TestServer.start(FRESH);
    });
    after(() => server.stop());

    it('GET answers {needed: true} without a token while no user exists', async () => {
      const res = await server.get('/setup', { token: null });
      assert.deepEqual([res.status, res.body], [200, { needed: true }]);
    });

    it('POST refuses a form post (415), so a web page cannot claim the laptop', async () => {
      const res = await server.request('POST', '/setup', {
        token: null,
        rawBody: 'username=evil&password=evil-password',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual([res.status, res.body], [415, { detail: MSG.jsonOnly }]);
      assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: true });
    });

    it("POST answers the spec's 400 field errors for a blank name or short password, and creates nothing", async () => {
      const res = await server.post('/setup', { username: ' ', password: 'short' }, { token: null });
      assert.deepEqual([res.status, res.body], [400, { username: [MSG.blank], password: [MSG.passwordTooShort(8)] }]);
      assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: true });
    });

    it('POST creates the first administrator and answers 201 {token}; then GET says not needed and POST 409', async () => {
      const res = await server.post('/setup', FIRST, { token: null });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['token']);
      const groups = await server.get('/groups', { token: res.body.token });
      assert.equal(groups.status, 200);
      const signIn = await server.post('/apps/api/auth', FIRST, { token: null });
      assert.equal(signIn.status, 200);
      const admin = await server.db('users').where({ username: FIRST.username }).first();
      assert.equal(Boolean(admin.is_admin), true);
      assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: false });
      const again = await server.post('/setup', { username: 'second', password: 'another secret' }, { token: null });
      assert.deepEqual([again.status, again.body], [409, { detail: MSG.alreadySetUp }]);
    });
  });

  it('two set-ups at once create exactly one administrator', async () => {
    const server = await TestServer.start(FRESH);
    try {
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => server.post('/setup', { username: `racer${i}`, password: 'racing secret' }, { token: null })),
      );
      const statuses = attempts.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409]);
      for (const refused of attempts.filter((r) => r.status === 409)) assert.deepEqual(refused.body, { detail: MSG.alreadySetUp });
      assert.equal(Number((await server.db('users').count({ n: '*' }))[0].n), 1);
      // Across processes the database decides: a second claimed administrator cannot be stored.
      const now = new Date().toISOString();
      await assert.rejects(
        server.db('users').insert({ uid: 'second-claim', created: now, modified: now, username: 'late', password_hash: 'x', is_admin: true, first_run_claim: true }),
        /unique/i,
      );
    } finally {
      await server.stop();
    }
  });

  it('with DOORLIST_ADMIN_* set, set-up is not needed and the administrator signs in', async () => {
    const server = await TestServer.start();
    try {
      assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: false });
      assert.equal((await server.post('/apps/api/auth', ADMIN, { token: null })).status, 200);
      const res = await server.post('/setup', FIRST, { token: null });
      assert.deepEqual([res.status, res.body], [409, { detail: MSG.alreadySetUp }]);
    } finally {
      await server.stop();
    }
  });

  it('refuses set-up from another device on the LAN, or a page on another name, with 403, and creates nothing', { skip: lanAddresses().length === 0 && 'no LAN interface' }, async () => {
    const server = await TestServer.start({ ...FRESH, host: '0.0.0.0', httpsPort: 0 });
    try {
      assert.ok(server.running.lan.https, 'HTTPS for the LAN started');
      const res = await fromLan(server, 'POST', '/setup', FIRST);
      assert.deepEqual([res.status, res.body], [403, { detail: MSG.setupFromLaptopOnly }]);
      assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: true });
      // A web page whose name was pointed at 127.0.0.1 (DNS rebinding) sends its own name as Host.
      const rebound = await rawLoopbackPost(server.running.port, 'doorlist.evil.example', FIRST);
      assert.deepEqual([rebound.status, rebound.body], [403, { detail: MSG.setupFromLaptopOnly }]);
      assert.equal((await server.post('/setup', FIRST, { token: null })).status, 201);
    } finally {
      await server.stop();
    }
  });
});
