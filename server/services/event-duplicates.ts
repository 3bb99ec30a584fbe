import type { Db } from '../../db/knex';
import { duplicateEvent } from '../../db/repositories/event-copies';
import type { EventRow } from '../../db/repositories/events';
import { findGroup, type GroupScope } from '../../db/repositories/groups';
import type { Mailer } from './mailer';

/**
 * Duplicates an event `quantity` times (names as db/repositories/event-copies.ts gives them)
 * and tells its group by e-mail when the group has an address. Answers the new events' ids.
 */
export async function duplicateAndNotify(db: Db, mailer: Mailer, scope: GroupScope, event: EventRow, quantity: number, name?: string): Promise<number[]> {
  const newIds = await duplicateEvent(db, event, quantity, name);
  const group = await findGroup(db, scope, event.group_id);
  if (group?.email) {
    await mailer.send({
      recipient: group.email,
      // The outbox holds a subject of 255 characters at most, and an event name may be 255 long.
      subject: `Event "${event.name.length > 200 ? `${event.name.slice(0, 199)}…` : event.name}" duplicated`,
      body: `Your event "${event.name}" (id ${event.id}) was duplicated ${newIds.length} time(s).\nNew event ids: ${newIds.join(', ')}.\n\nDoorlist`,
    });
  }
  return newIds;
}
