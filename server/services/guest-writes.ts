import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/knex';
import { questionsForAnswers } from '../../db/repositories/custom-questions';
import type { QuestionForAnswers } from '../../core/answers';
import { findEvent, visibleEvents } from '../../db/repositories/events';
import { findGuest, type GuestUpdateFields } from '../../db/repositories/guests';
import { insertCheckedGuests, nextGuestIds } from '../../db/repositories/guest-inserts';
import { updateGuest } from '../../db/repositories/guest-updates';
import { codeHolders } from '../../db/repositories/guest-codes';
import type { GroupScope } from '../../db/repositories/groups';
import { registrationTypeIdsOfEvent } from '../../db/repositories/registration-types';
import { sentAtOnce, writeTransaction } from '../../db/write-transaction';
import { MSG } from '../../core/messages';
import { NotFoundError, ValidationError } from '../../core/errors';
import { groupCommit } from './group-commit';
import { answerQuestionIds } from '../schemas/guests';
import { checkGuest, createWrite, decideCreates, type GuestCreateRequest, type GuestWrite, type Stored } from './guest-checks';

/**
 * A guest's create (POST, walk-ins) and update (PUT) take one checked path: scope, then
 * `checkGuest` (registration type, answers, codes) on what was read inside the write's own
 * transaction, then the write in that transaction.
 */

/** One PUT /guests/{id}, its body already checked by the schema: only the fields sent. */
export interface GuestUpdateRequest {
  eventId: number;
  guestId: number;
  scope: GroupScope;
  fields: Omit<GuestUpdateFields, 'answers'>;
  customQuestions?: unknown[];
}

async function storedFor(trx: Trx, eventId: number, writes: GuestWrite[]): Promise<Stored> {
  const questionIds = writes.flatMap((w) => (w.customQuestions ? answerQuestionIds(w.customQuestions) : []));
  const typeIds = [...new Set(writes.flatMap((w) => (w.registrationTypeId === undefined ? [] : [w.registrationTypeId])))];
  const [types, questions, holders] = await sentAtOnce([
    registrationTypeIdsOfEvent(trx, eventId, typeIds),
    questionIds.length > 0 ? questionsForAnswers(trx, eventId, questionIds) : new Map<number, QuestionForAnswers>(),
    codeHolders(trx, eventId, writes.map((w) => w.codes)),
  ]);
  return { types, questions, holders: holders.map<number | undefined>((h) => h.id) };
}

/**
 * Adds the guests of a batch (a lone request is a batch of one) in one transaction, with a
 * constant number of statements per event: the events (scope), their registration types, the
 * questions answered, the holders of the codes sent and the ids the new guests will take, all
 * read together; then, as decideCreates (guest-checks.ts) decided, the guests and their search
 * entries, together, and their answers, event by event. A refused insert (a drawn code met
 * another, about 2^-60 a pair) fails the batch.
 */
async function createBatch(trx: Trx, requests: GuestCreateRequest[]): Promise<(number | Error)[]> {
  const eventIds = [...new Set(requests.map((r) => r.eventId))];
  const [events, ids, ...stored] = await sentAtOnce([
    visibleEvents(trx, eventIds),
    // The new guests' ids, known before they are written: their search entries go with them.
    nextGuestIds(trx, requests.length),
    ...eventIds.map((eventId) => storedFor(trx, eventId, requests.filter((r) => r.eventId === eventId).map(createWrite))),
  ]);
  const decisions = decideCreates(requests, { events, ids, stored: new Map(eventIds.map((id, e) => [id, stored[e]])) });
  for (const eventId of eventIds) {
    const accepted = decisions.flatMap((d, index) => (d instanceof Error || requests[index].eventId !== eventId ? [] : [d]));
    await insertCheckedGuests(trx, eventId, accepted.map((d) => d.guest), accepted.map((d) => d.id));
  }
  return decisions.map((d) => (d instanceof Error ? d : d.id));
}

/**
 * Every guest create (walk-ins, API clients) goes through here: those that queue behind the
 * writer share one transaction; a lone one is a batch of one. A failed batch is logged and
 * its requests run again one by one.
 */
export function guestCreates(db: Db, logger: Logger): (request: GuestCreateRequest) => Promise<number> {
  return groupCommit<GuestCreateRequest, number>(db, createBatch, { name: 'guest creates', logger });
}

/**
 * A guest's update: scope (404 for the event), the guest (404), then the same checks as a
 * create, and the write, in one write transaction. Answers the guest's id.
 */
export async function updateGuestChecked(db: Db, request: GuestUpdateRequest): Promise<number> {
  const { eventId, guestId, scope, fields, customQuestions } = request;
  const write: GuestWrite = { registrationTypeId: fields.registration_type_id, customQuestions, codes: fields };
  return writeTransaction(db, async (trx) => {
    const [event, guest, stored] = await sentAtOnce([findEvent(trx, scope, eventId), findGuest(trx, eventId, guestId), storedFor(trx, eventId, [write])]);
    if (!event) throw new NotFoundError(MSG.eventNotFound);
    if (!guest) throw new NotFoundError(MSG.guestNotFound, 'details');
    const checked = checkGuest(stored, write, 'update', guest.id);
    if (checked instanceof ValidationError) throw checked;
    await updateGuest(trx, guest, { ...fields, answers: checked.answers });
    return guest.id;
  });
}
