import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../core/errors';
import { CodeHolders, type CodeWording } from '../../core/guest-codes';
import { MSG } from '../../core/messages';
import { checkGuest, type GuestWrite, type Stored } from '../../server/services/guest-checks';

/** A guest's create (POST, walk-ins) and update (PUT) checked alike (server/services/guest-checks.ts), on reads made up here. */
function stored(): Stored {
  const holders = new CodeHolders<number | undefined>();
  holders.hold('barcode', 'B-7', 7);
  holders.hold('nfc_tag', 'N-8', 8);
  return {
    types: new Set([5]),
    questions: new Map([[30, { id: 30, type: 'radio', objstatus: 1, choiceIds: new Set([301, 302]) }]]),
    holders,
  };
}

describe('checkGuest', () => {
  const table: [string, GuestWrite, CodeWording, number | undefined, Record<string, unknown> | { answers: unknown }][] = [
    ['a guest of a registration type of the event', { registrationTypeId: 5, codes: { barcode: 'NEW' } }, 'create', undefined, { answers: undefined }],
    ['with an answer', { registrationTypeId: 5, customQuestions: [{ question_id: 30, answer: 301 }], codes: {} }, 'create', undefined, { answers: [{ question_id: 30, choice_id: 301, text_answer: null }] }],
    ["another event's registration type", { registrationTypeId: 6, codes: {} }, 'create', undefined, { registration_type: [MSG.eventHasNoRegistrationType] }],
    [
      'the registration type and an answer refused together, before the codes',
      { registrationTypeId: 6, customQuestions: [{ question_id: 31, answer: 1 }], codes: { barcode: 'B-7' } },
      'create',
      undefined,
      { registration_type: [MSG.eventHasNoRegistrationType], custom_question: [MSG.questionDoesNotExist(31)] },
    ],
    ['a taken barcode on create, its holder named', { registrationTypeId: 5, codes: { barcode: 'B-7' } }, 'create', undefined, { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: ['7'] }],
    ['a taken tag on update', { codes: { nfc_tag: 'N-8' } }, 'update', 7, { nfc_tag: [MSG.nfcTagExistsOnUpdate] }],
    ['an update keeping its own barcode', { codes: { barcode: 'B-7' } }, 'update', 7, { answers: undefined }],
    ['an update sending no registration type is not asked for one', { codes: {} }, 'update', 7, { answers: undefined }],
  ];
  for (const [name, write, wording, self, expected] of table) {
    it(name, () => {
      const checked = checkGuest(stored(), write, wording, self);
      if ('answers' in expected) assert.deepEqual(checked, expected);
      else {
        assert.ok(checked instanceof ValidationError);
        assert.deepEqual(checked.body, expected);
      }
    });
  }
});
