import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashHasCurrentCost, hashPassword, unmatchableHash, verifyPassword } from '../../server/secrets';

describe('password hashes', () => {
  it('verify the password they were made from and no other, and carry their cost', async () => {
    const stored = await hashPassword('correct horse');
    assert.match(stored, /^scrypt\$32768\$8\$1\$/);
    assert.equal(hashHasCurrentCost(stored), true);
    assert.equal(await verifyPassword('correct horse', stored), true);
    assert.equal(await verifyPassword('correct hors', stored), false);
    assert.equal(hashHasCurrentCost(stored.replace('$32768$', '$16384$')), false);
  });

  it("give an unknown username a decoy at today's cost that no password matches, so its sign-in costs the same scrypt", async () => {
    // Was a comparison of sign-in times (test/api/auth.test.ts); what makes them equal is this.
    const decoy = unmatchableHash();
    assert.equal(hashHasCurrentCost(decoy), true);
    assert.equal(decoy.length, (await hashPassword('any')).length);
    assert.equal(await verifyPassword('', decoy), false);
    assert.notEqual(unmatchableHash(), decoy);
  });
});
