import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations';
import { dialectOf } from './dialect';
import { connectionUsable, retireConnectionsAfterFaults } from './connection-faults';
import { isPostgresUrl, noteQueriesOnLostConnections, postgresConfig, type PostgresOptions } from './dialect/postgres';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Repositories take either the database or an open transaction. */
export type Conn = Knex | Knex.Transaction;

/** knex's own record of the migrations run (its default name). */
const MIGRATIONS_TABLE = 'knex_migrations';

type RawSqlite = { exec(sql: string, cb: (err: Error | null) => void): void };

/** Runs the connection's pragmas before knex hands it out (knex's documented afterCreate). */
function setUpConnection(pragmas: string) {
  return (conn: RawSqlite, done: (err: Error | null, conn: unknown) => void) => conn.exec(pragmas, (err) => done(err, conn));
}

// How long a statement waits for another process's write lock before SQLITE_BUSY. Writes are
// short (a scan is a few milliseconds, an import stages outside its visible write), so a
// wait this long means something is stuck, not busy.
const BUSY_TIMEOUT_MS = 5000;

/** What the database setting may say beyond its location (PostgreSQL only). */
export interface DbOptions extends PostgresOptions {
  /**
   * SQLite: the WAL is copied back into the database file by checkpointBeside, on a connection
   * of its own, never inside a commit (the server's setting; see checkpointBeside).
   */
  checkpointsBeside?: boolean;
}

/**
 * Builds knex for the database setting: a `postgres://` or `postgresql://` URL is a central
 * PostgreSQL (db/dialect/postgres.ts); any other `scheme://` is refused, never taken for a file
 * name; anything else is a SQLite file.
 */
export function createDb(setting: string, options: DbOptions = {}): Db {
  if (isPostgresUrl(setting)) {
    const db = knex({ ...postgresConfig(setting, options), migrations: { migrationSource } });
    noteQueriesOnLostConnections(db);
    return db;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(setting)?.[1].toLowerCase();
  if (scheme) throw new Error(`${scheme}:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL`);
  return createSqliteDb(setting, options.checkpointsBeside === true);
}

/**
 * Builds knex over one SQLite file for writes, and the reads that decide them. A single
 * pooled connection serialises this process's writes, so they queue in order instead of
 * meeting each other's locks; other processes on the same file wait up to BUSY_TIMEOUT_MS
 * for the lock (see the dialect's takeWriteLock). WAL lets readers (createReadDb, other
 * processes) read while it writes.
 */
function createSqliteDb(file: string, checkpointsBeside: boolean): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      // synchronous=NORMAL in WAL survives a killed process (only power loss can undo a commit).
      // With checkpointsBeside, no checkpoint inside a commit: checkpointBeside does them.
      // busy_timeout first: turning a new file to WAL waits for a reader already on it (the start's integrity check).
      afterCreate: setUpConnection(
        `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;${checkpointsBeside ? ' PRAGMA wal_autocheckpoint = 0;' : ''}`,
      ),
      validate: connectionUsable,
    },
    migrations: { migrationSource },
  });
  retireConnectionsAfterFaults(db);
  return db;
}

const CHECKPOINT_EVERY_MS = 500;

/**
 * Copies the WAL back into the database file on a connection of its own, on a timer, for a
 * writer made with checkpointsBeside. SQLite otherwise checkpoints inside whichever commit
 * crosses 1,000 pages, and that commit (a scan) then waits for the copy and its fsync: the
 * one-scanner tail. PASSIVE never takes a lock, so the writer goes on committing meanwhile;
 * the WAL starts over once a checkpoint has caught up. Answers the function that stops it
 * (before the writer is destroyed). PostgreSQL and `:memory:` have nothing to copy.
 */
export function checkpointBeside(setting: string): () => Promise<void> {
  if (isPostgresUrl(setting) || setting === ':memory:') return async () => {};
  const checkpointer = knex({ client: 'sqlite3', connection: { filename: setting }, useNullAsDefault: true, pool: { min: 0, max: 1, validate: connectionUsable } });
  retireConnectionsAfterFaults(checkpointer);
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= checkpointer
      .raw('PRAGMA wal_checkpoint(PASSIVE)')
      // A checkpoint that could not run now (the file busy, closing) is done by the next one.
      .catch(() => undefined)
      .finally(() => (running = undefined));
  }, CHECKPOINT_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await running;
    await checkpointer.destroy();
  };
}

/** How many connections the database's pool may hold. */
export function poolSize(db: Db): number {
  return (db.client.config as Knex.Config).pool?.max ?? 1;
}

// Two: a long export and the door screens' stats polls do not queue behind each other.
const READ_CONNECTIONS = 2;

/**
 * Read-only connections to the same file (after createDb has made it WAL): lists, stats and
 * exports run here, so a scan never waits for them, and each statement (or read transaction)
 * sees a snapshot of everything committed when it began. query_only makes a write here fail
 * rather than compete with the writer. On PostgreSQL a pool of its own (where a read
 * replica's URL would go). A read of several statements that must agree takes readSnapshot.
 */
export function createReadDb(file: string, options: DbOptions = {}): Db {
  if (isPostgresUrl(file)) return createDb(file, options);
  const readDb = knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: { min: 0, max: READ_CONNECTIONS, afterCreate: setUpConnection(`PRAGMA query_only = ON; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`), validate: connectionUsable },
  });
  retireConnectionsAfterFaults(readDb);
  return readDb;
}

/**
 * A read whose statements see one snapshot (a page and its count, the stats' several counts,
 * an export). Given a reader beside the writer, it holds up no write: SQLite's WAL and
 * PostgreSQL's MVCC let writes go on while it reads.
 */
export function readSnapshot<T>(readDb: Db, read: (trx: Trx) => Promise<T>): Promise<T> {
  return readDb.transaction(read, dialectOf(readDb).snapshotRead);
}

/**
 * Whether the schema lacks a migration this code has, or has one it does not know (a newer
 * version's database, which knex then refuses). One read of knex_migrations, no lock.
 */
export async function migrationsPending(db: Db): Promise<boolean> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return true;
  const done: { name: string }[] = await db(MIGRATIONS_TABLE).select('name');
  const known = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
  const applied = new Set(done.map((row) => row.name));
  return applied.size !== known.length || known.some((name) => !applied.has(name));
}

/**
 * Brings the schema up to date; processes starting together on one PostgreSQL take turns.
 * An up-to-date schema costs one read: knex's own run takes the migration lock in a write
 * transaction (on PostgreSQL, on a pool of its own) even when there is nothing to do.
 */
export async function migrateLatest(db: Db): Promise<void> {
  if (!(await migrationsPending(db))) return;
  await dialectOf(db).migrateLatest(db);
}
