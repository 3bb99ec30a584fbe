import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { requireWithCodeCache } from '../../server/code-cache';

describe('requireWithCodeCache', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-code-cache-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(name: string, source: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, source);
    return file;
  }

  it('runs the file as CommonJS once, as the module require answers for it, and keeps its cache after the start', () => {
    write('helper.js', 'exports.twice = (n) => 2 * n;');
    const file = write('main.js', "const { twice } = require('./helper.js');\nexports.answer = twice(21);\nexports.where = [__filename, __dirname];\nexports.stack = () => new Error('here').stack;");
    const first = requireWithCodeCache<{ answer: number; where: string[]; stack: () => string }>(file);
    assert.equal(first.exports.answer, 42);
    assert.deepEqual(first.exports.where, [file, dir]);
    // The wrapper sits on the first line: the file's own line numbers in a stack trace.
    assert.match(first.exports.stack(), new RegExp(`main\\.js:4:`));
    assert.equal(require(file), first.exports);
    assert.equal(fs.existsSync(`${file}.v8-cache`), false);
    first.keep();
    assert.ok(fs.statSync(`${file}.v8-cache`).size > 0);
  });

  it('takes a cache of the same source as it is, and writes one anew for a changed file of the same length', () => {
    const file = write('changing.js', 'exports.value = 1;');
    requireWithCodeCache(file).keep();
    const kept = fs.readFileSync(`${file}.v8-cache`);
    delete require.cache[file];
    const again = requireWithCodeCache<{ value: number }>(file);
    again.keep();
    assert.equal(again.exports.value, 1);
    assert.deepEqual(fs.readFileSync(`${file}.v8-cache`), kept);
    // V8 alone would take the old cache for a source of the same length, and run the old code.
    fs.writeFileSync(file, 'exports.value = 2;');
    delete require.cache[file];
    const changed = requireWithCodeCache<{ value: number }>(file);
    assert.equal(changed.exports.value, 2);
    changed.keep();
    assert.notDeepEqual(fs.readFileSync(`${file}.v8-cache`), kept);
  });

  it('leaves nothing behind a file that throws', () => {
    const file = write('throws.js', "throw new Error('broken');");
    assert.throws(() => requireWithCodeCache(file), /broken/);
    assert.equal(require.cache[file], undefined);
  });
});
