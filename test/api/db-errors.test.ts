import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { classifyDbError, isIntegrityViolation, isLostConnection, markConnectionLost, isUniqueViolation, uniqueKey } from '../../db/errors';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';

/** The error a statement fails with. */
async function failure(statement: Promise<unknown>): Promise<unknown> {
  try {
    await statement;
  } catch (err) {
    return err;
  }
  throw new Error('the statement succeeded');
}

describe(`database errors classified by constraint (${TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  let dir: string;
  let database: TestDatabase;
  let db: Db;
  let eventId: number;
  const record = (extra: Record<string, unknown>) => ({ uid: crypto.randomUUID(), created: '2026-11-23T10:00:00.000Z', modified: '2026-11-23T10:00:00.000Z', ...extra });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-errors-'));
    database = await createTestDatabase(dir);
    db = createDb(database.setting);
    await migrateLatest(db);
    const [group] = await db('groups').insert(record({ name: 'Acme' })).returning('id');
    const [event] = await db('events').insert(record({ group_id: group.id, name: 'Night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
    eventId = event.id;
    await db('promotion_codes').insert(record({ event_id: eventId, code: 'EARLY', discount_type: 'percent', discount_amount: 10, quantity: 5 }));
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the unique index a duplicate breaks, and no other', async () => {
    const err = await failure(db('promotion_codes').insert(record({ event_id: eventId, code: 'EARLY', discount_type: 'percent', discount_amount: 5, quantity: 1 })));
    assert.equal(classifyDbError(err)?.kind, 'unique');
    assert.ok(isUniqueViolation(err, uniqueKey('promotion_codes', ['event_id', 'code'])));
    assert.ok(!isUniqueViolation(err, uniqueKey('promotion_codes', ['uid'])));
    assert.ok(!isUniqueViolation(err, uniqueKey('guests', ['event_id', 'barcode'], 'guests_event_barcode_unique')));
    assert.ok(!isIntegrityViolation(err));
  });

  it('calls a CHECK or foreign-key refusal an integrity violation', async () => {
    const check = await failure(db('sessions').insert(record({ event_id: eventId, name: 'Talk', starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00', capacity: -1 })));
    assert.deepEqual(classifyDbError(check), { kind: 'integrity' });
    const foreign = await failure(db('tracks').insert(record({ event_id: 999_999, name: 'Main', starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00' })));
    assert.ok(isIntegrityViolation(foreign));
  });

  it('answers the stored ISO instant, numbers for counts and money, booleans for flags', async () => {
    const code = await db('promotion_codes').where({ event_id: eventId }).first('created', 'discount_amount', 'available_only');
    assert.equal(code.created, '2026-11-23T10:00:00.000Z');
    assert.equal(code.discount_amount, 10);
    assert.ok(code.available_only === false || code.available_only === 0);
    const [{ n }] = await db('promotion_codes').count({ n: '*' });
    assert.equal(n, 1);
  });

  it('leaves errors that are not the database refusing a row unclassified', () => {
    assert.equal(classifyDbError(new Error('something else')), undefined);
    assert.equal(classifyDbError(undefined), undefined);
  });

  it('tells a connection that died from a database that cannot be reached', () => {
    const died = new Error('Connection terminated unexpectedly');
    markConnectionLost(died);
    assert.ok(isLostConnection(died));
    assert.ok(isLostConnection(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })));
    assert.ok(isLostConnection(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })));
    // Down, renamed away or refusing us: a new connection would fail the same way.
    for (const code of ['ECONNREFUSED', '3D000', '57P03', '28P01', 'SQLITE_BUSY']) assert.equal(isLostConnection(Object.assign(new Error(code), { code })), false, code);
    assert.equal(isLostConnection(new Error('Connection terminated unexpectedly')), false);
  });
});
