import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../server/config';
import { startServer } from '../../server/start';
import { ADMIN } from '../helpers/server';

describe('request log', () => {
  it('never writes the Authorization token: request lines, refusals and 500 error lines alike', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-log-'));
    let written = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written += chunk;
        done();
      },
    });
    const config = loadConfig({}, [], { db: path.join(dir, 'doorlist.sqlite'), port: 0, adminUsername: ADMIN.username, adminPassword: ADMIN.password, logLevel: 'info' });
    const running = await startServer(config, { logger: pino({ level: 'info' }, sink), announce: false });
    const api = `${running.url}/api/v1`;
    try {
      const login = await fetch(`${api}/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
      const { token } = (await login.json()) as { token: string };
      const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
      assert.equal((await fetch(`${api}/events`, { headers })).status, 200);
      assert.equal((await fetch(`${api}/events/999/checkins`, { method: 'POST', headers, body: '{"barcode": "X"}' })).status, 404);
      assert.equal((await fetch(`${api}/events`, { headers: { authorization: 'Token not-a-real-token' } })).status, 401);
      // A database gone from under the server: the 500's error line carries the request too.
      await running.db.destroy();
      assert.equal((await fetch(`${api}/events/1/checkins`, { method: 'POST', headers, body: '{"barcode": "X"}' })).status, 500);

      const lines = written.trim().split('\n').map((line) => JSON.parse(line));
      assert.ok(lines.some((line) => line.msg === 'request failed' && line.err), 'the 500 is logged');
      assert.ok(lines.filter((line) => line.req?.headers).length >= 4, 'every request is logged with its headers');
      for (const line of lines.filter((l) => l.req?.headers?.authorization !== undefined)) assert.equal(line.req.headers.authorization, '[Redacted]');
      assert.ok(!written.includes(token), 'the token appears nowhere in the log');
      assert.ok(!written.includes('not-a-real-token'));
      assert.ok(!written.includes(ADMIN.password));
    } finally {
      await running.close().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
