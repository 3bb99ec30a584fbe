import type { Conn } from '../knex';
import { newRecord } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';
import { writeTransaction } from '../write-transaction';

export interface CustomQuestionRow {
  id: number;
  uid: string;
  event_id: number;
  question: string;
  type: string;
  objstatus: number;
  show_at_door: number | boolean;
  created: string;
  modified: string;
}

export interface ChoiceRow {
  id: number;
  question_id: number;
  answer: string;
  position: number;
}

export interface CustomQuestionFields {
  question: string;
  type: string;
  objstatus: number;
  show_at_door: boolean;
  /** Answer texts in order; ignored for text questions. */
  choices: string[];
}

/** What an update may change: the text, the status and whether the door sees the answers. */
export type CustomQuestionChanges = Partial<Pick<CustomQuestionFields, 'question' | 'objstatus' | 'show_at_door'>>;

export function toCustomQuestion(row: CustomQuestionRow, choices: ChoiceRow[]) {
  return {
    id: row.id,
    question: row.question,
    type: row.type as 'checkbox' | 'text' | 'drop_down' | 'radio',
    choices: choices.map((c) => ({ answer: c.answer, id: c.id })),
    objstatus: String(row.objstatus),
    show_at_door: Boolean(row.show_at_door),
    created: toApiDatetime(row.created) as string,
    modified: toApiDatetime(row.modified) as string,
  };
}

/** Choices of many questions in one query, in their order, keyed by question id. */
async function choicesOf(db: Conn, questionIds: number[]): Promise<Map<number, ChoiceRow[]>> {
  const byQuestion = new Map<number, ChoiceRow[]>();
  if (questionIds.length === 0) return byQuestion;
  const rows: ChoiceRow[] = await db('question_choices')
    .whereIn('question_id', questionIds)
    .orderBy([{ column: 'question_id' }, { column: 'position' }, { column: 'id' }])
    .select('id', 'question_id', 'answer', 'position');
  for (const row of rows) {
    const list = byQuestion.get(row.question_id) ?? [];
    list.push(row);
    byQuestion.set(row.question_id, list);
  }
  return byQuestion;
}

export async function findCustomQuestion(db: Conn, eventId: number, id: number) {
  const row = await db<CustomQuestionRow>('custom_questions').where({ event_id: eventId, id }).first();
  if (!row) return undefined;
  return toCustomQuestion(row, (await choicesOf(db, [row.id])).get(row.id) ?? []);
}

export async function listCustomQuestions(db: Conn, eventId: number, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<CustomQuestionRow>('custom_questions').where({ event_id: eventId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = (await base.clone().orderBy('id').limit(page.limit).offset(page.offset)) as CustomQuestionRow[];
  const choices = await choicesOf(db, rows.map((r) => r.id));
  return { count: Number(count), results: rows.map((r) => toCustomQuestion(r, choices.get(r.id) ?? [])) };
}

/** A question and its choices, in one transaction; returns the stored question. */
export async function insertCustomQuestion(db: Conn, eventId: number, fields: CustomQuestionFields) {
  return writeTransaction(db, async (trx) => {
    const record = newRecord();
    const [row] = await trx('custom_questions')
      .insert({ ...record, event_id: eventId, question: fields.question, type: fields.type, objstatus: fields.objstatus, show_at_door: fields.show_at_door })
      .returning('*');
    const texts = fields.type === 'text' ? [] : fields.choices;
    const choices: ChoiceRow[] = [];
    // One row at a time keeps ids in the given order (a question has a handful of choices).
    for (const [position, answer] of texts.entries()) {
      const [choice] = await trx('question_choices')
        .insert({ ...newRecord(record.created), question_id: row.id, answer, position })
        .returning(['id', 'question_id', 'answer', 'position']);
      choices.push(choice);
    }
    return toCustomQuestion(row as CustomQuestionRow, choices);
  });
}

/** Changes a question of the event; undefined when there is no such question. */
export async function updateCustomQuestion(db: Conn, eventId: number, id: number, changes: CustomQuestionChanges) {
  const updated = await db('custom_questions').where({ event_id: eventId, id }).update({ ...changes, modified: nowIso() });
  return updated === 0 ? undefined : findCustomQuestion(db, eventId, id);
}
