import type { Options, Store, IncrementResponse } from 'express-rate-limit';
import type { Db } from '../db/knex';
import { countLoginAttempt, deleteExpiredLoginAttempts, forgetLoginAttempts, uncountLoginAttempt } from '../db/repositories/login-attempts';

/**
 * The login limiter's counts, kept in the database rather than in this process, so several
 * server processes on one PostgreSQL database (or two on one SQLite file) share one limit.
 */
export class DatabaseLimitStore implements Store {
  private windowMs = 60_000;

  constructor(private readonly db: Db) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    // Old windows are dropped at start-up; the table holds one row per address that tried.
    void deleteExpiredLoginAttempts(this.db).catch(() => undefined);
  }

  async increment(key: string): Promise<IncrementResponse> {
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
