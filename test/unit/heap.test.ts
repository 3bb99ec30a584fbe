import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * A fresh process keeps 50,000 recent objects and replaces them one by one, so each lives long
 * enough to be promoted and then dies in the old generation, as a server's batches' objects do
 * under load; it reports the old generation's largest size.
 */
function peakOldSpaceMb(limited: boolean): number {
  const script = `
    const v8 = require('node:v8');
    ${limited ? "require('./server/heap').limitHeapGrowth();" : ''}
    const recent = new Array(50000);
    let peak = 0;
    for (let n = 0; n < 1000000; n++) {
      recent[n % recent.length] = { n, list: [n, n + 1], text: String(n).padEnd(100, '.') };
      if (n % 1000 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size);
    }
    process.stdout.write(String(peak / 1e6));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return Number(run.stdout);
}

describe('heap policy', () => {
  it('collects the old generation before it grows far past what the last collection kept', () => {
    const defaults = peakOldSpaceMb(false);
    const limited = peakOldSpaceMb(true);
    assert.ok(limited < defaults * 0.7, `old generation peaked at ${limited.toFixed(1)} MB limited, ${defaults.toFixed(1)} MB with V8's defaults`);
  });
});
