import { randomBytes } from 'node:crypto';
import type { Conn, Trx } from '../knex';
import { insertRows, insertTuples } from '../bulk';
import { filePreparedSearchTerms, prepareSearchTerms, type PreparedSearchTerms } from '../search-index';
import { batchSearchTerms, searchTerms, type SearchableFields } from '../search-terms';
import { dialectOf } from '../dialect';
import { codeHolders, isBarcodeTaken, isCodeTaken } from './guest-codes';
import { sentAtOnce, survivingFailure } from '../write-transaction';
import { newUid } from '../../core/uid';
import { nowIso } from '../../core/time';
import { ValidationError } from '../../core/errors';
import { codeClashErrors } from '../../core/guest-codes';
import type { AnswerInput } from '../../core/answers';
import type { GuestInsert, GuestRow } from './guests';

/** New guests: their barcodes drawn, their rows, search terms and answers, one or a hundred thousand at a time. */

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

// Guests an insert statement: a CSV import's quiet batch is one statement (every statement is a
// turn between the main thread and SQLite's, which waits while the reader holds the main thread).
const GUEST_CHUNK = 2000;

/** Answers with neither a choice nor a text only mark a question as cleared: nothing to store. */
export async function insertAnswers(trx: Conn, rows: (AnswerInput & { guest_id: number })[], now: string) {
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
  const columns = Object.keys(records[0]);
  await sentAtOnce([
    insertTuples(trx, 'guests', ['id', ...columns], records.map((record, k) => [own[k], ...columns.map((c) => record[c])])),
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

/** Whether a barcode the chunk gives is taken, by a guest here or an earlier one of the chunk: then drawing again cannot help. */
async function chunkHasTakenCodes(trx: Conn, eventId: number, chunk: GuestInsert[]): Promise<boolean> {
  const given = chunk.flatMap((g) => (g.barcode ? [{ barcode: g.barcode }] : []));
  if (given.length === 0) return false;
  const holders = (await codeHolders(trx, eventId, given)).map<number | undefined>((h) => h.id);
  return given.some((g) => holders.claim(g, undefined).length > 0);
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
