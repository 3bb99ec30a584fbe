import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest, type Conn, type Db, type Trx } from '../../db/knex';
import { inSavepoint, sentAtOnce, survivingFailure, writeTransaction } from '../../db/write-transaction';
import { isUniqueViolation } from '../../db/errors';
import { dialectOf } from '../../db/dialect';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';

describe(`writeTransaction (${TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  let dir: string;
  let database: TestDatabase;
  let db: Db;
  let groupId: number;
  const record = (extra: Record<string, unknown>) => ({ uid: crypto.randomUUID(), created: '2026-11-26T10:00:00.000Z', modified: '2026-11-26T10:00:00.000Z', ...extra });
  const addGroup = async (conn: Conn, name: string): Promise<number> => (await conn('groups').insert(record({ name })).returning('id'))[0].id;
  const groupNames = async () => (await db('groups').orderBy('id').pluck('name')) as string[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-write-trx-'));
    database = await createTestDatabase(dir);
    db = createDb(database.setting);
    await migrateLatest(db);
    groupId = await addGroup(db, 'Acme');
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commits what its work wrote and answers what the work answered', async () => {
    const id = await writeTransaction(db, (trx) => addGroup(trx, 'Committed'));
    assert.equal((await db('groups').where({ id }).first()).name, 'Committed');
  });

  it('writes nothing when its work fails, and throws the work’s error', async () => {
    await assert.rejects(
      writeTransaction(db, async (trx) => {
        await addGroup(trx, 'Rolled back');
        throw new Error('the work failed');
      }),
      /the work failed/,
    );
    assert.equal((await groupNames()).includes('Rolled back'), false);
  });

  it('undoes a savepoint alone and keeps the rest of the transaction', async () => {
    const taken = (await db('groups').where({ id: groupId }).first()).uid;
    await writeTransaction(db, async (trx) => {
      await addGroup(trx, 'Before the savepoint');
      const err = await trx.transaction((savepoint) => savepoint('groups').insert({ ...record({ name: 'Clash' }), uid: taken })).catch((e: unknown) => e);
      assert.ok(isUniqueViolation(err));
      // PostgreSQL would refuse every later statement had the failed one not been undone alone.
      await addGroup(trx, 'After the savepoint');
    });
    const names = await groupNames();
    assert.ok(names.includes('Before the savepoint') && names.includes('After the savepoint') && !names.includes('Clash'));
  });

  it('undoes an inner savepoint alone, and an outer one with everything under it', async () => {
    const taken = (await db('groups').where({ id: groupId }).first()).uid;
    const clash = (trx: Trx) => trx('groups').insert({ ...record({ name: 'Clash' }), uid: taken });
    await writeTransaction(db, async (trx) => {
      await inSavepoint(trx, async (outer) => {
        await addGroup(outer, 'Outer kept');
        assert.ok(isUniqueViolation(await inSavepoint(outer, clash).catch((e: unknown) => e)));
        await addGroup(outer, 'Outer kept after');
      });
      const err = await inSavepoint(trx, async (outer) => {
        await addGroup(outer, 'Outer undone');
        await inSavepoint(outer, (inner) => addGroup(inner, 'Inner undone with it'));
        await clash(outer);
      }).catch((e: unknown) => e);
      assert.ok(isUniqueViolation(err));
      await addGroup(trx, 'After both');
    });
    const names = await groupNames();
    for (const kept of ['Outer kept', 'Outer kept after', 'After both']) assert.ok(names.includes(kept), kept);
    for (const undone of ['Outer undone', 'Inner undone with it', 'Clash']) assert.equal(names.includes(undone), false, undone);
  });

  it('outlives one refused statement, with a savepoint only where a failed statement ends the transaction', async () => {
    const taken = (await db('groups').where({ id: groupId }).first()).uid;
    const sent: string[] = [];
    const note = (query: { sql: string }) => sent.push(query.sql);
    db.on('query', note);
    try {
      await writeTransaction(db, async (trx) => {
        await addGroup(trx, 'Before the refusal');
        const err = await survivingFailure(trx, (t) => t('groups').insert({ ...record({ name: 'Refused' }), uid: taken })).catch((e: unknown) => e);
        assert.ok(isUniqueViolation(err), 'the refusal is thrown on');
        await addGroup(trx, 'After the refusal');
      });
    } finally {
      db.removeListener('query', note);
    }
    const names = await groupNames();
    assert.ok(names.includes('Before the refusal') && names.includes('After the refusal') && !names.includes('Refused'));
    const savepoints = sent.filter((sql) => /savepoint/i.test(sql)).length;
    assert.equal(savepoints, TEST_PG ? 3 : 0, TEST_PG ? 'SAVEPOINT, then ROLLBACK TO and RELEASE' : 'SQLite undoes the failed statement alone');
  });

  it('runs transactions one after another and side by side, each seeing its own writes', async () => {
    const ids = await Promise.all(
      [...Array(20).keys()].map((n) =>
        writeTransaction(db, async (trx) => {
          const id = await addGroup(trx, `Side ${n}`);
          assert.equal((await trx('groups').where({ id }).first()).name, `Side ${n}`);
          if (n % 5 === 4) throw new Error(`undo ${n}`);
          return id;
        }).catch((err: Error) => err.message),
      ),
    );
    assert.deepEqual(
      ids.filter((x) => typeof x === 'string'),
      ['undo 4', 'undo 9', 'undo 14', 'undo 19'],
    );
    const names = await groupNames();
    for (let n = 0; n < 20; n++) assert.equal(names.includes(`Side ${n}`), n % 5 !== 4, `Side ${n}`);
  });

  it('sends statements given together before the first of them answers, and answers each one’s result', async () => {
    const order: string[] = [];
    const sent = (q: { sql: string }) => order.push(`sent ${q.sql.slice(0, 6).toLowerCase()}`);
    const answered = () => order.push('answered');
    // On PostgreSQL they go out pipelined: pg warned once queries queued on a busy client.
    const warnings: Error[] = [];
    const warned = (warning: Error) => warnings.push(warning);
    process.on('warning', warned);
    db.on('query', sent).on('query-response', answered);
    let results;
    try {
      results = await writeTransaction(db, (trx) =>
        sentAtOnce([trx('groups').where({ id: groupId }).pluck('name'), trx('groups').insert(record({ name: 'Together' })).returning('id'), trx('groups').count({ n: '*' }).first()]),
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      db.off('query', sent).off('query-response', answered);
      process.off('warning', warned);
    }
    assert.deepEqual(warnings.map((w) => w.message), []);
    assert.deepEqual(results[0], ['Acme']);
    assert.equal(typeof results[1][0].id, 'number');
    assert.ok(Number(results[2]?.n) >= 2);
    // After BEGIN (on SQLite the write lock's statement too), the three statements sent before
    // any of them answers.
    const first = order.indexOf('sent select');
    assert.deepEqual(order.slice(first, first + 3), ['sent select', 'sent insert', 'sent select']);
    assert.equal(order[first + 3], 'answered');
  });

  it('throws the first failure of statements sent together only once every one has ended, and nothing of them stays', async () => {
    const taken = (await db('groups').where({ id: groupId }).first()).uid;
    // A statement that takes a while, sent after one that fails at once.
    const slow = TEST_PG ? 'select pg_sleep(0.2)' : 'with recursive n(x) as (select 1 union all select x + 1 from n where x < 2000000) select count(*) from n';
    let slowEnded = false;
    let endedWhenThrown: boolean | undefined;
    const err = await writeTransaction(db, async (trx) => {
      await addGroup(trx, 'Before together');
      const statements = [trx('groups').insert({ ...record({ name: 'Clash' }), uid: taken }), trx.raw(slow).finally(() => (slowEnded = true)), addGroup(trx, 'Beside the clash')] as const;
      return sentAtOnce(statements).catch((e: unknown) => {
        endedWhenThrown = slowEnded;
        throw e;
      });
    }).catch((e: unknown) => e);
    assert.ok(isUniqueViolation(err));
    // Thrown before the slow one ended, the ROLLBACK could run first and the rest commit alone.
    assert.equal(endedWhenThrown, true);
    const names = await groupNames();
    assert.ok(!names.includes('Before together') && !names.includes('Beside the clash') && !names.includes('Clash'));
  });

  it('knows the ids the next rows of a table will take, past a deleted last row too, and the table goes on after them', async () => {
    await writeTransaction(db, async (trx) => {
      const [{ id: deleted }] = await trx('groups').insert(record({ name: 'Last, then deleted' })).returning('id');
      await trx('groups').where({ id: deleted }).delete();
      const ids = await dialectOf(trx).nextIds(trx, 'groups', 2);
      // SQLite's AUTOINCREMENT never takes an id again; PostgreSQL's sequence neither.
      if (!TEST_PG) assert.deepEqual(ids, [deleted + 1, deleted + 2]);
      assert.ok(ids[0] > deleted && ids[1] === ids[0] + 1);
      await trx('groups').insert([
        { ...record({ name: 'Named first' }), id: ids[0] },
        { ...record({ name: 'Named second' }), id: ids[1] },
      ]);
      const [{ id: after }] = await trx('groups').insert(record({ name: 'Counted after them' })).returning('id');
      assert.ok(after > ids[1]);
      assert.deepEqual(await dialectOf(trx).nextIds(trx, 'groups', 0), []);
    });
  });

  it('reads, then writes, beside a write of another connection to the same database; on SQLite it waits and reads what that wrote', async () => {
    const other = createDb(database.setting);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const holds = new Promise<void>((resolve) => (holding = resolve));
      const first = writeTransaction(other, async (trx) => {
        await addGroup(trx, 'First writer');
        holding();
        await held;
      });
      await holds;
      // Reads, then writes: on SQLite, begun without the write lock, its write would be refused
      // (SQLITE_BUSY) once the first writer had committed meanwhile.
      const second = writeTransaction(db, async (trx) => {
        const seen = (await trx('groups').pluck('name')) as string[];
        await addGroup(trx, 'Second writer');
        return seen;
      });
      release();
      await first;
      const seen = await second;
      // PostgreSQL takes no lock before a write (rows lock as they are written), so its read
      // sees the first writer's row only if that committed before the read ran: either is right.
      if (!TEST_PG) assert.ok(seen.includes('First writer'));
      const names = await groupNames();
      assert.ok(names.includes('First writer') && names.includes('Second writer'));
    } finally {
      await other.destroy();
    }
  });

  it('leaves the connection usable after a commit that fails', async () => {
    if (TEST_PG) {
      // A deferred constraint fails at COMMIT on PostgreSQL; SQLite has none of those here.
      await db.raw('create table deferred_check (id integer primary key, parent integer references deferred_check(id) deferrable initially deferred)');
      await assert.rejects(writeTransaction(db, (trx) => trx('deferred_check').insert({ id: 1, parent: 99 })));
    }
    assert.ok(await writeTransaction(db, (trx) => addGroup(trx, 'After')));
  });
});
