import type { Knex } from 'knex';

/**
 * SQLite result codes that say the file, not the statement, failed: it could not be written
 * (a read-only moment), read or opened, or its disk was full. A connection that met one may
 * stay broken after the cause is gone: SQLite opens a database or WAL file it cannot write
 * read-only, silently, and keeps it so for the connection's life (every later write answers
 * SQLITE_READONLY until restart). Such a connection is retired, and the next is opened anew.
 */
const FILE_FAULTS = new Set(['SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_FULL']);

// knex's id of each connection a statement met a file fault on (unique within the process).
const faulted = new Set<string>();

/** Notes the connections of `db` whose statements meet a file fault (knex's `query-error` event). */
export function retireConnectionsAfterFaults(db: Knex): void {
  db.on('query-error', (err: { code?: unknown } | undefined, query: { __knexUid?: string } | undefined) => {
    if (typeof err?.code === 'string' && FILE_FAULTS.has(err.code) && query?.__knexUid) faulted.add(query.__knexUid);
  });
}

/**
 * The pool's `validate` hook: false for a connection a file fault was met on, which the pool
 * then closes and replaces. Costs a set lookup per acquire, no statement.
 */
export function connectionUsable(connection: { __knexUid?: string }): boolean {
  return !(connection.__knexUid !== undefined && faulted.delete(connection.__knexUid));
}
