import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { csvQuestions, csvRegistrationTypes, guestPages, takenCodes, type CsvQuestion } from '../../db/repositories/guests-csv';
import { insertGuests, GUEST_TEXT_FIELDS, type GuestInsert } from '../../db/repositories/guests';
import { toApiDatetime } from '../../core/time';
import { resourceRouter, fieldErrorsOf, type RouteDeps } from '../route';
import { DomainError } from '../../core/errors';
import { HttpError, ValidationError, type FieldErrors } from '../errors';
import { scopedEvent } from '../scope';
import { DetailResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { GuestCreate, checkAnswers } from '../schemas/guests';
import type { QuestionForAnswers } from '../../db/repositories/custom-questions';
import { GuestsCsvImportQuery, GuestsCsvImportResult, GuestsCsvRowErrors } from '../schemas/guests-csv';
import { MSG } from '../../core/messages';

export const GUESTS_CSV_MAX_BYTES = 100 * 1024 * 1024;
// Multiple answers of a checkbox question share one cell.
export const CHOICE_SEPARATOR = '; ';
const PARSED_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

/** Guest fields in export order; the same names are accepted on import. */
const FIELD_COLUMNS = ['first_name', 'last_name', 'email', 'prefix', 'suffix', 'phone', 'cell_phone', 'company', 'job_title', 'work_phone', 'blog', 'website', 'barcode', 'nfc_tag', 'registration_type'] as const;
type Field = (typeof FIELD_COLUMNS)[number];

/** Spellings people use in spreadsheets, compared without case, spaces or punctuation. */
const ALIASES: Record<string, Field> = {
  firstname: 'first_name', first: 'first_name', givenname: 'first_name', forename: 'first_name', vorname: 'first_name',
  lastname: 'last_name', last: 'last_name', surname: 'last_name', familyname: 'last_name', nachname: 'last_name',
  email: 'email', emailaddress: 'email', mail: 'email',
  prefix: 'prefix', salutation: 'prefix',
  suffix: 'suffix',
  phone: 'phone', phonenumber: 'phone', telephone: 'phone', tel: 'phone',
  cellphone: 'cell_phone', cell: 'cell_phone', mobile: 'cell_phone', mobilephone: 'cell_phone',
  company: 'company', companyname: 'company', organisation: 'company', organization: 'company',
  jobtitle: 'job_title', position: 'job_title',
  workphone: 'work_phone', officephone: 'work_phone', businessphone: 'work_phone',
  blog: 'blog', blogurl: 'blog',
  website: 'website', web: 'website', url: 'website', homepage: 'website',
  barcode: 'barcode', ticketcode: 'barcode',
  nfc: 'nfc_tag', nfctag: 'nfc_tag', nfcid: 'nfc_tag',
  registrationtype: 'registration_type', registrationtypeid: 'registration_type', tickettype: 'registration_type',
};
/** Columns the export writes that an import leaves alone (the server owns them). */
const READ_ONLY = new Set(['id', 'event', 'objstatus', 'status', 'checkedin', 'checkedinat', 'created', 'modified', 'selfie', 'source', 'registrationtypename', 'registrationtypeid']);

export function normaliseHeader(header: string): string {
  return header.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]/g, '');
}

type Column = { kind: 'field'; field: Field } | { kind: 'question'; question: CsvQuestion } | { kind: 'ignored' };

function mapColumns(headers: string[], questions: CsvQuestion[]): Column[] {
  const byText = new Map(questions.map((q) => [normaliseHeader(q.question), q]));
  const used = new Set<string>();
  return headers.map((header) => {
    const key = normaliseHeader(header);
    const field = ALIASES[key];
    // A question whose text is also a field name is reached by its text only when the field is taken.
    if (field && !used.has(field)) {
      used.add(field);
      return { kind: 'field', field };
    }
    const question = byText.get(key);
    if (question && !used.has(`q${question.id}`)) {
      used.add(`q${question.id}`);
      return { kind: 'question', question };
    }
    return { kind: 'ignored' };
  });
}

// ---------------------------------------------------------------------------------------
// One row

interface RowContext {
  questions: CsvQuestion[];
  answerRules: Map<number, QuestionForAnswers>;
  registrationTypes: { id: number; name: string }[];
  hasTypeColumn: boolean;
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
      if (choice === undefined) (errors.custom_questions ??= []).push(MSG.answerChoiceNotFound(value, question.id));
      else ids.push(choice);
    }
    if (ids.length === values.length) raw.push({ question_id: question.id, answer: question.type === 'checkbox' ? ids : ids[0] });
  }
  return raw;
}

function registrationTypeOf(value: string | undefined, ctx: RowContext): unknown {
  if (value === undefined) return ctx.registrationTypes.length === 1 && !ctx.hasTypeColumn ? ctx.registrationTypes[0].id : undefined;
  const wanted = value.trim();
  if (wanted === '') return undefined;
  const byId = /^\d+$/.test(wanted) ? ctx.registrationTypes.find((t) => t.id === Number(wanted)) : undefined;
  const byName = ctx.registrationTypes.find((t) => t.name.trim().toLowerCase() === wanted.toLowerCase());
  return (byId ?? byName)?.id ?? -1;
}

/**
 * A CSV row through the same schema as POST /guests, so every message is the API's own.
 * An empty cell of an optional field means "not given" (a barcode is then generated).
 */
function guestOfRow(record: string[], columns: Column[], ctx: RowContext): { guest?: GuestInsert; errors?: FieldErrors } {
  const input: Record<string, unknown> = {};
  const questionCells = new Map<CsvQuestion, string>();
  columns.forEach((column, i) => {
    const cell = record[i] ?? '';
    if (column.kind === 'field') {
      const required = column.field === 'first_name' || column.field === 'last_name' || column.field === 'email';
      if (cell !== '' || required || column.field === 'registration_type') input[column.field] = cell;
    } else if (column.kind === 'question') questionCells.set(column.question, cell);
  });
  input.registration_type = registrationTypeOf(input.registration_type as string | undefined, ctx);
  const errors: FieldErrors = {};
  const checked = checkAnswers(answersOf(questionCells, errors), ctx.answerRules);
  if (checked.errors) for (const [key, messages] of Object.entries(checked.errors)) (errors[key] ??= []).push(...messages);
  const answers = checked.answers.filter((a) => a.choice_id !== null || a.text_answer !== null);
  const parsed = GuestCreate.safeParse(input);
  if (!parsed.success) Object.assign(errors, fieldErrorsOf(parsed.error));
  if (input.registration_type === -1 || (typeof input.registration_type === 'string' && !errors.registration_type)) {
    errors.registration_type = [MSG.eventHasNoRegistrationType];
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { errors };
  const data = parsed.data as Record<string, unknown>;
  const guest: Record<string, unknown> = {
    registration_type_id: data.registration_type,
    first_name: data.first_name,
    last_name: data.last_name,
    email: data.email,
    answers,
  };
  for (const f of [...GUEST_TEXT_FIELDS, 'barcode', 'nfc_tag'] as const) if (data[f] !== undefined) guest[f] = data[f];
  return { guest: guest as GuestInsert };
}

/**
 * The decoder for the body: the Content-Type's charset when given (spreadsheets on Windows
 * save windows-1252), else UTF-8. Fatal, so bytes of another encoding are refused rather
 * than imported as replacement characters.
 */
function csvDecoder(contentType: string | undefined): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset, { fatal: true });
  } catch {
    throw new ValidationError({ detail: MSG.csvCharsetUnknown(charset) });
  }
}

/** The body as text, refused past `limit` bytes (a guest list of 100k rows is about 20 MB). */
async function readText(req: Readable & { headers: Record<string, string | string[] | undefined> }, limit: number): Promise<string> {
  const decoder = csvDecoder(req.headers['content-type'] as string | undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, { detail: MSG.bodyTooLarge });
    chunks.push(chunk as Buffer);
  }
  try {
    return decoder.decode(Buffer.concat(chunks));
  } catch {
    throw new ValidationError({ detail: MSG.csvNotDecodable(decoder.encoding) });
  }
}

/**
 * Spreadsheets in many locales save CSV with ';' (or tabs): the header row's most frequent
 * separator outside quotes decides.
 */
export function sniffDelimiter(text: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text.slice(0, 64 * 1024)) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch]++;
  }
  const [best, count] = Object.entries(counts).sort((a, b) => b[1] - a[1])[0];
  return count > 0 ? best : ',';
}

// ---------------------------------------------------------------------------------------
// Export rows

function exportHeader(questions: CsvQuestion[]): string[] {
  const texts = new Map<string, number>();
  for (const q of questions) texts.set(q.question, (texts.get(q.question) ?? 0) + 1);
  return [
    'id', ...FIELD_COLUMNS, 'registration_type_id', 'objstatus', 'checked_in', 'checked_in_at', 'created', 'modified',
    // Two questions with the same text stay two columns.
    ...questions.map((q) => ((texts.get(q.question) ?? 0) > 1 ? `${q.question} (${q.id})` : q.question)),
  ];
}

export function guestsCsvRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/events/{event_id}/guests.csv',
    summary: 'Every guest as CSV: guest fields, check-in state and one column per custom question',
    tags: ['Guests'],
    access: 'door',
    params: EventParams,
    responses: {
      200: { description: 'The guest list', content: { 'text/csv': { schema: { type: 'string' } } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, caller, res }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const [questions, types] = await Promise.all([csvQuestions(deps.db, event.id), csvRegistrationTypes(deps.db, event.id)]);
      const typeNames = new Map(types.map((t) => [t.id, t.name]));
      res.status(200);
      res.attachment(`${event.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || `event-${event.id}`}-guests.csv`);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      // The BOM makes spreadsheet programs read the file as UTF-8.
      const csv = stringify({ header: true, columns: exportHeader(questions), bom: true });
      const done = pipeline(csv, res);
      for await (const page of guestPages(deps.db, event.id)) {
        for (const { guest, answers } of page) {
          const byQuestion = new Map(answers.map((a) => [a.question_id, a.answer.map((x) => x.answer).join(CHOICE_SEPARATOR)]));
          const row = [
            guest.id,
            ...FIELD_COLUMNS.map((f) => (f === 'registration_type' ? typeNames.get(guest.registration_type_id) : guest[f]) ?? ''),
            guest.registration_type_id,
            guest.objstatus,
            guest.checked_in_at ? 'true' : 'false',
            toApiDatetime(guest.checked_in_at) ?? '',
            toApiDatetime(guest.created),
            toApiDatetime(guest.modified),
            ...questions.map((q) => byQuestion.get(q.id) ?? ''),
          ];
          if (!csv.write(row)) await new Promise((resolve) => csv.once('drain', resolve));
        }
      }
      csv.end();
      await done;
    },
  });

  route({
    method: 'post',
    path: '/events/{event_id}/guests.csv',
    summary: 'Add guests from CSV (header row names the columns); all rows or none',
    tags: ['Guests'],
    params: EventParams,
    query: GuestsCsvImportQuery,
    rawBody: { contentType: 'text/csv', description: 'A header row, then one guest per row' },
    responses: {
      200: { description: 'Dry run: what would be created', content: { 'application/json': { schema: GuestsCsvImportResult } } },
      201: { description: 'Guests created', content: { 'application/json': { schema: GuestsCsvImportResult } } },
      400: { description: 'Rows with errors (nothing written)', content: { 'application/json': { schema: GuestsCsvRowErrors } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
      413: { description: MSG.bodyTooLarge, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, req }) => {
      if (req.is(PARSED_TYPES)) throw new ValidationError({ detail: MSG.csvContentType });
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const [questions, registrationTypes] = await Promise.all([csvQuestions(deps.db, event.id), csvRegistrationTypes(deps.db, event.id)]);
      const answerRules = new Map(questions.map((q) => [q.id, { id: q.id, type: q.type, objstatus: 1, choiceIds: new Set(q.choices.map((c) => c.id)) }]));

      const text = await readText(req, GUESTS_CSV_MAX_BYTES);
      const parser = parse(text, { bom: true, relax_column_count: true, delimiter: sniffDelimiter(text) });
      let columns: Column[] | undefined;
      let headers: string[] = [];
      let ctx: RowContext | undefined;
      const guests: GuestInsert[] = [];
      const rowNumbers: number[] = [];
      const rows: { row: number; errors: FieldErrors }[] = [];
      let row = 1;
      try {
        // Empty lines are read as rows too, so row numbers match the spreadsheet's.
        for await (const record of parser as AsyncIterable<string[]>) {
          if (!columns) {
            headers = record.map((h) => h.trim());
            columns = mapColumns(headers, questions);
            ctx = { questions, answerRules, registrationTypes, hasTypeColumn: columns.some((c) => c.kind === 'field' && c.field === 'registration_type') };
            continue;
          }
          row++;
          if (record.every((cell) => cell.trim() === '')) continue;
          const result = guestOfRow(record, columns, ctx!);
          if (result.errors) rows.push({ row, errors: result.errors });
          else {
            guests.push(result.guest!);
            rowNumbers.push(row);
          }
        }
      } catch (err) {
        if (err instanceof HttpError || err instanceof DomainError) throw err;
        if (err instanceof CsvError) throw new ValidationError({ detail: MSG.csvUnreadable(err.message) });
        throw err;
      }
      if (!columns) throw new ValidationError({ detail: MSG.csvNoHeader });

      // Codes must be unique within the event: against the guests here and within the file.
      const taken = await takenCodes(
        deps.db,
        event.id,
        guests.flatMap((g) => (g.barcode ? [g.barcode] : [])),
        guests.flatMap((g) => (g.nfc_tag ? [g.nfc_tag] : [])),
      );
      const seen = { barcode: new Set<string>(), nfc_tag: new Set<string>() };
      guests.forEach((g, i) => {
        const errors: FieldErrors = {};
        if (g.barcode && (taken.barcodes.has(g.barcode) || seen.barcode.has(g.barcode))) errors.barcode = [MSG.barcodeExists];
        if (g.nfc_tag && (taken.nfcTags.has(g.nfc_tag) || seen.nfc_tag.has(g.nfc_tag))) errors.nfc_tag = [MSG.nfcTagExists];
        if (g.barcode) seen.barcode.add(g.barcode);
        if (g.nfc_tag) seen.nfc_tag.add(g.nfc_tag);
        if (Object.keys(errors).length > 0) rows.push({ row: rowNumbers[i], errors });
      });
      if (rows.length > 0) {
        rows.sort((a, b) => a.row - b.row);
        throw new ValidationError({ rows });
      }

      const used: Record<string, string> = {};
      const ignored: string[] = [];
      columns.forEach((c, i) => {
        if (c.kind === 'field') used[headers[i]] = c.field;
        else if (c.kind === 'question') used[headers[i]] = `question ${c.question.id}`;
        else if (!READ_ONLY.has(normaliseHeader(headers[i]))) ignored.push(headers[i]);
      });
      const summary = { columns: used, ignored_columns: ignored, would_create: guests.length };
      if (query.dry_run) return { status: 200, body: { dry_run: true, created: 0, ...summary } };
      await deps.db.transaction((trx) => insertGuests(trx, event.id, guests));
      return { status: 201, body: { dry_run: false, created: guests.length, ...summary } };
    },
  });

  return router;
}
