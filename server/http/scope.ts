import type { Conn } from '../../db/knex';
import { checkinScanner } from '../../db/repositories/checkin-scanners';
import { findEvent, type EventRow } from '../../db/repositories/events';
import { findGroup, type GroupRow } from '../../db/repositories/groups';
import { scannerOf, type Caller } from './auth';
import { ForbiddenError, NotFoundError, UnauthorizedError } from './errors';
import { MSG } from '../../core/messages';

/**
 * Scope and role in one place: every read or write of a group, an event or anything under an
 * event starts here. Out of scope is indistinguishable from absent.
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

/**
 * The least a route needs, declared once on the route:
 * - `door`: any caller in scope (the door's reads, scans, walk-ins, event files);
 * - `sync`: as `door`, and also the venue credential of the path's event (a venue's laptops
 *   pulling, pushing and telling each other who they are); nowhere else is that credential a key;
 * - `own-scan`: a manager, or a door undoing a check-in it made itself;
 * - `manager`: the manager role (a key or a user) or an administrator;
 * - `signed-in-manager`: a signed-in user of the manager role or an administrator, never an
 *   API key: keys, users and the group's own settings, so a key left on a door laptop cannot
 *   mint or revoke keys;
 * - `signed-in-admin`: a signed-in administrator only: what makes this laptop reach out to
 *   another server (following an upstream), which no group's key or manager may point anywhere.
 */
export type Access = 'door' | 'sync' | 'own-scan' | 'manager' | 'signed-in-manager' | 'signed-in-admin';

function isManager(caller: Caller): boolean {
  return caller.isAdmin || caller.role === 'manager';
}

/** Whether the caller's role alone allows `access` (no scope, no ownership): also what GET /me tells a screen. */
export function roleAllows(caller: Caller, access: Access): boolean {
  switch (access) {
    case 'door':
    case 'sync':
      return true;
    case 'own-scan':
    case 'manager':
      return isManager(caller);
    case 'signed-in-manager':
      return caller.kind === 'user' && isManager(caller);
    case 'signed-in-admin':
      return caller.kind === 'user' && caller.isAdmin;
  }
}

/** The path's ids as route() parsed them. */
export interface ScopeParams {
  group_id?: number;
  event_id?: number;
  checkin_id?: number;
}

/**
 * Answers whether the caller may call a route declared with `access`, before its input is
 * read. Scope comes before role: a caller refused by role is first checked against the
 * path's group or event, so what it cannot see answers 404 exactly as if absent; what it can
 * see but may not do answers 403.
 */
export async function authorize(db: Conn, caller: Caller, access: Access, params: ScopeParams = {}): Promise<void> {
  // The venue credential opens its own event's sync routes only; anywhere else it is no key at all.
  if (caller.kind === 'venue' && (access !== 'sync' || params.event_id !== caller.venueEventId)) throw new UnauthorizedError();
  // A door pass is a door screen of the venue: the door's routes of its own event, nothing else.
  if (caller.kind === 'door-pass' && (access !== 'door' || params.event_id !== caller.venueEventId)) throw new UnauthorizedError();
  if (roleAllows(caller, access)) return;
  if (params.event_id !== undefined) await scopedEvent(db, caller, params.event_id);
  else if (params.group_id !== undefined) await requireGroup(db, caller, params.group_id);
  if (access === 'own-scan' && params.event_id !== undefined && params.checkin_id !== undefined) {
    const scanner = await checkinScanner(db, params.event_id, params.checkin_id);
    if (scanner === undefined) throw new NotFoundError(MSG.checkinNotFound);
    if (scanner === scannerOf(caller)) return;
  }
  const keyManaging = access === 'signed-in-manager' && caller.kind === 'key' && isManager(caller);
  throw new ForbiddenError(keyManaging ? MSG.keysCannotManage : MSG.roleNotAllowed);
}
