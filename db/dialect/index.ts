import type { Knex } from 'knex';

/**
 * The few things SQLite and PostgreSQL do differently, in one place: repositories ask the
 * dialect of their connection instead of testing the driver themselves.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The most bound parameters one statement may carry (bulk inserts size their batches by it). */
  readonly maxParams: number;
  /**
   * Locks the rows the select reads until the transaction ends. PostgreSQL needs it where
   * concurrent writers count before they insert; SQLite's single writer already serialises them.
   */
  forUpdate<Q extends Knex.QueryBuilder>(query: Q): Q;
  /** As forUpdate, skipping rows another transaction holds (work queues claimed by many processes). */
  forUpdateSkipLocked<Q extends Knex.QueryBuilder>(query: Q): Q;
  /**
   * Runs `work` (migrations) while no other process runs it: a PostgreSQL advisory lock, held
   * by a transaction so it is released even when the process dies. SQLite runs it as it is.
   */
  exclusively<T>(db: Knex, work: () => Promise<T>): Promise<T>;
  /**
   * Makes a text column compare byte by byte (binary collation), whatever the database's
   * collation, so prefix ranges (`term >= 'ab' and term < 'ab' || U+10FFFF`) hold. SQLite
   * compares so by default.
   */
  binaryCollation(db: Knex, table: string, column: string, length: number): Promise<void>;
}

const sqlite: Dialect = {
  name: 'sqlite',
  // SQLite binds at most 32766 parameters per statement.
  maxParams: 30_000,
  forUpdate: (query) => query,
  forUpdateSkipLocked: (query) => query,
  exclusively: (_db, work) => work(),
  binaryCollation: async () => {},
};

// Any fixed 64-bit number: the key of the advisory lock that serialises migrations.
const MIGRATION_LOCK_KEY = 7_331_002_026;

const postgres: Dialect = {
  name: 'postgres',
  // The wire protocol counts parameters in 16 bits (65535).
  maxParams: 60_000,
  forUpdate: (query) => query.forUpdate() as typeof query,
  forUpdateSkipLocked: (query) => query.forUpdate().skipLocked() as typeof query,
  async exclusively<T>(db: Knex, work: () => Promise<T>): Promise<T> {
    // The lock is taken on one pooled connection and `work` runs on others (knex migrations
    // open their own transactions): the pool always has at least two (db/dialect/postgres.ts).
    let result: T | undefined;
    await db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      result = await work();
    });
    return result as T;
  },
  binaryCollation: async (db, table, column, length) => {
    await db.raw(`alter table ?? alter column ?? type varchar(${Number(length)}) collate "C"`, [table, column]);
  },
};

/** The dialect of a knex instance or transaction. */
export function dialectOf(db: Knex | Knex.Transaction): Dialect {
  return db.client.dialect === 'postgresql' ? postgres : sqlite;
}
