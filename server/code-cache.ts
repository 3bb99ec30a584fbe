import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';

/**
 * A built CommonJS file compiled with V8's code cache kept beside it (`<file>.v8-cache`), through
 * Node's documented `vm.Script` `cachedData`: Node 20 has no `module.enableCompileCache()`, and
 * compiling the 2.9 MB server bundle, then each function of it the start calls, is about a third
 * of the start's CPU. The cache begins with the SHA-1 of the source it was made from (V8 itself
 * compares only the source's length), and V8 checks its own version and flags; a cache of
 * other source, or one V8 rejects (another Node), is written anew. A folder that cannot be
 * written leaves the start as it was, uncached.
 *
 * The file becomes the module `require` answers for it (`require.cache`, documented), so the
 * bundle's other chunks share it.
 */
export interface CodeCachedModule<T> {
  exports: T;
  /** Writes the cache when there was none or V8 rejected it: after the start, so it holds what the start compiled. */
  keep(): void;
}

// Node's own CommonJS wrapper, on the source's first line: stack traces keep its line numbers.
const WRAPPER = '(function (exports, require, module, __filename, __dirname) { ';

/** The cache beside the file when it was made from this source (its digest first); otherwise nothing. */
function readCache(cacheFile: string, digest: Buffer): Buffer | undefined {
  let kept: Buffer;
  try {
    kept = fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return kept.subarray(0, digest.length).equals(digest) ? kept.subarray(digest.length) : undefined;
}

export function requireWithCodeCache<T>(file: string): CodeCachedModule<T> {
  const cacheFile = `${file}.v8-cache`;
  const text = fs.readFileSync(file, 'utf8');
  const digest = crypto.createHash('sha1').update(text).digest();
  const cachedData = readCache(cacheFile, digest);
  const source = `${WRAPPER}${text}\n})`;
  const script = new vm.Script(source, { filename: file, columnOffset: -WRAPPER.length, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const module = { id: file, filename: file, loaded: false, exports: {} as T, children: [], paths: [], path: path.dirname(file) };
  require.cache[file] = module as unknown as NodeJS.Module;
  const wrapped = script.runInThisContext() as (exports: T, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  try {
    wrapped.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  } catch (err) {
    delete require.cache[file];
    throw err;
  }
  module.loaded = true;
  const fresh = cachedData === undefined || script.cachedDataRejected === true;
  return {
    exports: module.exports,
    keep: () => {
      if (!fresh) return;
      // Beside the file, whole or not at all: two servers starting at once each rename their own.
      const partial = `${cacheFile}.${process.pid}`;
      try {
        fs.writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]));
        fs.renameSync(partial, cacheFile);
      } catch {
        fs.rmSync(partial, { force: true });
      }
    },
  };
}
