import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SERVE_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');

/** Starts the built server as `npm run serve` does and waits for the ready line. */
function serve(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [SERVE_ENTRY, ...args], { cwd: ROOT, env: { ...process.env, DOORLIST_LOG_LEVEL: 'silent', ...env } });
  const ready = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('Doorlist listening on '));
      if (line) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { child, ready };
}

/** Stops the server and waits for it to exit: its shutdown still writes the database's files. */
async function stop(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('npm run serve', () => {
  it('creates the database folders, prints the ready line with the real port and serves the admin', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-serve-'));
    const db = path.join(dir, 'a', 'b', 'doorlist.sqlite');
    const { child, ready } = serve({ DOORLIST_DB: db, DOORLIST_PORT: '0', DOORLIST_ADMIN_USERNAME: 'boss', DOORLIST_ADMIN_PASSWORD: 'hunter22' });
    try {
      const line = await ready;
      const match = /^Doorlist listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line);
      assert.ok(match, line);
      assert.notEqual(match[1], '0');
      assert.ok(fs.existsSync(db));
      const res = await fetch(`http://127.0.0.1:${match[1]}/api/v1/apps/api/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'boss', password: 'hunter22' }),
      });
      assert.equal(res.status, 200);
    } finally {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes --db and --port flags', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-flags-'));
    const { child, ready } = serve({}, ['--db', path.join(dir, 'flag.sqlite'), '--port', '0', '--host', '127.0.0.1']);
    try {
      assert.match(await ready, /^Doorlist listening on http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(fs.existsSync(path.join(dir, 'flag.sqlite')));
    } finally {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses DOORLIST_DB with a URL it cannot use: one line on stderr, exit 1, no folder named after the scheme', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-url-'));
    try {
      for (const [url, line] of [
        ['mysql://door:pw@localhost/doorlist', 'Doorlist could not start: Invalid Doorlist configuration: db: mysql:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL\n'],
        ['redis://localhost/0', 'Doorlist could not start: Invalid Doorlist configuration: db: redis:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL\n'],
      ]) {
        const child = spawn(process.execPath, [path.join(ROOT, SERVE_ENTRY)], { cwd: dir, env: { ...process.env, DOORLIST_DB: url, DOORLIST_PORT: '0' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const code = await new Promise((resolve) => child.on('exit', resolve));
        assert.equal(code, 1, url);
        assert.equal(stderr, line);
        assert.equal(stdout, '');
      }
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
