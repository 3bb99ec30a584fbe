import type { Conn } from '../db/knex';
import { findEvent, type EventRow } from '../db/repositories/events';
import { findGroup, type GroupRow } from '../db/repositories/groups';
import type { Caller } from './auth';
import { NotFoundError } from './errors';
import { MSG } from '../core/messages';

/**
 * Scope in one place: every read or write of a group, an event or anything under an event
 * starts here. Out of scope is indistinguishable from absent.
 */
export async function scopedEvent(db: Conn, caller: Caller, eventId: number, message: string = MSG.eventNotFound): Promise<EventRow> {
  const event = await findEvent(db, caller.groups, eventId);
  if (!event) throw new NotFoundError(message);
  return event;
}

export async function scopedGroup(db: Conn, caller: Caller, groupId: number): Promise<GroupRow | undefined> {
  return findGroup(db, caller.groups, groupId);
}

export async function requireGroup(db: Conn, caller: Caller, groupId: number): Promise<GroupRow> {
  const group = await scopedGroup(db, caller, groupId);
  if (!group) throw new NotFoundError(MSG.groupNotFound);
  return group;
}
