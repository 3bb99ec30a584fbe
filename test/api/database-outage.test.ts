import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createDb, type Db } from '../../db/knex';
import { classifyDbError } from '../../db/errors';
import { MSG } from '../../core/messages';
import { TEST_PG } from '../helpers/database';
import { TestServer } from '../helpers/server';
import { eventually } from '../helpers/eventually';

const skip = TEST_PG ? false : 'losing the database connection is a PostgreSQL matter (DOORLIST_TEST_PG)';

/** Runs SQL as the test cluster's administrator. */
/** Runs `sql` as the cluster's administrator; answers how many rows it returned or touched. */
async function admin(sql: string, params: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_PG });
  await client.connect();
  try {
    return (await client.query(sql, params)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);
const dropConnections = (name: string) => admin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);

describe('a lost PostgreSQL connection', { skip }, () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server?.stop());

  it('answers reads as usual when PostgreSQL drops its connections, idle or in use', async () => {
    // The server may hand out a dropped connection before it has read of its end, or have sent
    // the read down one as it is cut: each round, a read a few milliseconds after the drop
    // begins gives those races another chance.
    const name = databaseOf(server.config.db);
    for (let round = 0; round < 30; round++) {
      await Promise.all([server.get('/groups'), server.get('/groups')]);
      const read = new Promise((resolve) => setTimeout(resolve, round % 5)).then(() => server.get('/groups'));
      const [, res] = await Promise.all([dropConnections(name), read]);
      assert.equal(res.status, 200, `round ${round}`);
      assert.deepEqual(res.body.results, []);
    }
  });

  it('answers 503 {detail} while the database cannot be reached, and recovers by itself', async () => {
    const name = databaseOf(server.config.db);
    await dropConnections(name);
    await admin(`alter database ${name} rename to ${name}_away`);
    try {
      const res = await server.get('/groups');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { detail: MSG.databaseUnavailable });
    } finally {
      await admin(`alter database ${name}_away rename to ${name}`);
    }
    assert.equal((await server.get('/groups')).status, 200);
  });

  it('classifies a statement cut off by a dropped connection as unavailable, and the pool reconnects', async () => {
    const db: Db = createDb(server.config.db);
    try {
      const sleeping = db.raw('select pg_sleep(10)').then(
        () => undefined,
        (err: unknown) => err,
      );
      // Cut its connection as soon as the statement is seen running.
      await eventually(
        'the statement in pg_stat_activity',
        async () => ((await admin("select pg_terminate_backend(pid) from pg_stat_activity where query like 'select pg_sleep(10)%' and pid <> pg_backend_pid()")) > 0 ? true : undefined),
        20_000,
        20,
      );
      assert.deepEqual(classifyDbError(await sleeping), { kind: 'unavailable' });
      // The cut connection can be handed out once more before its end is noticed: that
      // statement fails as unavailable too (a 503), and the one after runs on a new connection.
      let rows: unknown;
      for (let attempt = 1; rows === undefined; attempt++) {
        try {
          rows = (await db.raw('select 1 as one')).rows;
        } catch (err) {
          assert.deepEqual(classifyDbError(err), { kind: 'unavailable' });
          assert.ok(attempt < 3, 'the pool did not reconnect');
        }
      }
      assert.deepEqual(rows, [{ one: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
