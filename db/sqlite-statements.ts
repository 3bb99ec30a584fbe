/** What node-sqlite3 answers a `run` with: the last inserted row id and the rows changed. */
interface RunResult {
  lastID: number;
  changes: number;
}

type RowsCallback = (this: unknown, err: Error | null, rows?: unknown[]) => void;
type RunCallback = (this: RunResult, err: Error | null) => void;

interface Statement {
  all(params: unknown, callback: RowsCallback): unknown;
  run(params: unknown, callback: RunCallback): unknown;
  finalize(callback?: () => void): unknown;
}

/** node-sqlite3's connection, in the two calls knex's sqlite3 client makes for every statement. */
export interface SqliteConnection {
  all(sql: string, params: unknown, callback: RowsCallback): unknown;
  run(sql: string, params: unknown, callback: RunCallback): unknown;
  prepare(sql: string, callback: (err: Error | null) => void): Statement;
  close(callback: (err: Error | null) => void): unknown;
}

// A connection keeps this many statements: the repositories' statements are a few dozen shapes.
const KEPT_STATEMENTS = 200;
// Longer SQL (a bulk insert of hundreds of rows) is prepared each time: its VM is large, and
// its preparation is small beside the rows it writes.
const LONGEST_KEPT_SQL = 8_000;

/**
 * Keeps a connection's statements prepared, so each `all` and `run` that knex sends binds and
 * steps a statement SQLite compiled before. node-sqlite3 otherwise prepares every statement on
 * a worker thread and finalizes it after one use: measured on a scan's eight statements, that
 * is half of their CPU (870 -> 420 µs a transaction) and half their latency. A statement that
 * fails to prepare (a syntax error, a missing table) reports its own error and is not kept.
 */
export function keepStatementsPrepared(conn: SqliteConnection): void {
  // A use only stamps its entry: moving the entry to the end of the map (delete, then set)
  // would make each statement's new SQL string a key of this long-lived map, which V8 then
  // moves to its old generation, about a kilobyte a scan.
  const kept = new Map<string, { statement: Statement; lastUse: number }>();
  let uses = 0;
  const { all, run, close } = conn;

  // Finalizing waits for the statement's queued runs (node-sqlite3 queues per statement).
  function dropLeastRecentlyUsed(): void {
    let oldest: [string, { statement: Statement; lastUse: number }] | undefined;
    for (const entry of kept) if (!oldest || entry[1].lastUse < oldest[1].lastUse) oldest = entry;
    if (!oldest) return;
    kept.delete(oldest[0]);
    oldest[1].statement.finalize();
  }

  function withStatement(sql: string, use: (statement: Statement) => void, fail: (err: Error) => void): void {
    const found = kept.get(sql);
    if (found) {
      found.lastUse = ++uses;
      use(found.statement);
      return;
    }
    const fresh = conn.prepare(sql, (err) => {
      if (err) return fail(err);
      kept.set(sql, { statement: fresh, lastUse: ++uses });
      if (kept.size > KEPT_STATEMENTS) dropLeastRecentlyUsed();
      use(fresh);
    });
  }

  conn.all = function (sql, params, callback) {
    if (sql.length > LONGEST_KEPT_SQL) return all.call(conn, sql, params, callback);
    withStatement(
      sql,
      (statement) => statement.all(params, callback),
      (err) => callback.call(undefined, err),
    );
    return conn;
  };

  conn.run = function (sql, params, callback) {
    if (sql.length > LONGEST_KEPT_SQL) return run.call(conn, sql, params, callback);
    withStatement(
      sql,
      // The statement's lastID and changes are overwritten by its next run: knex reads them
      // later, so it is handed a copy of this run's.
      (statement) => statement.run(params, function (err) {
        callback.call({ lastID: this.lastID, changes: this.changes }, err);
      }),
      (err) => callback.call({ lastID: 0, changes: 0 }, err),
    );
    return conn;
  };

  // SQLite refuses to close a connection with statements left unfinalized.
  conn.close = function (callback) {
    const statements = [...kept.values()].map((entry) => entry.statement);
    kept.clear();
    let left = statements.length;
    if (left === 0) return close.call(conn, callback);
    for (const statement of statements) statement.finalize(() => --left === 0 && close.call(conn, callback));
    return conn;
  };
}
