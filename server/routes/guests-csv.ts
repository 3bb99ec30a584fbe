import { Readable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError } from 'csv-parse';
import { stringify } from 'csv-stringify';
import type { Conn, Db } from '../../db/knex';
import { withLargeCache } from '../../db/bulk';
import type { EventRow } from '../../db/repositories/events';
import {
  csvGuestBatch,
  csvQuestions,
  csvRegistrationTypes,
  discardCsvStaging,
  guestPages,
  openCsvStaging,
  revealCsvGuests,
  stageCsvGuests,
  takenCodes,
  type CsvQuestion,
} from '../../db/repositories/guests-csv';
import { keepImportAlive } from '../../db/repositories/event-file-merge';
import { GUEST_TEXT_FIELDS, type GuestBatch, type GuestInsert, type GuestRow } from '../../db/repositories/guests';
import { zonedIso } from '../../core/time';
import { resourceRouter, fieldErrorsOf, type RouteDeps } from '../http/route';
import { DomainError } from '../../core/errors';
import { HttpError, NotFoundError, ValidationError, type FieldErrors } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { GuestCreate, checkAnswers } from '../schemas/guests';
import type { QuestionForAnswers } from '../../core/answers';
import { GuestsCsvExportQuery, GuestsCsvImportQuery, GuestsCsvImportResult, GuestsCsvRowErrors, SEPARATORS } from '../schemas/guests-csv';
import { MSG } from '../../core/messages';

export const GUESTS_CSV_MAX_BYTES = 100 * 1024 * 1024;
/** One row may hold this many characters; a longer one makes the file unreadable. */
export const CSV_MAX_ROW_CHARS = 64 * 1024;
/** Bad rows listed in a refusal; the rest are only counted (`more_rows`). */
export const CSV_LISTED_ROW_ERRORS = 100;
/** Reading stops at this many bad rows: the answer comes in a second, whatever the file. */
export const CSV_MAX_BAD_ROWS = 10_000;
/**
 * Columns a row may hold: the export's 23 and one per custom question, with room to spare.
 * Every row is mapped column by column: a file of rows thousands of columns wide made each
 * row cost milliseconds, and the door waited behind them.
 */
export const CSV_MAX_COLUMNS = 500;
/** Rows (blank lines included) one upload may hold: twice the largest event Doorlist is built for. */
export const CSV_MAX_ROWS = 200_000;
/**
 * Guests staged per transaction: short enough that a scan waiting behind one is not held long;
 * four times as many while no door is at work (LocalWrites.doorActive), as each commit writes
 * every index page it touched again.
 */
const STAGED_BATCH = 500;
const QUIET_STAGED_BATCH = 2000;
/**
 * Rows read between turns of the event loop. Records of a body already received come through
 * promises alone, and nothing else runs until they stop: each statement of the staging
 * transaction beside them, and each scan, waited for a whole batch to be read (the staging
 * took 88 ms a batch against SQLite's 40).
 */
const PARSE_YIELD = 64;
// Multiple answers of a checkbox question share one cell.
export const CHOICE_SEPARATOR = '; ';
const PARSED_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

/** Guest fields in export order; an import reads them by these labels or by the API's names. */
const FIELD_COLUMNS = ['first_name', 'last_name', 'email', 'prefix', 'suffix', 'phone', 'cell_phone', 'company', 'job_title', 'work_phone', 'blog', 'website', 'barcode', 'nfc_tag', 'registration_type', 'attention', 'notes'] as const;
type Field = (typeof FIELD_COLUMNS)[number];

/** Each field's column header as a person writes it: the export's, and an error's name for a field the file lacks. */
export const FIELD_LABELS: Record<Field, string> = {
  first_name: 'First name', last_name: 'Last name', email: 'E-mail', prefix: 'Prefix', suffix: 'Suffix', phone: 'Phone',
  cell_phone: 'Cell phone', company: 'Company', job_title: 'Job title', work_phone: 'Work phone', blog: 'Blog', website: 'Website',
  barcode: 'Barcode', nfc_tag: 'NFC tag', registration_type: 'Registration type', attention: 'Attention', notes: 'Notes',
};
/** The export's columns after the guest fields, written by the server and left alone by an import. */
const STATE_LABELS = { id: 'ID', registrationTypeId: 'Registration type ID', status: 'Status', checkedIn: 'Checked in', checkedInAt: 'Checked in at', created: 'Created', modified: 'Modified' };

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
  attention: 'attention', needsattention: 'attention',
  notes: 'notes', note: 'notes', doornotes: 'notes',
};
// Attention cells (DESIGN "Check-in"): yes/true/1/x, case ignored; empty is no.
const ATTENTION_YES = new Set(['yes', 'true', '1', 'x']);
const ATTENTION_NO = new Set(['', 'no', 'false', '0']);
/** Columns the export writes that an import leaves alone (the server owns them). */
const READ_ONLY = new Set(['id', 'event', 'objstatus', 'status', 'checkedin', 'checkedinat', 'created', 'modified', 'selfie', 'source', 'registrationtypename', 'registrationtypeid']);

export function normaliseHeader(header: string): string {
  return header.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]/g, '');
}

type Column = { kind: 'field'; field: Field } | { kind: 'question'; question: CsvQuestion } | { kind: 'read-only' } | { kind: 'ignored' };

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
    return READ_ONLY.has(key) ? { kind: 'read-only' } : { kind: 'ignored' };
  });
}

/**
 * Errors named as the file names its columns: a field by its column's header (its label when
 * the file has none), an answer by its question's column.
 */
function columnNames(headers: string[], columns: Column[]): (key: string) => string {
  const names = new Map<string, string>();
  columns.forEach((c, i) => {
    if (c.kind === 'field') names.set(c.field, headers[i]);
    else if (c.kind === 'question') names.set(`q${c.question.id}`, headers[i]);
  });
  return (key) => names.get(key) ?? FIELD_LABELS[key as Field] ?? key;
}

function renameErrors(errors: FieldErrors, nameOf: (key: string) => string): FieldErrors {
  const named: FieldErrors = {};
  for (const [key, messages] of Object.entries(errors)) (named[nameOf(key)] ??= []).push(...messages);
  return named;
}

// ---------------------------------------------------------------------------------------
// One row

interface RowContext {
  questions: CsvQuestion[];
  answerRules: Map<number, QuestionForAnswers>;
  registrationTypes: { id: number; name: string }[];
  hasTypeColumn: boolean;
  nameOf: (key: string) => string;
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

/**
 * A CSV row through the same schema as POST /guests, so every message is the API's own.
 * An empty cell of an optional field means "not given" (a barcode is then generated).
 */
function guestOfRow(record: string[], columns: Column[], ctx: RowContext): { guest?: GuestInsert; errors?: FieldErrors } {
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
  input.registration_type = registrationTypeOf(input.registration_type as string | undefined, ctx);
  const errors: FieldErrors = {};
  const checked = checkAnswers(answersOf(questionCells, errors), ctx.answerRules);
  if (checked.errors) for (const [key, messages] of Object.entries(checked.errors)) (errors[key] ??= []).push(...messages);
  const answers = checked.answers.filter((a) => a.choice_id !== null || a.text_answer !== null);
  const parsed = GuestCreate.safeParse(input);
  if (!parsed.success) Object.assign(errors, fieldErrorsOf(parsed.error));
  const typeNames = ctx.registrationTypes.map((t) => t.name);
  const typeCell = columns.findIndex((c) => c.kind === 'field' && c.field === 'registration_type');
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

/** The body as decoded text, chunk by chunk, refused past `limit` bytes. */
async function* decodedChunks(req: Readable & { headers: Record<string, string | string[] | undefined> }, limit: number): AsyncGenerator<string> {
  const decoder = csvDecoder(req.headers['content-type'] as string | undefined);
  if (Number(req.headers['content-length']) > limit) throw new HttpError(413, { detail: MSG.bodyTooLarge });
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new ValidationError({ detail: MSG.csvNotDecodable(decoder.encoding) });
    }
  };
  let size = 0;
  try {
    // Reading may stop early (too large, too many bad rows): the request is then drained, not
    // destroyed, so the answer still reaches the client.
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new HttpError(413, { detail: MSG.bodyTooLarge });
      const text = decode(chunk as Buffer);
      if (text) yield text;
    }
    const tail = decode();
    if (tail) yield tail;
  } finally {
    if (!req.readableEnded) req.resume();
  }
}

/** The first chunks, up to the end of the header row (or one row's worth), for sniffing. */
async function readHead(chunks: AsyncIterator<string>): Promise<string> {
  let head = '';
  while (!/[\r\n]/.test(head) && head.length < CSV_MAX_ROW_CHARS) {
    const next = await chunks.next();
    if (next.done) break;
    head += next.value;
  }
  return head;
}

async function* prepend(head: string, rest: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    if (head) yield head;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    // Stopped early: `rest` drains the request, so the connection can carry the next one.
    await rest.return(undefined);
  }
}

/** The body's records as they arrive, never the whole file in memory. */
async function csvRecords(req: Readable & { headers: Record<string, string | string[] | undefined> }): Promise<AsyncIterable<string[]>> {
  const chunks = decodedChunks(req, GUESTS_CSV_MAX_BYTES);
  const head = await readHead(chunks);
  const parser = parse({ bom: true, relax_column_count: true, delimiter: sniffDelimiter(head), max_record_size: CSV_MAX_ROW_CHARS });
  // A failure on either side destroys the parser with that error, so the reader sees it.
  pipeline(Readable.from(prepend(head, chunks)), parser).catch(() => undefined);
  return parser;
}

/**
 * Checked guests are written under a hidden event (db/repositories/guests-csv.ts) while the
 * rest of the file is still being read: a batch at a time, each in a short transaction of its
 * own, one in flight while the next is read and checked, so memory stays flat whatever the
 * file's size and the door's scans take turns with the writes. Nothing is seen until
 * `reveal`; after a refusal or a failure `discard` removes what was staged.
 */
class CsvStager {
  private batch?: GuestBatch;
  private writing: Promise<void> = Promise.resolve();
  private stagingId?: Promise<number>;
  /** Stamps the hidden event while this import is alive, so no other import clears it. */
  private heartbeat?: { stop: () => Promise<void> };

  constructor(
    private readonly db: Db,
    private readonly event: EventRow,
    private readonly doorActive: () => boolean,
  ) {}

  async add(guest: GuestInsert): Promise<void> {
    this.stagingId ??= this.open();
    this.batch ??= csvGuestBatch(await this.stagingId, this.event.id);
    // Its row and terms are worked out now, between the reader's turns, while the batch before is written.
    this.batch.add(guest);
    if (this.batch.size >= (this.doorActive() ? STAGED_BATCH : QUIET_STAGED_BATCH)) await this.flush();
  }

  private async open(): Promise<number> {
    const id = await openCsvStaging(this.db, this.event);
    this.heartbeat = keepImportAlive(this.db, id);
    return id;
  }

  private async flush(): Promise<void> {
    if (!this.batch) return;
    const prepared = this.batch.prepared(this.db);
    this.batch = undefined;
    await this.writing;
    this.writing = stageCsvGuests(this.db, prepared);
    // A failure surfaces at the next flush or at reveal; it is not unhandled meanwhile.
    this.writing.catch(() => undefined);
  }

  /**
   * Moves everything staged into the event in one transaction. A code another guest took
   * meanwhile refuses its row (`refuse` throws the 400); then the move is tried again.
   */
  async reveal(refuse: () => Promise<void>): Promise<void> {
    await this.flush();
    await this.writing;
    if (!this.stagingId) return;
    const id = await this.stagingId;
    for (let attempt = 1; ; attempt++) {
      const outcome = await revealCsvGuests(this.db, id, this.event.id);
      if (outcome === 'revealed') return this.heartbeat?.stop();
      if (outcome === 'event-gone') throw new NotFoundError(MSG.eventNotFound);
      await refuse();
      // The code's holder was gone again by the time it was looked up: a few more tries.
      if (attempt === 3) throw new Error('a CSV import kept meeting codes taken by other writers');
    }
  }

  async discard(): Promise<void> {
    await this.writing.catch(() => undefined);
    const id = await this.stagingId?.catch(() => undefined);
    try {
      if (id !== undefined) await discardCsvStaging(this.db, id);
    } finally {
      await this.heartbeat?.stop();
    }
  }
}

/**
 * Bad rows as the answer lists them: the first CSV_LISTED_ROW_ERRORS in row order, and how
 * many more, so a file of nothing but bad rows costs a bounded answer.
 */
class RowErrors {
  readonly listed: { row: number; errors: FieldErrors }[] = [];
  count = 0;

  /** Rows must arrive in increasing order. */
  add(row: number, errors: FieldErrors): void {
    this.count++;
    if (this.listed.length < CSV_LISTED_ROW_ERRORS) this.listed.push({ row, errors });
  }

  /** Rows found later (codes taken in the event), merged into row order. */
  merge(late: Map<number, FieldErrors>): void {
    this.count += late.size;
    const rows = [...late.keys()].sort((a, b) => a - b).slice(0, CSV_LISTED_ROW_ERRORS);
    this.listed.push(...rows.map((row) => ({ row, errors: late.get(row)! })));
    this.listed.sort((a, b) => a.row - b.row);
    this.listed.length = Math.min(this.listed.length, CSV_LISTED_ROW_ERRORS);
  }

  get body() {
    return { rows: this.listed, more_rows: this.count - this.listed.length };
  }
}

/** The rows (each code's first) whose barcode or NFC tag a guest of the event already has. */
async function takenCodeRows(db: Conn, eventId: number, codeRows: { barcode: Map<string, number>; nfc_tag: Map<string, number> }, nameOf: (key: string) => string): Promise<Map<number, FieldErrors>> {
  const taken = await takenCodes(db, eventId, [...codeRows.barcode.keys()], [...codeRows.nfc_tag.keys()]);
  const late = new Map<number, FieldErrors>();
  for (const code of taken.barcodes) late.set(codeRows.barcode.get(code)!, { [nameOf('barcode')]: [MSG.csvCodeTaken(code)] });
  for (const code of taken.nfcTags) {
    const at = codeRows.nfc_tag.get(code)!;
    late.set(at, { ...late.get(at), [nameOf('nfc_tag')]: [MSG.csvCodeTaken(code)] });
  }
  return late;
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
  const s = STATE_LABELS;
  return [
    s.id, ...FIELD_COLUMNS.map((f) => FIELD_LABELS[f]), s.registrationTypeId, s.status, s.checkedIn, s.checkedInAt, s.created, s.modified,
    // Two questions with the same text stay two columns.
    ...questions.map((q) => ((texts.get(q.question) ?? 0) > 1 ? `${q.question} (${q.id})` : q.question)),
  ];
}

// A cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
// A phone number (`+44 20 7946 0958`, `+1 (555) 010-0199`) starts with + but calls nothing.
const PHONE_NUMBER = /^\+[\d\s().\/-]+$/;

/** The cell as written: a formula-like text gets a leading ' so no spreadsheet runs it. */
export function formulaSafe(cell: string): string {
  return FORMULA_START.test(cell) && !PHONE_NUMBER.test(cell) ? `'${cell}` : cell;
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

export function guestsCsvRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/events/{event_id}/guests.csv',
    summary: 'Every guest as CSV: guest fields, check-in state and one column per custom question',
    tags: ['Guests'],
    access: 'door',
    params: EventParams,
    query: GuestsCsvExportQuery,
    responses: {
      200: { description: 'The guest list', content: { 'text/csv': { schema: { type: 'string' } } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, res }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const [questions, types] = await Promise.all([csvQuestions(deps.db, event.id), csvRegistrationTypes(deps.db, event.id)]);
      const typeNames = new Map(types.map((t) => [t.id, t.name]));
      res.status(200);
      res.attachment(`${event.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || `event-${event.id}`}-guests.csv`);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      // The BOM makes spreadsheet programs read the file as UTF-8. A cell (or question text in
      // the header) starting with = + - @ tab or CR gets a leading ' so no spreadsheet runs it.
      const csv = stringify({ header: true, columns: exportHeader(questions).map(formulaSafe), bom: true, delimiter: SEPARATORS[query.separator ?? 'comma'] });
      // One pipeline, awaited at once: a client that hangs up ends it (and the page reads)
      // with an error the route answers, never one left unhandled.
      await pipeline(Readable.from(exportRows(deps.db, event, questions, typeNames)), csv, res);
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
      400: { description: 'Rows with errors (nothing written), named by the file\'s column headers', content: { 'application/json': { schema: GuestsCsvRowErrors } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
      413: { description: MSG.bodyTooLarge, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, req }) => {
      if (req.is(PARSED_TYPES)) throw new ValidationError({ detail: MSG.csvContentType });
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const [questions, registrationTypes] = await Promise.all([csvQuestions(deps.db, event.id), csvRegistrationTypes(deps.db, event.id)]);
      const answerRules = new Map(questions.map((q) => [q.id, { id: q.id, type: q.type, objstatus: 1, choiceIds: new Set(q.choices.map((c) => c.id)) }]));

      const records = await csvRecords(req);
      let columns: Column[] | undefined;
      let headers: string[] = [];
      let ctx: RowContext | undefined;
      let nameOf: (key: string) => string = (key) => key;
      const errors = new RowErrors();
      // Each code's first row, for codes repeated in the file and codes the event already has.
      const codeRows = { barcode: new Map<string, number>(), nfc_tag: new Map<string, number>() };
      const stager = query.dry_run ? undefined : new CsvStager(deps.db, event, () => deps.localWrites.doorActive());
      // A whole file's rows land in large indexes: SQLite's page cache is raised while it imports.
      let valid = 0;
      let row = 1;
      const readAndStage = async (): Promise<Column[]> => {
        let revealed = false;
        try {
          try {
            // Empty lines are read as rows too, so row numbers match the spreadsheet's.
            for await (const record of records) {
              if (record.length > CSV_MAX_COLUMNS) throw new ValidationError({ detail: MSG.csvTooManyColumns(columns ? row + 1 : 1, CSV_MAX_COLUMNS) });
              if (!columns) {
                headers = record.map((h) => h.trim());
                columns = mapColumns(headers, questions);
                nameOf = columnNames(headers, columns);
                ctx = { questions, answerRules, registrationTypes, hasTypeColumn: columns.some((c) => c.kind === 'field' && c.field === 'registration_type'), nameOf };
                continue;
              }
              row++;
              if (row % PARSE_YIELD === 0) await yieldToLoop();
              if (row - 1 > CSV_MAX_ROWS) throw new ValidationError({ detail: MSG.csvTooManyRows(CSV_MAX_ROWS) });
              if (errors.count >= CSV_MAX_BAD_ROWS) throw new ValidationError({ detail: MSG.csvTooManyBadRows(CSV_MAX_BAD_ROWS, row), ...errors.body });
              if (record.every((cell) => cell.trim() === '')) continue;
              const result = guestOfRow(record, columns, ctx!);
              if (result.errors) {
                errors.add(row, result.errors);
                continue;
              }
              const guest = result.guest!;
              const repeated: FieldErrors = {};
              const barcodeRow = guest.barcode ? codeRows.barcode.get(guest.barcode) : undefined;
              const tagRow = guest.nfc_tag ? codeRows.nfc_tag.get(guest.nfc_tag) : undefined;
              if (barcodeRow) repeated[nameOf('barcode')] = [MSG.csvCodeRepeated(guest.barcode!, barcodeRow)];
              if (tagRow) repeated[nameOf('nfc_tag')] = [MSG.csvCodeRepeated(guest.nfc_tag!, tagRow)];
              if (Object.keys(repeated).length > 0) errors.add(row, repeated);
              else {
                if (guest.barcode) codeRows.barcode.set(guest.barcode, row);
                if (guest.nfc_tag) codeRows.nfc_tag.set(guest.nfc_tag, row);
                valid++;
                // Once any row is bad nothing will be revealed: only checking goes on.
                if (stager && errors.count === 0) await stager.add(guest);
              }
            }
          } catch (err) {
            if (err instanceof HttpError || err instanceof DomainError) throw err;
            if (err instanceof CsvError) throw new ValidationError({ detail: MSG.csvUnreadable(err.message) });
            throw err;
          }
          if (!columns) throw new ValidationError({ detail: MSG.csvNoHeader });

          // Codes must also be unique against the guests the event already has.
          const refuseTakenCodes = async () => {
            errors.merge(await takenCodeRows(deps.db, event.id, codeRows, nameOf));
            if (errors.count > 0) throw new ValidationError(errors.body);
          };
          await refuseTakenCodes();

          // The rows were parsed, checked and staged above; this one transaction makes them
          // visible: the event gains every guest or none.
          await stager?.reveal(refuseTakenCodes);
          revealed = true;
          return columns;
        } finally {
          if (!revealed) await stager?.discard();
        }
      };
      const mapped = stager ? await withLargeCache(deps.db, readAndStage) : await readAndStage();

      const used: Record<string, string> = {};
      const ignored: string[] = [];
      const readOnly: string[] = [];
      mapped.forEach((c, i) => {
        if (c.kind === 'field') used[headers[i]] = c.field;
        else if (c.kind === 'question') used[headers[i]] = `question ${c.question.id}`;
        else (c.kind === 'read-only' ? readOnly : ignored).push(headers[i]);
      });
      const summary = { columns: used, ignored_columns: ignored, read_only_columns: readOnly, would_create: valid };
      if (query.dry_run) return { status: 200, body: { dry_run: true, created: 0, ...summary } };
      return { status: 201, body: { dry_run: false, created: valid, ...summary } };
    },
  });

  return router;
}
