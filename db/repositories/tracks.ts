import type { Conn, Trx } from '../knex';
import { newRecord } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';
import type { PageRequest } from '../../core/paging';

export interface TrackRow {
  id: number;
  uid: string;
  event_id: number;
  name: string;
  starts: string;
  ends: string;
  created: string;
  modified: string;
}

export type TrackFields = Pick<TrackRow, 'name' | 'starts' | 'ends'>;

export function toTrack(row: TrackRow) {
  return {
    id: row.id,
    name: row.name,
    event_id: row.event_id,
    starts: toApiDatetime(row.starts),
    ends: toApiDatetime(row.ends),
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

/** A track of the event; the caller has already scoped the event. */
export async function findTrack(db: Conn, eventId: number, trackId: number): Promise<TrackRow | undefined> {
  return db<TrackRow>('tracks').where({ id: trackId, event_id: eventId }).first();
}

export async function listTracks(db: Conn, eventId: number, page: PageRequest) {
  const base = db<TrackRow>('tracks').where({ event_id: eventId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as TrackRow[] };
}

export async function insertTrack(db: Conn, eventId: number, fields: TrackFields): Promise<number> {
  const [row] = await db('tracks').insert({ ...newRecord(), event_id: eventId, ...fields }).returning('id');
  return row.id;
}

export async function updateTrack(db: Conn, id: number, fields: Partial<TrackFields>): Promise<void> {
  await db('tracks').where({ id }).update({ ...fields, modified: nowIso() });
}

/**
 * Deletes a track; its sessions stay, without a track. They are detached here rather than by
 * the foreign key so their `modified` moves and list deltas carry the change.
 */
export async function deleteTrack(trx: Trx, eventId: number, trackId: number): Promise<boolean> {
  await trx('sessions').where({ event_id: eventId, track_id: trackId }).update({ track_id: null, modified: nowIso() });
  return (await trx('tracks').where({ id: trackId, event_id: eventId }).delete()) > 0;
}
