import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

/**
 * The API tier's files compiled once, each with everything of the repository it imports, into
 * plain JavaScript in out/test-api/: a test process then starts without tsx's loader and its
 * resolving and compiling of some 200 modules (about 0.7 s of CPU a file, measured on an
 * empty test that starts one server). Packages stay outside the bundle, loaded from
 * node_modules as always.
 *
 * out/test-api/ sits two levels under the repository, as test/api/ does, so `__dirname`-relative
 * paths of the tests and their helpers mean the same there; the server's own look-ups from its
 * bundled file find the built renderer (out/renderer) and the badge worker built beside the tests.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const TESTS_OUT = path.join('out', 'test-api');

/** Compiles the given test/api files (all of them when none is named); returns the files to run. */
export function buildApiTests(files: string[]): string[] {
  const sources = files.length > 0 ? files : fs.readdirSync(path.join(ROOT, 'test', 'api')).filter((name) => name.endsWith('.test.ts')).map((name) => path.join('test', 'api', name));
  const entries = sources.map((file) => {
    const full = path.resolve(ROOT, file);
    if (path.dirname(full) !== path.join(ROOT, 'test', 'api') || !full.endsWith('.test.ts')) throw new Error(`Not an API test file: ${file} (test/api/*.test.ts)`);
    if (!fs.existsSync(full)) throw new Error(`No such test file: ${file}`);
    return { in: full, out: path.basename(full, '.ts') };
  });
  fs.rmSync(path.join(ROOT, TESTS_OUT), { recursive: true, force: true });
  buildSync({
    absWorkingDir: ROOT,
    // The server finds its badge worker beside its own (bundled) file, as in out/main.
    entryPoints: [...entries, { in: path.join(ROOT, 'server', 'badges', 'worker.ts'), out: 'badge-worker' }],
    outdir: path.join(ROOT, TESTS_OUT),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // Names as written: an error's or a class's name is part of what some tests assert.
    keepNames: true,
    // Failures point at the TypeScript line (node --enable-source-maps).
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return entries.map((entry) => path.join(TESTS_OUT, `${entry.out}.js`));
}
