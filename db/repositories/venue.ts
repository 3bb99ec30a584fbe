import { createHash, timingSafeEqual } from 'node:crypto';
import type { Conn } from '../knex';
import { newRecord } from '../records';
import { nowIso } from '../../core/time';
import { VENUE_MEMBERS_MAX } from '../../core/sync-limits';

/**
 * A venue (issue 47): per local event, the epoch this laptop knows, its part, the venue's
 * credential and the laptops that follow the event. The credential is kept in full (this
 * laptop presents it to the others) and as its SHA-256 (what a presented one is looked up by).
 */

export type VenuePart = 'upstream' | 'follower';

export interface VenueMember {
  name: string;
  /** LAN HTTPS base, `.../api/v1`. */
  url: string;
  /** 64 lowercase hex digits. */
  fingerprint: string;
  /** The member's own id of the event. */
  remote_event_id: number;
  last_seen_at: string;
}

export interface Venue {
  event_id: number;
  epoch: number;
  part: VenuePart;
  /** Null on a follower its upstream has not answered yet. Never shown by the API. */
  credential: string | null;
  note: string | null;
  members: VenueMember[];
  /** The followed upstream's base; null where this laptop is the upstream. */
  upstream_url: string | null;
}

interface VenueRow {
  event_id: number;
  epoch: number;
  part: VenuePart;
  credential: string;
  credential_hash: string;
  note: string | null;
}

/** The stored form of a credential (the same SHA-256 as every secret's). */
export function credentialHash(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

async function venueRow(db: Conn, eventId: number): Promise<VenueRow | undefined> {
  return db<VenueRow>('venues').where({ event_id: eventId }).first();
}

export async function listMembers(db: Conn, eventId: number): Promise<VenueMember[]> {
  return db('venue_members').where({ event_id: eventId }).orderBy('id').select('name', 'url', 'fingerprint', 'remote_event_id', 'last_seen_at');
}

/**
 * The event's venue as this laptop knows it; undefined for an event neither followed nor
 * shared with a follower. A followed event its upstream has not answered about yet is at epoch 1.
 */
export async function readVenue(db: Conn, eventId: number): Promise<Venue | undefined> {
  const row = await venueRow(db, eventId);
  const sync = await db('syncs').where({ event_id: eventId }).first('url');
  if (!row && !sync) return undefined;
  return {
    event_id: eventId,
    epoch: row?.epoch ?? 1,
    part: row?.part ?? 'follower',
    credential: row?.credential ?? null,
    note: row?.note ?? null,
    members: await listMembers(db, eventId),
    upstream_url: sync?.url ?? null,
  };
}

/** The local event a presented credential's hash belongs to, with its group; undefined for none. */
export async function venueOfCredential(db: Conn, hash: string): Promise<{ event_id: number; group_id: number } | undefined> {
  return db('venues as v').join('events as e', 'e.id', 'v.event_id').where('v.credential_hash', hash).first('v.event_id', 'e.group_id');
}

/** Whether `credential` is the venue credential of `eventId` here. */
export async function checkVenueCredential(db: Conn, eventId: number, credential: string): Promise<boolean> {
  const row = await venueRow(db, eventId);
  if (!row) return false;
  return timingSafeEqual(Buffer.from(row.credential_hash, 'hex'), Buffer.from(credentialHash(credential), 'hex'));
}

/** The venue of an event this laptop shares: made at epoch 1 with `credential` the first time a follower speaks. */
export async function openVenue(db: Conn, eventId: number, credential: string): Promise<Venue> {
  await db('venues')
    .insert({ ...newRecord(), event_id: eventId, epoch: 1, part: 'upstream', credential, credential_hash: credentialHash(credential) })
    .onConflict('event_id')
    .ignore();
  return (await readVenue(db, eventId)) as Venue;
}

/**
 * Notes a laptop that spoke for the event (by its address), now. False when the venue holds
 * VENUE_MEMBERS_MAX laptops already and this one is not among them. A laptop heard since
 * `freshSince` with nothing new is left as it is: a follower speaks every second, and the
 * upstream's writer is the door's.
 */
export async function recordMember(db: Conn, eventId: number, member: Omit<VenueMember, 'last_seen_at'>, freshSince: string): Promise<boolean> {
  const now = nowIso();
  const known = await db('venue_members').where({ event_id: eventId, url: member.url }).first('name', 'fingerprint', 'remote_event_id', 'last_seen_at');
  if (known) {
    const same = known.name === member.name && known.fingerprint === member.fingerprint && Number(known.remote_event_id) === member.remote_event_id;
    if (same && known.last_seen_at >= freshSince) return true;
    await db('venue_members').where({ event_id: eventId, url: member.url }).update({ name: member.name, fingerprint: member.fingerprint, remote_event_id: member.remote_event_id, last_seen_at: now });
    return true;
  }
  const [{ n }] = await db('venue_members').where({ event_id: eventId }).count({ n: '*' });
  if (Number(n) >= VENUE_MEMBERS_MAX) return false;
  await db('venue_members').insert({ event_id: eventId, ...member, last_seen_at: now }).onConflict(['event_id', 'url']).ignore();
  return true;
}

/**
 * A follower keeps what its upstream answered: the epoch, the credential and the members
 * (replacing the list it had; at most VENUE_MEMBERS_MAX are kept). `part` says which part
 * this laptop plays from now on; `note` replaces the venue's note (kept when not given).
 * `whileFollowed`: only while that sync is still followed (a takeover or an unfollow that
 * committed first wins over an answer that was on its way); false when nothing was kept.
 */
export async function adoptVenue(
  db: Conn,
  eventId: number,
  venue: { epoch: number; credential: string; members: VenueMember[]; part?: VenuePart; note?: string | null },
  whileFollowed?: number,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const fields = { epoch: venue.epoch, part: venue.part ?? 'follower', credential: venue.credential, credential_hash: credentialHash(venue.credential), modified: nowIso() };
    const note = venue.note === undefined ? {} : { note: venue.note?.slice(0, 500) ?? null };
    const row = trx('venues').where({ event_id: eventId });
    if (whileFollowed !== undefined) row.whereExists((q) => q.select(trx.raw('1')).from('syncs').where('syncs.id', whileFollowed));
    if ((await row.update({ ...fields, ...note })) === 0) {
      if (whileFollowed !== undefined && !(await trx('syncs').where({ id: whileFollowed }).first('id'))) return false;
      const [made] = await trx('venues').insert({ ...newRecord(), event_id: eventId, ...fields, ...note }).onConflict('event_id').ignore().returning('id');
      if (!made) return false;
    }
    await trx('venue_members').where({ event_id: eventId }).delete();
    const members = venue.members.slice(0, VENUE_MEMBERS_MAX).map((m) => ({ event_id: eventId, ...m }));
    if (members.length > 0) await trx('venue_members').insert(members).onConflict(['event_id', 'url']).ignore();
    return true;
  });
}

/** The events this laptop is the venue's upstream of. */
export async function listUpstreamVenues(db: Conn): Promise<number[]> {
  const rows: { event_id: number }[] = await db('venues').where({ part: 'upstream' }).orderBy('event_id').select('event_id');
  return rows.map((r) => r.event_id);
}

/** Sets the note the console shows about the venue (null clears it). */
export async function noteVenue(db: Conn, eventId: number, note: string | null): Promise<void> {
  await db('venues').where({ event_id: eventId }).update({ note: note?.slice(0, 500) ?? null, modified: nowIso() });
}

/**
 * This laptop stops following the event and becomes its venue's upstream, one epoch above the
 * highest it knows; `credential` is used where it holds none yet. One transaction: the sync
 * row goes with it. Answers the new epoch; undefined when the event is not followed here.
 */
export async function takeOver(db: Conn, eventId: number, credential: string): Promise<number | undefined> {
  return db.transaction(async (trx) => {
    if ((await trx('syncs').where({ event_id: eventId }).delete()) === 0) return undefined;
    const row = await venueRow(trx, eventId);
    const epoch = (row?.epoch ?? 1) + 1;
    if (row) await trx('venues').where({ event_id: eventId }).update({ epoch, part: 'upstream', note: null, modified: nowIso() });
    else await trx('venues').insert({ ...newRecord(), event_id: eventId, epoch, part: 'upstream', credential, credential_hash: credentialHash(credential) });
    return epoch;
  });
}

/** A follow stopped with DELETE forgets the venue: its credential and its members. */
export async function forgetVenue(db: Conn, eventId: number): Promise<void> {
  await db('venue_members').where({ event_id: eventId }).delete();
  await db('venues').where({ event_id: eventId }).delete();
}

/** The venue credential of the local event with this uid, for a door pass to be checked against; undefined for none. */
export async function venueCredentialOfEventUid(db: Conn, eventUid: string): Promise<{ event_id: number; group_id: number; credential: string } | undefined> {
  return db('venues as v').join('events as e', 'e.id', 'v.event_id').where('e.uid', eventUid).first('v.event_id', 'e.group_id', 'v.credential');
}

/** Every LAN base this laptop knows of its venues (their laptops, and what it follows): the origins its API answers across. */
export async function venueUrls(db: Conn): Promise<string[]> {
  const members: { url: string }[] = await db('venue_members').distinct('url');
  const followed: { url: string }[] = await db('syncs').distinct('url');
  return [...members, ...followed].map((r) => r.url);
}
