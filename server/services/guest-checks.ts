import type { AnswerInput, QuestionForAnswers } from '../../core/answers';
import { NotFoundError, ValidationError, type FieldErrors } from '../../core/errors';
import { codeClashErrors, type CodeHolders, type CodeWording, type GuestCodes } from '../../core/guest-codes';
import { MSG } from '../../core/messages';
import { eventInScope, type EventRow } from '../../db/repositories/events';
import type { GroupScope } from '../../db/repositories/groups';
import type { GuestInsert } from '../../db/repositories/guests';
import { checkAnswers } from '../schemas/guests';

/**
 * What a guest's create and update are checked for, on what was read inside the write's
 * transaction (guest-writes.ts): no I/O here.
 */

/** What a write asks to be checked: the registration type and answers when sent, the codes it gives. */
export interface GuestWrite {
  registrationTypeId?: number;
  customQuestions?: unknown[];
  codes: GuestCodes;
}

/** What the writes to one event are checked against, read in their transaction. */
export interface Stored {
  types: Set<number>;
  questions: Map<number, QuestionForAnswers>;
  /** Codes held, by guest id (undefined: none known). */
  holders: CodeHolders<number | undefined>;
}

/**
 * The checks of a create and an update alike: the registration type and the answers together
 * (one 400 tells both), then the codes (core/guest-codes.ts; `self`, the guest an update
 * changes). Answers the answers ready to store, or the 400.
 */
export function checkGuest(stored: Stored, write: GuestWrite, wording: CodeWording, self?: number): { answers?: AnswerInput[] } | ValidationError {
  const errors: FieldErrors = {};
  if (write.registrationTypeId !== undefined && !stored.types.has(write.registrationTypeId)) errors.registration_type = [MSG.eventHasNoRegistrationType];
  const checked = write.customQuestions === undefined ? undefined : checkAnswers(write.customQuestions, stored.questions);
  Object.assign(errors, checked?.errors);
  if (Object.keys(errors).length > 0) return new ValidationError(errors);
  const taken = codeClashErrors(stored.holders.clashes(write.codes, (id) => id !== undefined && id === self), wording);
  if (taken) return new ValidationError(taken);
  return { answers: checked?.answers };
}


/** One POST /guests, its body already checked by the schema. */
export interface GuestCreateRequest {
  eventId: number;
  scope: GroupScope;
  /** The guest's row (registration_type_id as sent; no answers yet). */
  guest: GuestInsert;
  customQuestions?: unknown[];
}

export const createWrite = (r: GuestCreateRequest): GuestWrite => ({ registrationTypeId: r.guest.registration_type_id, customQuestions: r.customQuestions, codes: r.guest });

/** What a batch of creates is decided on, read in its transaction. */
export interface CreateLookups {
  /** The batch's events that anyone in scope could see (not being imported). */
  events: readonly Pick<EventRow, 'id' | 'group_id'>[];
  /** Per event of the batch: what its creates are checked against (its holders take the batch's codes as it goes). */
  stored: ReadonlyMap<number, Stored>;
  /** The ids the new guests will take, in order: one per request at most. */
  ids: readonly number[];
}

/** A create refused (404 for its event, 400 for its fields or codes), or the guest to insert with the id it takes. */
export type CreateDecision = Error | { id: number; guest: GuestInsert };

/**
 * Decides a batch of creates (a lone request is a batch of one), event by event in the order
 * they first come, each event's requests in order: 404 for an event out of scope, then
 * `checkGuest`; a code a guest is given is held by the id it will take, so a later request
 * of the batch repeating it is told whose. Ids go to the accepted guests in that order.
 */
export function decideCreates(requests: readonly GuestCreateRequest[], lookups: CreateLookups): CreateDecision[] {
  const decisions: CreateDecision[] = [];
  const events = new Map(lookups.events.map((e) => [e.id, e]));
  let idsUsed = 0;
  for (const eventId of new Set(requests.map((r) => r.eventId))) {
    const event = events.get(eventId);
    for (const [index, request] of requests.entries()) {
      if (request.eventId !== eventId) continue;
      if (!event || !eventInScope(event, request.scope)) {
        decisions[index] = new NotFoundError(MSG.eventNotFound);
        continue;
      }
      const stored = lookups.stored.get(eventId)!;
      const write = createWrite(request);
      const checked = checkGuest(stored, write, 'create');
      if (checked instanceof ValidationError) {
        decisions[index] = checked;
        continue;
      }
      const id = lookups.ids[idsUsed++];
      stored.holders.claim(write.codes, id);
      decisions[index] = { id, guest: { ...request.guest, answers: checked.answers } };
    }
  }
  return decisions;
}
