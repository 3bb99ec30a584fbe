import type { Db, Trx } from '../knex';
import { chunks, insertRows } from '../bulk';
import { replaceSearchTerms, type Searchable } from './guest-updates';
import { survivingFailure, writeTransaction } from '../write-transaction';
import { isIntegrityViolation } from '../errors';
import { TurnPacer, turnMs } from '../turns';

/**
 * The undo notes of a merge applied in short transactions (server/event-file/merge.ts). A merge
 * into an existing event is marked under way by a hidden event of its own (insertHiddenEvent,
 * stamped while it runs); each of its transactions notes here what it inserted, changed and
 * deleted, in that same transaction. If the merge fails, or its process dies and its marker
 * goes stale, `undoMerge` puts every row back (newest note first, a few hundred a transaction)
 * and the marker goes; if it finishes, its last transaction removes the marker and the notes
 * are only forgotten (`forgetMerges`). So from outside a merge is all or nothing: what a
 * failure leaves is the event as it was, a door's own scans meanwhile kept.
 */

type Row = Record<string, unknown>;

interface Note {
  merge_id: number;
  table_name: string;
  row_id: number;
  kind: 'insert' | 'update' | 'delete';
  before: string | null;
  after: string | null;
}

// Notes undone per transaction, in turns (db/turns.ts): a changed guest undone
// is a few statements (its row, its search terms).
const MIN_UNDO_ROWS = 5;
const MAX_UNDO_ROWS = 500;
const MIN_FORGET_ROWS = 100;
const MAX_FORGET_ROWS = 5000;

/** A stored value as compared: PostgreSQL reads booleans as true/false where SQLite has 0/1. */
function comparable(value: unknown): unknown {
  return typeof value === 'boolean' ? Number(value) : (value ?? null);
}

/** The notes of one merge, kept in memory until its transaction writes them (`write`). */
export class MergeJournal {
  private notes: Note[] = [];

  constructor(readonly mergeId: number) {}

  inserted(table: string, ids: number[]): void {
    for (const id of ids) this.notes.push({ merge_id: this.mergeId, table_name: table, row_id: id, kind: 'insert', before: null, after: null });
  }

  /** `changes` are about to be written over `local` (the row as it was read in this transaction). */
  updated(table: string, local: Row, changes: Row): void {
    const before: Row = {};
    for (const column of Object.keys(changes)) before[column] = comparable(local[column]);
    const after = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, comparable(v)]));
    this.notes.push({ merge_id: this.mergeId, table_name: table, row_id: local.id as number, kind: 'update', before: JSON.stringify(before), after: JSON.stringify(after) });
  }

  /** Deletes these rows of `table`, noting each whole first. */
  async deleteRows(trx: Trx, table: string, ids: number[]): Promise<void> {
    for (const part of chunks(ids, 500)) {
      const rows = (await trx(table).whereIn('id', part).select('*')) as Row[];
      for (const row of rows) {
        this.notes.push({ merge_id: this.mergeId, table_name: table, row_id: row.id as number, kind: 'delete', before: JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, comparable(v)]))), after: null });
      }
      await trx(table).whereIn('id', part).delete();
    }
  }

  /** Writes the notes gathered since the last call, inside the transaction that made the changes. */
  async write(trx: Trx): Promise<void> {
    const notes = this.notes;
    this.notes = [];
    for (const part of chunks(notes, 500)) await insertRows(trx, 'merge_journal', part as unknown as Row[], false);
  }
}

/**
 * Puts back what the merge marked by `mergeId` changed, newest first, a few hundred notes a
 * transaction: its rows removed, its deleted rows inserted again, and each column it changed
 * set back unless someone changed it since (a door's scan meanwhile stands).
 */
export async function undoMerge(db: Db, mergeId: number): Promise<void> {
  const pacer = new TurnPacer(MIN_UNDO_ROWS, MAX_UNDO_ROWS, turnMs(db));
  for (;;) {
    const started = { at: 0 };
    const undone = await writeTransaction(db, async (trx) => {
      started.at = performance.now();
      const notes = (await trx('merge_journal').where({ merge_id: mergeId }).orderBy('id', 'desc').limit(pacer.size)) as (Note & { id: number })[];
      const restored = new Map<number, Row>();
      for (const note of notes) await undoNote(trx, note, restored);
      await refileSearchTerms(trx, [...restored.values()]);
      if (notes.length > 0) await trx('merge_journal').whereIn('id', notes.map((n) => n.id)).delete();
      return notes.length;
    });
    if (undone === 0) return;
    pacer.record(undone, performance.now() - started.at);
  }
}

/** Undoes one note; a guest whose fields it set back goes into `restored` as it now is. */
async function undoNote(trx: Trx, note: Note, restored: Map<number, Row>): Promise<void> {
  const table = note.table_name;
  if (note.kind === 'insert') {
    await trx(table).where({ id: note.row_id }).delete();
    if (table === 'guests') restored.delete(note.row_id);
    return;
  }
  if (note.kind === 'delete') {
    const row = JSON.parse(note.before as string) as Row;
    // Its parent may have been deleted meanwhile (a guest removed at the console): then it stays gone.
    await survivingFailure(trx, (t) => t(table).insert(row).onConflict('id').ignore()).catch((err) => {
      if (!isIntegrityViolation(err)) throw err;
    });
    return;
  }
  const before = JSON.parse(note.before as string) as Row;
  const after = JSON.parse(note.after as string) as Row;
  const current = (await trx(table).where({ id: note.row_id }).first()) as Row | undefined;
  if (!current) return;
  const restore: Row = {};
  for (const column of Object.keys(before)) if (comparable(current[column]) === after[column]) restore[column] = before[column];
  if (Object.keys(restore).length === 0) return;
  await trx(table).where({ id: note.row_id }).update(restore);
  if (table === 'guests') restored.set(note.row_id, { ...current, ...restore });
}

/** The restored guests' search terms, a turn's in one go for each event. */
async function refileSearchTerms(trx: Trx, guests: Row[]): Promise<void> {
  const byEvent = new Map<number, Searchable[]>();
  for (const guest of guests) {
    const eventId = guest.event_id as number;
    byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), guest as unknown as Searchable]);
  }
  for (const [eventId, searchable] of byEvent) await replaceSearchTerms(trx, eventId, searchable);
}

/** The notes of a merge that finished (its marker is gone), in turns. */
export async function forgetMerge(db: Db, mergeId: number): Promise<void> {
  const pacer = new TurnPacer(MIN_FORGET_ROWS, MAX_FORGET_ROWS, turnMs(db));
  for (;;) {
    const started = performance.now();
    const removed = await db('merge_journal')
      .whereIn('id', db('merge_journal').where({ merge_id: mergeId }).limit(pacer.size).select('id'))
      .delete();
    if (removed === 0) return;
    pacer.record(removed, performance.now() - started);
  }
}

/** The notes of every merge that finished, whose process died before it forgot them. */
export async function forgetMerges(db: Db): Promise<void> {
  const finished = (await db('merge_journal')
    .distinct('merge_id')
    .whereNotExists((q) => q.select('id').from('events').whereRaw('events.id = merge_journal.merge_id'))
    .pluck('merge_id')) as number[];
  for (const mergeId of finished) await forgetMerge(db, mergeId);
}
