import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDb } from '../../db/knex';
import { isoInstant, isPostgresUrl } from '../../db/dialect/postgres';
import { dialectOf } from '../../db/dialect';

describe('the database setting', () => {
  it('takes postgres:// and postgresql:// URLs for PostgreSQL, in any case', () => {
    for (const url of ['postgres://u:p@db:5432/doorlist', 'postgresql://db/doorlist', 'POSTGRES://db/x']) assert.ok(isPostgresUrl(url), url);
    for (const file of ['/var/lib/doorlist.sqlite', 'C:\\Doorlist\\door.sqlite', 'postgres.sqlite', ':memory:']) assert.ok(!isPostgresUrl(file), file);
  });

  it('refuses any other scheme instead of taking it for a file name', () => {
    for (const url of ['mysql://db/doorlist', 'sqlite://door.sqlite', 'http://example.org/x']) {
      assert.throws(() => createDb(url), /unsupported database \w+:\/\/: give a SQLite file or a postgres:\/\/ URL/);
    }
  });

  it('builds knex for PostgreSQL without connecting, with the PostgreSQL dialect', async () => {
    const db = createDb('postgres://nobody@127.0.0.1:1/none', { pool: 3 });
    try {
      assert.equal(dialectOf(db).name, 'postgres');
      assert.equal(db.client.config.pool.max, 3);
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
