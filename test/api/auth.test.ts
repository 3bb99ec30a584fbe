import assert from 'node:assert/strict';
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
