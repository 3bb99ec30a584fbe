import type { Db, Trx } from './knex';

// How often a transaction that lost a race for the write lock is run again from the start.
const ATTEMPTS = 5;

/**
 * True when the database refused the transaction only because another writer got there
 * first: SQLite's busy (a read snapshot overtaken by another process's commit fails at its
 * first write, whatever busy_timeout says), PostgreSQL's serialization failure or deadlock.
 * Running the whole transaction again is then safe: nothing of it was kept.
 */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'SQLITE_BUSY' || code === '40001' || code === '40P01';
}

/** Runs `work` in one transaction, again from the start when it lost a race (see isRetryable). */
export async function retryingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
      // A few milliseconds, random, so two processes that collided do not collide again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}
