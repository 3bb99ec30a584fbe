import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Conn, Db } from './knex';
import { dialectOf } from './dialect';

/**
 * Dialect bulk helpers: the one place where a bulk statement takes a different shape on
 * SQLite than on PostgreSQL. Every shape is written through knex (no driver access).
 */

type Row = Record<string, unknown>;

const isSqlite = (db: Conn) => dialectOf(db).name === 'sqlite';

// Rows per JSON parameter on SQLite, and on PostgreSQL (where a statement's rows are written
// while the door's scans go on, so each stays short).
const JSON_ROWS = 50000;
const PG_JSON_ROWS = 5000;
/** Values in one `in (...)` list. */
export const IN_LIST = 500;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Inserts many rows in few statements. The rows travel as one JSON parameter that the
 * database unpacks itself: binding tens of thousands of values one by one (and knex building
 * a statement with a placeholder for each) costs more than the insert. Answers `{id, uid}`
 * per row when `returning`.
 */
export async function insertRows(db: Conn, table: string, rows: Row[], returning: boolean): Promise<{ id: number; uid: string }[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]);
  if (!isSqlite(db)) {
    // PostgreSQL fills the table's own row type from each JSON object (json_populate_recordset),
    // so every value is converted by the column's type as if bound; a column no row names
    // keeps its default, as SQLite's path below.
    const list = columns.map(() => '??').join(', ');
    const sql = `insert into ?? (${list}) select ${list} from json_populate_recordset(null::??, ?::json)${returning ? ' returning id, uid' : ''}`;
    const out: { id: number; uid: string }[] = [];
    for (const part of chunks(rows, PG_JSON_ROWS)) {
      const result = await db.raw(sql, [table, ...columns, ...columns, table, JSON.stringify(part)]);
      if (returning) out.push(...(result.rows as { id: number; uid: string }[]));
    }
    return out;
  }
  return insertSqliteTuples(db, table, columns, rows.map((r) => columns.map((c) => r[c] ?? null)), returning);
}

// Values one INSERT binds one by one at most; more rows travel as one JSON parameter.
const BOUND_VALUES = 2000;

/**
 * `insertRows` for rows that are already arrays of `columns`' values (strings, numbers,
 * booleans, null), as a hot path builds them (a hundred thousand guests' search terms): no
 * object per row on SQLite. A few rows (a create batch) are bound value by value in one
 * INSERT ... VALUES: no JSON for the database to parse, which made a lone guest's insert cost
 * half as much again.
 */
export async function insertTuples(db: Conn, table: string, columns: string[], tuples: unknown[][]): Promise<void> {
  if (tuples.length === 0) return;
  if (tuples.length * columns.length <= BOUND_VALUES) {
    const row = `(${columns.map(() => '?').join(', ')})`;
    const sql = `insert into ?? (${columns.map(() => '??').join(', ')}) values ${Array.from(tuples, () => row).join(', ')}`;
    await db.raw(sql, [table, ...columns, ...tuples.flat()] as Knex.RawBinding[]);
    return;
  }
  if (!isSqlite(db)) {
    await insertRows(db, table, tuples.map((t) => Object.fromEntries(columns.map((c, i) => [c, t[i]]))), false);
    return;
  }
  await insertSqliteTuples(db, table, columns, tuples, false);
}

/**
 * Does `work` here while the database runs `statement`, given a turn of the event loop first to
 * reach the driver (when its connection is free). Taken once: a knex query runs on every `then`.
 */
export async function alongside<T, U>(statement: PromiseLike<T>, work: () => U): Promise<[T, U]> {
  const pending = Promise.resolve(statement);
  pending.catch(() => undefined); // awaited below; a failure during `work` is not unhandled
  await nextTurn();
  const done = work();
  return [await pending, done];
}

/**
 * SQLite's bulk insert: bound with the table, the columns, then the rows as one JSON array of
 * arrays. `->>` on each array element: SQLite parses each row's JSON once and reuses it.
 */
export function sqliteBulkInsert(columns: string[], returning: boolean): string {
  const values = columns.map((_, i) => `value ->> ${i}`).join(', ');
  return `insert into ?? (${columns.map(() => '??').join(', ')}) select ${values} from json_each(?)${returning ? ' returning id, uid' : ''}`;
}

async function insertSqliteTuples(db: Conn, table: string, columns: string[], tuples: unknown[][], returning: boolean): Promise<{ id: number; uid: string }[]> {
  const sql = sqliteBulkInsert(columns, returning);
  const out: { id: number; uid: string }[] = [];
  for (const part of chunks(tuples, JSON_ROWS)) {
    const result = (await db.raw(sql, [table, ...columns, JSON.stringify(part)])) as { id: number; uid: string }[];
    if (returning) out.push(...result);
  }
  return out;
}

/**
 * Rows of `from` whose `column` is one of `values`; `build` adds joins, conditions and the
 * selected columns. On SQLite the values travel as one JSON parameter, read first (CROSS
 * JOIN keeps that order) so each value is one index lookup; elsewhere they go in `IN`
 * lists of a few hundred.
 */
export async function selectByValues(
  db: Conn,
  from: string,
  column: string,
  values: (string | number)[],
  build: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<Row[]> {
  if (values.length === 0) return [];
  if (isSqlite(db)) {
    const q = db.from(db.raw('json_each(?) as wanted', [JSON.stringify(values)])).crossJoin(from, column, 'wanted.value');
    return (await build(q)) as Row[];
  }
  const out: Row[] = [];
  for (const part of chunks(values, IN_LIST)) out.push(...((await build(db.from(from).whereIn(column, part))) as Row[]));
  return out;
}

/** SQLite's page cache while an import runs (withLargeCache). */
export const LARGE_CACHE_KIB = 16 * 1024;

/** Per database: imports running with the large cache, and the size configured before any. */
const largeCaches = new WeakMap<Db, { users: number; configured: Promise<number> }>();

/**
 * A big import writes a hundred thousand index entries: with SQLite's default 2 MB page
 * cache that thrashed. The cache is raised to 16 MB while `work` runs. Since a guest's search
 * terms are one full-text entry, 16 MB imports as fast as 64 MB did (event file, CSV and a
 * file of random uids, A/B) and leaves the server's peak memory ~45 MB lower: the pages are
 * malloc'd on whichever pool thread runs the statement, and glibc keeps them after.
 * Imports that overlap share the raise; the last to end puts the configured size back.
 */
export async function withLargeCache<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return work();
  let cache = largeCaches.get(db);
  if (!cache) {
    const configured = db.raw('PRAGMA cache_size').then(([row]: { cache_size: number }[]) => Number(row.cache_size));
    cache = { users: 0, configured };
    largeCaches.set(db, cache);
    // Asked again by the next import if this read fails.
    configured.catch(() => largeCaches.delete(db));
  }
  const configured = await cache.configured;
  try {
    if (++cache.users === 1) await db.raw(`PRAGMA cache_size = -${LARGE_CACHE_KIB}`);
    return await work();
  } finally {
    if (--cache.users === 0) await db.raw(`PRAGMA cache_size = ${configured}`);
  }
}
