import crypto from 'node:crypto';
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

type CompilingModule = Module & { _compile(content: string, filename: string): unknown };

/**
 * V8's code cache for the built chunks in `dir` (out/main/chunks): what Node 22's
 * `module.enableCompileCache()` does, which Node 20 lacks. Compiling the bundled server is
 * the largest single cost of a start; from the cache V8 reads the compiled code instead.
 * Cache files live in `dir/compile-cache`, named by a hash of the source they were made from
 * (a rebuild empties out/main), so they are as trusted as the chunks beside them. Files
 * anywhere else (node_modules, tsx's sources) compile as usual. Answers a function that
 * writes the caches still missing, to be called once the start is done, so that they hold
 * every function the start compiled.
 */
export function enableCompileCache(dir: string): () => void {
  const cacheDir = path.join(dir, 'compile-cache');
  const missing: { file: string; script: vm.Script }[] = [];
  const proto = Module.prototype as CompilingModule;
  const compile = proto._compile;
  proto._compile = function (this: CompilingModule, content: string, filename: string) {
    if (path.dirname(filename) !== dir) return compile.call(this, content, filename);
    const file = path.join(cacheDir, `${crypto.createHash('sha256').update(content).digest('hex').slice(0, 32)}.bin`);
    const cachedData = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
    const script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
    if (!cachedData || script.cachedDataRejected) missing.push({ file, script });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dir);
  };
  return () => {
    if (missing.length === 0) return;
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      for (const { file, script } of missing.splice(0)) {
        // Renamed into place: a process starting meanwhile reads the whole file or none.
        const partial = `${file}.${process.pid}`;
        fs.writeFileSync(partial, script.createCachedData());
        fs.renameSync(partial, file);
      }
    } catch {
      // A read-only installation starts without the cache, as before.
    }
  };
}
