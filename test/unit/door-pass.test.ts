import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DOOR_PASS_LIFETIME_S, mintDoorPass, passHolds, readDoorPass } from '../../server/sync/door-pass';

// A door pass (server/sync/door-pass.ts): read by form, held by its MAC and expiry; the clock is an argument.

const CREDENTIAL = 'dlv_the-venue-credential';
const UID = '01a23818-cf93-754f-966e-b0cbd761cd47';
const NOW = Date.parse('2026-12-02T18:00:00Z');

describe('readDoorPass', () => {
  const { pass } = mintDoorPass(CREDENTIAL, UID, NOW);
  const [, , expiry, mac] = pass.split('.');
  const table: [string, boolean][] = [
    [pass, true],
    [`dlpass2.${UID}.${expiry}.${mac}`, false],
    [`dlpass1.${UID}.${expiry}`, false],
    [`dlpass1.${UID}.${expiry}.${mac}.more`, false],
    [`dlpass1.${UID}.soon.${mac}`, false],
    [`dlpass1.${UID}.1234567890123.${mac}`, false],
    [`dlpass1.no_underscores.${expiry}.${mac}`, false],
    [`dlpass1.${'a'.repeat(65)}.${expiry}.${mac}`, false],
    [`dlpass1..${expiry}.${mac}`, false],
    ['dlk_an-api-key', false],
  ];
  for (const [text, read] of table) {
    it(`${read ? 'reads' : 'refuses'} ${text.slice(0, 48)}`, () => assert.equal(readDoorPass(text) !== undefined, read));
  }
});

describe('passHolds', () => {
  const minted = mintDoorPass(CREDENTIAL, UID, NOW);
  const pass = readDoorPass(minted.pass)!;
  const table: [string, () => boolean, boolean][] = [
    ['its own credential, now', () => passHolds(pass, CREDENTIAL, NOW), true],
    ['a second before it ends', () => passHolds(pass, CREDENTIAL, NOW + (DOOR_PASS_LIFETIME_S - 1) * 1000), true],
    ['when it ends', () => passHolds(pass, CREDENTIAL, NOW + DOOR_PASS_LIFETIME_S * 1000), false],
    ["another venue's credential", () => passHolds(pass, 'dlv_another-venue', NOW), false],
    ['another event uid under the same MAC', () => passHolds({ ...pass, eventUid: 'another-event' }, CREDENTIAL, NOW), false],
    ['a later expiry under the same MAC', () => passHolds({ ...pass, expires: pass.expires + 3600 }, CREDENTIAL, NOW), false],
    ['a MAC of another length', () => passHolds({ ...pass, mac: pass.mac.slice(1) }, CREDENTIAL, NOW), false],
  ];
  for (const [what, holds, expected] of table) it(`${expected ? 'holds' : 'fails'} with ${what}`, () => assert.equal(holds(), expected));

  it('expires a lifetime after it is minted, to the second', () => {
    assert.equal(minted.expires.getTime(), NOW + DOOR_PASS_LIFETIME_S * 1000);
  });
});
