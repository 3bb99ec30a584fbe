import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../db/knex';
import { classifyDbError } from '../../db/errors';

describe('SQLite statements kept prepared', () => {
  let dir: string;
  let db: Db;
  let prepares = 0;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-statements-'));
    db = createDb(path.join(dir, 'kept.sqlite'));
    await db.raw('create table items (id integer primary key autoincrement, code text unique, n integer)');
    // Count what SQLite is asked to compile on the writer's one connection.
    const conn = (await db.client.acquireConnection()) as { prepare: (...args: unknown[]) => unknown };
    const prepare = conn.prepare;
    conn.prepare = function (...args: unknown[]) {
      prepares++;
      return prepare.apply(this, args);
    };
    await db.client.releaseConnection(conn);
  });
  after(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('compiles a statement once and answers every run of it with its own rows', async () => {
    const before = prepares;
    for (let n = 0; n < 20; n++) await db('items').insert({ code: `a${n}`, n });
    const found = [];
    for (let n = 0; n < 20; n++) found.push(await db('items').where({ code: `a${n}` }).first('n'));
    assert.deepEqual(
      found.map((r) => r.n),
      [...Array(20).keys()],
    );
    assert.equal(prepares - before, 2);
  });

  it('gives each of many runs of one statement at once its own id and row count', async () => {
    const ids = await db.transaction((trx) => Promise.all([...Array(50).keys()].map(async (n) => (await trx('items').insert({ code: `b${n}`, n }))[0])));
    assert.equal(new Set(ids).size, 50);
    const rows = await db('items').whereIn('id', ids).select('id', 'code');
    const codeById = new Map(rows.map((r) => [r.id, r.code]));
    ids.forEach((id, n) => assert.equal(codeById.get(id), `b${n}`));
    const changed = await Promise.all([db('items').where('code', 'like', 'b1%').update({ n: 1 }), db('items').where('code', 'like', 'b2%').update({ n: 2 })]);
    assert.deepEqual(changed, [11, 11]);
  });

  it('reports a statement that cannot compile with its own error, and goes on', async () => {
    await assert.rejects(db.raw('select name from nowhere'), (err: Error & { code?: string }) => err.code === 'SQLITE_ERROR' && /no such table: nowhere/.test(err.message));
    await assert.rejects(db.raw('select name from nowhere'), /no such table: nowhere/);
    assert.equal((await db('items').count({ n: '*' }))[0].n, 70);
  });

  it('reports a refused row as before, and runs the statement again after', async () => {
    const err = await db('items').insert({ code: 'a1', n: 0 }).catch((e: unknown) => e);
    assert.deepEqual(classifyDbError(err), { kind: 'unique', table: 'items', columns: ['code'] });
    assert.deepEqual(await db('items').insert({ code: 'c1', n: 0 }), [71]);
  });

  it('commits and rolls back around kept statements', async () => {
    await db.transaction(async (trx) => {
      await trx('items').where({ code: 'a1' }).first();
      await trx('items').insert({ code: 'c2', n: 0 });
    });
    await assert.rejects(
      db.transaction(async (trx) => {
        await trx('items').insert({ code: 'c3', n: 0 });
        await trx('items').where({ code: 'c3' }).first();
        throw new Error('undo');
      }),
      /undo/,
    );
    assert.deepEqual(
      (await db('items').whereIn('code', ['c2', 'c3']).select('code')).map((r) => r.code),
      ['c2'],
    );
  });

  it('sees a column added after a statement was kept', async () => {
    const selectAll = () => db('items').where({ code: 'c2' }).first();
    assert.equal('note' in (await selectAll()), false);
    await db.raw("alter table items add column note text default 'added'");
    assert.equal((await selectAll()).note, 'added');
  });

  it('when it must let one go, lets go the statement used longest ago', async () => {
    const other = createDb(path.join(dir, 'recent.sqlite'));
    try {
      const conn = (await other.client.acquireConnection()) as { prepare: (sql: string, callback: (err: Error | null) => void) => unknown };
      const prepare = conn.prepare;
      const prepared: string[] = [];
      conn.prepare = function (sql, callback) {
        prepared.push(sql);
        return prepare.call(this, sql, callback);
      };
      await other.client.releaseConnection(conn);
      await other.raw('select 1 as busy');
      await other.raw('select 1 as idle');
      // More new statements than are kept, the busy one used all along.
      for (let n = 0; n < 250; n++) {
        await other.raw(`select ${n} as n`);
        await other.raw('select 1 as busy');
      }
      prepared.length = 0;
      await other.raw('select 1 as busy');
      assert.deepEqual(prepared, [], 'the statement in use stays prepared');
      await other.raw('select 1 as idle');
      assert.deepEqual(prepared, ['select 1 as idle'], 'the one left unused was let go, and is prepared again');
    } finally {
      await other.destroy();
    }
  });

  it('keeps a bounded number, and the connection still closes', async () => {
    for (let n = 0; n < 300; n++) await db.raw(`select ${n} as n`);
    const other = createDb(path.join(dir, 'kept.sqlite'));
    const conn = (await other.client.acquireConnection()) as { close: (callback: (err: Error | null) => void) => unknown };
    const close = conn.close;
    let closed: Error | null | undefined;
    conn.close = function (callback) {
      return close.call(this, (err) => callback((closed = err)));
    };
    await other.client.releaseConnection(conn);
    for (let n = 0; n < 300; n++) assert.equal((await other.raw(`select ${n} as n`))[0].n, n);
    await other.destroy();
    assert.equal(closed, null);
  });
});
