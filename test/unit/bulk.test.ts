import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../db/knex';
import { alongside, LARGE_CACHE_KIB, withLargeCache } from '../../db/bulk';
import { newUid } from '../../core/uid';

describe('bulk writes', () => {
  let dir: string;
  let db: Db;
  const cacheSize = async () => Number((await db.raw('PRAGMA cache_size'))[0].cache_size);

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-bulk-'));
    db = createDb(path.join(dir, 'bulk.sqlite'));
  });
  after(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the large cache while any of two overlapping imports runs, and puts the configured size back after the last', async () => {
    const configured = await cacheSize();
    assert.notEqual(configured, -LARGE_CACHE_KIB);
    let endFirst!: () => void;
    const first = withLargeCache(db, () => new Promise<void>((resolve) => (endFirst = resolve)));
    let endSecond!: () => void;
    const second = withLargeCache(db, async () => {
      assert.equal(await cacheSize(), -LARGE_CACHE_KIB);
      await new Promise<void>((resolve) => (endSecond = resolve));
    });
    while (!endFirst || !endSecond) await new Promise((resolve) => setImmediate(resolve));
    endFirst();
    await first;
    assert.equal(await cacheSize(), -LARGE_CACHE_KIB, 'the second import still runs');
    endSecond();
    await second;
    assert.equal(await cacheSize(), configured);
    // A failed import puts it back too, and the next one raises it again.
    await assert.rejects(withLargeCache(db, async () => Promise.reject(new Error('refused'))), /refused/);
    assert.equal(await cacheSize(), configured);
    await withLargeCache(db, async () => assert.equal(await cacheSize(), -LARGE_CACHE_KIB));
    assert.equal(await cacheSize(), configured);
  });

  it('does its work while the statement is already with the database, and reports the statement\'s failure once', async () => {
    let sent = 0;
    const onQuery = (query: { sql: string }) => {
      if (query.sql.includes('41 + 1')) sent++;
    };
    db.on('query', onQuery);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let sentBeforeWork = 0;
      // A knex query, which runs again on every `then`: alongside takes it once.
      const [rows, done] = await alongside(db.raw('select 41 + 1 as answer'), () => {
        sentBeforeWork = sent;
        return 'worked';
      });
      assert.equal(sentBeforeWork, 1, 'the statement went to the database before the work began');
      assert.equal(sent, 1, 'and ran once');
      assert.deepEqual(rows, [{ answer: 42 }]);
      assert.equal(done, 'worked');

      // The statement fails while the work runs: its error comes out of alongside, and only there.
      await assert.rejects(
        alongside(db.raw('select * from no_such_table'), () => 'worked'),
        /no such table/,
      );
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      db.off('query', onQuery);
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('makes uids that are UUIDs and sort in the order they were made', () => {
    const uids = Array.from({ length: 2000 }, () => newUid());
    for (const uid of uids) assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([...uids].sort(), uids);
    assert.equal(new Set(uids).size, uids.length);
  });
});
