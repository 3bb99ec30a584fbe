import fs from 'node:fs';
import type { Db } from './knex';

const SQLITE_HEADER = Buffer.from('SQLite format 3\0');

/** A non-empty file that does not start with SQLite's header is not a database at all. */
function lacksHeader(file: string): boolean {
  if (file === ':memory:' || !fs.existsSync(file) || fs.statSync(file).size === 0) return false;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return !head.equals(SQLITE_HEADER);
}

// What SQLite answers when the file is not a database or its pages are damaged.
const DAMAGE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/**
 * Whether the SQLite file is no database at all (read from its first bytes), or undefined.
 * Checked before the first connection, which would log the driver's own complaint. Other
 * dialects keep their own guarantees; they answer undefined here.
 */
export function headerDamage(db: Db): string | undefined {
  if (db.client.config.client !== 'sqlite3') return undefined;
  return lacksHeader(db.client.config.connection.filename) ? 'the file is not an SQLite database' : undefined;
}

/**
 * What is wrong with the database's pages, or undefined when they are sound. SQLite's quick
 * check reads every page (about a second per GB) without the slower index cross-checks; it
 * holds the connection it runs on that long, so give it one that nothing else waits for.
 * Other dialects answer undefined.
 */
export async function pageDamage(db: Db): Promise<string | undefined> {
  if (db.client.config.client !== 'sqlite3') return undefined;
  try {
    const rows: Record<string, unknown>[] = await db.raw('PRAGMA quick_check(1)');
    const first = String(Object.values(rows[0] ?? { quick_check: 'ok' })[0]);
    return first === 'ok' ? undefined : first;
  } catch (err) {
    if (isDamageError(err)) return (err as Error).message;
    throw err;
  }
}

/** An error SQLite answers when the file is not a database or its pages are damaged. */
export function isDamageError(err: unknown): boolean {
  return DAMAGE_CODES.has((err as { code?: string } | undefined)?.code ?? '');
}
