import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError, ValidationError } from '../../core/errors';
import { CodeHolders, type CodeWording } from '../../core/guest-codes';
import { MSG } from '../../core/messages';
import { checkGuest, decideCreates, type CreateDecision, type GuestCreateRequest, type GuestWrite, type Stored } from '../../server/services/guest-checks';

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

describe('decideCreates', () => {
  /** Event 1 (group 10) holds barcode B-7 (guest 7) and tag N-8 (guest 8); event 2 (group 20) holds nothing; event 3 is not visible (being imported). */
  const lookups = () => {
    const other = new CodeHolders<number | undefined>();
    return {
      events: [
        { id: 1, group_id: 10 },
        { id: 2, group_id: 20 },
      ],
      stored: new Map<number, Stored>([
        [1, stored()],
        [2, { types: new Set([6]), questions: new Map(), holders: other }],
        [3, { types: new Set([5]), questions: new Map(), holders: new CodeHolders() }],
      ]),
      ids: [100, 101, 102, 103],
    };
  };
  const create = (codes: { barcode?: string | null; nfc_tag?: string | null }, fields: Partial<GuestCreateRequest> & { type?: number } = {}): GuestCreateRequest => ({
    eventId: fields.eventId ?? 1,
    scope: fields.scope === undefined ? [10, 20] : fields.scope,
    guest: { registration_type_id: fields.type ?? (fields.eventId === 2 ? 6 : 5), first_name: 'Ada', last_name: 'Guest', email: 'ada@x.test', ...codes },
    customQuestions: fields.customQuestions,
  });
  /** A decision as the table writes it: the id taken, 404, or the 400's body. */
  const shown = (d: CreateDecision) => (d instanceof NotFoundError ? 404 : d instanceof ValidationError ? d.body : d instanceof Error ? d.message : d.id);
  const taken = (holder: number) => ({ barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: [String(holder)] });

  const table: [string, GuestCreateRequest[], (number | Record<string, unknown>)[]][] = [
    ['a lone create takes the first id', [create({ barcode: 'NEW' })], [100]],
    ['an administrator (no scope) creates in any event', [create({ barcode: 'NEW' }, { scope: null })], [100]],
    ['an event out of the caller\'s scope: 404, and no id taken', [create({ barcode: 'A' }, { scope: [20] }), create({ barcode: 'B' })], [404, 100]],
    ['an event not visible (being imported): 404', [create({ barcode: 'A' }, { eventId: 3, scope: null })], [404]],
    ['a barcode another guest holds: 400 naming it', [create({ barcode: 'B-7' })], [taken(7)]],
    ['a tag another guest holds: 400 on nfc_tag', [create({ nfc_tag: 'N-8' })], [{ nfc_tag: [MSG.nfcTagExists] }]],
    ['the same barcode twice in a batch: the first keeps it, the second is told the id it took', [create({ barcode: 'DUP' }), create({ barcode: 'DUP' })], [100, taken(100)]],
    ['the same tag twice in a batch: the second refused', [create({ nfc_tag: 'TAG' }), create({ nfc_tag: 'TAG' })], [100, { nfc_tag: [MSG.nfcTagExists] }]],
    ['a barcode and a tag clash together', [create({ barcode: 'B-7', nfc_tag: 'N-8' })], [{ ...taken(7), nfc_tag: [MSG.nfcTagExists] }]],
    ['a barcode equal to another guest\'s tag is no clash (each column its own)', [create({ barcode: 'N-8' }), create({ nfc_tag: 'B-7' })], [100, 101]],
    ['no codes, null and empty codes are never claimed', [create({}), create({ barcode: null, nfc_tag: null }), create({ barcode: '', nfc_tag: '' }), create({ barcode: '', nfc_tag: '' })], [100, 101, 102, 103]],
    ['a refused create claims none of its codes', [create({ barcode: 'X' }, { type: 99 }), create({ barcode: 'X' })], [{ registration_type: [MSG.eventHasNoRegistrationType] }, 100]],
    ['a refused code takes no id: the next create takes it', [create({ barcode: 'B-7' }), create({ barcode: 'FREE' })], [taken(7), 100]],
    ['registration type and answers refused together, before the codes', [create({ barcode: 'B-7' }, { type: 99, customQuestions: [{ question_id: 31, answer: 1 }] })], [{ registration_type: [MSG.eventHasNoRegistrationType], custom_question: [MSG.questionDoesNotExist(31)] }]],
    ['another event\'s registration type', [create({}, { eventId: 2, type: 5 })], [{ registration_type: [MSG.eventHasNoRegistrationType] }]],
    ['two events: codes are unique within each, ids go event by event in the order events first come', [create({ barcode: 'SAME' }), create({ barcode: 'SAME' }, { eventId: 2 }), create({ barcode: 'OTHER' })], [100, 102, 101]],
    ['a code repeated across events clashes only within its own', [create({ barcode: 'B-7' }, { eventId: 2 }), create({ barcode: 'B-7' })], [100, taken(7)]],
  ];
  for (const [name, requests, expected] of table) {
    it(name, () => {
      assert.deepEqual(decideCreates(requests, lookups()).map(shown), expected);
    });
  }

  it('an accepted guest goes in as sent, with its checked answers', () => {
    const request = create({ barcode: 'NEW', nfc_tag: 'T1' }, { customQuestions: [{ question_id: 30, answer: 301 }] });
    const [decision] = decideCreates([request], lookups());
    assert.deepEqual(decision, { id: 100, guest: { ...request.guest, answers: [{ question_id: 30, choice_id: 301, text_answer: null }] } });
  });
});
