import type { Db, Trx } from '../db/knex';
import { questionsForAnswers } from '../db/repositories/custom-questions';
import type { QuestionForAnswers } from '../core/answers';
import { eventInScope, visibleEvents } from '../db/repositories/events';
import { insertCheckedGuests, nextGuestIds, type GuestInsert } from '../db/repositories/guests';
import { takenCodes } from '../db/repositories/guests-csv';
import type { GroupScope } from '../db/repositories/groups';
import { registrationTypeIdsOfEvent } from '../db/repositories/registration-types';
import { together } from '../db/write-transaction';
import { ALONE, groupCommit, type Decision } from './group-commit';
import { answerQuestionIds, checkAnswers } from './schemas/guests';

/** One POST /guests, its body already checked by the schema. */
export interface GuestCreateRequest {
  eventId: number;
  scope: GroupScope;
  /** The guest's row (registration_type_id as sent; no answers yet). */
  guest: GuestInsert;
  customQuestions?: unknown[];
}

/**
 * The guests of a batch that pass every check, added in one transaction with a constant
 * number of statements per event: the events (scope), their registration types, the
 * questions answered, the barcodes and NFC tags already taken and the ids the new guests will
 * take, all read together; then the guests and their search entries, together, and their
 * answers. A request that fails any check, or repeats a code an earlier request of the batch
 * claims, is left ALONE: the single path answers it after the batch, with the spec's exact
 * message (and the id of the guest holding the code). A refused insert (a drawn code met
 * another, about 2^-60 a pair) fails the batch, whose requests then run one by one.
 */
async function decideCreates(trx: Trx, requests: GuestCreateRequest[]): Promise<Decision<number>[]> {
  const answers: Decision<number>[] = requests.map(() => ALONE);
  const eventIds = [...new Set(requests.map((r) => r.eventId))];
  // The reads go out together: each one awaited in turn was a round trip through the event
  // loop that the batch, and every client in it, waited for. Requests out of scope are read
  // for too; the single path answers them.
  const [visible, ids, ...stored] = await together([
    visibleEvents(trx, eventIds),
    // The new guests' ids, known before they are written: their search entries go with them.
    nextGuestIds(trx, requests.length),
    ...eventIds.map((eventId) => storedForCreates(trx, eventId, requests.filter((r) => r.eventId === eventId))),
  ]);
  let idsUsed = 0;
  const events = new Map(visible.map((e) => [e.id, e]));
  for (const [e, eventId] of eventIds.entries()) {
    const event = events.get(eventId);
    if (!event) continue;
    const { types, questions, taken } = stored[e];
    const claimed = { barcodes: new Set<string>(), nfcTags: new Set<string>() };
    const accepted: { index: number; guest: GuestInsert }[] = [];
    for (const [index, { eventId: of, scope, guest, customQuestions }] of requests.entries()) {
      if (of !== eventId || !eventInScope(event, scope) || !types.has(guest.registration_type_id)) continue;
      const checked = customQuestions === undefined ? undefined : checkAnswers(customQuestions, questions);
      if (checked?.errors) continue;
      const { barcode, nfc_tag: nfcTag } = guest;
      if (barcode && (taken.barcodes.has(barcode) || claimed.barcodes.has(barcode))) continue;
      if (nfcTag && (taken.nfcTags.has(nfcTag) || claimed.nfcTags.has(nfcTag))) continue;
      if (barcode) claimed.barcodes.add(barcode);
      if (nfcTag) claimed.nfcTags.add(nfcTag);
      accepted.push({ index, guest: { ...guest, answers: checked?.answers } });
    }
    const added = await insertCheckedGuests(trx, eventId, accepted.map((a) => a.guest), ids.slice(idsUsed));
    idsUsed += added.length;
    accepted.forEach((a, k) => (answers[a.index] = added[k]));
  }
  return answers;
}

/** What the creates of one event are checked against: its registration types, questions and taken codes. */
async function storedForCreates(trx: Trx, eventId: number, requests: GuestCreateRequest[]) {
  const questionIds = requests.flatMap((r) => (r.customQuestions ? answerQuestionIds(r.customQuestions) : []));
  const [types, questions, taken] = await together([
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

/** Guest creates (walk-ins, API clients) that queue behind the writer share one transaction. */
export function guestCreates(db: Db): (request: GuestCreateRequest, alone: () => Promise<number>) => Promise<number> {
  return groupCommit<GuestCreateRequest, number>(db, decideCreates);
}
