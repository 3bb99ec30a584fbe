import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Repositories take either the database or an open transaction. */
export type Conn = Knex | Knex.Transaction;

type RawSqlite = { exec(sql: string, cb: (err: Error | null) => void): void };

/** Runs the connection's pragmas before knex hands it out. */
function pragmas(sql: string) {
  return (conn: RawSqlite, done: (err: Error | null, conn: unknown) => void) => conn.exec(sql, (err) => done(err, conn));
}

// How long a statement waits for another process's write lock before SQLITE_BUSY. Writes are
// short (a scan is a few milliseconds, an import stages outside its visible write), so a
// wait this long means something is stuck, not busy.
const BUSY_TIMEOUT_MS = 5000;

/**
 * Builds knex over one SQLite file for writes, and the reads that decide them. A single
 * pooled connection serialises this process's writes, so they queue in order instead of
 * meeting each other's locks; other processes on the same file wait up to BUSY_TIMEOUT_MS
 * for the lock. WAL lets readers (createReadDb, other processes) read while it writes.
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
      // synchronous=NORMAL in WAL survives a killed process (only power loss can undo a commit).
      afterCreate: pragmas(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`),
    },
    migrations: { migrationSource },
  });
}

// Two: a long export and the door screens' stats polls do not queue behind each other.
const READ_CONNECTIONS = 2;

/**
 * Read-only connections to the same file (after createDb has made it WAL): lists, stats and
 * exports run here, so a scan never waits for them, and each statement (or read transaction)
 * sees a snapshot of everything committed when it began. query_only makes a write here fail
 * rather than compete with the writer.
 */
export function createReadDb(file: string): Db {
  return knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: { min: 0, max: READ_CONNECTIONS, afterCreate: pragmas(`PRAGMA query_only = ON; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`) },
  });
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
