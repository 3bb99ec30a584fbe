import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');

describe('compile cache (server/compile-cache.ts)', () => {
  let dir: string;
  let chunks: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-compile-cache-'));
    chunks = path.join(dir, 'chunks');
    fs.mkdirSync(chunks);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A fresh process that enables the cache on `chunks`, loads `chunk.js`, saves, and prints what it exported. */
  function load(): string {
    const script = `const { enableCompileCache } = require(${JSON.stringify(path.join(ROOT, 'server', 'compile-cache.ts'))});
      const save = enableCompileCache(${JSON.stringify(chunks)});
      const value = require(${JSON.stringify(path.join(chunks, 'chunk.js'))}).answer();
      save();
      process.stdout.write(String(value));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
  }
  const cacheFiles = () => (fs.existsSync(path.join(chunks, 'compile-cache')) ? fs.readdirSync(path.join(chunks, 'compile-cache')).sort() : []);

  it('writes a chunk’s cache once, runs from it after, and never runs a changed chunk from an old cache', () => {
    fs.writeFileSync(path.join(chunks, 'chunk.js'), 'exports.answer = () => 41 + 1;\n');
    assert.equal(load(), '42');
    const [first] = cacheFiles();
    assert.match(first, /^[0-9a-f]{32}\.bin$/);
    const written = fs.statSync(path.join(chunks, 'compile-cache', first)).mtimeMs;

    assert.equal(load(), '42');
    assert.deepEqual(cacheFiles(), [first]);
    assert.equal(fs.statSync(path.join(chunks, 'compile-cache', first)).mtimeMs, written, 'accepted, not written again');

    // The same length, other code: a cache of its own.
    fs.writeFileSync(path.join(chunks, 'chunk.js'), 'exports.answer = () => 41 + 2;\n');
    assert.equal(load(), '43');
    assert.equal(cacheFiles().length, 2);
  });
});
