import type { Conn } from '../knex';
import { newRecord } from '../records';
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
export function eventInScope(event: Pick<EventRow, 'group_id'>, scope: GroupScope): boolean {
  return scope === null || scope.includes(event.group_id);
}

/** The events of these ids that anyone in scope could see (not being imported), as a query not yet sent; scope with eventInScope. */
export function visibleEventsQuery(db: Conn, ids: number[]) {
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
