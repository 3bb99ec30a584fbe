import knex, { type Knex } from 'knex';

/**
 * The few things SQLite and PostgreSQL do differently, in one place: repositories ask the
 * dialect of their connection instead of testing the driver themselves.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The most bound parameters one statement may carry (bulk inserts size their batches by it). */
  readonly maxParams: number;
  /** Brings the schema up to date; processes starting together on one database take turns. */
  migrateLatest(db: Knex): Promise<void>;
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
  migrateLatest: async (db) => {
    await db.migrate.latest();
  },
  binaryCollation: async () => {},
};

// Any fixed 64-bit number: the key of the advisory lock that serialises migrations.
const MIGRATION_LOCK_KEY = 7_331_002_026;

const postgres: Dialect = {
  name: 'postgres',
  // The wire protocol counts parameters in 16 bits (65535).
  maxParams: 60_000,
  async migrateLatest(db) {
    // On connections of their own: without the statement timeout (an index on millions of
    // guests takes longer), and under an advisory lock held by a transaction, so processes
    // starting together migrate one after another and a process that dies releases it.
    const config = db.client.config as Knex.Config;
    const migrator = knex({ ...config, connection: { ...(config.connection as Knex.PgConnectionConfig), statement_timeout: 0 }, pool: { min: 0, max: 2 } });
    try {
      await migrator.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
        await migrator.migrate.latest();
      });
    } finally {
      await migrator.destroy();
    }
  },
  binaryCollation: async (db, table, column, length) => {
    await db.raw(`alter table ?? alter column ?? type varchar(${Number(length)}) collate "C"`, [table, column]);
  },
};

/** The dialect of a knex instance or transaction. */
export function dialectOf(db: Knex | Knex.Transaction): Dialect {
  return db.client.dialect === 'postgresql' ? postgres : sqlite;
}
