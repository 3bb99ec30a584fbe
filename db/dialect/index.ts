import knex, { type Knex } from 'knex';

/**
 * The few things SQLite and PostgreSQL do differently, in one place: repositories ask the
 * dialect of their connection instead of testing the driver themselves.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The most bound parameters one statement may carry (bulk inserts size their batches by it). */
  readonly maxParams: number;
  /**
   * How a read transaction sees one snapshot across its statements. SQLite's does by itself
   * (WAL); PostgreSQL's default, READ COMMITTED, takes a new snapshot for every statement.
   */
  readonly snapshotRead: Knex.TransactionConfig;
  /**
   * The first statement of every write transaction (writeTransaction). On SQLite a write that
   * changes nothing: a transaction whose first statement writes takes the write lock then,
   * waiting for another process's write under busy_timeout, as BEGIN IMMEDIATE would (knex
   * begins with a plain BEGIN). One that read first would be refused at its first write
   * (SQLITE_BUSY) whenever another process had committed since: a scan would fail instead of
   * queueing. PostgreSQL locks rows as they are written: nothing to do.
   */
  takeWriteLock(trx: Knex.Transaction): Promise<void>;
  /**
   * Whether triggers keep each event's number of guests in `event_guest_counts`. On SQLite a
   * count walks every index entry of the event (4 ms at 100,000 guests, on every page of a
   * sync); its one writer makes a kept count free. On PostgreSQL one counter row per event
   * would make every transaction adding guests to an event wait for the others, and its
   * count reads the index alone.
   */
  readonly keepsGuestCounts: boolean;
  /**
   * Whether a failed statement (a unique index's refusal) ends the transaction around it.
   * SQLite undoes the failed statement alone and the transaction goes on; PostgreSQL refuses
   * every later statement until the transaction, or a savepoint around the statement, is
   * rolled back.
   */
  readonly failedStatementEndsTransaction: boolean;
  /**
   * The ids the next `count` rows of `table` (an `id` counted by the database) will take,
   * asked inside a write transaction, so that statements naming them need not wait for the
   * insert's answer. SQLite's write lock keeps the table's last id as read until commit, and
   * the next are counted on from it as SQLite would; PostgreSQL takes them from the table's
   * sequence (what a batch leaves unused is a gap, as a rolled-back insert's is).
   */
  nextIds(trx: Knex.Transaction, table: string, count: number): Promise<number[]>;
  /**
   * The same ids drawn as a column of another read, where the dialect can (SQLite: an
   * expression of the table's last id, and the ids counted on from its value); undefined
   * where drawing them is a statement of its own (PostgreSQL's sequence).
   */
  readonly nextIdsInline: { column(table: string): string; ids(last: unknown, count: number): number[] } | undefined;
  /** Brings the schema up to date; processes starting together on one database take turns. */
  migrateLatest(db: Knex): Promise<void>;
  /**
   * Makes a text column compare byte by byte (binary collation), whatever the database's
   * collation, so prefix ranges (`term >= 'ab' and term < 'ab' || U+10FFFF`) hold. SQLite
   * compares so by default.
   */
  binaryCollation(db: Knex, table: string, column: string, length: number): Promise<void>;
  /**
   * Has the database tidy a table after far fewer changes than its default (`percent` of its
   * rows updated, deleted or inserted), or `null` for the default. PostgreSQL counts, pages
   * and searches on an index alone only where its visibility map says so, and by default
   * refreshes that map only after a fifth of a table has changed: a million guests in many
   * events, then a door checking in tens of thousands, left a 100k event's count reading most
   * rows again. SQLite has nothing to tune.
   */
  vacuumAfter(db: Knex, table: string, percent: number | null): Promise<void>;
  /** What each column of `table` holds, as far as a JSON object the database builds cares. */
  columnKinds(db: Knex | Knex.Transaction, table: string): Promise<Record<string, ColumnKind>>;
  /**
   * A column's value inside a JSON object the database builds, written the same on both: an
   * instant as the stored ISO text (`…T…mmmZ`), a boolean as 0 or 1, a decimal as the shortest
   * number (12.5, 0, 7.25), so an event file is byte for byte the same whichever wrote it.
   */
  jsonValue(expr: string, kind: ColumnKind | undefined): string;
  /**
   * `column IN values`, met by the query's other conditions, not by an index on `column`. SQLite,
   * planning without statistics, walked every scan of an event on an index led by event_id
   * rather than use the guest's own: `+column` there. PostgreSQL plans by statistics.
   */
  whereInUnindexed(query: Knex.QueryBuilder, column: string, values: readonly number[]): Knex.QueryBuilder;
  /** SQL true when `column` holds the one bound value (`?`), null meeting null: one statement for either. */
  sameAsBound(column: string): string;
}

export type ColumnKind = 'instant' | 'boolean' | 'decimal' | 'other';

// The schema is the same in every database of a dialect: each table is looked up once.
const kindCache = new Map<string, Promise<Record<string, ColumnKind>>>();

function cachedKinds(key: string, load: () => Promise<Record<string, ColumnKind>>): Promise<Record<string, ColumnKind>> {
  let kinds = kindCache.get(key);
  if (!kinds) {
    kinds = load();
    kindCache.set(key, kinds);
    kinds.catch(() => kindCache.delete(key));
  }
  return kinds;
}

/**
 * The last id of `table` (a trusted identifier), as AUTOINCREMENT counts on from it: the larger
 * of the table's highest id and its highest ever.
 */
function sqliteLastId(table: string): string {
  return `max(coalesce((select seq from sqlite_sequence where name = '${table}'), 0), coalesce((select max(id) from "${table}"), 0))`;
}

function sqliteIdsAfter(last: unknown, count: number): number[] {
  return Array.from({ length: count }, (_, k) => Number(last) + 1 + k);
}

const sqlite: Dialect = {
  name: 'sqlite',
  // SQLite binds at most 32766 parameters per statement.
  maxParams: 30_000,
  snapshotRead: {},
  async takeWriteLock(trx) {
    await trx.raw('update events set id = id where 0');
  },
  keepsGuestCounts: true,
  failedStatementEndsTransaction: false,
  async nextIds(trx, table, count) {
    if (count === 0) return [];
    const [{ last }] = await trx.raw(`select ${sqliteLastId(table)} as last`);
    return sqliteIdsAfter(last, count);
  },
  nextIdsInline: { column: (table) => sqliteLastId(table), ids: (last, count) => sqliteIdsAfter(last, count) },
  // knex's migration lock is an update, the first statement of the migrations' transaction: a
  // second process on the same file waits for the first (busy_timeout), then finds none pending.
  migrateLatest: async (db) => {
    await db.migrate.latest();
  },
  binaryCollation: async () => {},
  vacuumAfter: async () => {},
  columnKinds: (db, table) =>
    cachedKinds(`sqlite:${table}`, async () => {
      const columns: { name: string; type: string }[] = await db.raw('select name, type from pragma_table_info(?)', [table]);
      return Object.fromEntries(columns.map((c) => [c.name, /^(float|real|decimal|numeric)/i.test(c.type) ? 'decimal' : 'other']));
    }),
  // Instants are stored as the ISO text and booleans as 0/1 already; a decimal column is REAL,
  // which json_object writes as 0.0 or 10.0 where JSON.stringify writes 0 or 10.
  jsonValue: (expr, kind) => (kind === 'decimal' ? `(case when ${expr} = cast(${expr} as integer) then cast(${expr} as integer) else ${expr} end)` : expr),
  whereInUnindexed: (query, column, values) =>
    values.length === 0 ? query.whereRaw('0 = 1') : query.whereRaw(`+?? in (${values.map(() => '?').join(', ')})`, [column, ...values]),
  sameAsBound: (column) => `${column} is ?`,
};

// Any fixed 64-bit number: the key of the advisory lock that serialises migrations.
const MIGRATION_LOCK_KEY = 7_331_002_026;

const postgres: Dialect = {
  name: 'postgres',
  // The wire protocol counts parameters in 16 bits (65535).
  maxParams: 60_000,
  snapshotRead: { isolationLevel: 'repeatable read', readOnly: true },
  takeWriteLock: async () => {},
  keepsGuestCounts: false,
  failedStatementEndsTransaction: true,
  nextIdsInline: undefined,
  async nextIds(trx, table, count) {
    if (count === 0) return [];
    const { rows } = await trx.raw("select nextval(pg_get_serial_sequence(?, 'id')) as id from generate_series(1, ?)", [table, count]);
    return (rows as { id: string }[]).map((r) => Number(r.id));
  },
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
  vacuumAfter: async (db, table, percent) => {
    const settings = ['autovacuum_vacuum_scale_factor', 'autovacuum_vacuum_insert_scale_factor', 'autovacuum_analyze_scale_factor'];
    if (percent === null) await db.raw(`alter table ?? reset (${settings.join(', ')})`, [table]);
    else await db.raw(`alter table ?? set (${settings.map((s) => `${s} = ${Number(percent) / 100}`).join(', ')})`, [table]);
  },
  columnKinds: (db, table) =>
    cachedKinds(`postgres:${table}`, async () => {
      const { rows } = await db.raw('select column_name, data_type from information_schema.columns where table_schema = current_schema() and table_name = ?', [table]);
      const kind = (type: string): ColumnKind => (type === 'timestamp with time zone' ? 'instant' : type === 'boolean' ? 'boolean' : type === 'numeric' ? 'decimal' : 'other');
      return Object.fromEntries((rows as { column_name: string; data_type: string }[]).map((c) => [c.column_name, kind(c.data_type)]));
    }),
  // to_json would write `2026-11-25T19:20:16.85+00:00`, true and 12.50.
  jsonValue: (expr, kind) =>
    kind === 'instant'
      ? `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : kind === 'boolean'
        ? `${expr}::int`
        : kind === 'decimal'
          ? `${expr}::float8`
          : expr,
  whereInUnindexed: (query, column, values) => query.whereIn(column, values),
  sameAsBound: (column) => `${column} is not distinct from ?`,
};

/** The dialect of a knex instance or transaction. */
export function dialectOf(db: Knex | Knex.Transaction): Dialect {
  return db.client.dialect === 'postgresql' ? postgres : sqlite;
}
