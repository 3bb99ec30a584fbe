import { z } from './zod';
import { boolean, choice, integer, pathId, requiredText } from './fields';
import { CUSTOM_QUESTION_TYPES, MSG } from '../../core/messages';
import { ListQuery } from '../http/pagination';

/** A path id of a child record; anything else becomes 0, which matches no record. */
const recordId = z
  .string()
  .transform((v) => (/^\d{1,9}$/.test(v) ? Number(v) : 0))
  .openapi({ type: 'integer', minimum: 1, maximum: 999999999 });

/** Question types whose answer is one or more of the question's choices. */
export const CHOICE_TYPES: readonly string[] = ['radio', 'drop_down', 'checkbox'];

export const QUESTION_OBJSTATUS = { active: 1, inactive: 2, deleted: 3 } as const;

const objstatus = integer().pipe(
  z.number().refine((v) => v === 1 || v === 2 || v === 3, { error: MSG.invalidQuestionObjstatus }),
).openapi({ enum: [1, 2, 3], description: '1: active, 2: inactive, 3: deleted.' });

const Choice = z.object({ answer: requiredText(1000) }, { error: MSG.choiceAnswerRequired });

export const CustomQuestionCreate = z
  .object({
    question: requiredText(2000),
    type: choice(CUSTOM_QUESTION_TYPES, MSG.invalidCustomQuestionType),
    choices: z.array(Choice, { error: MSG.invalidList }).nullish(),
    objstatus: objstatus.default(QUESTION_OBJSTATUS.active),
    show_at_door: boolean().default(false).openapi({ description: "Show guests' answers to it at the door, with the scan" }),
  })
  .superRefine((q, ctx) => {
    // The spec's general-error shape: {"details": ["Following types require choices: ..."]}.
    if (CHOICE_TYPES.includes(q.type) && !q.choices?.length) ctx.addIssue({ code: 'custom', path: ['details'], message: MSG.choicesRequired });
  })
  .openapi('CustomQuestionCreate');

export const CustomQuestionUpdate = z
  .object({
    question: requiredText(2000).optional(),
    objstatus: objstatus.optional(),
    show_at_door: boolean().optional().openapi({ description: "Show guests' answers to it at the door, with the scan" }),
  })
  .openapi('CustomQuestionUpdate');

// Any id that is not a stored one (also a non-number: the spec types it string) answers the 404 of the resource.
export const CustomQuestionParams = z.object({ event_id: pathId, custom_question_id: recordId });

export const CustomQuestionListQuery = ListQuery;

const ChoiceOut = z.object({ answer: z.string(), id: z.number().int() });

export const CustomQuestionCreated = z
  .object({ id: z.number().int(), question: z.string(), type: z.enum(CUSTOM_QUESTION_TYPES), choices: z.array(ChoiceOut) })
  .openapi('CustomQuestionCreated');

export const CustomQuestion = z
  .object({
    id: z.number().int(),
    question: z.string(),
    type: z.enum(CUSTOM_QUESTION_TYPES),
    choices: z.array(ChoiceOut),
    objstatus: z.string().openapi({ example: '1', description: '1 Active, 2 Inactive, 3 Deleted' }),
    show_at_door: z.boolean().openapi({ description: "Guests' answers to it come with their scans (door_answers)" }),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('CustomQuestion');

export type CustomQuestionCreateInput = z.output<typeof CustomQuestionCreate>;
