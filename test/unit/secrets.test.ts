import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { hashHasCurrentCost, hashPassword, verifyPassword } from '../../server/secrets';

describe('password hashes', () => {
  it('verify the password they were made from and no other, and carry their cost', async () => {
    const stored = await hashPassword('correct horse');
    assert.match(stored, /^scrypt\$32768\$8\$1\$/);
    assert.equal(hashHasCurrentCost(stored), true);
    assert.equal(await verifyPassword('correct horse', stored), true);
    assert.equal(await verifyPassword('correct hors', stored), false);
    assert.equal(hashHasCurrentCost(stored.replace('$32768$', '$16384$')), false);
  });

  it("leave no memory behind in libuv's threads (a fresh process, 12 hashes, resident memory before and after)", () => {
    // Run apart so nothing else in the process has moved glibc's thresholds. At N = 16384 each
    // thread that hashed kept 16 MiB: 64 MB after four threads.
    const script = `
      const { hashPassword } = require('./server/secrets.ts');
      (async () => {
        await hashPassword('warm');
        const before = process.memoryUsage().rss;
        for (let i = 0; i < 8; i++) await hashPassword('p' + i);
        await Promise.all([1, 2, 3, 4].map((i) => hashPassword('q' + i)));
        process.stdout.write(String((process.memoryUsage().rss - before) / 1048576));
      })();`;
    const grownMb = Number(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.resolve(__dirname, '..', '..'), encoding: 'utf8' }));
    assert.ok(grownMb < 24, `resident memory grew ${grownMb.toFixed(0)} MB over 12 hashes`);
  });
});
