import type { Conn, Trx } from '../knex';
import { newRecord } from '../records';
import { newUid } from '../../core/uid';
import { copyNames } from '../../core/copy-names';
import { nowIso, toApiDatetime } from '../../core/time';
import type { GroupScope } from './groups';

export interface EventRow {
  id: number;
  uid: string;
  group_id: number;
  name: string;
  starts: string;
  ends: string;
  timezone: string;
  created: string;
  modified: string;
}

export type EventFields = Pick<EventRow, 'group_id' | 'name' | 'starts' | 'ends' | 'timezone'>;

export function toEvent(row: EventRow) {
  return {
    id: row.id,
    name: row.name,
    group_id: row.group_id,
    timezone: row.timezone,
    starts: toApiDatetime(row.starts),
    ends: toApiDatetime(row.ends),
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

function scoped(db: Conn, scope: GroupScope) {
  // An event still being imported is seen by no one until the import reveals it.
  const q = db<EventRow>('events').whereNull('importing_since');
  return scope === null ? q : q.whereIn('group_id', scope as number[]);
}

/** Whether a caller of this group scope sees the event (the rule of scoped(), in memory). */
export function eventInScope(event: EventRow, scope: GroupScope): boolean {
  return scope === null || scope.includes(event.group_id);
}

/** The events of these ids that anyone in scope could see (not being imported); scope with eventInScope. */
export async function visibleEvents(db: Conn, ids: number[]): Promise<EventRow[]> {
  return scoped(db, null).whereIn('id', ids);
}

export async function findEvent(db: Conn, scope: GroupScope, id: number): Promise<EventRow | undefined> {
  return scoped(db, scope).where({ id }).first();
}

export async function listEvents(db: Conn, scope: GroupScope, filter: { groupId?: number }, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = scoped(db, scope);
  if (filter.groupId !== undefined) base.where({ group_id: filter.groupId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as EventRow[] };
}

export async function insertEvent(db: Conn, fields: EventFields): Promise<number> {
  const [row] = await db('events').insert({ ...newRecord(), ...fields }).returning('id');
  return row.id;
}

export async function updateEvent(db: Conn, id: number, fields: Partial<EventFields>): Promise<void> {
  await db('events').where({ id }).update({ ...fields, modified: nowIso() });
}

type Row = Record<string, unknown> & { id: number };

/** Copies rows with fresh ids, uids and times; returns old id -> new id. */
async function copyRows(
  trx: Trx,
  table: string,
  rows: Row[],
  now: string,
  rewrite: (row: Row) => Record<string, unknown>,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const row of rows) {
    const { id, ...rest } = row;
    const [inserted] = await trx(table)
      .insert({ ...rest, ...rewrite(row), uid: newUid(), created: now, modified: now })
      .returning('id');
    ids.set(id, inserted.id);
  }
  return ids;
}

/**
 * Deep-copies an event's configuration (registration types, questions and choices, tracks,
 * sessions and tags, promotion codes) `quantity` times; never guests or check-ins. Each copy
 * gets a name no event of the group has (see copyNames), or `name` when the client gives one.
 * Runs inside the caller's transaction.
 */
export async function duplicateEvent(trx: Trx, source: EventRow, quantity: number, name?: string): Promise<number[]> {
  const now = nowIso();
  const taken: string[] = await trx('events').where({ group_id: source.group_id }).pluck('name');
  const names = copyNames(source.name, quantity, taken, name);
  const [registrationTypes, questions, tracks, sessions, promotionCodes] = await Promise.all([
    trx('registration_types').where({ event_id: source.id }).orderBy('id'),
    trx('custom_questions').where({ event_id: source.id }).orderBy('id'),
    trx('tracks').where({ event_id: source.id }).orderBy('id'),
    trx('sessions').where({ event_id: source.id }).orderBy('id'),
    trx('promotion_codes').where({ event_id: source.id }).orderBy('id'),
  ]);
  const questionIds = questions.map((q: Row) => q.id);
  const sessionIds = sessions.map((s: Row) => s.id);
  const codeIds = promotionCodes.map((c: Row) => c.id);
  const [choices, tags, codeTypes] = await Promise.all([
    trx('question_choices').whereIn('question_id', questionIds).orderBy('id'),
    trx('session_tags').whereIn('session_id', sessionIds).orderBy('id'),
    trx('promotion_code_registration_types').whereIn('promotion_code_id', codeIds).orderBy('id'),
  ]);

  const newIds: number[] = [];
  for (let copy = 0; copy < quantity; copy++) {
    const { id: _id, ...eventFields } = source;
    const [event] = await trx('events').insert({ ...eventFields, name: names[copy], ...newRecord(now) }).returning('id');
    const eventId: number = event.id;
    const onEvent = () => ({ event_id: eventId });
    const typeIds = await copyRows(trx, 'registration_types', registrationTypes, now, onEvent);
    const newQuestionIds = await copyRows(trx, 'custom_questions', questions, now, onEvent);
    await copyRows(trx, 'question_choices', choices, now, (c) => ({ question_id: newQuestionIds.get(c.question_id as number) }));
    const trackIds = await copyRows(trx, 'tracks', tracks, now, onEvent);
    const newSessionIds = await copyRows(trx, 'sessions', sessions, now, (s) => ({
      event_id: eventId,
      track_id: s.track_id == null ? null : trackIds.get(s.track_id as number),
    }));
    await copyRows(trx, 'session_tags', tags, now, (t) => ({ session_id: newSessionIds.get(t.session_id as number) }));
    const newCodeIds = await copyRows(trx, 'promotion_codes', promotionCodes, now, () => ({ event_id: eventId, used: 0 }));
    await copyRows(trx, 'promotion_code_registration_types', codeTypes, now, (l) => ({
      promotion_code_id: newCodeIds.get(l.promotion_code_id as number),
      registration_type_id: typeIds.get(l.registration_type_id as number),
    }));
    newIds.push(eventId);
  }
  return newIds;
}
