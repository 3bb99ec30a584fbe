import type { Conn } from '../knex';

export interface AttemptCount {
  hits: number;
  resetAt: string;
}

/**
 * Counts one sign-in attempt of `key` in its window, in one upsert: every server process on
 * the database counts into the same row, so the login limit holds across them. A window that
 * has passed starts again at 1.
 */
export async function countLoginAttempt(db: Conn, key: string, windowMs: number, now = new Date()): Promise<AttemptCount> {
  const nowIso = now.toISOString();
  const resetAt = new Date(now.getTime() + windowMs).toISOString();
  const [row] = await db('login_attempts')
    .insert({ key, hits: 1, reset_at: resetAt })
    .onConflict('key')
    .merge({
      hits: db.raw('case when login_attempts.reset_at <= ? then 1 else login_attempts.hits + 1 end', [nowIso]),
      reset_at: db.raw('case when login_attempts.reset_at <= ? then ? else login_attempts.reset_at end', [nowIso, resetAt]),
    })
    .returning(['hits', 'reset_at']);
  return { hits: Number(row.hits), resetAt: row.reset_at };
}

/** Takes back one attempt (one that turned out not to be a guess). */
export async function uncountLoginAttempt(db: Conn, key: string): Promise<void> {
  await db('login_attempts').where({ key }).andWhere('hits', '>', 0).decrement('hits', 1);
}

export async function forgetLoginAttempts(db: Conn, key: string): Promise<void> {
  await db('login_attempts').where({ key }).delete();
}

/** Drops the counts whose window has passed. */
export async function deleteExpiredLoginAttempts(db: Conn, now = new Date()): Promise<void> {
  await db('login_attempts').where('reset_at', '<=', now.toISOString()).delete();
}
