import type { Options, Store, IncrementResponse } from 'express-rate-limit';
import type { Db } from '../../db/knex';
import { countLoginAttempt, deleteExpiredLoginAttempts, forgetLoginAttempts, uncountLoginAttempt } from '../../db/repositories/login-attempts';

/**
 * The login limiter's counts, kept in the database rather than in this process, so several
 * server processes on one PostgreSQL database (or two on one SQLite file) share one limit.
 */
export class DatabaseLimitStore implements Store {
  private windowMs = 60_000;
  private swept = false;

  constructor(private readonly db: Db) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<IncrementResponse> {
    // Old windows are dropped at the first sign-in of a run, not in the start (where the
    // database's check has not answered yet); the table holds one row per address that tried.
    if (!this.swept) {
      this.swept = true;
      await deleteExpiredLoginAttempts(this.db).catch(() => undefined);
    }
    const { hits, resetAt } = await countLoginAttempt(this.db, key, this.windowMs);
    return { totalHits: hits, resetTime: new Date(resetAt) };
  }

  async decrement(key: string): Promise<void> {
    await uncountLoginAttempt(this.db, key);
  }

  async resetKey(key: string): Promise<void> {
    await forgetLoginAttempts(this.db, key);
  }
}
