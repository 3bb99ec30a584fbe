import fs from 'node:fs';
import path from 'node:path';
import { defaultDataDir } from './config';

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Narrows a file's or folder's mode when this user owns it (never on Windows, which has ACLs). */
export function restrictMode(target: string, mode: number): void {
  if (process.platform === 'win32' || !fs.existsSync(target)) return;
  const stat = fs.statSync(target);
  if ((stat.mode & 0o777) === mode || (process.getuid && stat.uid !== process.getuid())) return;
  fs.chmodSync(target, mode);
}

/**
 * The database holds guest lists and password hashes: its file (with SQLite's -wal and -shm,
 * which SQLite creates with the file's own mode) is 0600, and a folder Doorlist makes, or its
 * own per-user data folder, is 0700. A folder someone chose (DOORLIST_DB=/srv/x.sqlite) keeps
 * its mode: it may hold other things.
 */
export function protectDatabaseFiles(dbFile: string, ownDataDir = defaultDataDir()): void {
  if (dbFile === ':memory:' || URL_LIKE.test(dbFile)) return;
  const file = path.resolve(dbFile);
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (dir === path.resolve(ownDataDir)) restrictMode(dir, 0o700);
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const part of [file, `${file}-wal`, `${file}-shm`]) restrictMode(part, 0o600);
}
