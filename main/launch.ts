import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * `npm start`: the Electron app, or, where Electron cannot start (no binary offline, no
 * display), one line saying so and the headless server `npm run serve` runs.
 */
const READY_LINE = 'Doorlist listening on ';
const appRoot = path.resolve(__dirname, '..', '..');

function electronBinary(): { path?: string; reason?: string } {
  // Resolving the binary may try to download it; keep that noise out of the terminal.
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], { cwd: appRoot, encoding: 'utf8', timeout: 60_000 });
  if (probe.status === 0 && probe.stdout) return { path: probe.stdout.trim() };
  return { reason: 'the Electron binary is not installed and cannot be downloaded' };
}

function runHeadless(reason: string): void {
  process.stdout.write(`Electron could not start (${reason}); running the headless server instead.\n`);
  // Built beside this file by electron-vite (out/main/serve.js); a computed path keeps the
  // bundler from inlining a second copy of the server.
  require(path.join(__dirname, 'serve.js'));
}

function launch(): void {
  const binary = electronBinary();
  if (!binary.path) return runHeadless(binary.reason!);
  const child = spawn(binary.path, [appRoot, ...process.argv.slice(2)], { cwd: appRoot, stdio: ['inherit', 'pipe', 'pipe'] });
  let ready = false;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    ready ||= chunk.toString().includes(READY_LINE);
    process.stdout.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (ready) process.stderr.write(chunk);
    else stderr += chunk.toString();
  });
  child.on('error', (err) => runHeadless(err.message));
  child.on('exit', (code, signal) => {
    if (ready) process.exit(code ?? 0);
    const firstLine = stderr.split('\n').find((l) => l.trim()) ?? `exited with ${signal ?? code}`;
    runHeadless(firstLine.trim().slice(0, 160));
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
}

launch();
