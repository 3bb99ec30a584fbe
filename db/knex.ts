import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations';
import { dialectOf } from './dialect';
import { isPostgresUrl, postgresConfig, type PostgresOptions } from './dialect/postgres';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Repositories take either the database or an open transaction. */
export type Conn = Knex | Knex.Transaction;

/** What the database setting may say beyond its location (PostgreSQL only). */
export type DbOptions = PostgresOptions;

/**
 * Builds knex for the database setting: a `postgres://` or `postgresql://` URL is a central
 * PostgreSQL (db/dialect/postgres.ts); any other `scheme://` is refused, never taken for a file
 * name; anything else is a SQLite file.
 */
export function createDb(setting: string, options: DbOptions = {}): Db {
  if (isPostgresUrl(setting)) return knex({ ...postgresConfig(setting, options), migrations: { migrationSource } });
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(setting)?.[1].toLowerCase();
  if (scheme) throw new Error(`${scheme}:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL`);
  return createSqliteDb(setting);
}

/**
 * Builds knex over one SQLite file. A single pooled connection serialises every
 * statement, so concurrent requests queue instead of meeting SQLITE_BUSY, and WAL
 * lets that one writer commit without blocking readers in other processes.
 */
function createSqliteDb(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) {
        // synchronous=NORMAL in WAL survives a killed process (only power loss can undo a commit).
        conn.exec(
          'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
          (err) => done(err, conn),
        );
      },
    },
    migrations: { migrationSource },
  });
}

/** Brings the schema up to date; processes starting together on one PostgreSQL take turns. */
export async function migrateLatest(db: Db): Promise<void> {
  await dialectOf(db).migrateLatest(db);
}
