import type { Conn, Trx } from '../knex';
import { nowIso, toApiDatetime } from '../../core/time';
import { dialectOf } from '../dialect';
import { doorStateOf, type CheckinDirection } from '../../core/scan';

export interface CheckinRow {
  id: number;
  uid: string;
  event_id: number;
  guest_id: number;
  session_id: number | null;
  direction: CheckinDirection;
  scanned_at: string;
  station: string | null;
  undone_at: string | null;
  created: string;
  modified: string;
}

/** A list record; an undone scan carries its `undone_at`. */
export function toCheckin(row: CheckinRow) {
  return {
    id: row.id,
    uid: row.uid,
    guest_id: row.guest_id,
    session_id: row.session_id,
    direction: row.direction,
    scanned_at: toApiDatetime(row.scanned_at) as string,
    station: row.station,
    undone_at: toApiDatetime(row.undone_at),
    created: toApiDatetime(row.created) as string,
    modified: toApiDatetime(row.modified) as string,
  };
}

export interface CheckinListFilter {
  guestId?: number;
  sessionId?: number;
  /** Undone scans too: asked for, or implied by a delta (a syncing client must learn of the undo). */
  includeUndone?: boolean;
}

export async function listCheckins(db: Conn, eventId: number, filter: CheckinListFilter, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<CheckinRow>('checkins');
  // One guest's scans are found by the guest's index, not among every scan of the event.
  if (filter.guestId === undefined) base.where({ event_id: eventId });
  else dialectOf(db).whereInUnindexed(base, 'event_id', [eventId]).where({ guest_id: filter.guestId });
  if (filter.sessionId !== undefined) base.where({ session_id: filter.sessionId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  if (!filter.includeUndone && !page.modifiedSince) base.whereNull('undone_at');
  const [{ count }] = await base.clone().count({ count: '*' });
  // The page's ids first, from an index alone, then only its rows: an offset over the rows
  // themselves would sort every row of the event to skip the pages before, and a door screen's
  // offline copy reads every page.
  const pageIds = base.clone().select('id').orderBy('id').limit(page.limit).offset(page.offset);
  const rows = await db<CheckinRow>('checkins').whereIn('id', pageIds).orderBy('id');
  return { count: Number(count), rows: rows as CheckinRow[] };
}

// ---------------------------------------------------------------------------------------
// Undo

/** The guest's event-level door state, from the last accepted event-level scan still standing. */
async function recomputeGuestState(trx: Trx, eventId: number, guestId: number, now: string): Promise<void> {
  // The (guest_id, event_id, session_id) index finds the guest's scans in this event.
  const last = await trx<CheckinRow>('checkins')
    .where({ event_id: eventId, guest_id: guestId })
    .whereNull('session_id')
    .whereNull('undone_at')
    .orderBy('id', 'desc')
    .first('direction', 'scanned_at');
  const checkedInAt = doorStateOf(last).inSince;
  await trx('guests').where({ id: guestId }).update({ checked_in_at: checkedInAt, modified: now });
}

/**
 * Undoes a mistaken scan: the row stays (so the undo travels in event files and delta syncs)
 * and is marked by compare-and-set, so of two undos exactly one counts; the guest's state is
 * recomputed in the same transaction. False if unknown or undone already.
 */
export async function undoCheckin(trx: Trx, eventId: number, checkinId: number): Promise<boolean> {
  const now = nowIso();
  const changed = await trx('checkins').where({ id: checkinId, event_id: eventId }).whereNull('undone_at').update({ undone_at: now, modified: now });
  if (changed !== 1) return false;
  const row = await trx<CheckinRow>('checkins').where({ id: checkinId }).first('guest_id', 'session_id');
  if (row!.session_id === null) await recomputeGuestState(trx, eventId, row!.guest_id, now);
  return true;
}
