import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Temporary files hold guest lists (uploads being checked, exports being written). They live
 * in a folder only this user can open, each file 0600, named after the process that made it
 * so that the next start removes what a crashed process left behind.
 */
const STALE_NAME = /^doorlist-(\d+)-[0-9a-z]+/;

function userTag(): string {
  const { uid, username } = os.userInfo();
  return uid >= 0 ? String(uid) : username.replace(/[^\w.-]+/g, '_');
}

/** `<tmp>/doorlist-<uid>`, made 0700; refused when it is a link or belongs to someone else. */
export function privateTempDir(base = os.tmpdir()): string {
  const dir = path.join(base, `doorlist-${userTag()}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) {
    throw new Error(`${dir} is not a private folder of this user; remove it and start again.`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  return dir;
}

/** A new empty file (0600) for `extension` in the private folder; the caller removes it. */
export function createTempFile(extension: string, base?: string): string {
  const file = path.join(privateTempDir(base), `doorlist-${process.pid}-${crypto.randomBytes(8).toString('hex')}${extension}`);
  fs.closeSync(fs.openSync(file, 'wx', 0o600));
  return file;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files of processes that no longer run: in the private folder, and those
 * that earlier versions left directly in the system's temporary folder. Returns how many.
 */
export function removeStaleTempFiles(base = os.tmpdir()): number {
  let removed = 0;
  for (const dir of [privateTempDir(base), base]) {
    for (const name of fs.readdirSync(dir)) {
      const pid = STALE_NAME.exec(name)?.[1];
      if (!pid || Number(pid) === process.pid || isRunning(Number(pid))) continue;
      const file = path.join(dir, name);
      try {
        const stat = fs.lstatSync(file);
        if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid())) continue;
        fs.rmSync(file, { force: true });
        removed++;
      } catch {
        // Gone already (another process cleaning up at the same moment).
      }
    }
  }
  return removed;
}
