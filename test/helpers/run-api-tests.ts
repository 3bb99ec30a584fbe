import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildWhenStale } from './built-app';
import { buildApiTests } from './built-tests';

/**
 * `npm run test:api` and the PostgreSQL pass (.ci/pg-suite): builds out/ when a source is newer,
 * compiles the named test/api files (every one when none is named) and runs them with
 * `node --test`, two at a time. Arguments that start with `--` go to node as they are
 * (`npm run test:api -- --test-name-pattern=undo test/api/checkins.test.ts`); `--enable-source-maps`
 * gives TypeScript lines in stack traces, at about 0.5 s of CPU a file (off by default).
 */
const ROOT = path.resolve(__dirname, '..', '..');

const args = process.argv.slice(2);
const nodeFlags = args.filter((arg) => arg.startsWith('--'));
const files = args.filter((arg) => !arg.startsWith('--'));

buildWhenStale();
const compiled = buildApiTests(files);
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...nodeFlags, ...compiled], { cwd: ROOT, stdio: 'inherit' });
process.exit(run.status ?? 1);
