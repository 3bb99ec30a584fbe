import { z } from './zod';
import { boolean, canonicalText, choice, codeText, hasNoNul, integer, numberAsDigits, optionalText, pathId, requiredBlankableText, requiredText, stationName } from './fields';
import { GUEST_ORDERINGS, MSG } from '../../core/messages';
import { ListQuery } from '../http/pagination';
import type { FieldErrors } from '../http/errors';
import type { AnswerInput, QuestionForAnswers } from '../../core/answers';

/**
 * A barcode or NFC tag: optional, but when sent it may be neither null nor blank. Numbers
 * are taken as their digits (scanners and spreadsheets send numeric codes).
 */
function code(emptyMessage: string) {
  return z
    .preprocess(
      numberAsDigits,
      codeText({ empty: emptyMessage, invalid: (issue) => (issue.input === null ? emptyMessage : MSG.invalidString) }),
    )
    .optional();
}

/** Answers are checked against the event's questions after parsing (see checkAnswers). */
const customQuestions = z
  .array(z.unknown(), { error: MSG.invalidList })
  .optional()
  .openapi({
    type: 'array',
    items: {
      type: 'object',
      properties: { question_id: { type: 'integer' }, answer: { description: 'choice id (radio, drop_down), list of choice ids (checkbox) or text' } },
    },
  });

const textFields = {
  prefix: optionalText(64),
  suffix: optionalText(64),
  phone: optionalText(64),
  cell_phone: optionalText(64),
  company: optionalText(255),
  job_title: optionalText(255),
  work_phone: optionalText(64),
  blog: optionalText(255),
  website: optionalText(255),
};

export const GuestCreate = z
  .object({
    registration_type: integer(),
    first_name: requiredText(255),
    last_name: requiredBlankableText(255),
    email: requiredBlankableText(254),
    ...textFields,
    barcode: code(MSG.barcodeEmpty),
    nfc_tag: code(MSG.nfcTagEmpty),
    attention: boolean().optional(),
    notes: optionalText(5000),
    custom_questions: customQuestions,
  })
  .openapi('GuestCreate');

export const GuestUpdate = z
  .object({
    registration_type: integer().optional(),
    first_name: requiredText(255).optional(),
    last_name: requiredBlankableText(255).optional(),
    email: requiredBlankableText(254).optional(),
    ...textFields,
    barcode: code(MSG.barcodeEmpty),
    nfc_tag: code(MSG.nfcTagEmpty),
    objstatus: integer()
      .pipe(z.number().refine((v) => v === 1 || v === 2, { error: MSG.invalidGuestObjstatus }))
      .openapi({ enum: [1, 2], description: '1: active, 2: inactive (turned away at the door).' })
      .optional(),
    attention: boolean().optional(),
    notes: optionalText(5000),
    custom_questions: customQuestions,
  })
  .openapi('GuestUpdate');

// Any guest id that is not a stored one (also a non-number) answers the guest 404.
export const GuestParams = z.object({ event_id: pathId, guest_id: z.string().transform((v) => (/^\d{1,9}$/.test(v) ? Number(v) : 0)) });

/**
 * Beyond the spec's page, page_size, timestamp, only_checkins and search, the console's table
 * sorts and filters (each optional; without them the list is what existing clients get).
 */
export const GuestListQuery = ListQuery.extend({
  only_checkins: boolean().default(false).openapi({ description: 'true: only guests who have been checked in.' }),
  search: z
    .string({ error: MSG.invalidString })
    .overwrite(canonicalText)
    .trim()
    .max(200, { error: MSG.invalidSearch })
    .optional()
    .openapi({ description: 'Words matched against first and last name, e-mail, company, barcode and NFC tag (up to 200 characters).' }),
  ordering: choice(GUEST_ORDERINGS, MSG.invalidGuestOrdering)
    .optional()
    .openapi({ description: 'Sort by this field, `-` first for descending; ties by id. Default: id' }),
  checked_in: boolean().optional().openapi({ description: 'true: only guests who are in; false: only those who are not' }),
  registration_type: integer().optional().openapi({ description: 'Only guests of this registration type' }),
  attention: boolean().optional().openapi({ description: "true: guests the door stops for (their own or their type's attention); false: the others" }),
  station: stationName()
    .openapi({ description: 'Only guests with a standing event-door admission made at this station' }),
});

const AnswerOut = z.object({ answer: z.string(), id: z.string().nullable() });

export const Guest = z
  .object({
    id: z.number().int(),
    event: z.number().int(),
    registration_type: z.number().int(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    prefix: z.string().nullable(),
    suffix: z.string().nullable(),
    phone: z.string().nullable(),
    cell_phone: z.string().nullable(),
    company: z.string().nullable(),
    job_title: z.string().nullable(),
    work_phone: z.string().nullable(),
    blog: z.string().nullable(),
    website: z.string().nullable(),
    barcode: z.string(),
    nfc_tag: z.string().nullable(),
    objstatus: z.string().openapi({ example: '1', description: '1 Active, 2 Inactive' }),
    selfie: z.string(),
    source: z.string(),
    checked_in: z.boolean(),
    checked_in_at: z.string().nullable(),
    attention: z.boolean().openapi({ description: 'The door must stop for this guest (VIP, age check, access needs)' }),
    notes: z.string().nullable().openapi({ description: 'Shown to the door with the scan' }),
    custom_questions: z.array(z.object({ question_id: z.number().int(), question_text: z.string(), objstatus: z.string(), answer: z.array(AnswerOut) })),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Guest');

export const GuestList = z
  .object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(Guest),
    page: z.number().int(),
    timestamp: z.string().nullable(),
    start_time: z.string(),
    end_time: z.string(),
  })
  .openapi('GuestList');

export type GuestCreateInput = z.output<typeof GuestCreate>;
export type GuestUpdateInput = z.output<typeof GuestUpdate>;

// ---------------------------------------------------------------------------------------
// Custom question answers

export const TEXT_ANSWER_MAX = 5000;

function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,9}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The question ids an answer list names, to load those questions in one query. */
export function answerQuestionIds(raw: unknown[]): number[] {
  return raw.map((entry) => (isObject(entry) ? toInt(entry.question_id) : undefined)).filter((id): id is number => id !== undefined);
}

/**
 * Checks guest answers against the event's questions with the spec's messages (keys
 * `custom_questions`, and `custom_question` for an unknown question). An answer that
 * selects nothing (an empty checkbox list, a blank text) comes back with neither choice nor
 * text: on update it clears that question.
 */
export function checkAnswers(raw: unknown[], questions: Map<number, QuestionForAnswers>): { answers: AnswerInput[]; errors?: FieldErrors } {
  const errors: FieldErrors = {};
  const fail = (key: 'custom_questions' | 'custom_question', message: string) => {
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  const answers: AnswerInput[] = [];
  const seen = new Set<number>();
  for (const entry of raw) {
    const questionId = isObject(entry) ? toInt(entry.question_id) : undefined;
    if (questionId === undefined) {
      fail('custom_questions', MSG.questionIdMustBeInteger);
      continue;
    }
    if (seen.has(questionId)) {
      fail('custom_questions', MSG.questionDefinedTwice(questionId));
      continue;
    }
    seen.add(questionId);
    const question = questions.get(questionId);
    if (!question) {
      fail('custom_question', MSG.questionDoesNotExist(questionId));
      continue;
    }
    const answer = (entry as Record<string, unknown>).answer;
    if (answer === undefined || answer === null) {
      fail('custom_questions', MSG.answerNotFound(questionId));
      continue;
    }
    const cleared = { question_id: questionId, choice_id: null, text_answer: null };
    switch (question.type) {
      case 'radio':
      case 'drop_down': {
        const choiceId = toInt(answer);
        if (choiceId === undefined) fail('custom_questions', MSG.answerMustBeInteger(questionId));
        else if (!question.choiceIds.has(choiceId)) fail('custom_questions', MSG.answerChoiceNotFound(choiceId, questionId));
        else answers.push({ question_id: questionId, choice_id: choiceId, text_answer: null });
        break;
      }
      case 'checkbox': {
        if (!Array.isArray(answer)) {
          fail('custom_questions', MSG.answerMustBeList(questionId));
          break;
        }
        const ids = answer.map(toInt);
        if (ids.some((id) => id === undefined)) {
          fail('custom_questions', MSG.answerMustBeListOfIds(questionId));
          break;
        }
        const unique = [...new Set(ids as number[])];
        const missing = unique.filter((id) => !question.choiceIds.has(id));
        for (const id of missing) fail('custom_questions', MSG.answerChoiceNotFound(id, questionId));
        if (missing.length > 0) break;
        if (unique.length === 0) answers.push(cleared);
        for (const id of unique) answers.push({ question_id: questionId, choice_id: id, text_answer: null });
        break;
      }
      default: {
        // Text: a string; a bare number or boolean is taken as its text.
        if (typeof answer === 'object') {
          fail('custom_questions', MSG.answerMustBeString(questionId));
          break;
        }
        const text = String(answer).trim();
        if (text.length > TEXT_ANSWER_MAX) fail('custom_questions', MSG.answerTooLong(questionId, TEXT_ANSWER_MAX));
        else if (!hasNoNul(text)) fail('custom_questions', MSG.nullCharacter);
        else answers.push(text === '' ? cleared : { question_id: questionId, choice_id: null, text_answer: text });
      }
    }
  }
  return Object.keys(errors).length > 0 ? { answers, errors } : { answers };
}
