import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/knex';
import { eventInScope } from '../../db/repositories/events';
import { findGuest, type GuestUpdateFields } from '../../db/repositories/guests';
import { insertCheckedGuests } from '../../db/repositories/guest-inserts';
import { updateGuest } from '../../db/repositories/guest-updates';
import { readGuestChecks, type GuestCheckReads } from '../../db/repositories/guest-check-reads';
import type { GroupScope } from '../../db/repositories/groups';
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

/**
 * Adds the guests of a batch (a lone request is a batch of one) in one transaction, with a
 * constant number of statements: the events (scope), their registration types, the questions
 * answered, the holders of the codes sent and the ids the new guests will take, read in one
 * statement; then, as decideCreates (guest-checks.ts) decided, the guests and their search
 * entries, together, and their answers, event by event. A refused insert (a drawn code met
 * another, about 2^-60 a pair) fails the batch.
 */
async function createBatch(trx: Trx, requests: GuestCreateRequest[]): Promise<(number | Error)[]> {
  const eventIds = [...new Set(requests.map((r) => r.eventId))];
  // The new guests' ids come with the reads: their search entries go in with them.
  const reads = await readsFor(trx, eventIds, requests.map(createWrite), requests.length);
  const decisions = decideCreates(requests, { events: reads.visible, ids: reads.ids, stored: reads.checks });
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
