import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Conn, Trx } from '../knex';
import { insertRows } from '../bulk';
import { fileSearchTerms, filePreparedSearchTerms, forgetSearchTerms, prepareSearchTerms, whereSearchMatches, type PreparedSearchTerms } from '../search-index';
import { batchSearchTerms, searchTerms, searchWords, type SearchableFields } from '../search-terms';
import { dialectOf } from '../dialect';
import { apiDatetime, bytesOf, joinedText, jsonArrayText, jsonBool, jsonBoolColumn, jsonFromText, jsonObjectText, textAsBytes } from '../dialect/json';
import { codeHolders, codeRefusal, isBarcodeTaken, isCodeTaken } from './guest-codes';
import { sentAtOnce, survivingFailure, writeTransaction } from '../write-transaction';
import { newUid } from '../../core/uid';
import { nowIso } from '../../core/time';
import { ValidationError } from '../../core/errors';
import { codeClashErrors } from '../../core/guest-codes';
import type { GUEST_ORDERINGS } from '../../core/messages';
import type { AnswerInput } from '../../core/answers';

/**
 * A guest's objstatus when deactivated (core's, the door's rule): refused at the door and
 * counted apart in the stats. The index of inactive guests (migration 20261127000000) names
 * the value itself.
 */
export { GUEST_INACTIVE } from '../../core/scan';

export interface GuestRow {
  id: number;
  uid: string;
  event_id: number;
  registration_type_id: number;
  first_name: string;
  last_name: string;
  email: string;
  prefix: string | null;
  suffix: string | null;
  phone: string | null;
  cell_phone: string | null;
  company: string | null;
  job_title: string | null;
  work_phone: string | null;
  blog: string | null;
  website: string | null;
  barcode: string;
  nfc_tag: string | null;
  objstatus: number;
  selfie: string;
  source: string;
  checked_in_at: string | null;
  /** The door must stop for this guest (VIP, age check, access needs). */
  attention: number | boolean;
  notes: string | null;
  created: string;
  modified: string;
}

/** The optional text columns; unset is null. */
export const GUEST_TEXT_FIELDS = [
  'prefix',
  'suffix',
  'phone',
  'cell_phone',
  'company',
  'job_title',
  'work_phone',
  'blog',
  'website',
] as const;

export type GuestFields = Pick<GuestRow, 'registration_type_id' | 'first_name' | 'last_name' | 'email'> &
  Partial<Pick<GuestRow, (typeof GUEST_TEXT_FIELDS)[number] | 'nfc_tag' | 'notes'>> & { barcode?: string | null; attention?: boolean };

/**
 * A guest for the bulk insert. Imports may carry the record's identity and state
 * (uid, times, status, door state) so a merged event file keeps them.
 */
export type GuestInsert = GuestFields & {
  answers?: AnswerInput[];
} & Partial<Pick<GuestRow, 'uid' | 'created' | 'modified' | 'objstatus' | 'selfie' | 'source' | 'checked_in_at'>>;

export interface GuestAnswer {
  question_id: number;
  question_text: string;
  objstatus: string;
  answer: { answer: string; id: string | null }[];
}

export type GuestUpdateFields = Partial<GuestFields & Pick<GuestRow, 'objstatus'>> & { answers?: AnswerInput[] };

// ---------------------------------------------------------------------------------------
// Barcodes and search terms

// 32 symbols without 0/O and 1/I, so a code read aloud or typed at the door is unambiguous;
// 12 of them from the CSPRNG are 60 bits: unguessable, and a clash within an event is ~never.
const BARCODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const BARCODE_LENGTH = 12;

// Random bytes drawn in blocks: one CSPRNG call per code is the bulk insert's main cost.
let pool = Buffer.alloc(0);
let poolOffset = 0;

export function generateBarcode(): string {
  if (poolOffset + BARCODE_LENGTH > pool.length) {
    pool = randomBytes(BARCODE_LENGTH * 1024);
    poolOffset = 0;
  }
  let code = '';
  // 256 is a multiple of 32, so masking the byte keeps every symbol equally likely.
  for (let i = 0; i < BARCODE_LENGTH; i++) code += BARCODE_ALPHABET[pool[poolOffset + i] & 31];
  poolOffset += BARCODE_LENGTH;
  return code;
}

type Searchable = SearchableFields & { id: number };

/** A guest whose searched fields changed: its terms are filed again (in the caller's transaction). */
export async function replaceSearchTerms(trx: Conn, eventId: number, guest: Searchable): Promise<void> {
  await forgetSearchTerms(trx, guest.id);
  await fileSearchTerms(trx, eventId, [searchTerms(guest)], [guest.id]);
}

// ---------------------------------------------------------------------------------------
// Reads

export async function findGuest(db: Conn, eventId: number, guestId: number): Promise<GuestRow | undefined> {
  return db<GuestRow>('guests').where({ event_id: eventId, id: guestId }).first();
}

/** A guest of the event as its API JSON (the list's form, answers included), as bytes; undefined if none. */
export async function guestJson(db: Conn, eventId: number, guestId: number): Promise<Buffer | undefined> {
  const row: { json: Buffer | string } | undefined = await db('guests as g')
    .where({ 'g.event_id': eventId, 'g.id': guestId })
    .first(db.raw(`${textAsBytes(db, guestJsonSql(db))} as json`));
  if (!row) return undefined;
  return bytesOf(row.json);
}

export type GuestOrdering = (typeof GUEST_ORDERINGS)[number];

export interface GuestListFilter {
  onlyCheckins?: boolean;
  search?: string;
  /** true: only guests who are in; false: only those who are not. */
  checkedIn?: boolean;
  registrationTypeId?: number;
  /** true: guests the door stops for (their own attention or their type's); false: the others. */
  attention?: boolean;
  /** Guests with a standing event-door admission made at this station. */
  station?: string;
  ordering?: GuestOrdering;
}

// Each ordering's columns; ties end on id, so pages never overlap. Names sort as stored.
const ORDER_COLUMNS: Record<string, string[]> = {
  id: ['id'],
  last_name: ['last_name', 'first_name', 'id'],
  first_name: ['first_name', 'last_name', 'id'],
  company: ['company', 'id'],
  registration_type: ['registration_type_id', 'id'],
  checked_in_at: ['checked_in_at', 'id'],
};

// Columns that may be unset: their guests sort last either way, on both databases (SQLite puts
// NULL first and PostgreSQL last by default; knex's own `nulls` option drops the column on SQLite).
const NULLABLE_ORDER_COLUMNS = new Set(['company', 'checked_in_at']);

/** ORDER BY text of an ordering (its columns from the fixed list above, so safe to inline). */
function orderOf(ordering: GuestOrdering = 'id', prefix = ''): string {
  const descending = ordering.startsWith('-');
  const columns = ORDER_COLUMNS[descending ? ordering.slice(1) : ordering];
  return columns.map((column) => `${prefix}${column} ${descending ? 'desc' : 'asc'}${NULLABLE_ORDER_COLUMNS.has(column) ? ' nulls last' : ''}`).join(', ');
}

/** The console's filters (GuestListFilter) on a query of the event's guests. */
function whereFiltered(db: Conn, query: Knex.QueryBuilder, eventId: number, filter: GuestListFilter) {
  if (filter.onlyCheckins || filter.checkedIn === true) query.whereNotNull('checked_in_at');
  if (filter.checkedIn === false) query.whereNull('checked_in_at');
  if (filter.registrationTypeId !== undefined) query.where('registration_type_id', filter.registrationTypeId);
  if (filter.attention !== undefined) {
    const typesWithAttention = db('registration_types').select('id').where({ event_id: eventId, attention: true });
    // Two index reads joined (the flagged few on their partial index, the types' guests on theirs),
    // where an OR would read every guest of the event.
    const flagged = db('guests').select('id').where('event_id', eventId).whereRaw('attention = true');
    const ofTypes = db('guests').select('id').where('event_id', eventId).whereIn('registration_type_id', typesWithAttention);
    const stopped = flagged.union(ofTypes);
    if (filter.attention) query.whereIn('id', stopped);
    else query.whereNotIn('id', stopped);
  }
  if (filter.station !== undefined) {
    query.whereIn('id', db('checkins').select('guest_id').where({ event_id: eventId, station: filter.station, direction: 'in' }).whereNull('session_id').whereNull('undone_at'));
  }
}

/** The guest `g`'s API form, built by the database, its answers included (guestAnswersSql). */
function guestJsonSql(db: Conn): string {
  const columns = ['first_name', 'last_name', 'email', ...GUEST_TEXT_FIELDS, 'barcode', 'nfc_tag'];
  return jsonObjectText(db, [
    ['id', 'g.id'],
    ['event', 'g.event_id'],
    ['registration_type', 'g.registration_type_id'],
    ...columns.map((c): [string, string] => [c, `g.${c}`]),
    ['objstatus', 'cast(g.objstatus as text)'],
    ['selfie', "coalesce(g.selfie, '')"],
    ['source', 'g.source'],
    ['checked_in', jsonBool(db, 'g.checked_in_at is not null')],
    ['checked_in_at', apiDatetime(db, 'g.checked_in_at')],
    ['attention', jsonBoolColumn(db, 'g.attention')],
    ['notes', 'g.notes'],
    ['custom_questions', jsonFromText(db, guestAnswersSql(db))],
    ['created', apiDatetime(db, 'g.created')],
    ['modified', apiDatetime(db, 'g.modified')],
  ]);
}

/**
 * The guest `g`'s answers as the API gives them (GuestAnswer[]), as JSON text: its questions
 * by id, each with its answers (choices in their order, then as given). The guest's own
 * answers are found on their guest_id index and grouped by question; most guests answer
 * nothing, and cost one probe of that index.
 */
export function guestAnswersSql(db: Conn): string {
  const answer = jsonObjectText(db, [
    ['answer', "case when a.choice_id is null then coalesce(a.text_answer, '') else coalesce(c.answer, '') end"],
    ['id', 'cast(a.choice_id as text)'],
  ]);
  const question = jsonObjectText(db, [
    ['question_id', 'x.question_id'],
    ['question_text', 'x.question'],
    ['objstatus', 'x.objstatus'],
    ['answer', jsonFromText(db, 'x.answers')],
  ]);
  const byQuestion =
    `select q.id as question_id, q.question, cast(q.objstatus as text) as objstatus, ${jsonArrayText(answer, 'c.position, c.id, a.id')} as answers ` +
    'from guest_answers a join custom_questions q on q.id = a.question_id left join question_choices c on c.id = a.choice_id ' +
    'where a.guest_id = g.id group by q.id, q.question, q.objstatus';
  const answers = `(select ${jsonArrayText(question, 'x.question_id')} from (${byQuestion}) as x)`;
  return `case when exists (select 1 from guest_answers a where a.guest_id = g.id) then ${answers} else '[]' end`;
}

/**
 * One page of an event's guests, oldest first, with the count of all that match. The page is
 * its guests' API JSON (guestJsonSql) joined by commas, the inside of the response's
 * `results` array, built by the database and handed over as bytes in one piece. Filters
 * narrow on the (event_id, modified) index and the search index (db/search-index.ts). The
 * page's ids are found first on the (event_id, id) index alone, so a late page of a full sync
 * skips the earlier guests' index entries, never their rows.
 */
export async function listGuests(db: Conn, eventId: number, filter: GuestListFilter, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<GuestRow>('guests').where('event_id', eventId);
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  whereFiltered(db, base, eventId, filter);
  const words = searchWords(filter.search ?? '');
  whereSearchMatches(db, base, eventId, words);
  const narrowed = filter.onlyCheckins || filter.checkedIn !== undefined || filter.registrationTypeId !== undefined || filter.attention !== undefined || filter.station !== undefined;
  const whole = !page.modifiedSince && !narrowed && words.length === 0;
  const count = whole && dialectOf(db).keepsGuestCounts ? await keptGuestCount(db, eventId) : Number((await base.clone().count({ count: '*' }))[0].count);
  const pageIds = base.clone().select('id').orderByRaw(orderOf(filter.ordering)).limit(page.limit).offset(page.offset);
  const pageJson = db('guests as g').whereIn('g.id', pageIds).orderByRaw(orderOf(filter.ordering, 'g.')).select(db.raw(`${guestJsonSql(db)} as json`));
  const [row] = (await db.from(pageJson.as('p')).select(db.raw(`${textAsBytes(db, joinedText('p.json'))} as guests`))) as { guests: Buffer | string | null }[];
  const guests = row?.guests ?? '';
  return { count, guests: bytesOf(guests) };
}

/** The event's number of guests as the triggers of migration 20261126110000 keep it. */
async function keptGuestCount(db: Conn, eventId: number): Promise<number> {
  const row = await db('event_guest_counts').where({ event_id: eventId }).first('guests');
  if (!row) throw new Error(`event ${eventId} has no kept guest count`);
  return Number(row.guests);
}

// ---------------------------------------------------------------------------------------
// Writes

// Guests an insert statement: a CSV import's quiet batch is one statement (every statement is a
// turn between the main thread and SQLite's, which waits while the reader holds the main thread).
const GUEST_CHUNK = 2000;

/** Answers with neither a choice nor a text only mark a question as cleared: nothing to store. */
async function insertAnswers(trx: Conn, rows: (AnswerInput & { guest_id: number })[], now: string) {
  const records = rows
    .filter((a) => a.choice_id != null || a.text_answer != null)
    .map((a) => ({ uid: newUid(), created: now, modified: now, guest_id: a.guest_id, question_id: a.question_id, choice_id: a.choice_id, text_answer: a.text_answer }));
  await insertRows(trx, 'guest_answers', records, false);
}

/** The answers new guests came with, `ids[k]` the id of `guests[k]`. */
async function insertAnswersOfGuests(trx: Conn, guests: readonly GuestInsert[], ids: readonly number[], now: string) {
  await insertAnswers(trx, guests.flatMap((g, k) => (g.answers ?? []).map((a) => ({ ...a, guest_id: ids[k] }))), now);
}

/**
 * The row for one guest, every column named in one literal: one object shape for 100k guests
 * an import (typed as the table's row, so a new column cannot be left out).
 */
function guestRecord(eventId: number, g: GuestInsert, now: string): Omit<GuestRow, 'id'> {
  return {
    uid: g.uid ?? newUid(),
    created: g.created ?? now,
    modified: g.modified ?? now,
    event_id: eventId,
    registration_type_id: g.registration_type_id,
    first_name: g.first_name,
    last_name: g.last_name,
    email: g.email,
    prefix: g.prefix ?? null,
    suffix: g.suffix ?? null,
    phone: g.phone ?? null,
    cell_phone: g.cell_phone ?? null,
    company: g.company ?? null,
    job_title: g.job_title ?? null,
    work_phone: g.work_phone ?? null,
    blog: g.blog ?? null,
    website: g.website ?? null,
    barcode: g.barcode ?? generateBarcode(),
    nfc_tag: g.nfc_tag ?? null,
    objstatus: g.objstatus ?? 1,
    selfie: g.selfie ?? '',
    source: g.source ?? 'api',
    checked_in_at: g.checked_in_at ?? null,
    attention: g.attention ?? false,
    notes: g.notes ?? null,
  };
}

/**
 * Guests gathered for one insert, each worked out as it is added: its row and its search
 * terms. A CSV import adds each row as it reads it, while the batch before is written, so the
 * work is spread between the reader's turns instead of held in one block, and the batch's
 * transaction runs statements only. `searchEventId`: the event the search terms are filed
 * under, when the guests wait under a hidden staging event for a later move (a CSV import):
 * the move then leaves them alone.
 */
export class GuestBatch {
  readonly guests: GuestInsert[] = [];
  readonly records: Record<string, unknown>[] = [];
  private readonly terms: string[][] = [];
  private readonly now = nowIso();

  constructor(
    private readonly eventId: number,
    private readonly searchEventId = eventId,
  ) {}

  /** A batch of these guests of `eventId`. */
  static of(eventId: number, guests: readonly GuestInsert[]): GuestBatch {
    const batch = new GuestBatch(eventId);
    for (const guest of guests) batch.add(guest);
    return batch;
  }

  add(guest: GuestInsert): void {
    const record = guestRecord(this.eventId, guest, this.now);
    this.guests.push(guest);
    this.records.push(record);
    this.terms.push(searchTerms(record as SearchableFields));
  }

  get size(): number {
    return this.guests.length;
  }

  /** The batch as insertPreparedGuests takes it, its search entries spelled out (once every guest is in). */
  prepared(db: Conn): PreparedGuests {
    return { eventId: this.eventId, now: this.now, guests: this.guests, records: this.records, search: prepareSearchTerms(db, this.searchEventId, this.terms) };
  }
}

export interface PreparedGuests {
  readonly eventId: number;
  readonly now: string;
  readonly guests: readonly GuestInsert[];
  readonly records: Record<string, unknown>[];
  readonly search: PreparedSearchTerms;
}

/**
 * Inserts many guests of one event with their search terms and answers, in chunks,
 * inside the caller's transaction. Missing barcodes are generated. Returns the new ids in
 * input order. A barcode or NFC tag already taken answers the spec's 400.
 */
export async function insertGuests(trx: Trx, eventId: number, guests: GuestInsert[]): Promise<number[]> {
  return insertPreparedGuests(trx, GuestBatch.of(eventId, guests).prepared(trx));
}

/** The ids the next guests will take (Dialect.nextIds), asked inside the write transaction that adds them. */
export function nextGuestIds(trx: Trx, count: number): Promise<number[]> {
  return dialectOf(trx).nextIds(trx, 'guests', count);
}

/**
 * Guests whose codes this transaction has checked already, written under ids known beforehand
 * (nextGuestIds): their search entries go together with them, their answers after (they name
 * the guests). Nothing is drawn again or looked into: a refusal throws, and the caller's batch
 * runs one by one on insertGuests. Returns the ids in input order.
 */
export async function insertCheckedGuests(trx: Trx, eventId: number, guests: GuestInsert[], ids: readonly number[]): Promise<number[]> {
  if (guests.length === 0) return [];
  const { records, search, now } = GuestBatch.of(eventId, guests).prepared(trx);
  const own = ids.slice(0, guests.length);
  await sentAtOnce([
    insertRows(trx, 'guests', records.map((record, k) => ({ id: own[k], ...record })), false),
    filePreparedSearchTerms(trx, search, own),
  ]);
  await insertAnswersOfGuests(trx, guests, own, now);
  return own;
}

/** insertGuests for a batch gathered beforehand (GuestBatch). */
export async function insertPreparedGuests(trx: Trx, batch: PreparedGuests): Promise<number[]> {
  const { eventId, now } = batch;
  const ids: number[] = [];
  let redrawn = false;
  for (let start = 0; start < batch.guests.length; start += GUEST_CHUNK) {
    const chunk = batch.guests.slice(start, start + GUEST_CHUNK);
    const records = batch.records.slice(start, start + GUEST_CHUNK);
    let inserted: { id: number; uid: string }[] | undefined;
    for (let attempt = 0; !inserted; attempt++) {
      try {
        // The transaction must outlive a refused insert, to draw again or find the holder. One
        // statement: insertRows sends a chunk's rows (GUEST_CHUNK) as one JSON parameter.
        inserted = await survivingFailure(trx, (t) => insertRows(t, 'guests', records, true));
      } catch (err) {
        // A generated code that met an existing one (2^-60 per pair): draw again. The failed
        // statement alone is undone, the transaction goes on.
        const generated = chunk.some((g) => !g.barcode);
        if (generated && attempt < 3 && isBarcodeTaken(err) && !(await chunkHasTakenCodes(trx, eventId, chunk))) {
          chunk.forEach((g, i) => {
            if (!g.barcode) records[i].barcode = generateBarcode();
          });
          redrawn = true;
          continue;
        }
        throw (await firstConflict(trx, err, eventId, chunk)) ?? err;
      }
    }
    const idByUid = new Map(inserted.map((r) => [r.uid, r.id]));
    const chunkIds = records.map((r) => idByUid.get(r.uid as string) as number);
    ids.push(...chunkIds);
    await insertAnswersOfGuests(trx, chunk, chunkIds, now);
  }
  // A barcode is one of its guest's search terms: a drawn again code's terms are worked out again.
  const search = redrawn ? prepareSearchTerms(trx, batch.search.eventId, batchSearchTerms(batch.records as SearchableFields[])) : batch.search;
  await filePreparedSearchTerms(trx, search, ids);
  return ids;
}

async function chunkHasTakenCodes(trx: Conn, eventId: number, chunk: GuestInsert[]): Promise<boolean> {
  const codes = chunk.map((g) => g.barcode).filter((b): b is string => !!b);
  if (new Set(codes).size !== codes.length) return true;
  if (codes.length === 0) return false;
  return !!(await trx('guests').where('event_id', eventId).whereIn('barcode', codes).first('id'));
}

/** The first guest of a chunk whose barcode or tag is taken, by a guest here or an earlier one of the chunk. */
async function firstConflict(trx: Conn, err: unknown, eventId: number, chunk: GuestInsert[]): Promise<ValidationError | undefined> {
  if (!isCodeTaken(err)) return undefined;
  const holders = (await codeHolders(trx, eventId, chunk)).map<number | undefined>((h) => h.id);
  for (const guest of chunk) {
    const errors = codeClashErrors(holders.claim(guest, undefined), 'create');
    if (errors) return new ValidationError(errors);
  }
  return undefined;
}

/**
 * Updates the given fields; answers sent replace the guest's answers to those questions.
 * Keeps the search terms in step, all in one transaction (the caller's, when given one, where
 * its codes were checked: server/services/guest-writes.ts). A code the unique index refuses
 * answers the spec's 400.
 */
export async function updateGuest(db: Conn, guest: GuestRow, fields: GuestUpdateFields): Promise<void> {
  const { answers, ...columns } = fields;
  const now = nowIso();
  await writeTransaction(db, async (trx) => {
    try {
      // The transaction must outlive a refused update, to look up who holds the code.
      await survivingFailure(trx, (t) => t('guests').where({ id: guest.id }).update({ ...columns, modified: now }));
    } catch (err) {
      throw (await codeRefusal(trx, err, guest.event_id, columns, 'update', guest.id)) ?? err;
    }
    if (SEARCHED_FIELDS.some((k) => k in columns)) await replaceSearchTerms(trx, guest.event_id, { ...guest, ...columns, id: guest.id });
    if (answers) {
      const questionIds = [...new Set(answers.map((a) => a.question_id))];
      // By the guest's answers, not by every answer to the question.
      await dialectOf(trx).whereInUnindexed(trx('guest_answers').where({ guest_id: guest.id }), 'question_id', questionIds).delete();
      await insertAnswers(trx, answers.map((a) => ({ ...a, guest_id: guest.id })), now);
    }
  });
}

const SEARCHED_FIELDS = ['first_name', 'last_name', 'email', 'company', 'barcode', 'nfc_tag'] as const;
