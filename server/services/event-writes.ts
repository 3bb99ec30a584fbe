/**
 * An event's create and update, each checked inside its write transaction: its group must be
 * one the caller sees, and the merged record's start is not after its end (core/spans.ts).
 */
import type { Db, Trx } from '../../db/knex';
import { findEvent, insertEvent, updateEvent, type EventFields } from '../../db/repositories/events';
import { findGroup, type GroupScope } from '../../db/repositories/groups';
import { writeTransaction } from '../../db/write-transaction';
import { NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { spanErrors } from '../../core/spans';

async function requireGroupInScope(trx: Trx, scope: GroupScope, groupId: number): Promise<void> {
  if (!(await findGroup(trx, scope, groupId))) throw new ValidationError({ details: MSG.groupNotFound });
}

/** A new event in a group the caller sees; its id. */
export function createEvent(db: Db, scope: GroupScope, fields: EventFields): Promise<number> {
  return writeTransaction(db, async (trx) => {
    await requireGroupInScope(trx, scope, fields.group_id);
    return insertEvent(trx, fields);
  });
}

/** Changes the given fields of an event in scope (404 when there is none). */
export function changeEvent(db: Db, scope: GroupScope, eventId: number, fields: Partial<EventFields>): Promise<void> {
  return writeTransaction(db, async (trx) => {
    const event = await findEvent(trx, scope, eventId);
    if (!event) throw new NotFoundError(MSG.eventNotFound);
    if (fields.group_id !== undefined) await requireGroupInScope(trx, scope, fields.group_id);
    const outOfOrder = spanErrors('event', fields, event);
    if (Object.keys(outOfOrder).length > 0) throw new ValidationError(outOfOrder);
    await updateEvent(trx, event.id, fields);
  });
}
