import { newUid } from '../../core/uid';
import type { Conn, Db } from '../knex';
import { writeTransaction } from '../write-transaction';
import { nowIso } from '../../core/time';
import type { EventRow } from './events';
import { abandonedImports, discardHiddenEvent, insertHiddenEvent } from './event-file-merge';
import { refreshSearchStatistics } from '../search-index';
import { guestAnswersSql, type GuestAnswer, type GuestRow } from './guests';
import { GuestBatch, insertPreparedGuests, type PreparedGuests } from './guest-inserts';
import { isCodeTaken } from './guest-codes';

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

/** Every guest of an event with its answers as the API gives them, a page at a time (keyset on id). */
export async function* guestPages(db: Conn, eventId: number): AsyncGenerator<{ guest: GuestRow; answers: GuestAnswer[] }[]> {
  let lastId = 0;
  for (;;) {
    const rows: (GuestRow & { answers_json: string })[] = await db('guests as g')
      .where('g.event_id', eventId)
      .andWhere('g.id', '>', lastId)
      .orderBy('g.id')
      .limit(PAGE)
      .select('g.*', db.raw(`${guestAnswersSql(db)} as answers_json`));
    if (rows.length === 0) return;
    lastId = rows[rows.length - 1].id;
    yield rows.map(({ answers_json, ...guest }) => ({ guest, answers: JSON.parse(answers_json) as GuestAnswer[] }));
    if (rows.length < PAGE) return;
  }
}

// ---------------------------------------------------------------------------------------
// Staging: an import's guests wait under a hidden event (as an event file's do) until one
// short transaction moves them into the event, so the writer is never held for the whole file.

/** A hidden event for an import into `event`: no one sees it or its guests. */
export async function openCsvStaging(db: Db, event: EventRow): Promise<number> {
  // What a crashed import left behind goes first (the event-file import clears these too).
  for (const id of await abandonedImports(db)) await discardHiddenEvent(db, id);
  const now = nowIso();
  const { group_id, name, starts, ends, timezone } = event;
  return insertHiddenEvent(db, { uid: newUid(), created: now, modified: now, group_id, name: `${name} (CSV import)`, starts, ends, timezone });
}

/**
 * A batch of guests to stage under the hidden event. Their search terms are filed under the
 * event they are for already: a search there matches only its own guests, so they stay
 * unseen until the move.
 */
export function csvGuestBatch(stagingId: number, eventId: number): GuestBatch {
  return new GuestBatch(stagingId, eventId);
}

/** Stages a batch (GuestBatch.prepared) under the hidden event in a transaction of its own. */
export async function stageCsvGuests(db: Db, batch: PreparedGuests): Promise<void> {
  await writeTransaction(db, (trx) => insertPreparedGuests(trx, batch));
}

export type CsvReveal = 'revealed' | 'codes-taken' | 'event-gone';

/**
 * Moves every staged guest into the event in one transaction, all or none, stamped `modified`
 * now so a delta sync taken meanwhile still sees them; then drops the hidden event.
 * 'codes-taken': a code was given to another guest of the event meanwhile (nothing moved).
 */
export async function revealCsvGuests(db: Db, stagingId: number, eventId: number): Promise<CsvReveal> {
  try {
    const moved = await writeTransaction(db, async (trx) => {
      if (!(await trx('events').where({ id: eventId }).whereNull('importing_since').first('id'))) return 'event-gone';
      if (!(await trx('events').where({ id: stagingId }).whereNotNull('importing_since').first('id'))) throw new Error('the staged CSV import was cleared before it finished');
      const guests = await trx('guests').where({ event_id: stagingId }).update({ event_id: eventId, modified: nowIso() });
      await trx('events').where({ id: stagingId }).delete();
      return guests;
    });
    if (moved === 'event-gone') return moved;
    await refreshSearchStatistics(db, moved);
    return 'revealed';
  } catch (err) {
    if (isCodeTaken(err)) return 'codes-taken';
    throw err;
  }
}

/** Removes a staging event and whatever was staged under it (after a refusal or a failure). */
export async function discardCsvStaging(db: Db, stagingId: number): Promise<void> {
  await discardHiddenEvent(db, stagingId);
}
