import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { insertApiKey } from '../../db/repositories/api-keys';
import { insertGroup } from '../../db/repositories/groups';
import { AUTH_CACHE_MAX, AUTH_CACHE_MS, Authenticator } from '../../server/http/auth';
import { hashSecret, newSecret } from '../../server/secrets';

describe('Authenticator cache', () => {
  let dir: string;
  let db: Db;
  let groupId: number;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-auth-'));
    db = createDb(path.join(dir, 'db.sqlite'));
    await migrateLatest(db);
    groupId = await insertGroup(db, { name: 'Cache', email: null, phone: null, website: null, type: 'Venue', parent_id: null });
  });
  after(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function newKey(role: 'manager' | 'door' = 'door'): Promise<string> {
    const key = newSecret('dl_');
    await insertApiKey(db, { group_id: groupId, name: 'k', key_hash: hashSecret(key), key_prefix: key.slice(0, 8), role });
    return key;
  }

  const header = (authorization: string) => ({ headers: { authorization } });

  it('keeps one entry for 20,000 whitespace spellings of one key', async () => {
    const auth = new Authenticator(db);
    const key = await newKey();
    for (let n = 1; n <= 20_000; n++) {
      const spaces = n.toString(2).replace(/0/g, ' ').replace(/1/g, '\t');
      const caller = await auth.authenticate(header(`Token${spaces}${key}${' '.repeat(n % 5)}`));
      assert.equal(caller.role, 'door');
    }
    assert.equal(auth.size, 1);
  });

  it(`holds at most ${AUTH_CACHE_MAX} secrets, dropping the least recently used`, async () => {
    const auth = new Authenticator(db);
    const keys: string[] = [];
    for (let i = 0; i < AUTH_CACHE_MAX + 20; i++) keys.push(await newKey());
    for (const key of keys) await auth.authenticate(header(`Token ${key}`));
    assert.equal(auth.size, AUTH_CACHE_MAX);
  });

  it(`sees a key revoked by another process within ${AUTH_CACHE_MS} ms`, async () => {
    let now = 1_000_000;
    const auth = new Authenticator(db, () => now);
    const key = await newKey();
    await auth.authenticate(header(`Token ${key}`));
    // Another process deletes the key: this one is not told, its entry simply runs out.
    await db('api_keys').where({ key_hash: hashSecret(key) }).delete();
    // The entry's lifetime is what is tested: nothing but the clock ends it.
    now += AUTH_CACHE_MS - 1;
    assert.equal((await auth.authenticate(header(`Token ${key}`))).role, 'door');
    now += 1;
    await assert.rejects(auth.authenticate(header(`Token ${key}`)), { status: 401 });
  });

  it('never caches an unknown secret', async () => {
    const auth = new Authenticator(db);
    for (let i = 0; i < 100; i++) await assert.rejects(auth.authenticate(header(`Token junk-${i}`)), { status: 401 });
    assert.equal(auth.size, 0);
  });
});
