import type { CsvQuestion } from '../../db/repositories/guests-csv';
import { GUEST_TEXT_FIELDS, type GuestInsert } from '../../db/repositories/guests';
import type { QuestionForAnswers } from '../../core/answers';
import { MSG } from '../../core/messages';
import { fieldErrorsOf } from '../schemas/field-errors';
import type { FieldErrors } from '../../core/errors';
import { GuestCreate, checkAnswers } from '../schemas/guests';
import type { Column } from './guest-csv-columns';

// Attention cells (DESIGN "Check-in"): yes/true/1/x, case ignored; empty is no.
const ATTENTION_YES = new Set(['yes', 'true', '1', 'x']);
const ATTENTION_NO = new Set(['', 'no', 'false', '0']);

/** What every row of one file is read against: the event's questions and types, the file's columns. */
export interface RowContext {
  columns: Column[];
  answerRules: Map<number, QuestionForAnswers>;
  registrationTypes: { id: number; name: string }[];
  hasTypeColumn: boolean;
  nameOf: (key: string) => string;
}

/**
 * A CSV row through the same schema as POST /guests, so every message is the API's own.
 * An empty cell of an optional field means "not given" (a barcode is then generated).
 */
export function guestOfRow(record: string[], ctx: RowContext): { guest?: GuestInsert; errors?: FieldErrors } {
  const { input, questionCells } = inputOfRow(record, ctx.columns);
  input.registration_type = registrationTypeOf(input.registration_type as string | undefined, ctx);
  const errors: FieldErrors = {};
  const checked = checkAnswers(answersOf(questionCells, errors), ctx.answerRules);
  if (checked.errors) for (const [key, messages] of Object.entries(checked.errors)) (errors[key] ??= []).push(...messages);
  const answers = checked.answers.filter((a) => a.choice_id !== null || a.text_answer !== null);
  const parsed = GuestCreate.safeParse(input);
  if (!parsed.success) Object.assign(errors, fieldErrorsOf(parsed.error));
  const typeNames = ctx.registrationTypes.map((t) => t.name);
  const typeCell = ctx.columns.findIndex((c) => c.kind === 'field' && c.field === 'registration_type');
  if (input.registration_type === -1) errors.registration_type = [MSG.csvRegistrationTypeUnknown((record[typeCell] ?? '').trim(), typeNames)];
  else if (input.registration_type === undefined) errors.registration_type = [MSG.csvRegistrationTypeMissing(typeNames)];
  if (typeof input.attention === 'string') errors.attention = [MSG.csvAttentionInvalid(input.attention)];
  if (Object.keys(errors).length > 0 || !parsed.success) return { errors: renameErrors(errors, ctx.nameOf) };
  const data = parsed.data as Record<string, unknown>;
  const guest: Record<string, unknown> = {
    registration_type_id: data.registration_type,
    first_name: data.first_name,
    last_name: data.last_name,
    email: data.email,
    answers,
  };
  for (const f of [...GUEST_TEXT_FIELDS, 'barcode', 'nfc_tag', 'attention', 'notes'] as const) if (data[f] !== undefined) guest[f] = data[f];
  return { guest: guest as GuestInsert };
}

/** The row's cells as POST /guests's body would hold them, and its question cells apart. */
function inputOfRow(record: string[], columns: Column[]) {
  const input: Record<string, unknown> = {};
  const questionCells = new Map<CsvQuestion, string>();
  columns.forEach((column, i) => {
    const cell = record[i] ?? '';
    if (column.kind === 'field' && column.field === 'attention') input.attention = attentionOf(cell);
    else if (column.kind === 'field') {
      const required = column.field === 'first_name' || column.field === 'last_name' || column.field === 'email';
      if (cell !== '' || required || column.field === 'registration_type') input[column.field] = cell;
    } else if (column.kind === 'question') questionCells.set(column.question, cell);
  });
  return { input, questionCells };
}

function renameErrors(errors: FieldErrors, nameOf: (key: string) => string): FieldErrors {
  const named: FieldErrors = {};
  for (const [key, messages] of Object.entries(errors)) (named[nameOf(key)] ??= []).push(...messages);
  return named;
}

function choiceFor(question: CsvQuestion, value: string): number | undefined {
  const wanted = value.trim().toLowerCase();
  const byText = question.choices.find((c) => c.answer.trim().toLowerCase() === wanted);
  if (byText) return byText.id;
  return question.choices.find((c) => String(c.id) === wanted)?.id;
}

/**
 * Question cells as the API's answer list: a choice by its text (or id), checkbox choices
 * separated by ';', text as it is. Checked by the guest API's own checkAnswers.
 */
function answersOf(cells: Map<CsvQuestion, string>, errors: FieldErrors): unknown[] {
  const raw: unknown[] = [];
  for (const [question, cell] of cells) {
    if (cell.trim() === '') continue;
    if (question.type === 'text') {
      raw.push({ question_id: question.id, answer: cell });
      continue;
    }
    const values = question.type === 'checkbox' ? cell.split(';').map((v) => v.trim()).filter(Boolean) : [cell.trim()];
    const ids: number[] = [];
    for (const value of values) {
      const choice = choiceFor(question, value);
      if (choice === undefined) (errors[`q${question.id}`] ??= []).push(MSG.csvChoiceUnknown(value, question.choices.map((c) => c.answer)));
      else ids.push(choice);
    }
    if (ids.length === values.length) raw.push({ question_id: question.id, answer: question.type === 'checkbox' ? ids : ids[0] });
  }
  return raw;
}

function registrationTypeOf(value: string | undefined, ctx: RowContext): unknown {
  if (value === undefined) return ctx.registrationTypes.length === 1 && !ctx.hasTypeColumn ? ctx.registrationTypes[0].id : undefined;
  const wanted = value.trim();
  if (wanted === '') return ctx.registrationTypes.length === 1 ? ctx.registrationTypes[0].id : undefined;
  const byId = /^\d+$/.test(wanted) ? ctx.registrationTypes.find((t) => t.id === Number(wanted)) : undefined;
  const byName = ctx.registrationTypes.find((t) => t.name.trim().toLowerCase() === wanted.toLowerCase());
  return (byId ?? byName)?.id ?? -1;
}

function attentionOf(cell: string): boolean | string {
  const value = cell.trim().toLowerCase();
  return ATTENTION_YES.has(value) ? true : ATTENTION_NO.has(value) ? false : cell;
}
