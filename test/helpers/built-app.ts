import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The app as built into out/ (electron-vite): tests start servers and the command line from the
 * files `npm run serve` and `npm run doorlist` run, not the sources under tsx, which compiles
 * them again at every start (about 1.3 s of CPU a process against 0.5 s).
 */
const ROOT = path.resolve(__dirname, '..', '..');

/** `npm run serve`'s file, relative to the repository (child processes run there). */
export const SERVE_ENTRY = 'out/main/serve.js';
/** `npm run doorlist`'s file. */
export const CLI_ENTRY = 'out/main/cli.js';

/** What the build reads: every source folder and the files that decide how it is built. */
const SOURCES = ['core', 'db', 'server', 'main', 'renderer', 'electron.vite.config.ts', 'package-lock.json', 'tsconfig.json'];
/** What it writes that the tests start or serve. */
const OUTPUTS = [SERVE_ENTRY, CLI_ENTRY, 'out/main/badge-worker.js', 'out/renderer/index.html'];

/**
 * The newest file's time. A folder's own time is left out: it moves whenever a file comes and
 * goes in it, and the lint's tests write probe files into the source folders and delete them.
 */
function newestMtime(file: string): number {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, entry)));
  return newest;
}

function oldestOutput(): number {
  let oldest = Infinity;
  for (const file of OUTPUTS) {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full)) return 0;
    oldest = Math.min(oldest, fs.statSync(full).mtimeMs);
  }
  return oldest;
}

/** Builds out/ when a source is newer than what was built from it (a fresh `npm ci` has just built it). */
export function buildWhenStale(): void {
  const sources = Math.max(...SOURCES.map((name) => newestMtime(path.join(ROOT, name))));
  if (oldestOutput() >= sources) return;
  console.log('The sources are newer than out/: building it first (electron-vite build).');
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
