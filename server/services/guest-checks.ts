import type { AnswerInput, QuestionForAnswers } from '../../core/answers';
import { ValidationError, type FieldErrors } from '../../core/errors';
import { codeClashErrors, type CodeHolders, type CodeWording, type GuestCodes } from '../../core/guest-codes';
import { MSG } from '../../core/messages';
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

