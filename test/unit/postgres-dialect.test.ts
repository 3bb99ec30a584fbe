import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDb } from '../../db/knex';
import { isoInstant, isPostgresUrl } from '../../db/dialect/postgres';
import { dialectOf } from '../../db/dialect';
import { loadConfig } from '../../server/config';

describe('the database setting', () => {
  it('takes postgres:// and postgresql:// URLs for PostgreSQL, in any case', () => {
    for (const url of ['postgres://u:p@db:5432/doorlist', 'postgresql://db/doorlist', 'POSTGRES://db/x']) assert.ok(isPostgresUrl(url), url);
    for (const file of ['/var/lib/doorlist.sqlite', 'C:\\Doorlist\\door.sqlite', 'postgres.sqlite', ':memory:']) assert.ok(!isPostgresUrl(file), file);
  });

  it('is taken by the configuration with the pool size and statement timeout', () => {
    const config = loadConfig({ DOORLIST_DB: 'postgresql://door:pw@db.local:5432/doorlist', DOORLIST_DB_POOL: '25', DOORLIST_DB_STATEMENT_TIMEOUT_MS: '5000' }, []);
    assert.deepEqual([config.db, config.dbPool, config.dbStatementTimeoutMs], ['postgresql://door:pw@db.local:5432/doorlist', 25, 5000]);
    assert.throws(() => loadConfig({ DOORLIST_DB: 'postgres://db/x', DOORLIST_DB_POOL: 'lots' }, []), /Invalid Doorlist configuration: dbPool/);
  });

  it('refuses any other scheme instead of taking it for a file name', () => {
    for (const url of ['mysql://db/doorlist', 'sqlite://door.sqlite', 'http://example.org/x']) {
      assert.throws(() => createDb(url), { message: `${url.split(':')[0]}:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL` });
    }
  });

  it('builds knex for PostgreSQL without connecting, with the PostgreSQL dialect and pipelined connections', async () => {
    const db = createDb('postgres://nobody@127.0.0.1:1/none', { pool: 3 });
    try {
      assert.equal(dialectOf(db).name, 'postgres');
      assert.equal(db.client.config.pool.max, 3);
      // Statements sent together go out pipelined (db/write-transaction's `sentAtOnce`).
      assert.equal(db.client.config.connection.pipeline, true);
    } finally {
      await db.destroy();
    }
  });
});

describe('isoInstant (timestamptz as the stored ISO string)', () => {
  it('writes what a UTC session answers as SQLite stores it: milliseconds and Z', () => {
    assert.equal(isoInstant('2026-11-23 10:00:00+00'), '2026-11-23T10:00:00.000Z');
    assert.equal(isoInstant('2026-11-23 10:00:00.5+00'), '2026-11-23T10:00:00.500Z');
    assert.equal(isoInstant('2026-11-23 10:00:00.123456+00'), '2026-11-23T10:00:00.123Z');
  });

  it('turns another zone into UTC', () => {
    assert.equal(isoInstant('2026-11-23 11:30:00+01'), '2026-11-23T10:30:00.000Z');
    assert.equal(isoInstant('2026-11-23 05:00:00.25-05:30'), '2026-11-23T10:30:00.250Z');
  });
});
