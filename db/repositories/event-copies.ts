import type { Db } from '../knex';
import { chunks, insertRows, selectByValues } from '../bulk';
import { writeTransaction } from '../write-transaction';
import { newRecord } from '../records';
import { newUid } from '../../core/uid';
import { copyNames } from '../../core/copy-names';
import { nowIso } from '../../core/time';
import { discardHiddenEvent, insertHiddenEvent, keepImportAlive } from './event-file-merge';
import type { EventRow } from './events';

/** An event's configuration copied into new events (POST /events/:id/duplicate_event). */

type Row = Record<string, unknown> & { id: number };

// Rows of one table of one copy per statement, each statement its own short transaction.
const COPY_ROWS = 500;

/**
 * Copies rows with fresh ids, uids and times, COPY_ROWS a statement, each in a transaction of
 * its own (their event is hidden until the copies are revealed); returns old id -> new id.
 */
async function copyRows(db: Db, table: string, rows: Row[], now: string, rewrite: (row: Row) => Record<string, unknown>): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const part of chunks(rows, COPY_ROWS)) {
    const sources = new Map<string, number>();
    const copies = part.map((row) => {
      const { id, ...rest } = row;
      const uid = newUid();
      sources.set(uid, id);
      return { ...rest, ...rewrite(row), uid, created: now, modified: now };
    });
    const inserted = await writeTransaction(db, (trx) => insertRows(trx, table, copies, true));
    for (const r of inserted) ids.set(sources.get(r.uid)!, r.id);
  }
  return ids;
}

/**
 * Deep-copies an event's configuration (registration types, questions and choices, tracks,
 * sessions and tags, promotion codes) `quantity` times; never guests or check-ins. The copies
 * are written as hidden events (as an import's new event is), in short transactions that take
 * turns with the door's scans, and revealed together in one short transaction at the end, all
 * or none: a failure removes every copy. Each copy gets a name no event of the group has (see
 * copyNames), or `name` when the client gives one, chosen as they are revealed.
 */
export async function duplicateEvent(db: Db, source: EventRow, quantity: number, name?: string): Promise<number[]> {
  const now = nowIso();
  const [registrationTypes, questions, tracks, sessions, promotionCodes] = await Promise.all([
    db('registration_types').where({ event_id: source.id }).orderBy('id'),
    db('custom_questions').where({ event_id: source.id }).orderBy('id'),
    db('tracks').where({ event_id: source.id }).orderBy('id'),
    db('sessions').where({ event_id: source.id }).orderBy('id'),
    db('promotion_codes').where({ event_id: source.id }).orderBy('id'),
  ]);
  const [choices, tags, codeTypes] = await Promise.all([
    selectByValues(db, 'question_choices', 'question_id', questions.map((q: Row) => q.id), (q) => q.select('question_choices.*').orderBy('question_choices.id')),
    selectByValues(db, 'session_tags', 'session_id', sessions.map((s: Row) => s.id), (q) => q.select('session_tags.*').orderBy('session_tags.id')),
    selectByValues(db, 'promotion_code_registration_types', 'promotion_code_id', promotionCodes.map((c: Row) => c.id), (q) =>
      q.select('promotion_code_registration_types.*').orderBy('promotion_code_registration_types.id'),
    ),
  ]);

  const newIds: number[] = [];
  const heartbeats: { stop: () => Promise<void> }[] = [];
  try {
    for (let copy = 0; copy < quantity; copy++) {
      const { id: _id, ...eventFields } = source;
      const eventId = await insertHiddenEvent(db, { ...eventFields, ...newRecord(now) });
      newIds.push(eventId);
      heartbeats.push(keepImportAlive(db, eventId));
      const onEvent = () => ({ event_id: eventId });
      const typeIds = await copyRows(db, 'registration_types', registrationTypes, now, onEvent);
      const newQuestionIds = await copyRows(db, 'custom_questions', questions, now, onEvent);
      await copyRows(db, 'question_choices', choices as Row[], now, (c) => ({ question_id: newQuestionIds.get(c.question_id as number) }));
      const trackIds = await copyRows(db, 'tracks', tracks, now, onEvent);
      const newSessionIds = await copyRows(db, 'sessions', sessions, now, (s) => ({
        event_id: eventId,
        track_id: s.track_id == null ? null : trackIds.get(s.track_id as number),
      }));
      await copyRows(db, 'session_tags', tags as Row[], now, (t) => ({ session_id: newSessionIds.get(t.session_id as number) }));
      const newCodeIds = await copyRows(db, 'promotion_codes', promotionCodes, now, () => ({ event_id: eventId, used: 0 }));
      await copyRows(db, 'promotion_code_registration_types', codeTypes as Row[], now, (l) => ({
        promotion_code_id: newCodeIds.get(l.promotion_code_id as number),
        registration_type_id: typeIds.get(l.registration_type_id as number),
      }));
    }
    await writeTransaction(db, async (trx) => {
      const taken: string[] = await trx('events').where({ group_id: source.group_id }).whereNull('importing_since').pluck('name');
      const names = copyNames(source.name, quantity, taken, name);
      for (const [i, id] of newIds.entries()) {
        // Compare-and-set: a copy cleared meanwhile as abandoned fails the whole duplication.
        const revealed = await trx('events').where({ id }).whereNotNull('importing_since').update({ name: names[i], importing_since: null });
        if (revealed !== 1) throw new Error('a copy of the event was cleared before the duplication finished');
      }
    });
    return newIds;
  } catch (err) {
    for (const id of newIds) await discardHiddenEvent(db, id);
    throw err;
  } finally {
    for (const heartbeat of heartbeats) await heartbeat.stop();
  }
}
