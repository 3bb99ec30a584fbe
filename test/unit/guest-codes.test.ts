import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodeHolders, codeClashErrors, csvCodeErrors, mergeCodeResolution, type CodeClash, type CsvCodeHolder, type GuestCodes } from '../../core/guest-codes';
import { MSG } from '../../core/messages';

/** Barcode and NFC tag unique within an event (core/guest-codes.ts): one rule for API writes, CSV imports and merges. */
const held = (entries: [column: 'barcode' | 'nfc_tag', code: string, id: number][]) => {
  const holders = new CodeHolders<number | undefined>();
  for (const [column, code, id] of entries) holders.hold(column, code, id);
  return holders;
};

describe('CodeHolders.clashes', () => {
  const event = () => held([['barcode', 'B-1', 7], ['nfc_tag', 'N-1', 8]]);
  const table: [string, GuestCodes, number | undefined, CodeClash<number | undefined>[]][] = [
    ['free codes', { barcode: 'B-2', nfc_tag: 'N-2' }, undefined, []],
    ['no codes (a barcode to draw, no tag)', { barcode: null, nfc_tag: null }, undefined, []],
    ['an empty code is no code', { barcode: '', nfc_tag: '' }, undefined, []],
    ['a barcode held', { barcode: 'B-1' }, undefined, [{ column: 'barcode', code: 'B-1', holder: 7 }]],
    ['a tag held', { nfc_tag: 'N-1' }, undefined, [{ column: 'nfc_tag', code: 'N-1', holder: 8 }]],
    ['both held', { barcode: 'B-1', nfc_tag: 'N-1' }, undefined, [{ column: 'barcode', code: 'B-1', holder: 7 }, { column: 'nfc_tag', code: 'N-1', holder: 8 }]],
    ['a guest keeping its own barcode', { barcode: 'B-1' }, 7, []],
    ["a guest taking another's tag while keeping its barcode", { barcode: 'B-1', nfc_tag: 'N-1' }, 7, [{ column: 'nfc_tag', code: 'N-1', holder: 8 }]],
    ['a barcode is not a tag', { nfc_tag: 'B-1' }, undefined, []],
  ];
  for (const [name, guest, self, expected] of table) {
    it(name, () => assert.deepEqual(event().clashes(guest, (id) => id === self), expected));
  }
});

describe('CodeHolders.claim (a batch in order)', () => {
  it('holds a clear guest\'s codes for the next of the batch, and not a refused one\'s', () => {
    const holders = held([['barcode', 'TAKEN', 1]]);
    assert.deepEqual(holders.claim({ barcode: 'A', nfc_tag: 'T' }, 2), []);
    assert.deepEqual(holders.claim({ barcode: 'A' }, 3), [{ column: 'barcode', code: 'A', holder: 2 }]);
    assert.deepEqual(holders.claim({ barcode: 'TAKEN', nfc_tag: 'U' }, 4), [{ column: 'barcode', code: 'TAKEN', holder: 1 }]);
    // The refused guest's tag was not held.
    assert.deepEqual(holders.claim({ nfc_tag: 'U' }, 5), []);
    assert.deepEqual(holders.claim({ nfc_tag: 'T' }, 6), [{ column: 'nfc_tag', code: 'T', holder: 2 }]);
  });

  it('the first holder keeps a code', () => {
    const holders = held([['barcode', 'X', 1], ['barcode', 'X', 2]]);
    assert.deepEqual(holders.clashes({ barcode: 'X' }), [{ column: 'barcode', code: 'X', holder: 1 }]);
    assert.deepEqual(holders.map((id) => `guest ${id}`).clashes({ barcode: 'X' }), [{ column: 'barcode', code: 'X', holder: 'guest 1' }]);
  });
});

describe('codeClashErrors (the spec 400 of POST and PUT)', () => {
  const table: [string, CodeClash<number | undefined>[], 'create' | 'update', Record<string, string[]> | undefined][] = [
    ['no clash', [], 'create', undefined],
    ['a barcode on create, its holder named', [{ column: 'barcode', code: 'B', holder: 7 }], 'create', { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: ['7'] }],
    ['a barcode on update', [{ column: 'barcode', code: 'B', holder: 7 }], 'update', { barcode: [MSG.barcodeExists], conflicted_guest_id: ['7'] }],
    ['a barcode whose holder is not known', [{ column: 'barcode', code: 'B', holder: undefined }], 'create', { barcode: [MSG.barcodeExistsConflict] }],
    ['a tag on create (no holder named)', [{ column: 'nfc_tag', code: 'N', holder: 8 }], 'create', { nfc_tag: [MSG.nfcTagExists] }],
    ['a tag on update', [{ column: 'nfc_tag', code: 'N', holder: 8 }], 'update', { nfc_tag: [MSG.nfcTagExistsOnUpdate] }],
    [
      'both',
      [{ column: 'barcode', code: 'B', holder: 7 }, { column: 'nfc_tag', code: 'N', holder: 8 }],
      'create',
      { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: ['7'], nfc_tag: [MSG.nfcTagExists] },
    ],
  ];
  for (const [name, clashes, wording, expected] of table) {
    it(name, () => {
      const errors = codeClashErrors(clashes, wording);
      assert.deepEqual(errors, expected);
      // The spec's body is compared as JSON: the keys keep their order.
      assert.equal(JSON.stringify(errors), JSON.stringify(expected));
    });
  }
});

describe('csvCodeErrors (a row of an import)', () => {
  const nameOf = (field: string) => (field === 'barcode' ? 'Ticket code' : 'NFC');
  const table: [string, CodeClash<CsvCodeHolder>[], Record<string, string[]> | undefined][] = [
    ['no clash', [], undefined],
    ['repeated from an earlier row', [{ column: 'barcode', code: 'B', holder: { row: 3 } }], { 'Ticket code': [MSG.csvCodeRepeated('B', 3)] }],
    ['held by a guest of the event', [{ column: 'nfc_tag', code: 'N', holder: 'event' }], { NFC: [MSG.csvCodeTaken('N')] }],
  ];
  for (const [name, clashes, expected] of table) it(name, () => assert.deepEqual(csvCodeErrors(clashes, nameOf), expected));
});

describe('mergeCodeResolution (an event file merged)', () => {
  const table: [Parameters<typeof mergeCodeResolution>, ReturnType<typeof mergeCodeResolution>][] = [
    [['barcode', 'new'], { resolution: 'guest skipped', skipGuest: true }],
    [['nfc_tag', 'new'], { resolution: 'guest added without NFC tag', skipGuest: false }],
    [['barcode', 'changed'], { resolution: "kept this guest's barcode", skipGuest: false }],
    [['nfc_tag', 'changed'], { resolution: "kept this guest's nfc_tag", skipGuest: false }],
  ];
  for (const [args, expected] of table) it(args.join(', '), () => assert.deepEqual(mergeCodeResolution(...args), expected));
});
