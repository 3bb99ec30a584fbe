import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

function cruise(cwd: string, folders: string[]) {
  return spawnSync(DEPCRUISE, [...folders, '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });
}

/** A throwaway tree with the project's folder names, one file per entry. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-layers-'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{}');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe('npm run lint: the import-boundary rule', () => {
  it('finds no layer crossed in the code as it is', () => {
    const result = cruise(ROOT, ['core', 'db', 'server', 'main', 'renderer', 'bench']);
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });

  it('refuses db/ importing server/ and core/ importing db/', () => {
    const dir = tree({
      'server/errors.ts': 'export const status = 400;\n',
      'db/repository.ts': "import { status } from '../server/errors';\nexport const answer = status;\n",
      'core/rules.ts': "import { answer } from '../db/repository';\nexport const rule = answer;\n",
    });
    try {
      const result = cruise(dir, ['core', 'db', 'server']);
      assert.notEqual(result.status, 0);
      assert.match(result.stdout, /db-knows-no-http: db\/repository\.ts → server\/errors\.ts/);
      assert.match(result.stdout, /core-is-a-leaf: core\/rules\.ts → db\/repository\.ts/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
