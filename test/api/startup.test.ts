import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import pino from 'pino';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';
import { writeDamagedDatabase } from '../helpers/damaged-database';

// Every scrypt the server runs, counted: server/secrets.ts takes node:crypto's scrypt when it
// is loaded, so the server's modules are loaded after this.
const scrypt = mock.method(crypto, 'scrypt');
/* eslint-disable @typescript-eslint/no-require-imports */
const { startServer } = require('../../server/start') as typeof import('../../server/start');
const { loadConfig } = require('../../server/config') as typeof import('../../server/config');
const { MSG } = require('../../core/messages') as typeof import('../../core/messages');
/* eslint-enable @typescript-eslint/no-require-imports */

const USERNAME = 'boss';

/** A server on `db`; with `password`, DOORLIST_ADMIN_USERNAME/PASSWORD name its administrator. */
async function start(db: string, password?: string) {
  const admin = password === undefined ? {} : { adminUsername: USERNAME, adminPassword: password };
  const config = loadConfig({}, [], { db, port: 0, logLevel: 'silent', ...admin });
  return startServer(config, { logger: pino({ level: 'silent' }), announce: false });
}

async function signIn(url: string, password: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: USERNAME, password }) });
  await res.arrayBuffer();
  return res.status;
}

async function storedHash(running: Awaited<ReturnType<typeof start>>): Promise<string> {
  const row = await running.db('users').where({ username: USERNAME }).first('password_hash');
  return row.password_hash;
}

describe('start-up on an existing database', () => {
  let dir: string;
  let database: TestDatabase;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-startup-'));
    database = await createTestDatabase(dir);
    const first = await start(database.setting, 'first-password');
    await first.close();
  });
  after(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs no scrypt for an unchanged administrator password; the first sign-in compares it once', async () => {
    scrypt.mock.resetCalls();
    const running = await start(database.setting, 'first-password');
    try {
      const before = await storedHash(running);
      assert.equal(scrypt.mock.callCount(), 0);
      assert.equal(await signIn(running.url, 'first-password'), 200);
      // The environment's password against the stored hash, then the sign-in's own check.
      assert.equal(scrypt.mock.callCount(), 2);
      assert.equal(await signIn(running.url, 'first-password'), 200);
      assert.equal(scrypt.mock.callCount(), 3);
      assert.equal(await storedHash(running), before, 'not hashed again');
    } finally {
      await running.close();
    }
  });

  it('a changed password takes effect at the first sign-in: the new one works, the old one no longer', async () => {
    scrypt.mock.resetCalls();
    const running = await start(database.setting, 'second-password');
    try {
      const before = await storedHash(running);
      assert.equal(scrypt.mock.callCount(), 0);
      const [oldPassword, newPassword] = await Promise.all([signIn(running.url, 'first-password'), signIn(running.url, 'second-password')]);
      assert.deepEqual([oldPassword, newPassword], [400, 200]);
      assert.notEqual(await storedHash(running), before);
    } finally {
      await running.close();
    }
  });

  it('still serves the OpenAPI document, made on its first request', async () => {
    const running = await start(database.setting, 'second-password');
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${running.url}/api/v1/openapi.json`);
        assert.equal(res.status, 200);
        const document = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
        assert.equal(document.openapi, '3.0.3');
        assert.ok(document.paths['/apps/api/auth']);
      }
    } finally {
      await running.close();
    }
  });
});

describe('start-up on a damaged database', { skip: TEST_PG ? 'SQLite files only' : false }, () => {
  it('listens before the page check answers, holds requests until it does, then answers 503 and rejects `checked`', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-startup-damaged-'));
    const file = path.join(dir, 'damaged.sqlite');
    try {
      await writeDamagedDatabase(file);

      const running = await start(file);
      try {
        const res = await fetch(`${running.url}/api/v1/setup`);
        assert.equal(res.status, 503);
        const body = (await res.json()) as { detail: string };
        assert.ok(body.detail.startsWith(MSG.databaseDamaged(file, '').split('()')[0]), body.detail);
        await assert.rejects(running.checked, (err: Error) => err.message === body.detail);
      } finally {
        await running.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
