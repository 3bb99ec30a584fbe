import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createApiKey, createGroup } from '../helpers/fixtures';
import { ADMIN, TestServer } from '../helpers/server';

/** The administrator's password as stored at a given scrypt cost (as an older Doorlist stored it). */
function storedAtCost(N: number): string {
  const salt = randomBytes(16);
  const hash = scryptSync(ADMIN.password, salt, 64, { N, r: 8, p: 1 });
  return ['scrypt', N, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * A server whose administrator's password is stored at a small cost: each wrong guess checked
 * against it costs about 1 ms instead of today's 60, and the limit counts guesses whatever they cost.
 */
async function serverForGuesses(overrides: Parameters<typeof TestServer.start>[0] = {}): Promise<TestServer> {
  const server = await TestServer.start(overrides);
  await server.db('users').where({ username: ADMIN.username }).update({ password_hash: storedAtCost(1024) });
  return server;
}

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
    const older = storedAtCost(16384);
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
    server = await serverForGuesses();
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

describe('Authorization: Token <key> in any spacing', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  // The cache keeps one entry per secret however it is spelt (20,000 spellings in
  // test/unit/auth-cache.test.ts; the memory that saves is a figure of `npm run bench`, section memory).
  it('answers 200 to runs of spaces and tabs around the key', async () => {
    const key = await createApiKey(server, await createGroup(server));
    for (let n = 1; n <= 16; n++) {
      const spelling = `Token ${n.toString(2).replace(/0/g, ' ').replace(/1/g, '\t')} ${key}${' '.repeat(n % 7)}`;
      const res = await server.get('/groups', { headers: { authorization: spelling }, token: null });
      assert.equal(res.status, 200, spelling);
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
    const server = await serverForGuesses({ trustProxy: 'loopback' });
    try {
      assert.equal(await failTwentyFive(server, () => '203.0.113.5'), 429);
      const other = await server.post('/apps/api/auth', ADMIN, { token: null, headers: { 'x-forwarded-for': '203.0.113.6' } });
      assert.equal(other.status, 200);
    } finally {
      await server.stop();
    }
  });

  it('without it ignores the header, so a client cannot dodge the limit by sending another address each time', async () => {
    const server = await serverForGuesses();
    try {
      assert.equal(await failTwentyFive(server, (i) => `203.0.113.${i}`), 429);
    } finally {
      await server.stop();
    }
  });
});
