import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Repositories take either the database or an open transaction. */
export type Conn = Knex | Knex.Transaction;

/**
 * Builds knex over one SQLite file. A single pooled connection serialises every
 * statement, so concurrent requests queue instead of meeting SQLITE_BUSY, and WAL
 * lets that one writer commit without blocking readers in other processes.
 */
export function createDb(file: string): Db {
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

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
