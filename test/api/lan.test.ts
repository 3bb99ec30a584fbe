import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { lanAddresses, LanIdentity, plainHttpGate } from '../../server/lan';
import { ensureAuthority, ensureCertificate, issueCertificate } from '../../server/lan-certificates';
import { TestServer } from '../helpers/server';
import { MSG } from '../../core/messages';
import { SERVE_ENTRY } from '../helpers/built-app';

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

/** A fresh folder for one test's certificate files. */
function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-cert-'));
}

const FINGERPRINT = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

describe('ensureAuthority', () => {
  it('makes the authority beside the database once, 0600, and keeps it', async () => {
    const dir = tempDir();
    try {
      const first = await ensureAuthority(dir);
      assert.match(first.fingerprint, FINGERPRINT);
      const ca = new crypto.X509Certificate(first.cert);
      assert.equal(ca.ca, true);
      assert.equal(ca.fingerprint256, first.fingerprint);
      assert.equal((await ensureAuthority(dir)).fingerprint, first.fingerprint);
      for (const file of ['doorlist-ca.crt', 'doorlist-ca.key']) assert.equal(fs.statSync(path.join(dir, file)).mode & 0o777, 0o600, file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ensureCertificate', () => {
  it('issues the LAN certificate from the authority for every name, and keeps it while it fits', async () => {
    const dir = tempDir();
    try {
      const authority = await ensureAuthority(dir);
      const names = { ips: ['127.0.0.1', '10.213.0.1'], dns: ['localhost'] };
      const first = await ensureCertificate(dir, authority, names);
      const leaf = new crypto.X509Certificate(first.chain);
      assert.equal(leaf.checkIssued(new crypto.X509Certificate(authority.cert)), true);
      assert.equal(leaf.verify(new crypto.X509Certificate(authority.cert).publicKey), true);
      assert.equal(leaf.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:10.213.0.1');
      assert.equal(leaf.fingerprint256, first.fingerprint);
      assert.ok(first.chain.endsWith(`${authority.cert.trim()}\n`), 'the chain ends with the authority');
      for (const file of ['doorlist-https.crt', 'doorlist-https.key']) assert.equal(fs.statSync(path.join(dir, file)).mode & 0o777, 0o600, file);

      assert.equal((await ensureCertificate(dir, authority, { ips: ['10.213.0.1'], dns: [] })).fingerprint, first.fingerprint, 'fewer names still fit');
      const moved = await ensureCertificate(dir, authority, { ips: ['127.0.0.1', '10.213.5.9'], dns: ['localhost'] });
      assert.notEqual(moved.fingerprint, first.fingerprint);
      assert.deepEqual(moved.ips, ['127.0.0.1', '10.213.5.9']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a certificate of another issuer (an earlier self-signed one) or with a key that is not its own', async () => {
    const dir = tempDir();
    try {
      const names = { ips: ['127.0.0.1'], dns: ['localhost'] };
      const other = await ensureAuthority(path.join(dir, 'other'));
      const stale = await issueCertificate(other, names);
      fs.writeFileSync(path.join(dir, 'doorlist-https.crt'), stale.cert, { mode: 0o644 });
      fs.writeFileSync(path.join(dir, 'doorlist-https.key'), stale.key);
      const authority = await ensureAuthority(dir);
      const mine = await ensureCertificate(dir, authority, names);
      assert.equal(new crypto.X509Certificate(mine.chain).checkIssued(new crypto.X509Certificate(authority.cert)), true);

      fs.writeFileSync(path.join(dir, 'doorlist-https.key'), (await issueCertificate(authority, names)).key);
      const again = await ensureCertificate(dir, authority, names);
      assert.notEqual(again.fingerprint, mine.fingerprint);
      assert.equal(new crypto.X509Certificate(again.chain).checkPrivateKey(crypto.createPrivateKey(again.key)), true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LanIdentity', () => {
  it('gives an address that came after the start a new certificate from the same authority', async (t) => {
    const dir = tempDir();
    try {
      const identity = new LanIdentity(path.join(dir, 'doorlist.sqlite'));
      const before = await identity.certificate();
      assert.equal(await identity.certificate(), before, 'the same while no address came');
      const joined: os.NetworkInterfaceInfo = { address: '10.213.77.5', netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal: false, cidr: '10.213.77.5/24' };
      const real = os.networkInterfaces();
      t.mock.method(os, 'networkInterfaces', () => ({ ...real, wlan9: [joined] }));
      const after = await identity.certificate();
      assert.notEqual(after.fingerprint, before.fingerprint);
      assert.ok(after.ips.includes('10.213.77.5'));
      assert.equal(after.chain.endsWith(`${(await identity.authority()).cert.trim()}\n`), true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** GET over HTTPS trusting only `ca` (the laptop's authority). */
function httpsGetTrusting(url: string, ca?: string): Promise<{ status: number; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca }, (res) => {
      const authorized = (res.socket as import('node:tls').TLSSocket).authorized;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, authorized }));
    });
    req.on('error', reject);
  });
}

/** A rebind closes the test's kept-alive connection; fetch may try that socket once before it sees it closed. */
async function getAfterRebind(server: TestServer, pathName: string) {
  return server.get(pathName).catch(() => server.get(pathName));
}

describe('LanShare', () => {
  let server: TestServer;
  before(async () => {
    // The certificates go into the test's folder (with DOORLIST_TEST_PG the database is a URL).
    server = await TestServer.start({ httpsPort: 0 });
  });
  after(() => server.stop());

  it('rebinds to every interface with HTTPS on start and back to loopback only on stop', async () => {
    const share = server.running.lan;
    assert.equal(share.sharing, false);
    const on = await share.start();
    assert.equal((server.running.server.address() as AddressInfo).address, '0.0.0.0');
    assert.equal(on.sharing, true);
    assert.equal(on.httpsUrls.length > 0, true);
    assert.deepEqual(on.httpUrls, [], 'plain HTTP is not offered to other devices');
    assert.deepEqual(on.authorityUrls, lanAddresses().map((ip) => `http://${ip}:${server.running.port}/ca.crt`));
    const httpsPort = Number(new URL(on.httpsUrls[0]).port);
    const answer = await httpsGet(`https://127.0.0.1:${httpsPort}/api/v1/events`);
    assert.equal(answer.status, 401);
    assert.equal(answer.fingerprint, on.certificateFingerprint);
    assert.equal(on.fingerprint, (await share.identity.authority()).fingerprint);
    assert.equal((await getAfterRebind(server, '/events')).status, 200);

    const lan = await server.get('/lan');
    assert.deepEqual(lan.body, {
      sharing: true,
      https_urls: on.httpsUrls,
      http_urls: [],
      authority_urls: on.authorityUrls,
      fingerprint: on.fingerprint,
      certificate_fingerprint: on.certificateFingerprint,
    });

    const off = await share.stop();
    assert.deepEqual(off, { sharing: false, httpUrls: [`http://127.0.0.1:${server.running.port}`], httpsUrls: [], authorityUrls: [], fingerprint: undefined, certificateFingerprint: undefined });
    assert.equal((server.running.server.address() as AddressInfo).address, '127.0.0.1');
    await assert.rejects(httpsGet(`https://127.0.0.1:${httpsPort}/`));
    assert.equal((await getAfterRebind(server, '/events')).status, 200);
  });

  it('GET /api/v1/lan needs a token', async () => {
    assert.equal((await server.request('GET', '/lan', { token: null })).status, 401);
  });
});

describe('GET /ca.crt', () => {
  it('serves the authority without a token, and with it as the only trust HTTPS connects', async () => {
    const server = await TestServer.start({ httpsPort: 0 });
    try {
      const on = await server.running.lan.start();
      const res = await fetch(`http://127.0.0.1:${server.running.port}/ca.crt`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-x509-ca-cert');
      const pem = await res.text();
      assert.equal(new crypto.X509Certificate(pem).fingerprint256, on.fingerprint);
      const httpsPort = Number(new URL(on.httpsUrls[0]).port);
      assert.deepEqual(await httpsGetTrusting(`https://127.0.0.1:${httpsPort}/api/v1/events`, pem), { status: 401, authorized: true });
      // Trusting nothing but Node's own roots, the same connection is refused.
      await assert.rejects(httpsGetTrusting(`https://127.0.0.1:${httpsPort}/api/v1/events`), /self[- ]signed|unable to (get|verify)/i);
    } finally {
      await server.stop();
    }
  });
});

describe('npm run serve with DOORLIST_HOST=0.0.0.0', () => {
  it('prints the HTTPS address, the authority and its fingerprint, and answers over HTTPS', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-lan-'));
    const child = spawn(process.execPath, [SERVE_ENTRY], {
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
      const match = /^Doorlist HTTPS on https:\/\/[\d.]+:(\d+)(?: \S+)* \(authority SHA-256 ([0-9A-F:]{95}), trusted once from (\S+)\)$/.exec(line);
      assert.ok(match, line);
      const answer = await httpsGet(`https://127.0.0.1:${match[1]}/api/v1/events`);
      assert.equal(answer.status, 401);
      const authority = await fetch(match[3]);
      assert.equal(new crypto.X509Certificate(await authority.text()).fingerprint256, match[2]);
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
    httpsPort = server.running.lan.https!.port;
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
