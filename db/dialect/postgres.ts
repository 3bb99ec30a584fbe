import type { Knex } from 'knex';
import type { Client } from 'pg';
import { markConnectionLost } from '../errors';

/** knex's id of a connection, which its `query-error` event names too. */
type KnexConnection = { __knexUid?: string };

// Connections that reported their own death: a later statement on one (a transaction's
// ROLLBACK) fails with pg's "not queryable", a new error that says nothing of the cause.
const lostConnectionUids = new Set<string>();

/** Counts a statement's failure on a connection that died as the connection's loss (503). */
export function noteQueriesOnLostConnections(db: Knex): void {
  db.on('query-error', (err: unknown, query: KnexConnection | undefined) => {
    if (query?.__knexUid && lostConnectionUids.has(query.__knexUid)) markConnectionLost(err);
  });
}

/** `postgres://` and `postgresql://` name a PostgreSQL database; anything else is a SQLite file. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

export interface PostgresOptions {
  /** Most connections this process opens (DOORLIST_DB_POOL). */
  pool?: number;
  /** Longest a statement may run before PostgreSQL cancels it (the request then answers 503). */
  statementTimeoutMs?: number;
  /** Where knex's warnings go (a connection PostgreSQL dropped, one that could not be made); stderr by default. */
  warn?: (message: string) => void;
}

const DEFAULT_POOL = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;

// pg's own numbers of these types (pg.types.builtins): naming them needs no pg loaded, which a
// SQLite laptop never does.
const TIMESTAMPTZ = 1184;
const INT8 = 20;
const NUMERIC = 1700;

/** pg's type parsers; pg is loaded by knex when a PostgreSQL connection is first made. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgTypes = (): typeof import('pg').types => require('pg').types;

/**
 * `YYYY-MM-DD hh:mm:ss[.ffffff]+00`, as a session in UTC writes a timestamptz, to the stored
 * form SQLite keeps (core/time.ts nowIso): `YYYY-MM-DDThh:mm:ss.mmmZ`. Both databases then
 * answer the same strings, and they compare as text the same way.
 */
export function isoInstant(text: string): string {
  if (text.length >= 22 && text[10] === ' ' && text.endsWith('+00')) {
    const fraction = text.length > 22 ? text.slice(20, -3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${fraction}000`.slice(0, 3)}Z`;
  }
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
}

// Counts (bigint) and money (numeric) as numbers, as SQLite answers them; booleans already are.
const parsers: Partial<Record<number, (text: string) => unknown>> = {
  [TIMESTAMPTZ]: isoInstant,
  [INT8]: Number,
  [NUMERIC]: Number,
};

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return (format ?? 'text') === 'text' && parsers[oid] ? parsers[oid] : pgTypes().getTypeParser(oid, format as 'text');
  },
};

/** The knex configuration of a central Doorlist on PostgreSQL. */
export function postgresConfig(url: string, options: PostgresOptions = {}): Knex.Config {
  const max = options.pool ?? DEFAULT_POOL;
  return {
    client: 'pg',
    connection: {
      connectionString: url,
      types,
      // Stored instants are UTC; the session's zone decides how timestamptz is written out.
      options: '-c TimeZone=UTC',
      statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      // A transaction left open by a stuck request must not hold its row locks for long.
      idle_in_transaction_session_timeout: 60_000,
      application_name: 'doorlist',
      // Statements sent together (db/write-transaction's `sentAtOnce`) go to the server without
      // waiting for each other's answers, in order; without it pg queued them itself, one
      // round trip each, and warned that doing so is deprecated.
      pipeline: true,
    } as Knex.PgConnectionConfig,
    pool: {
      min: 0,
      max,
      afterCreate(conn: Client & KnexConnection, done: (err: Error | null, conn: Client) => void) {
        // The error a dying connection reports is the one its queries then fail with: remember
        // it, so the error handler answers 503 (the pool replaces the connection).
        conn.on('error', (err) => {
          markConnectionLost(err);
          if (conn.__knexUid) lostConnectionUids.add(conn.__knexUid);
        });
        done(null, conn);
      },
    },
    // A burst (200 doors scanning one badge queue on its row lock) may hold every connection
    // for a while: a request waits this long for one before it answers 503. A database that is
    // down fails each new connection at once (knex passes that error on): 503 straight away.
    acquireConnectionTimeout: 30_000,
    ...(options.warn && { log: { warn: options.warn, error: options.warn } }),
  };
}
