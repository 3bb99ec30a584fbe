import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ensureCertificate, LanShare } from '../../server/lan';
import { TestServer } from '../helpers/server';

const ROOT = path.resolve(__dirname, '..', '..');

/** GET over HTTPS accepting the self-signed certificate; answers the status and the certificate's fingerprint. */
function httpsGet(url: string): Promise<{ status: number; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { rejectUnauthorized: false }, (res) => {
      const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint }));
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
