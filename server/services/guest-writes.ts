import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/knex';
import { eventInScope } from '../../db/repositories/events';
import { findGuest, type GuestInsert, type GuestUpdateFields } from '../../db/repositories/guests';
import { insertCheckedGuests } from '../../db/repositories/guest-inserts';
import { updateGuest } from '../../db/repositories/guest-updates';
import { readGuestChecks, type GuestCheckReads } from '../../db/repositories/guest-check-reads';
import type { GroupScope } from '../../db/repositories/groups';
import { sentAtOnce, writeTransaction } from '../../db/write-transaction';
import { MSG } from '../../core/messages';
import { NotFoundError, ValidationError } from '../../core/errors';
import { groupCommit } from './group-commit';
import { answerQuestionIds } from '../schemas/guests';
import { checkGuest, type GuestWrite, type Stored } from './guest-checks';

/**
 * A guest's create (POST, walk-ins) and update (PUT) take one checked path: scope, then
 * `checkGuest` (registration type, answers, codes) on what was read inside the write's own
 * transaction, then the write in that transaction.
 */

/** One POST /guests, its body already checked by the schema. */
export interface GuestCreateRequest {
  eventId: number;
  scope: GroupScope;
  /** The guest's row (registration_type_id as sent; no answers yet). */
  guest: GuestInsert;
  customQuestions?: unknown[];
}

/** One PUT /guests/{id}, its body already checked by the schema: only the fields sent. */
export interface GuestUpdateRequest {
  eventId: number;
  guestId: number;
  scope: GroupScope;
  fields: Omit<GuestUpdateFields, 'answers'>;
  customQuestions?: unknown[];
}

/** What a batch of writes to these events is checked on, and `newGuests` ids drawn: one statement (db/repositories/guest-check-reads.ts). */
function readsFor(trx: Trx, eventIds: number[], writes: GuestWrite[], newGuests: number): Promise<GuestCheckReads> {
  const codes = (column: 'barcode' | 'nfc_tag') => writes.flatMap((w) => (w.codes[column] ? [w.codes[column]!] : []));
  return readGuestChecks(
    trx,
    {
      eventIds,
      typeIds: [...new Set(writes.flatMap((w) => (w.registrationTypeId === undefined ? [] : [w.registrationTypeId])))],
      questionIds: writes.flatMap((w) => (w.customQuestions ? answerQuestionIds(w.customQuestions) : [])),
      barcodes: codes('barcode'),
      nfcTags: codes('nfc_tag'),
    },
    newGuests,
  );
}

/** One event's part of the reads, as checkGuest takes it. */
function storedOf(reads: GuestCheckReads, eventId: number): Stored {
  return reads.checks.get(eventId)!;
}

const createWrite = (r: GuestCreateRequest): GuestWrite => ({ registrationTypeId: r.guest.registration_type_id, customQuestions: r.customQuestions, codes: r.guest });

/**
 * Adds the guests of a batch (a lone request is a batch of one) in one transaction, with a
 * constant number of statements: the events (scope), their registration types, the questions
 * answered, the holders of the codes sent and the ids the new guests will take, read in one
 * statement; then, per event, the guests and their search entries, together, and their
 * answers. Each request is answered as the spec says: 404 for an event out of scope, one 400
 * for its registration type and answers together, and a 400 naming the guest that holds a code
 * it repeats (another guest, or one an earlier request of the batch just added). A refused
 * insert (a drawn code met another, about 2^-60 a pair) fails the batch.
 */
async function decideCreates(trx: Trx, requests: GuestCreateRequest[]): Promise<(number | Error)[]> {
  const answers: (number | Error)[] = [];
  const eventIds = [...new Set(requests.map((r) => r.eventId))];
  const reads = await readsFor(trx, eventIds, requests.map(createWrite), requests.length);
  const { ids } = reads;
  let idsUsed = 0;
  const events = new Map(reads.visible.map((e) => [e.id, e]));
  for (const eventId of eventIds) {
    const event = events.get(eventId);
    const stored = storedOf(reads, eventId);
    const accepted: { index: number; guest: GuestInsert }[] = [];
    for (const [index, request] of requests.entries()) {
      if (request.eventId !== eventId) continue;
      if (!event || !eventInScope(event, request.scope)) {
        answers[index] = new NotFoundError(MSG.eventNotFound);
        continue;
      }
      const write = createWrite(request);
      const checked = checkGuest(stored, write, 'create');
      if (checked instanceof ValidationError) {
        answers[index] = checked;
        continue;
      }
      // Held by the id it will take: a later request of the batch repeating a code is told whose.
      stored.holders.claim(write.codes, ids[idsUsed + accepted.length]);
      accepted.push({ index, guest: { ...request.guest, answers: checked.answers } });
    }
    const added = await insertCheckedGuests(trx, eventId, accepted.map((a) => a.guest), ids.slice(idsUsed));
    idsUsed += added.length;
    accepted.forEach((a, k) => (answers[a.index] = added[k]));
  }
  return answers;
}

/**
 * Every guest create (walk-ins, API clients) goes through here: those that queue behind the
 * writer share one transaction; a lone one is a batch of one. A failed batch is logged and
 * its requests run again one by one.
 */
export function guestCreates(db: Db, logger: Logger): (request: GuestCreateRequest) => Promise<number> {
  return groupCommit<GuestCreateRequest, number>(db, decideCreates, { name: 'guest creates', logger });
}

/**
 * A guest's update: scope (404 for the event), the guest (404), then the same checks as a
 * create, and the write, in one write transaction. Answers the guest's id.
 */
export async function updateGuestChecked(db: Db, request: GuestUpdateRequest): Promise<number> {
  const { eventId, guestId, scope, fields, customQuestions } = request;
  const write: GuestWrite = { registrationTypeId: fields.registration_type_id, customQuestions, codes: fields };
  return writeTransaction(db, async (trx) => {
    const [reads, guest] = await sentAtOnce([readsFor(trx, [eventId], [write], 0), findGuest(trx, eventId, guestId)]);
    const event = reads.visible[0];
    if (!event || !eventInScope(event, scope)) throw new NotFoundError(MSG.eventNotFound);
    if (!guest) throw new NotFoundError(MSG.guestNotFound, 'details');
    const checked = checkGuest(storedOf(reads, eventId), write, 'update', guest.id);
    if (checked instanceof ValidationError) throw checked;
    await updateGuest(trx, guest, { ...fields, answers: checked.answers });
    return guest.id;
  });
}
