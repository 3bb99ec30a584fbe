import type { Conn } from '../knex';
import { guestAnswers, type GuestAnswer, type GuestRow } from './guests';

export interface CsvQuestion {
  id: number;
  question: string;
  type: string;
  choices: { id: number; answer: string }[];
}

/** The event's questions that are not deleted, with their choices, in creation order. */
export async function csvQuestions(db: Conn, eventId: number): Promise<CsvQuestion[]> {
  const questions: { id: number; question: string; type: string }[] = await db('custom_questions')
    .where({ event_id: eventId })
    .whereNot('objstatus', 3)
    .orderBy('id')
    .select('id', 'question', 'type');
  const choices: { id: number; question_id: number; answer: string }[] = questions.length
    ? await db('question_choices').whereIn('question_id', questions.map((q) => q.id)).orderBy([{ column: 'position' }, { column: 'id' }]).select('id', 'question_id', 'answer')
    : [];
  return questions.map((q) => ({ ...q, choices: choices.filter((c) => c.question_id === q.id).map(({ id, answer }) => ({ id, answer })) }));
}

export async function csvRegistrationTypes(db: Conn, eventId: number): Promise<{ id: number; name: string }[]> {
  return db('registration_types').where({ event_id: eventId }).orderBy('id').select('id', 'name');
}

const PAGE = 1000;

/** Every guest of an event with answers, a page at a time (keyset on id). */
export async function* guestPages(db: Conn, eventId: number): AsyncGenerator<{ guest: GuestRow; answers: GuestAnswer[] }[]> {
  let lastId = 0;
  for (;;) {
    const rows: GuestRow[] = await db('guests').where('event_id', eventId).andWhere('id', '>', lastId).orderBy('id').limit(PAGE);
    if (rows.length === 0) return;
    lastId = rows[rows.length - 1].id;
    const answers = await guestAnswers(db, rows.map((r) => r.id));
    yield rows.map((guest) => ({ guest, answers: answers.get(guest.id) ?? [] }));
    if (rows.length < PAGE) return;
  }
}

/** Which of these barcodes and NFC tags other guests of the event already have. */
export async function takenCodes(db: Conn, eventId: number, barcodes: string[], nfcTags: string[]): Promise<{ barcodes: Set<string>; nfcTags: Set<string> }> {
  const out = { barcodes: new Set<string>(), nfcTags: new Set<string>() };
  for (let i = 0; i < barcodes.length; i += 900) {
    const rows: { barcode: string }[] = await db('guests').where('event_id', eventId).whereIn('barcode', barcodes.slice(i, i + 900)).select('barcode');
    for (const r of rows) out.barcodes.add(r.barcode);
  }
  for (let i = 0; i < nfcTags.length; i += 900) {
    const rows: { nfc_tag: string }[] = await db('guests').where('event_id', eventId).whereIn('nfc_tag', nfcTags.slice(i, i + 900)).select('nfc_tag');
    for (const r of rows) out.nfcTags.add(r.nfc_tag);
  }
  return out;
}
