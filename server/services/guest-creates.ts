import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/knex';
import { questionsForAnswers } from '../../db/repositories/custom-questions';
import type { QuestionForAnswers } from '../../core/answers';
import { eventInScope, visibleEvents } from '../../db/repositories/events';
import { codesTaken, insertCheckedGuests, nextGuestIds, type GuestInsert } from '../../db/repositories/guests';
import { takenCodes } from '../../db/repositories/guests-csv';
import type { GroupScope } from '../../db/repositories/groups';
import { registrationTypeIdsOfEvent } from '../../db/repositories/registration-types';
import { sentAtOnce } from '../../db/write-transaction';
import { MSG } from '../../core/messages';
import { NotFoundError, ValidationError, type FieldErrors } from '../../core/errors';
import { groupCommit } from './group-commit';
import { answerQuestionIds, checkAnswers } from '../schemas/guests';

/** One POST /guests, its body already checked by the schema. */
export interface GuestCreateRequest {
  eventId: number;
  scope: GroupScope;
  /** The guest's row (registration_type_id as sent; no answers yet). */
  guest: GuestInsert;
  customQuestions?: unknown[];
}

/**
 * Adds the guests of a batch (a lone request is a batch of one) in one transaction, with a
 * constant number of statements per event: the events (scope), their registration types, the
 * questions answered, the barcodes and NFC tags already taken and the ids the new guests will
 * take, all read together; then the guests and their search entries, together, and their
 * answers. Each request is answered as the spec says: 404 for an event out of scope, one 400
 * for its registration type and answers together, and a 400 naming the guest that holds a
 * code it repeats (another guest, or one an earlier request of the batch just added). A
 * refused insert (a drawn code met another, about 2^-60 a pair) fails the batch.
 */
async function decideCreates(trx: Trx, requests: GuestCreateRequest[]): Promise<(number | Error)[]> {
  const answers: (number | Error)[] = [];
  const eventIds = [...new Set(requests.map((r) => r.eventId))];
  const [visible, ids, ...stored] = await sentAtOnce([
    visibleEvents(trx, eventIds),
    // The new guests' ids, known before they are written: their search entries go with them.
    nextGuestIds(trx, requests.length),
    ...eventIds.map((eventId) => storedForCreates(trx, eventId, requests.filter((r) => r.eventId === eventId))),
  ]);
  let idsUsed = 0;
  const events = new Map(visible.map((e) => [e.id, e]));
  const codeTaken: number[] = [];
  for (const [e, eventId] of eventIds.entries()) {
    const event = events.get(eventId);
    const { types, questions, taken } = stored[e];
    const claimed = { barcodes: new Set<string>(), nfcTags: new Set<string>() };
    const accepted: { index: number; guest: GuestInsert }[] = [];
    for (const [index, { eventId: of, scope, guest, customQuestions }] of requests.entries()) {
      if (of !== eventId) continue;
      if (!event || !eventInScope(event, scope)) {
        answers[index] = new NotFoundError(MSG.eventNotFound);
        continue;
      }
      // The registration type and the answers are checked together, so one 400 tells both.
      const errors: FieldErrors = {};
      if (!types.has(guest.registration_type_id)) errors.registration_type = [MSG.eventHasNoRegistrationType];
      const checked = customQuestions === undefined ? undefined : checkAnswers(customQuestions, questions);
      Object.assign(errors, checked?.errors);
      if (Object.keys(errors).length > 0) {
        answers[index] = new ValidationError(errors);
        continue;
      }
      const { barcode, nfc_tag: nfcTag } = guest;
      if ((barcode && (taken.barcodes.has(barcode) || claimed.barcodes.has(barcode))) || (nfcTag && (taken.nfcTags.has(nfcTag) || claimed.nfcTags.has(nfcTag)))) {
        codeTaken.push(index);
        continue;
      }
      if (barcode) claimed.barcodes.add(barcode);
      if (nfcTag) claimed.nfcTags.add(nfcTag);
      accepted.push({ index, guest: { ...guest, answers: checked?.answers } });
    }
    const added = await insertCheckedGuests(trx, eventId, accepted.map((a) => a.guest), ids.slice(idsUsed));
    idsUsed += added.length;
    accepted.forEach((a, k) => (answers[a.index] = added[k]));
  }
  // After the batch's own guests are in: the guest holding a code may be one of them.
  for (const index of codeTaken) {
    const { eventId, guest } = requests[index];
    const takenError = await codesTaken(trx, eventId, guest);
    if (!takenError) throw new Error('A code read as taken is held by no guest');
    answers[index] = takenError;
  }
  return answers;
}

/** What the creates of one event are checked against: its registration types, questions and taken codes. */
async function storedForCreates(trx: Trx, eventId: number, requests: GuestCreateRequest[]) {
  const questionIds = requests.flatMap((r) => (r.customQuestions ? answerQuestionIds(r.customQuestions) : []));
  const [types, questions, taken] = await sentAtOnce([
    registrationTypeIdsOfEvent(trx, eventId, [...new Set(requests.map((r) => r.guest.registration_type_id))]),
    questionIds.length > 0 ? questionsForAnswers(trx, eventId, questionIds) : new Map<number, QuestionForAnswers>(),
    takenCodes(
      trx,
      eventId,
      requests.flatMap((r) => (r.guest.barcode ? [r.guest.barcode] : [])),
      requests.flatMap((r) => (r.guest.nfc_tag ? [r.guest.nfc_tag] : [])),
    ),
  ]);
  return { types, questions, taken };
}

/**
 * Every guest create (walk-ins, API clients) goes through here: those that queue behind the
 * writer share one transaction; a lone one is a batch of one. A failed batch is logged and
 * its requests run again one by one.
 */
export function guestCreates(db: Db, logger: Logger): (request: GuestCreateRequest) => Promise<number> {
  return groupCommit<GuestCreateRequest, number>(db, decideCreates, { name: 'guest creates', logger });
}
