import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { MSG } from '../../core/messages';
import { lanAddresses } from '../../server/lan';
import { ADMIN, TestServer } from '../helpers/server';
import { runServe } from '../helpers/server-process';

/** POST /setup, the first run: on the laptop itself, from the LAN, and behind a reverse proxy. */

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

const LAN = lanAddresses()[0];
const noLan = LAN === undefined && 'no LAN interface to be a remote client from';

interface Answer {
  status: number;
  body: any;
}

/**
 * A reverse proxy on this machine, as nginx is usually set up in front of a central server:
 * it listens on `host`, passes Host on as the client sent it and appends the client's address
 * to X-Forwarded-For.
 */
async function reverseProxy(target: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const proxy = http.createServer((req, res) => {
    const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: { ...req.headers, 'x-forwarded-for': forwarded } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, host, resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** POST /api/v1/setup to `host:port` (from `localAddress` when given) with these headers. */
function postSetup(host: string, port: number, headers: Record<string, string>, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, localAddress, path: '/api/v1/setup', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(FIRST));
  });
}

const refused = (answer: Answer) => assert.deepEqual([answer.status, answer.body], [403, { detail: MSG.setupFromLaptopOnly }]);

describe('POST /setup behind a reverse proxy with DOORLIST_TRUST_PROXY=loopback', { skip: noLan }, () => {
  let server: TestServer;
  let proxyOnLan: Awaited<ReturnType<typeof reverseProxy>>;
  let proxyOnLoopback: Awaited<ReturnType<typeof reverseProxy>>;
  before(async () => {
    server = await TestServer.start({ ...FRESH, trustProxy: 'loopback' });
    proxyOnLan = await reverseProxy(server.running.port, LAN!);
    proxyOnLoopback = await reverseProxy(server.running.port, '127.0.0.1');
  });
  after(async () => {
    await proxyOnLan?.close();
    await proxyOnLoopback?.close();
    await server?.stop();
  });

  it('answers 403 to a remote client sending Host: localhost, whatever X-Forwarded-For it writes', async () => {
    refused(await postSetup(LAN!, proxyOnLan.port, { host: 'localhost' }));
    refused(await postSetup(LAN!, proxyOnLan.port, { host: '127.0.0.1', 'x-forwarded-for': '127.0.0.1' }));
    assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: true });
  });

  it('answers 201 to a client on this machine through the same proxy: its forwarded address decides', async () => {
    const answer = await postSetup('127.0.0.1', proxyOnLoopback.port, { host: 'localhost' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['token']);
  });
});

describe('POST /setup without a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start(FRESH);
  });
  after(() => server?.stop());

  it('answers 403 to a client relayed by a proxy on this machine (it sent X-Forwarded-For)', { skip: noLan }, async () => {
    const proxy = await reverseProxy(server.running.port, LAN!);
    try {
      refused(await postSetup(LAN!, proxy.port, { host: 'localhost' }));
    } finally {
      await proxy.close();
    }
  });

  it('answers 403 to a loopback request naming any host that is not a literal loopback (DNS rebinding)', async () => {
    for (const host of ['127.0.0.1.nip.io', '127.evil.example', 'localhost.evil.example', 'doorlist.evil.example', `evil.example:${server.running.port}`]) {
      refused(await postSetup('127.0.0.1', server.running.port, { host }));
    }
    refused(await postSetup('127.0.0.1', server.running.port, { host: 'localhost', forwarded: 'for=127.0.0.1' }));
    assert.deepEqual((await server.get('/setup', { token: null })).body, { needed: true });
  });

  it('answers 201 to a loopback request naming a literal loopback host', async () => {
    const answer = await postSetup('127.0.0.1', server.running.port, { host: `[::1]:${server.running.port}` });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  });
});

describe('DOORLIST_TRUST_PROXY as a number of hops', () => {
  it('is refused at start with one line on stderr and a non-zero exit', async () => {
    const run = await runServe({ DOORLIST_TRUST_PROXY: '1', DOORLIST_DB: ':memory:', DOORLIST_PORT: '0' });
    assert.notEqual(run.code, 0);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^Doorlist could not start: Invalid Doorlist configuration: trustProxy: a number of proxy hops lets a client that reaches this port directly choose its own address; name the proxies instead: loopback, their addresses or CIDR ranges, comma-separated\n$/);
  });
});
