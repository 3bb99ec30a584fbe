import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ensureCertificate, lanAddresses, LanShare, plainHttpGate } from '../../server/lan';
import { TestServer } from '../helpers/server';
import { MSG } from '../../core/messages';

const ROOT = path.resolve(__dirname, '..', '..');

/** GET over HTTPS accepting the self-signed certificate; answers the status, headers and the certificate's fingerprint. */
function httpsGet(url: string): Promise<{ status: number; fingerprint: string; headers: import('node:http').IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { rejectUnauthorized: false }, (res) => {
      const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint, headers: res.headers }));
    });
    req.on('error', reject);
  });
}

describe('ensureCertificate', () => {
  it('makes the certificate beside the database once and keeps it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-cert-'));
    try {
      const first = await ensureCertificate(path.join(dir, 'data', 'doorlist.sqlite'));
      assert.equal(first.certPath, path.join(dir, 'data', 'doorlist-https.crt'));
      assert.ok(fs.existsSync(path.join(dir, 'data', 'doorlist-https.key')));
      assert.match(first.fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      const second = await ensureCertificate(path.join(dir, 'data', 'doorlist.sqlite'));
      assert.equal(second.fingerprint, first.fingerprint);
      for (const file of ['doorlist-https.crt', 'doorlist-https.key']) assert.equal(fs.statSync(path.join(dir, 'data', file)).mode & 0o777, 0o600, file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LanShare', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('rebinds to every interface with HTTPS on start and back to loopback only on stop', async () => {
    // The certificate goes into the test's folder (with DOORLIST_TEST_PG the database is a URL).
    const share = new LanShare(server.running, { dbPath: path.join(server.dir, 'doorlist.sqlite'), httpsPort: 0 });
    assert.equal(share.sharing, false);
    const on = await share.start();
    assert.equal((server.running.server.address() as AddressInfo).address, '0.0.0.0');
    assert.equal(on.sharing, true);
    assert.equal(on.httpsUrls.length > 0, true);
    assert.deepEqual(on.httpUrls, [], 'plain HTTP is not offered to other devices');
    const httpsPort = Number(new URL(on.httpsUrls[0]).port);
    const answer = await httpsGet(`https://127.0.0.1:${httpsPort}/api/v1/events`);
    assert.equal(answer.status, 401);
    assert.equal(answer.fingerprint, on.fingerprint);
    assert.equal((await server.get('/events')).status, 200);

    const off = await share.stop();
    assert.deepEqual(off, { sharing: false, httpUrls: [`http://127.0.0.1:${server.running.port}`], httpsUrls: [], fingerprint: undefined });
    assert.equal((server.running.server.address() as AddressInfo).address, '127.0.0.1');
    await assert.rejects(httpsGet(`https://127.0.0.1:${httpsPort}/`));
    assert.equal((await server.get('/events')).status, 200);
  });
});

describe('npm run serve with DOORLIST_HOST=0.0.0.0', () => {
  it('prints the HTTPS address and fingerprint and answers over HTTPS', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-lan-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/serve.ts'], {
      cwd: ROOT,
      env: { ...process.env, DOORLIST_DB: path.join(dir, 'doorlist.sqlite'), DOORLIST_HOST: '0.0.0.0', DOORLIST_PORT: '0', DOORLIST_HTTPS_PORT: '0', DOORLIST_LOG_LEVEL: 'silent' },
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const found = out.split('\n').find((l) => l.startsWith('Doorlist HTTPS on '));
          if (found) resolve(found);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const match = /^Doorlist HTTPS on https:\/\/[\d.]+:(\d+)(?: \S+)* \(certificate SHA-256 ([0-9A-F:]{95})\)$/.exec(line);
      assert.ok(match, line);
      const answer = await httpsGet(`https://127.0.0.1:${match[1]}/api/v1/events`);
      assert.equal(answer.status, 401);
      assert.equal(answer.fingerprint, match[2]);
      assert.ok(fs.existsSync(path.join(dir, 'doorlist-https.crt')));
    } finally {
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** This machine's own address on a network, so a request to it does not come from loopback. */
const LAN_ADDRESS = lanAddresses()[0];

describe('plain HTTP while sharing on the LAN (a real server bound to every interface)', { skip: !LAN_ADDRESS && 'no non-loopback address on this machine' }, () => {
  let server: TestServer;
  let httpsPort: number;
  let plain: string;
  before(async () => {
    server = await TestServer.start({ host: '0.0.0.0', httpsPort: 0 });
    httpsPort = server.running.https!.port;
    plain = `http://${LAN_ADDRESS}:${server.running.port}`;
  });
  after(() => server.stop());

  it('redirects a LAN page request to the same page over HTTPS', async () => {
    const res = await fetch(`${plain}/events/7?x=1`, { redirect: 'manual' });
    assert.equal(res.status, 308);
    assert.equal(res.headers.get('location'), `https://${LAN_ADDRESS}:${httpsPort}/events/7?x=1`);
  });

  it('refuses a LAN API call over HTTP with 403 and the HTTPS address, token or not', async () => {
    for (const token of [server.adminToken, undefined]) {
      const res = await fetch(`${plain}/api/v1/events`, { headers: token ? { authorization: `Token ${token}` } : {} });
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { detail: MSG.plainHttpRefused(`https://${LAN_ADDRESS}:${httpsPort}/api/v1/events`) });
    }
    const post = await fetch(`${plain}/api/v1/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(post.status, 403);
  });

  it('keeps plain HTTP for this machine itself', async () => {
    assert.equal((await server.get('/events')).status, 200);
  });

  it('answers over HTTPS from the LAN with HSTS and the security headers', async () => {
    const answer = await httpsGet(`https://${LAN_ADDRESS}:${httpsPort}/api/v1/events`);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.equal(answer.headers['cache-control'], 'no-store');
  });
});

describe('DOORLIST_LAN_HTTP=1', { skip: !LAN_ADDRESS && 'no non-loopback address on this machine' }, () => {
  it('lets old clients use plain HTTP from the LAN', async () => {
    const server = await TestServer.start({ host: '0.0.0.0', httpsPort: 0, lanHttp: true });
    try {
      const res = await fetch(`http://${LAN_ADDRESS}:${server.running.port}/api/v1/events`, { headers: { authorization: `Token ${server.adminToken}` } });
      assert.equal(res.status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('plainHttpGate', () => {
  /** A request as the gate sees it, from `remoteAddress`. */
  function call(gate: ReturnType<typeof plainHttpGate>, remoteAddress: string, url: string, method = 'GET') {
    const answer: { status?: number; headers?: Record<string, string>; body?: string; passed: boolean } = { passed: false };
    const req = { url, method, headers: { host: 'door.lan:8787' }, socket: { remoteAddress } };
    const res = {
      writeHead: (status: number, headers: Record<string, string>) => Object.assign(answer, { status, headers }),
      end: (body?: string) => (answer.body = body),
    };
    gate(req as never, res as never);
    return answer;
  }
  const passThrough = (gate: { passed: boolean }) => () => (gate.passed = true);

  it('passes loopback (IPv4, IPv6, mapped) and refuses or redirects every other address', () => {
    const seen = { passed: false };
    const gate = plainHttpGate(passThrough(seen), { allowLan: false, httpsPort: 8788 });
    for (const local of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      seen.passed = false;
      call(gate, local, '/api/v1/events');
      assert.equal(seen.passed, true, local);
    }
    seen.passed = false;
    assert.equal(call(gate, '::ffff:192.168.1.9', '/').status, 308);
    assert.equal(call(gate, '10.0.0.5', '/').headers?.Location, 'https://door.lan:8788/');
    assert.equal(call(gate, '10.0.0.5', '/api/v1/events').status, 403);
    assert.equal(seen.passed, false);
  });

  it('refuses LAN pages too while HTTPS is not running', () => {
    const answer = call(plainHttpGate(() => undefined, { allowLan: false }), '10.0.0.5', '/');
    assert.equal(answer.status, 403);
    assert.deepEqual(JSON.parse(answer.body!), { detail: MSG.plainHttpNoHttps });
  });
});
