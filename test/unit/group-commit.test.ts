import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../db/knex';
import { ALONE, groupCommit, type Decision } from '../../server/group-commit';

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

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-group-commit-'));
    db = createDb(path.join(dir, 'db.sqlite'));
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
    });
    const alone = () => Promise.reject(new Error('no item here runs alone'));

    const a = submit('a', alone);
    await first.reached;
    // These wait behind the writer, held by the first batch.
    const waiting = [submit('b', alone), submit('c', alone)];
    assert.deepEqual(batches, [['a']]);
    first.open();

    assert.equal(await a, 'A');
    assert.deepEqual(begun, [1, 2], "the waiting batch's BEGIN went to the database before the first answer went out");
    assert.deepEqual(await Promise.all(waiting), ['B', 'C']);
  });

  it('answers a batch while an item it left alone is still running', async () => {
    const held = gate();
    const lone = gate();
    const submit = groupCommit<string, string>(db, async (_trx, items): Promise<Decision<string>[]> => {
      if (items[0] === 'hold') await held.wait();
      return items.map((item) => (item === 'slow' ? ALONE : item.toUpperCase()));
    });
    const hold = submit('hold', () => Promise.reject(new Error('not alone')));
    await held.reached;
    const slow = submit('slow', async () => {
      await lone.wait();
      return 'slow alone';
    });
    const fast = submit('fast', () => Promise.reject(new Error('not alone')));
    held.open();
    assert.equal(await hold, 'HOLD');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 2000, 'still waiting')));
    assert.equal(await Promise.race([fast, timeout]), 'FAST', 'answered before the item left alone ends');
    clearTimeout(timer);
    await lone.reached;
    lone.open();
    assert.equal(await slow, 'slow alone');
  });

  it('answers refusals, runs what it leaves alone after the batch, and runs a failed batch one by one', async () => {
    const steps: string[] = [];
    let held = gate();
    const submit = groupCommit<string, string>(db, async (_trx, items): Promise<Decision<string>[]> => {
      steps.push(`batch ${items.join(',')}`);
      if (items[0] === 'hold') await held.wait();
      if (items.includes('boom')) throw new Error('the batch fails');
      return items.map((item) => (item === 'bad' ? new Error('refused') : item === 'clash' ? ALONE : item.toUpperCase()));
    });
    const alone = (item: string) => async () => {
      steps.push(`alone ${item}`);
      return `${item} alone`;
    };
    const answerOf = (a: PromiseSettledResult<string>) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message);

    const hold = submit('hold', alone('hold'));
    await held.reached;
    const decided = Promise.allSettled([submit('x', alone('x')), submit('bad', alone('bad')), submit('clash', alone('clash'))]);
    held.open();
    assert.equal(await hold, 'HOLD');
    assert.deepEqual((await decided).map(answerOf), ['X', 'refused', 'clash alone']);
    assert.deepEqual(steps, ['batch hold', 'batch x,bad,clash', 'alone clash']);

    steps.length = 0;
    held = gate();
    const holdAgain = submit('hold', alone('hold'));
    await held.reached;
    const failed = Promise.all([submit('boom', alone('boom')), submit('fine', alone('fine'))]);
    held.open();
    assert.equal(await holdAgain, 'HOLD');
    assert.deepEqual(await failed, ['boom alone', 'fine alone']);
    assert.deepEqual(steps, ['batch hold', 'batch boom,fine', 'alone boom', 'alone fine']);
  });
});
