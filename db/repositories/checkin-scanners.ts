import type { Conn } from '../knex';

/**
 * Who made a check-in (`key:<id>` / `user:<id>`, or null for one that came from an event file);
 * undefined when the event has no such check-in. Never changes once written.
 */
export async function checkinScanner(db: Conn, eventId: number, checkinId: number): Promise<string | null | undefined> {
  const row = await db('checkins').where({ id: checkinId, event_id: eventId }).first('scanned_by');
  return row === undefined ? undefined : (row.scanned_by as string | null);
}
