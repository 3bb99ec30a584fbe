import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { lanAddresses } from '../../server/lan';
import { runServe } from '../helpers/server-process';
import { TestServer } from '../helpers/server';

const FIRST = { username: 'owner', password: 'first run secret' };
// No DOORLIST_ADMIN_*: a freshly installed laptop.
const FRESH = { adminUsername: undefined, adminPassword: undefined };
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
