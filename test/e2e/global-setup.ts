import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** The server serves out/renderer: build it when the sources are newer than the build. */
export default function globalSetup(): void {
  const built = path.join(ROOT, 'out', 'renderer', 'index.html');
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newestMtime(path.join(ROOT, 'renderer'))) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
}
