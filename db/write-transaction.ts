import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import type { Conn, Trx } from './knex';

/**
 * Runs `work` in one write transaction (knex's own), committed when `work` answers and rolled
 * back when it throws (the error is thrown on). Every write transaction of the writer starts
 * here: on SQLite its first statement is the dialect's takeWriteLock, so it waits its turn
 * behind another process's write (busy_timeout) instead of reading first and then being
 * refused at its first write (SQLITE_BUSY). Inside a transaction already, `work` runs under
 * a savepoint of it.
 */
export function writeTransaction<T>(db: Conn, work: (trx: Trx) => Promise<T>): Promise<T> {
  if ((db as Knex.Transaction).isTransaction) return db.transaction(work);
  return db.transaction(async (trx) => {
    await dialectOf(trx).takeWriteLock(trx);
    return work(trx);
  });
}

// One name serves nested savepoints too: SQLite and PostgreSQL release and roll back to the
// most recent of that name.
const SAVEPOINT = 'doorlist_savepoint';

/**
 * Runs `work` under a savepoint of `trx`: if it fails, its statements alone are undone and
 * its error thrown on, and the transaction goes on (PostgreSQL refuses every later statement
 * of a transaction whose statement failed, unless that statement is rolled back alone).
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
 * to back (node-sqlite3 in the order sent on its one connection, pg pipelined), where awaiting
 * each in turn costs a round trip through the event loop per statement. Every one has ended
 * before the first failure is thrown, so none is still running when a transaction rolls back
 * or an import's clean-up begins.
 */
export async function sentAtOnce<T extends readonly unknown[] | []>(statements: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = (await Promise.allSettled(statements)) as PromiseSettledResult<unknown>[];
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
