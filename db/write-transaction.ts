import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import type { Db, Trx } from './knex';

// knex's own builder of a knex object over a client: a transaction's statements go through one.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const makeKnex: (client: unknown) => Knex = require('knex/lib/knex-builder/make-knex');

interface KnexClient {
  config: unknown;
  acquireConnection(): Promise<Connection>;
  releaseConnection(connection: Connection): Promise<unknown>;
  emit(event: string, ...args: unknown[]): boolean;
}

type Connection = { __knex__disposed?: unknown };

/** A knex object whose statements run on the connection of the transaction it is lent to. */
interface Transactor {
  trx: Trx;
  connection: Connection | undefined;
}

// The statements knex's client runs and the events it reports, as a transactor's client forwards them.
const FORWARDED_EVENTS = ['start', 'query', 'query-error', 'query-response'];

const idleTransactors = new WeakMap<object, Transactor[]>();

/** The transactors over `client` that no transaction holds now. */
function idleTransactorsOf(client: KnexClient): Transactor[] {
  let idle = idleTransactors.get(client);
  if (!idle) idleTransactors.set(client, (idle = []));
  return idle;
}

/**
 * A transactor over `client`, built once and lent to one transaction at a time. knex builds a
 * whole knex object for every transaction (and for every savepoint); under a door's scans that
 * was the one-scanner tail: its garbage outlived the young generation's collections, which then
 * lasted ten times as long.
 */
function newTransactor(client: KnexClient): Transactor {
  const transactor = { connection: undefined } as Transactor;
  // The client's own class and settings, so statements compile and run as the database's do.
  const trxClient = Object.create(Object.getPrototypeOf(client));
  for (const key of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) trxClient[key] = (client as unknown as Record<string, unknown>)[key];
  trxClient.transacting = true; // nested transactions are savepoints
  for (const event of FORWARDED_EVENTS) trxClient.on(event, (...args: unknown[]) => client.emit(event, ...args));
  const query = trxClient.query;
  // A statement started after its transaction ended must not run in whichever comes next.
  const outside = () => Promise.reject(new Error('A statement ran outside its transaction'));
  trxClient.query = function (connection: Connection, statement: unknown) {
    if (!transactor.connection || connection !== transactor.connection) return outside();
    return query.call(this, connection, statement);
  };
  trxClient.acquireConnection = () => (transactor.connection ? Promise.resolve(transactor.connection) : outside());
  trxClient.releaseConnection = () => Promise.resolve();
  transactor.trx = makeKnex(trxClient) as unknown as Trx;
  return transactor;
}

/**
 * Runs `work` in one write transaction on one connection of `db`, held from BEGIN to COMMIT,
 * or to ROLLBACK when `work` or the commit fails (the error is thrown on). Repositories take
 * the transaction as they take knex's: `trx('guests')`, `trx.raw`, a savepoint (inSavepoint, or
 * knex's `trx.transaction`).
 */
export async function writeTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  const client = db.client as unknown as KnexClient;
  const connection = await client.acquireConnection();
  const idle = idleTransactorsOf(client);
  const transactor = idle.pop() ?? newTransactor(client);
  transactor.connection = connection;
  const { trx } = transactor;
  try {
    await trx.raw(dialectOf(db).beginWrite);
    try {
      const result = await work(trx);
      await trx.raw('COMMIT');
      return result;
    } catch (err) {
      await trx.raw('ROLLBACK').catch((rollbackErr: unknown) => {
        // A connection that cannot roll back may still be inside the transaction: the pool
        // must not hand it out again (knex's pool drops a connection marked so).
        connection.__knex__disposed = rollbackErr;
      });
      throw err;
    }
  } finally {
    transactor.connection = undefined;
    idle.push(transactor);
    await client.releaseConnection(connection);
  }
}

// One name serves nested savepoints too: SQLite and PostgreSQL release and roll back to the
// most recent of that name. One name also keeps one prepared statement of each.
const SAVEPOINT = 'doorlist_savepoint';

/**
 * Runs `work` under a savepoint of `trx`: if it fails, its statements alone are undone and
 * its error thrown on, and the transaction goes on (PostgreSQL refuses every later statement
 * of a transaction whose statement failed, unless that statement is rolled back alone).
 * knex's `trx.transaction` does the same, building a knex object for every savepoint.
 */
export async function inSavepoint<T>(trx: Trx, work: (trx: Trx) => Promise<T>): Promise<T> {
  await trx.raw(`SAVEPOINT ${SAVEPOINT}`);
  let result: T;
  try {
    result = await work(trx);
  } catch (err) {
    await trx.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    await trx.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    throw err;
  }
  await trx.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  return result;
}

/**
 * Runs one statement so that the transaction outlives its failure (its error thrown on), and
 * can go on to find out why: under a savepoint where a failed statement ends the transaction
 * (PostgreSQL), as it is where the failed statement alone is undone (SQLite), sparing two
 * statements.
 */
export function survivingFailure<T>(trx: Trx, statement: (trx: Trx) => Promise<T>): Promise<T> {
  return dialectOf(trx).failedStatementEndsTransaction ? inSavepoint(trx, statement) : statement(trx);
}

/**
 * Statements that need none of each other's answers, sent at once: the driver runs them back
 * to back (node-sqlite3 each whole under the connection's lock, pg pipelined, in order), where
 * awaiting each in turn cost a round trip through this thread's event loop per statement.
 * Every one has ended before the first failure is thrown, so none is still running when a
 * transaction rolls back or an import's clean-up begins.
 */
export async function together<T extends readonly unknown[] | []>(statements: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = (await Promise.allSettled(statements)) as PromiseSettledResult<unknown>[];
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
