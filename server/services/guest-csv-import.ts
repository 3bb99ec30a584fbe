import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Conn, Db } from '../../db/knex';
import { withLargeCache } from '../../db/bulk';
import type { EventRow } from '../../db/repositories/events';
import type { GuestInsert } from '../../db/repositories/guests';
import { csvQuestions, csvRegistrationTypes, type CsvQuestion } from '../../db/repositories/guests-csv';
import { codeHolders } from '../../db/repositories/guest-codes';
import { CODE_COLUMNS, CodeHolders, csvCodeErrors, type CodeClash, type CodeColumn, type CsvCodeHolder } from '../../core/guest-codes';
import { MSG } from '../../core/messages';
import { ValidationError, type FieldErrors } from '../../core/errors';
import { columnNames, columnSummary, mapColumns } from './guest-csv-columns';
import { guestOfRow, type RowContext } from './guest-csv-rows';
import { CsvStager } from './guest-csv-staging';

/** Bad rows listed in a refusal; the rest are only counted (`more_rows`). */
export const CSV_LISTED_ROW_ERRORS = 100;
/** Reading stops at this many bad rows: the answer comes in a second, whatever the file. */
export const CSV_MAX_BAD_ROWS = 10_000;
/**
 * Columns a row may hold: the export's 23 and one per custom question, with room to spare.
 * Every row is mapped column by column, so a row thousands of columns wide would cost
 * milliseconds, and the door would wait behind it.
 */
export const CSV_MAX_COLUMNS = 500;
/** Rows (blank lines included) one upload may hold: twice the largest event Doorlist is built for. */
export const CSV_MAX_ROWS = 200_000;
/**
 * Rows read between turns of the event loop. Records of a body already received come through
 * promises alone, and nothing else runs until they stop: without a turn, each statement of the
 * staging transaction beside them, and each scan, would wait for a whole batch to be read.
 */
const PARSE_YIELD = 64;

/** The event's side of every row: its questions and registration types. */
type EventRules = Pick<RowContext, 'answerRules' | 'registrationTypes'> & { questions: CsvQuestion[] };

/** Each code's first row (core/guest-codes.ts), for codes repeated in the file and codes the event already has. */
type CodeRows = CodeHolders<{ row: number }>;

/** A file as read so far: its header row, its bad rows, its codes and how many rows are good. */
interface FileRead {
  headers: string[];
  ctx: RowContext;
  errors: RowErrors;
  codeRows: CodeRows;
  valid: number;
}

/**
 * Adds a CSV file's guests to the event, all or none (a dry run only checks): each row is
 * checked as POST /guests checks a body, and a barcode or NFC tag must be new to the file and
 * to the event. A bad row refuses the file with a 400 listing the bad rows by the file's own
 * column headers. Answers how the columns were read and how many guests it created (or would).
 */
export async function importGuestsCsv(db: Db, event: EventRow, records: AsyncIterable<string[]>, options: { dryRun: boolean; doorActive: () => boolean }) {
  const [questions, registrationTypes] = await Promise.all([csvQuestions(db, event.id), csvRegistrationTypes(db, event.id)]);
  const answerRules = new Map(questions.map((q) => [q.id, { id: q.id, type: q.type, objstatus: 1, choiceIds: new Set(q.choices.map((c) => c.id)) }]));
  const rules: EventRules = { questions, answerRules, registrationTypes };
  const stager = options.dryRun ? undefined : new CsvStager(db, event, options.doorActive);
  const readAndStage = () => readStageAndReveal(db, event, records, rules, stager);
  // A whole file's rows land in large indexes: SQLite's page cache is raised while it imports.
  const file = stager ? await withLargeCache(db, readAndStage) : await readAndStage();
  return { ...columnSummary(file.headers, file.ctx.columns), would_create: file.valid };
}

/** Reads and stages every row, then makes the guests visible; on any failure nothing stays. */
async function readStageAndReveal(db: Db, event: EventRow, records: AsyncIterable<string[]>, rules: EventRules, stager?: CsvStager): Promise<FileRead> {
  let revealed = false;
  try {
    const file = await readRows(records, rules, stager);
    // Codes must also be unique against the guests the event already has.
    const refuseTakenCodes = async () => {
      file.errors.merge(await takenCodeRows(db, event.id, file.codeRows, file.ctx.nameOf));
      if (file.errors.count > 0) throw new ValidationError(file.errors.body);
    };
    await refuseTakenCodes();
    // The rows were parsed, checked and staged by readRows; this one transaction makes them
    // visible: the event gains every guest or none.
    await stager?.reveal(refuseTakenCodes);
    revealed = true;
    return file;
  } finally {
    if (!revealed) await stager?.discard();
  }
}

/** Every row checked, each good one staged while no row is bad; the file's bounds enforced. */
async function readRows(records: AsyncIterable<string[]>, rules: EventRules, stager?: CsvStager): Promise<FileRead> {
  let file: FileRead | undefined;
  let row = 1;
  // Empty lines are read as rows too, so row numbers match the spreadsheet's.
  for await (const record of records) {
    if (record.length > CSV_MAX_COLUMNS) throw new ValidationError({ detail: MSG.csvTooManyColumns(file ? row + 1 : 1, CSV_MAX_COLUMNS) });
    if (!file) {
      file = fileOf(record, rules);
      continue;
    }
    row++;
    if (row % PARSE_YIELD === 0) await yieldToLoop();
    if (row - 1 > CSV_MAX_ROWS) throw new ValidationError({ detail: MSG.csvTooManyRows(CSV_MAX_ROWS) });
    if (file.errors.count >= CSV_MAX_BAD_ROWS) throw new ValidationError({ detail: MSG.csvTooManyBadRows(CSV_MAX_BAD_ROWS, row), ...file.errors.body });
    if (record.every((cell) => cell.trim() === '')) continue;
    const guest = checkRow(file, record, row);
    // Once any row is bad nothing will be revealed: only checking goes on.
    if (guest && stager && file.errors.count === 0) await stager.add(guest);
  }
  if (!file) throw new ValidationError({ detail: MSG.csvNoHeader });
  return file;
}

/** The file as its header row maps it, before any other row is read. */
function fileOf(record: string[], rules: EventRules): FileRead {
  const headers = record.map((h) => h.trim());
  const columns = mapColumns(headers, rules.questions);
  const ctx: RowContext = {
    columns,
    answerRules: rules.answerRules,
    registrationTypes: rules.registrationTypes,
    hasTypeColumn: columns.some((c) => c.kind === 'field' && c.field === 'registration_type'),
    nameOf: columnNames(headers, columns),
  };
  return { headers, ctx, errors: new RowErrors(), codeRows: new CodeHolders<{ row: number }>(), valid: 0 };
}

/** The row's guest when it is good; a bad row's errors are noted in the file instead. */
function checkRow(file: FileRead, record: string[], row: number): GuestInsert | undefined {
  const result = guestOfRow(record, file.ctx);
  const errors = result.errors ?? csvCodeErrors(file.codeRows.claim(result.guest!, { row }), file.ctx.nameOf);
  if (errors) {
    file.errors.add(row, errors);
    return undefined;
  }
  file.valid++;
  return result.guest;
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
async function takenCodeRows(db: Conn, eventId: number, codeRows: CodeRows, nameOf: (key: string) => string): Promise<Map<number, FieldErrors>> {
  const inFile = (column: CodeColumn) => [...codeRows.entries(column)].map(([code]) => ({ [column]: code }));
  const event = (await codeHolders(db, eventId, [...inFile('barcode'), ...inFile('nfc_tag')])).map<CsvCodeHolder>(() => 'event');
  const clashes = new Map<number, CodeClash<CsvCodeHolder>[]>();
  for (const column of CODE_COLUMNS) {
    for (const [code, { row }] of codeRows.entries(column)) {
      for (const clash of event.clashes({ [column]: code })) clashes.set(row, [...(clashes.get(row) ?? []), clash]);
    }
  }
  return new Map([...clashes].map(([row, found]) => [row, csvCodeErrors(found, nameOf)!]));
}
