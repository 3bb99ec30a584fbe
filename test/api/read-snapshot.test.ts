import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, createReadDb, migrateLatest, readSnapshot, type Conn, type Db } from '../../db/knex';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';

// A guest page and its count, or the stats' several counts, must agree with each other even
// while the door writes between their statements.
describe(`readSnapshot (${TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  let dir: string;
  let database: TestDatabase;
  let db: Db;
  let readDb: Db;
  let groupId: number;
  const record = (extra: Record<string, unknown>) => ({ uid: crypto.randomUUID(), created: '2026-11-26T10:00:00.000Z', modified: '2026-11-26T10:00:00.000Z', ...extra });
  const addEvent = async (name: string) => {
    await db('events').insert(record({ group_id: groupId, name, starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' }));
  };
  const countEvents = async (conn: Conn) => Number((await conn('events').count({ n: '*' }))[0].n);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-snapshot-'));
    database = await createTestDatabase(dir);
    db = createDb(database.setting);
    await migrateLatest(db);
    readDb = createReadDb(database.setting);
    [{ id: groupId }] = await db('groups').insert(record({ name: 'Acme' })).returning('id');
    await addEvent('First');
  });
  after(async () => {
    await readDb?.destroy();
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('does not see a write committed between its statements', async () => {
    const [first, second] = await readSnapshot(readDb, async (trx) => {
      const before = await countEvents(trx);
      await addEvent('Committed meanwhile');
      return [before, await countEvents(trx)];
    });
    assert.equal(first, 1);
    assert.equal(second, 1);
    assert.equal(await countEvents(readDb), 2);
  });

  it('refuses to write', async () => {
    await assert.rejects(readSnapshot(readDb, (trx) => trx('groups').insert(record({ name: 'Nope' }))));
    assert.equal(Number((await db('groups').count({ n: '*' }))[0].n), 1);
  });
});
