import { KnexTimeoutError } from 'knex';

/**
 * What a database refusal means, whichever driver raised it. Classified by SQLSTATE (pg),
 * result code and the structured `UNIQUE constraint failed: table.column, ...` form (sqlite3),
 * and the connection that died: never by matching a message's prose.
 */
export type DbFailure =
  /** A unique index refused the row. PostgreSQL names the constraint, SQLite the columns. */
  | { kind: 'unique'; table?: string; columns?: string[]; constraint?: string }
  /** A CHECK, foreign-key or NOT NULL rule, or a value the column cannot hold. */
  | { kind: 'integrity' }
  /** A serialisation failure or deadlock: the same transaction run again may well succeed. */
  | { kind: 'retryable' }
  /** The database is busy (locked, statement timeout): answer 503, the client tries again. */
  | { kind: 'busy' }
  /** The connection is gone or cannot be made: answer 503; the pool reconnects by itself. */
  | { kind: 'unavailable' }
  /** The disk holding the database is full: answer 503; writes go on once there is room. */
  | { kind: 'full' }
  /**
   * The database file cannot be written or read (a read-only moment, a failing or removed
   * disk): answer 503; the connection is replaced (db/connection-faults.ts) and writes go on
   * once the file can be written again.
   */
  | { kind: 'not-writable' };

interface DriverError {
  code?: unknown;
  message?: unknown;
  table?: unknown;
  constraint?: unknown;
}

// Errors a pg connection reported as it died (db/dialect/postgres.ts): its queries fail with them.
const lostConnectionErrors = new WeakSet<object>();

export function markConnectionLost(err: unknown): void {
  if (err && typeof err === 'object') lostConnectionErrors.add(err);
}

// Socket-level failures on the way to PostgreSQL.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// SQLSTATEs: admin/crash shutdown, cannot connect now, too many connections, the database
// does not exist (yet, or no longer) or refuses our credentials: nothing the request did.
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '3D000', '28000', '28P01']);
// Serialisation failure, deadlock.
const RETRYABLE_STATES = new Set(['40001', '40P01']);
// Statement timeout (query_canceled), lock not available.
const BUSY_STATES = new Set(['57014', '55P03']);
// disk_full; read_only_sql_transaction (a standby, or default_transaction_read_only).
const FULL_STATES = new Set(['53100']);
const NOT_WRITABLE_STATES = new Set(['25006']);

const SQLITE_UNIQUE = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/;

export function classifyDbError(err: unknown): DbFailure | undefined {
  if (!err || typeof err !== 'object') return undefined;
  if (lostConnectionErrors.has(err) || err instanceof KnexTimeoutError) return { kind: 'unavailable' };
  const e = err as DriverError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('SQLITE_')) return classifySqlite(code, typeof e.message === 'string' ? e.message : '');
  if (NETWORK_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_STATES.has(code)) return { kind: 'unavailable' };
  if (code === '23505') {
    return { kind: 'unique', table: typeof e.table === 'string' ? e.table : undefined, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
  }
  // Class 23 (integrity constraint) and 22 (data exception: too long, out of range, bad datetime).
  if (/^2[23][0-9A-Z]{3}$/.test(code)) return { kind: 'integrity' };
  if (RETRYABLE_STATES.has(code)) return { kind: 'retryable' };
  if (BUSY_STATES.has(code)) return { kind: 'busy' };
  if (FULL_STATES.has(code)) return { kind: 'full' };
  if (NOT_WRITABLE_STATES.has(code)) return { kind: 'not-writable' };
  return undefined;
}

// A connection that died under us: PostgreSQL terminated it (an administrator, a crash), it no
// longer exists or its link failed (SQLSTATEs), or its socket was cut.
const LOST_CODES = new Set(['57P01', '57P02', '08003', '08006', 'ECONNRESET', 'EPIPE']);

/**
 * True when the statement failed because its connection had died, not because the database
 * cannot be reached: a new connection may well answer it. A connection PostgreSQL dropped
 * while it sat in the pool can be handed out before its end has been read.
 */
export function isLostConnection(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (lostConnectionErrors.has(err)) return true;
  const code = (err as DriverError).code;
  return typeof code === 'string' && LOST_CODES.has(code);
}

function classifySqlite(code: string, message: string): DbFailure | undefined {
  // node-sqlite3 reports the primary result code; a unique failure says which columns.
  if (code === 'SQLITE_CONSTRAINT') {
    const unique = SQLITE_UNIQUE.exec(message);
    if (!unique) return { kind: 'integrity' };
    const qualified = unique[1].split(', ').map((c) => c.split('.'));
    return { kind: 'unique', table: qualified[0][0], columns: qualified.map((c) => c[c.length - 1]) };
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { kind: 'busy' };
  if (code === 'SQLITE_FULL') return { kind: 'full' };
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_IOERR' || code === 'SQLITE_CANTOPEN') return { kind: 'not-writable' };
  return undefined;
}

/** A unique index: its table and columns (SQLite names these) and its name (PostgreSQL names this). */
export interface UniqueKey {
  table: string;
  columns: readonly string[];
  name: string;
}

/** A unique index as the migrations made it; `name` defaults to knex's name for `t.unique(columns)`. */
export function uniqueKey(table: string, columns: readonly string[], name = `${table}_${columns.join('_')}_unique`): UniqueKey {
  return { table, columns, name };
}

/** True when the error is a unique-index refusal: of `key` when given, of any otherwise. */
export function isUniqueViolation(err: unknown, key?: UniqueKey): boolean {
  const failure = classifyDbError(err);
  if (failure?.kind !== 'unique') return false;
  if (!key) return true;
  if (failure.constraint) return failure.constraint === key.name;
  return failure.table === key.table && failure.columns?.length === key.columns.length && key.columns.every((c) => failure.columns?.includes(c));
}

/** True when a CHECK, foreign-key or NOT NULL rule (or the column's type) refused the row. */
export function isIntegrityViolation(err: unknown): boolean {
  return classifyDbError(err)?.kind === 'integrity';
}

const RETRIES = 4;

/**
 * Runs `work` (one whole transaction) again when the database aborted it for a serialisation
 * failure or a deadlock, so concurrent writers on PostgreSQL all get an answer; the last
 * failure is thrown (the error handler answers 503).
 */
export async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= RETRIES || classifyDbError(err)?.kind !== 'retryable') throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt * Math.random()));
    }
  }
}
