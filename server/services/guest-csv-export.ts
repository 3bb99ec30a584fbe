import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import type { GuestRow } from '../../db/repositories/guests';
import { csvQuestions, csvRegistrationTypes, guestPages, type CsvQuestion } from '../../db/repositories/guests-csv';
import { zonedIso } from '../../core/time';
import { CHOICE_SEPARATOR, FIELD_COLUMNS, FIELD_LABELS, STATE_LABELS, type Field } from './guest-csv-columns';

// A cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
// A phone number (`+44 20 7946 0958`, `+1 (555) 010-0199`) starts with + but calls nothing.
const PHONE_NUMBER = /^\+[\d\s().\/-]+$/;

/** The cell as written: a formula-like text gets a leading ' so no spreadsheet runs it. */
export function formulaSafe(cell: string): string {
  return FORMULA_START.test(cell) && !PHONE_NUMBER.test(cell) ? `'${cell}` : cell;
}

/**
 * The event's guests as CSV: the header (guest fields, check-in state, one column per custom
 * question) and the rows, read a page at a time as the download asks for them. Every cell,
 * the header's question texts too, is formula-safe.
 */
export async function guestsCsvExport(db: Db, event: EventRow): Promise<{ fileName: string; header: string[]; rows: AsyncGenerator<string[]> }> {
  const [questions, types] = await Promise.all([csvQuestions(db, event.id), csvRegistrationTypes(db, event.id)]);
  const typeNames = new Map(types.map((t) => [t.id, t.name]));
  const fileName = `${event.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || `event-${event.id}`}-guests.csv`;
  return { fileName, header: exportHeader(questions).map(formulaSafe), rows: exportRows(db, event, questions, typeNames) };
}

function exportHeader(questions: CsvQuestion[]): string[] {
  const texts = new Map<string, number>();
  for (const q of questions) texts.set(q.question, (texts.get(q.question) ?? 0) + 1);
  const s = STATE_LABELS;
  return [
    s.id, ...FIELD_COLUMNS.map((f) => FIELD_LABELS[f]), s.registrationTypeId, s.status, s.checkedIn, s.checkedInAt, s.created, s.modified,
    // Two questions with the same text stay two columns.
    ...questions.map((q) => ((texts.get(q.question) ?? 0) > 1 ? `${q.question} (${q.id})` : q.question)),
  ];
}

/**
 * The event's guests as CSV rows, read a page at a time as the download asks for them: times on
 * the venue's clock with the offset that makes each one an instant (DESIGN "Records").
 */
async function* exportRows(db: Db, event: EventRow, questions: CsvQuestion[], typeNames: Map<number, string>): AsyncGenerator<string[]> {
  const time = (instant: string | null) => (instant ? zonedIso(instant, event.timezone) : '');
  const yesNo = (value: unknown) => (value ? 'yes' : 'no');
  const fieldCell = (guest: GuestRow, f: Field) =>
    f === 'registration_type' ? typeNames.get(guest.registration_type_id) : f === 'attention' ? yesNo(guest.attention) : guest[f];
  for await (const page of guestPages(db, event.id)) {
    for (const { guest, answers } of page) {
      const byQuestion = new Map(answers.map((a) => [a.question_id, a.answer.map((x) => x.answer).join(CHOICE_SEPARATOR)]));
      yield [
        String(guest.id),
        ...FIELD_COLUMNS.map((f) => String(fieldCell(guest, f) ?? '')),
        String(guest.registration_type_id),
        Number(guest.objstatus) === 2 ? 'inactive' : 'active',
        yesNo(guest.checked_in_at),
        time(guest.checked_in_at),
        time(guest.created),
        time(guest.modified),
        ...questions.map((q) => byQuestion.get(q.id) ?? ''),
      ].map(formulaSafe);
    }
  }
}
