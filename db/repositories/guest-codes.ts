import type { Conn } from '../knex';
import { selectByValues } from '../bulk';
import { isUniqueViolation, uniqueKey } from '../errors';
import { sentAtOnce } from '../write-transaction';
import { ValidationError } from '../../core/errors';
import { CODE_COLUMNS, CodeHolders, codeClashErrors, type CodeColumn, type CodeWording, type GuestCodes } from '../../core/guest-codes';

/**
 * Who holds a barcode or NFC tag in an event: the reads the rule of core/guest-codes.ts decides
 * on, and the unique indexes that hold it across processes (their refusal classified here).
 */

/** A guest holding a code, with what a merge's conflict names it by. */
export interface CodeHolderRow {
  id: number;
  uid: string;
  first_name: string;
  last_name: string;
}

const BARCODE_KEY = uniqueKey('guests', ['event_id', 'barcode'], 'guests_event_barcode_unique');
const NFC_TAG_KEY = uniqueKey('guests', ['event_id', 'nfc_tag'], 'guests_event_nfc_tag_unique');

/** The unique index of a guest's barcode or NFC tag refused a write. */
export const isCodeTaken = (err: unknown) => isUniqueViolation(err, BARCODE_KEY) || isUniqueViolation(err, NFC_TAG_KEY);
export const isBarcodeTaken = (err: unknown) => isUniqueViolation(err, BARCODE_KEY);

/**
 * The event's guests holding any of these guests' barcodes or NFC tags. On SQLite each column
 * is one statement, whatever the number of codes (a CSV brings up to a hundred thousand); the
 * two go together.
 */
export async function codeHolders(db: Conn, eventId: number, guests: Iterable<GuestCodes>): Promise<CodeHolders<CodeHolderRow>> {
  const wanted: Record<CodeColumn, Set<string>> = { barcode: new Set(), nfc_tag: new Set() };
  for (const guest of guests) for (const column of CODE_COLUMNS) if (guest[column]) wanted[column].add(guest[column]!);
  const holding = (column: CodeColumn) =>
    selectByValues(db, 'guests', column, [...wanted[column]], (q) =>
      q.where('guests.event_id', eventId).select(`guests.${column} as code`, 'guests.id', 'guests.uid', 'guests.first_name', 'guests.last_name'),
    );
  const [withBarcodes, withTags] = await sentAtOnce([holding('barcode'), holding('nfc_tag')]);
  const holders = new CodeHolders<CodeHolderRow>();
  for (const [column, rows] of [['barcode', withBarcodes], ['nfc_tag', withTags]] as const) {
    for (const { code, id, uid, first_name, last_name } of rows) holders.hold(column, code as string, { id: Number(id), uid: uid as string, first_name: first_name as string, last_name: last_name as string });
  }
  return holders;
}

/**
 * The spec's 400 for a guest whose codes other guests of the event hold (the holder of its
 * barcode named), or undefined when they are free; `selfId`: the guest being changed.
 */
export async function codesTaken(db: Conn, eventId: number, guest: GuestCodes, wording: CodeWording, selfId?: number): Promise<ValidationError | undefined> {
  const holders = await codeHolders(db, eventId, [guest]);
  const errors = codeClashErrors(holders.map((h) => h.id).clashes(guest, (id) => id === selfId), wording);
  return errors && new ValidationError(errors);
}

/**
 * A write the unique index refused (another process slipped in between the check and the
 * write) as the spec's 400, or undefined for any other failure.
 */
export async function codeRefusal(db: Conn, err: unknown, eventId: number, guest: GuestCodes, wording: CodeWording, selfId?: number): Promise<ValidationError | undefined> {
  if (!isCodeTaken(err)) return undefined;
  const found = await codesTaken(db, eventId, guest, wording, selfId);
  if (found) return found;
  // The holder is gone again: the index's refusal alone says which code.
  const column: CodeColumn = isBarcodeTaken(err) ? 'barcode' : 'nfc_tag';
  return new ValidationError(codeClashErrors([{ column, code: guest[column] ?? '', holder: undefined }], wording)!);
}
