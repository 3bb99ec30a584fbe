import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { groupCommit } from '../../server/services/group-commit';

/** A batch that waits at the gate until `open`; `reached` resolves once it is waiting there. */
function gate() {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { open, reached, wait: () => (reach(), opened) };
}

describe('groupCommit', () => {
  let dir: string;
  let db: Db;

  /** The log lines groupCommit writes, as objects. */
  const logged: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-group-commit-'));
    db = createDb(path.join(dir, 'db.sqlite'));
    await migrateLatest(db);
  });
  after(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('begins the next batch before it sends the answers of the one that committed', async (t) => {
    const begun: number[] = [];
    const countBegins = (q: { sql: string }) => q.sql.startsWith('BEGIN') && begun.push(begun.length + 1);
    db.on('query', countBegins);
    t.after(() => db.off('query', countBegins));
    const batches: string[][] = [];
    const first = gate();
    const submit = groupCommit<string, string>(db, async (_trx, items) => {
      batches.push(items);
      if (batches.length === 1) await first.wait();
      return items.map((item) => item.toUpperCase());
    }, { name: 'letters', logger });

    const a = submit('a');
    await first.reached;
    // These wait behind the writer, held by the first batch.
    const waiting = [submit('b'), submit('c')];
    assert.deepEqual(batches, [['a']]);
    first.open();

    assert.equal(await a, 'A');
    assert.deepEqual(begun, [1, 2], "the waiting batch's BEGIN went to the database before the first answer went out");
    assert.deepEqual(await Promise.all(waiting), ['B', 'C']);
  });

  it('answers each item of a batch, a refusal too, and a lone item as a batch of one', async () => {
    const held = gate();
    const batches: string[][] = [];
    const submit = groupCommit<string, string>(db, async (_trx, items) => {
      batches.push(items);
      if (items[0] === 'hold') await held.wait();
      return items.map((item) => (item === 'bad' ? new Error('refused') : item.toUpperCase()));
    }, { name: 'letters', logger });
    const answerOf = (a: PromiseSettledResult<string>) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message);

    assert.equal(await submit('lone'), 'LONE');
    const hold = submit('hold');
    await held.reached;
    const decided = Promise.allSettled([submit('x'), submit('bad'), submit('y')]);
    held.open();
    assert.equal(await hold, 'HOLD');
    assert.deepEqual((await decided).map(answerOf), ['X', 'refused', 'Y']);
    assert.deepEqual(batches, [['lone'], ['hold'], ['x', 'bad', 'y']]);
  });

  it('logs why a batch failed, writes nothing of it, then runs its items one by one', async () => {
    const held = gate();
    const batches: string[][] = [];
    logged.length = 0;
    const submit = groupCommit<string, number>(db, async (trx, items) => {
      batches.push(items);
      if (items[0] === 'hold') await held.wait();
      const ids = await Promise.all(items.map(async (name) => (await trx('groups').insert({ uid: `${name}-${batches.length}`, name, created: '2026-11-26T10:00:00.000Z', modified: '2026-11-26T10:00:00.000Z' }).returning('id'))[0].id as number));
      if (items.length > 1 && items.includes('boom')) throw new Error('the batch fails');
      if (items[0] === 'boom') throw new Error('boom alone fails too');
      return ids;
    }, { name: 'groups', logger });

    const hold = submit('hold');
    await held.reached;
    const failed = Promise.allSettled([submit('boom'), submit('fine')]);
    held.open();
    await hold;
    const [boom, fine] = await failed;
    assert.equal(boom.status === 'rejected' && (boom.reason as Error).message, 'boom alone fails too');
    assert.equal(fine.status, 'fulfilled');
    assert.deepEqual(batches, [['hold'], ['boom', 'fine'], ['boom'], ['fine']]);
    assert.deepEqual((await db('groups').whereIn('name', ['boom', 'fine']).select('name', 'uid')).map((g) => `${g.name} ${g.uid}`), ['fine fine-4']);
    assert.equal(logged.length, 1);
    assert.equal(logged[0].batch, 'groups');
    assert.equal(logged[0].items, 2);
    assert.equal((logged[0].err as { message: string }).message, 'the batch fails');
  });
});
