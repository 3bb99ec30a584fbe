import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes, scryptSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createApiKey, createGroup } from '../helpers/fixtures';
import { ADMIN, TestServer } from '../helpers/server';

describe('POST /apps/api/auth', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('answers 200 with a token that authorises requests', async () => {
    const res = await server.post('/apps/api/auth', ADMIN, { token: null });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['token']);
    assert.ok(res.body.token.length >= 32);
    const groups = await server.get('/groups', { token: res.body.token });
    assert.equal(groups.status, 200);
  });

  it('answers 400 with an empty object for a wrong password', async () => {
    const res = await server.post('/apps/api/auth', { username: ADMIN.username, password: 'nope' }, { token: null });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {});
  });

  it('answers 400 with an empty object for an unknown user or missing fields', async () => {
    for (const body of [{ username: 'ghost', password: 'x' }, { username: ADMIN.username }, {}]) {
      const res = await server.post('/apps/api/auth', body, { token: null });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {});
    }
  });

  it('stores tokens only as hashes', async () => {
    const res = await server.post('/apps/api/auth', ADMIN, { token: null });
    const stored = await server.db('tokens').pluck('token_hash');
    assert.ok(!stored.includes(res.body.token));
    const users = await server.db('users').first('password_hash');
    assert.match(users.password_hash, /^scrypt\$/);
  });

  it("stores a password hashed at an older cost again at today's at sign-in; its tokens keep working", async () => {
    const salt = randomBytes(16);
    const hash = scryptSync(ADMIN.password, salt, 64, { N: 16384, r: 8, p: 1 });
    const older = ['scrypt', 16384, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
    await server.db('users').where({ username: ADMIN.username }).update({ password_hash: older });
    const before = await server.db('users').where({ username: ADMIN.username }).first('modified');
    const res = await server.post('/apps/api/auth', ADMIN, { token: null });
    assert.equal(res.status, 200);
    const stored = await server.db('users').where({ username: ADMIN.username }).first('password_hash', 'modified');
    assert.match(stored.password_hash, /^scrypt\$32768\$8\$1\$/);
    assert.equal(stored.modified, before.modified);
    assert.equal((await server.get('/groups')).status, 200);
    assert.equal((await server.post('/apps/api/auth', ADMIN, { token: null })).status, 200);
    assert.equal((await server.post('/apps/api/auth', { ...ADMIN, password: 'nope' }, { token: null })).status, 400);
  });
});

describe('Authorization header', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('answers 401 with the exact session-expired body without a header, with a bad key or another scheme', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Token nope' }, { authorization: `Bearer ${server.adminToken}` }, { authorization: 'Token' }];
    for (const headers of attempts) {
      const res = await server.request('GET', '/groups', { token: null, headers });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { detail: MSG.sessionExpired });
    }
  });

  it('accepts any run of spaces between Token and the key', async () => {
    const res = await server.request('GET', '/groups', { token: null, headers: { authorization: `Token     ${server.adminToken}` } });
    assert.equal(res.status, 200);
  });

  it('works with and without a trailing slash', async () => {
    assert.equal((await server.get('/groups/')).status, 200);
    assert.equal((await server.get('/groups')).status, 200);
  });
});

describe('POST /apps/api/auth rate limit', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('does not count malformed or incomplete sign-ins as guesses: 400 {} each time, and the right password still works', async () => {
    const junk: Array<{ body?: unknown; rawBody?: string }> = [{ body: {} }, { body: { username: 'admin' } }, { body: { username: ['admin'], password: 'x' } }, { rawBody: 'null' }, { rawBody: '{"username":' }, { rawBody: '[]' }];
    for (let i = 0; i < 30; i++) {
      const attempt = junk[i % junk.length];
      const res = await server.request('POST', '/apps/api/auth', { ...attempt, token: null, headers: attempt.rawBody ? { 'content-type': 'application/json' } : {} });
      assert.equal(res.status, 400, JSON.stringify(attempt));
    }
    assert.deepEqual((await server.post('/apps/api/auth', {}, { token: null })).body, {});
    const ok = await server.post('/apps/api/auth', ADMIN, { token: null });
    assert.equal(ok.status, 200);
    assert.equal(typeof ok.body.token, 'string');
  });

  it('answers 429 after repeated failed attempts, while other routes keep working', async () => {
    let last = 0;
    for (let i = 0; i < 25; i++) {
      last = (await server.post('/apps/api/auth', { username: 'admin', password: `guess-${i}` }, { token: null })).status;
    }
    assert.equal(last, 429);
    const groupId = await createGroup(server);
    const key = await createApiKey(server, groupId);
    assert.equal((await server.get('/groups', { token: key })).status, 200);
  });
});

describe('POST /apps/api/auth takes JSON only', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('answers a form post 415 without trying the password, so a web page cannot lock the sign-in', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await server.request('POST', '/apps/api/auth', {
        token: null,
        rawBody: `username=admin&password=guess-${i}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual([res.status, res.body], [415, { detail: MSG.jsonOnly }]);
    }
    const plain = await server.request('POST', '/apps/api/auth', { token: null, rawBody: JSON.stringify(ADMIN), headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([plain.status, plain.body], [415, { detail: MSG.jsonOnly }]);
    assert.equal((await server.post('/apps/api/auth', ADMIN, { token: null })).status, 200);
  });
});

describe('sign-in timing', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  /** Median time of `n` failed sign-ins, in ms. */
  async function medianFailure(username: string, n = 9): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const res = await server.post('/apps/api/auth', { username, password: `wrong-${i}` }, { token: null });
      times.push(performance.now() - started);
      assert.equal(res.status, 400);
    }
    return times.sort((a, b) => a - b)[Math.floor(n / 2)];
  }

  it('costs an unknown username the same scrypt as a known one (medians within 2x)', async () => {
    await medianFailure('nobody-here', 2);
    const known = await medianFailure(ADMIN.username);
    const unknown = await medianFailure('nobody-here');
    const ratio = Math.max(known, unknown) / Math.min(known, unknown);
    assert.ok(ratio < 2, `known ${known.toFixed(1)} ms, unknown ${unknown.toFixed(1)} ms`);
  });
});

describe('POST /apps/api/auth/logout', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('answers 204 and the token it carries stops working at once; other tokens keep working', async () => {
    const token = (await server.post('/apps/api/auth', ADMIN, { token: null })).body.token;
    assert.equal((await server.get('/groups', { token })).status, 200);
    const res = await server.post('/apps/api/auth/logout/', undefined, { token });
    assert.deepEqual([res.status, res.body], [204, '']);
    const after = await server.get('/groups', { token });
    assert.deepEqual([after.status, after.body], [401, { detail: MSG.sessionExpired }]);
    assert.equal((await server.post('/apps/api/auth/logout', undefined, { token })).status, 401);
    assert.equal((await server.get('/groups')).status, 200);
  });

  it('answers 403 to an API key, which only a manager revokes', async () => {
    const key = await createApiKey(server, await createGroup(server));
    const res = await server.post('/apps/api/auth/logout', undefined, { token: key });
    assert.deepEqual([res.status, res.body], [403, { detail: MSG.keyCannotSignOut }]);
    assert.equal((await server.get('/groups', { token: key })).status, 200);
  });
});

describe('the auth cache under 20,000 spellings of one key', () => {
  /** The n-th spelling of `Token <key>`: a different run of spaces and tabs, same key. */
  const spelling = (n: number, key: string) => `Token ${n.toString(2).replace(/0/g, ' ').replace(/1/g, '\t')} ${key}${' '.repeat(n % 7)}`;

  const rssMb = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;

  it("answers every one and the server's memory stays flat (read from /proc)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-spellings-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/serve.ts', '--port', '0'], {
      cwd: path.resolve(__dirname, '..', '..'),
      env: { ...process.env, DOORLIST_DB: path.join(dir, 'db.sqlite'), DOORLIST_ADMIN_USERNAME: ADMIN.username, DOORLIST_ADMIN_PASSWORD: ADMIN.password, DOORLIST_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (line: string) => {
          const match = /listening on (\S+)/.exec(line);
          if (match) resolve(`${match[1]}/api/v1`);
        });
        child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
      });
      const call = (method: string, url: string, authorization?: string, body?: unknown) =>
        new Promise<{ status: number; body: any }>((resolve, reject) => {
          const req = http.request(base + url, { method, agent, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } }, (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : text }));
          });
          req.on('error', reject);
          req.end(body === undefined ? undefined : JSON.stringify(body));
        });
      const token = (await call('POST', '/apps/api/auth', undefined, ADMIN)).body.token;
      const groupId = (await call('POST', '/groups', `Token ${token}`, { name: 'Spellings' })).body.id;
      const key = (await call('POST', `/groups/${groupId}/api_keys`, `Token ${token}`, { name: 'k' })).body.key;
      // Warm up, then measure: the old cache kept one entry per spelling (about 9 KB each).
      for (let n = 1; n <= 500; n++) await call('GET', '/groups', spelling(n, key));
      const spell = async (from: number, to: number) => {
        for (let n = from; n <= to; n += 8) {
          const batch = await Promise.all(Array.from({ length: 8 }, (_, i) => call('GET', '/groups', spelling(n + i, key))));
          for (const res of batch) assert.equal(res.status, 200);
        }
      };
      // The heap settles during the first half (buffers, JIT, the logger); an unbounded cache
      // goes on growing by the same ~9 KB per spelling in the second (about 90 MB per 10,000).
      await spell(1, 10_000);
      const settled = rssMb(child.pid!);
      await spell(10_001, 20_000);
      const grown = rssMb(child.pid!) - settled;
      assert.ok(grown < 30, `RSS grew ${grown.toFixed(0)} MB over the second 10,000 spellings`);
    } finally {
      agent.destroy();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the login limit behind a reverse proxy', () => {
  /** The answer to the last of 25 wrong passwords, the i-th sent as forwarded for `from(i)`. */
  const failTwentyFive = async (server: TestServer, from: (i: number) => string) => {
    let last = 0;
    for (let i = 0; i < 25; i++) {
      const res = await server.post('/apps/api/auth', { username: 'admin', password: `guess-${i}` }, { token: null, headers: { 'x-forwarded-for': from(i) } });
      last = res.status;
    }
    return last;
  };

  it('with DOORLIST_TRUST_PROXY counts each forwarded client apart, so one client cannot lock out the rest', async () => {
    const server = await TestServer.start({ trustProxy: 'loopback' });
    try {
      assert.equal(await failTwentyFive(server, () => '203.0.113.5'), 429);
      const other = await server.post('/apps/api/auth', ADMIN, { token: null, headers: { 'x-forwarded-for': '203.0.113.6' } });
      assert.equal(other.status, 200);
    } finally {
      await server.stop();
    }
  });

  it('without it ignores the header, so a client cannot dodge the limit by sending another address each time', async () => {
    const server = await TestServer.start();
    try {
      assert.equal(await failTwentyFive(server, (i) => `203.0.113.${i}`), 429);
    } finally {
      await server.stop();
    }
  });
});
