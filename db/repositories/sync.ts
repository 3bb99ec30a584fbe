import type { Knex } from 'knex';
import type { Conn } from '../knex';
import { chunks } from '../bulk';
import { newRecord } from '../records';
import { nowIso } from '../../core/time';
import { ConflictError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { FINDINGS_KEPT } from '../../core/sync-limits';
import { isUniqueViolation } from '../errors';
import type { GroupScope } from './groups';

export type SyncState = 'ok' | 'offline' | 'error';

/** Before this cursor every local change has been pushed; the epoch pushes everything (and pulls everything). */
export const BEGINNING = '1970-01-01T00:00:00.000Z';

// Rows per INSERT: ten or so values each, well inside SQLite's bound on terms and variables.
const FINDINGS_PER_STATEMENT = 50;

/** A double admission as a merge reports it (on either side: uids, never ids). */
export interface FoundDoubleAdmission {
  guest_uid: string;
  checkins: { uid: string; station: string | null; scanned_at: string }[];
}

/** A change a merge could not apply as is. */
export interface FoundConflict {
  table: string;
  uid: string;
  kind: string;
  value?: string;
  resolution: string;
}

export interface SyncRow {
  id: number;
  uid: string;
  event_id: number;
  url: string;
  remote_event_id: number;
  upstream_key: string;
  push_cursor: string;
  pull_cursor: string;
  last_push_at: string | null;
  last_pull_at: string | null;
  state: SyncState;
  error: string | null;
  /** SHA-256 (64 lowercase hex digits) the upstream's certificate or its authority must have; null: the system's trust. */
  fingerprint: string | null;
  /** PEM of the authority the fingerprint names, once verified; null for a pin on the certificate itself, or none. */
  authority_pem: string | null;
}

export interface NewSync {
  event_id: number;
  url: string;
  remote_event_id: number;
  upstream_key: string;
  push_cursor: string;
  pull_cursor: string;
  fingerprint?: string | null;
  authority_pem?: string | null;
}

/** A second follow of the same event (two at once included) is refused: one sync per event. */
export async function insertSync(db: Conn, sync: NewSync): Promise<number> {
  const now = nowIso();
  // Notes of an upstream followed before (a takeover in between) say nothing of this one.
  await forgetUpstreamVersions(db, sync.event_id);
  try {
    const [row] = await db('syncs').insert({ ...newRecord(now), ...sync, last_pull_at: now }).returning('id');
    return row.id;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError({ detail: MSG.syncAlreadyFollowed });
    throw err;
  }
}

/** The followed events whose group is in scope (`null`: all of them). */
export async function listSyncs(db: Conn, scope: GroupScope = null): Promise<SyncRow[]> {
  const q = db<SyncRow>('syncs as s').orderBy('s.id').select('s.*');
  if (scope !== null) q.join('events as e', 'e.id', 's.event_id').whereIn('e.group_id', scope);
  return q;
}

/** Whether this sync is still followed (an unfollow deletes its row). */
export async function isFollowed(db: Conn, syncId: number): Promise<boolean> {
  return (await db('syncs').where({ id: syncId }).first('id')) !== undefined;
}

export async function findSyncByEvent(db: Conn, eventId: number): Promise<SyncRow | undefined> {
  return db<SyncRow>('syncs').where({ event_id: eventId }).first();
}

/** True when a row was removed. What this laptop knew its upstream holds goes with it. */
export async function deleteSync(db: Conn, eventId: number): Promise<boolean> {
  await forgetUpstreamVersions(db, eventId);
  return (await db('syncs').where({ event_id: eventId }).delete()) > 0;
}

/**
 * Cursors move only forward from the value they were read with (compare-and-set): an
 * unfollow, or a second follower of the same row, cannot be overwritten by a stale cycle.
 */
export async function markPushed(db: Conn, sync: SyncRow, cursor: string): Promise<void> {
  const now = nowIso();
  await db('syncs').where({ id: sync.id, push_cursor: sync.push_cursor }).update({ push_cursor: cursor, last_push_at: now, state: 'ok', error: null, modified: now });
}

export async function markPulled(db: Conn, sync: SyncRow, cursor: string): Promise<void> {
  const now = nowIso();
  await db('syncs').where({ id: sync.id, pull_cursor: sync.pull_cursor }).update({ pull_cursor: cursor, last_pull_at: now, state: 'ok', error: null, modified: now });
}

/**
 * The sync follows another laptop of the venue from now on (issue 47): its address, its own
 * event id, the venue credential and the pin learned for it. Both cursors start again at the
 * beginning: what this laptop holds goes up whole (merged by uid, a replay changes nothing)
 * and the new upstream's event comes down whole. False when the sync is gone (a takeover or an
 * unfollow came first).
 */
export async function repointSync(db: Conn, syncId: number, to: { url: string; remote_event_id: number; upstream_key: string; fingerprint: string }): Promise<boolean> {
  // The new upstream may lack what the old one held: nothing is left out of the first push.
  const sync = await db('syncs').where({ id: syncId }).first('event_id');
  if (sync) await forgetUpstreamVersions(db, sync.event_id);
  const updated = await db('syncs')
    .where({ id: syncId })
    .update({ ...to, authority_pem: null, push_cursor: BEGINNING, pull_cursor: BEGINNING, state: 'ok', error: null, modified: nowIso() });
  return updated > 0;
}

/** Keeps the pinned authority a cycle verified against, for a sync followed before it was kept. */
export async function keepAuthority(db: Conn, syncId: number, fingerprint: string, pem: string): Promise<void> {
  await db('syncs').where({ id: syncId, fingerprint }).whereNull('authority_pem').update({ authority_pem: pem });
}

export async function markFailed(db: Conn, syncId: number, state: Exclude<SyncState, 'ok'>, error: string): Promise<void> {
  await db('syncs').where({ id: syncId }).update({ state, error: error.slice(0, 1000), modified: nowIso() });
}

/**
 * Local changes of the event not yet confirmed upstream: what the door sees as "N waiting".
 * A scan also stamps its guest: that guest row travels with the scan and is not a change of
 * its own, so one scan waits as one (an edit or a walk-in with no scan counts on its own).
 */
export async function countPending(db: Conn, eventId: number, since: string): Promise<number> {
  const [{ n: scans }] = await db('checkins').where('event_id', eventId).where('modified', '>', since).count({ n: '*' });
  const [{ n: guests }] = await db('guests as g')
    .where('g.event_id', eventId)
    .where('g.modified', '>', since)
    .whereNotExists((q) => q.select(db.raw('1')).from('checkins as c').whereRaw('c.guest_id = g.id').where('c.modified', '>', since))
    .count({ n: '*' });
  return Number(scans) + Number(guests);
}

/** What either side's merge found, kept with it (in the merge's or the push's own transaction). */
export async function recordFindings(db: Conn, eventId: number, found: { conflicts: FoundConflict[]; double_admissions: FoundDoubleAdmission[] }): Promise<void> {
  await recordDoubleAdmissions(db, eventId, found.double_admissions);
  await recordConflicts(db, eventId, found.conflicts);
}

/**
 * Kept once per pair of admissions, whichever side and whichever merge found it first; at
 * most FINDINGS_KEPT per event, written a few dozen rows a statement. Only a pair of this
 * event's own check-ins of that guest is kept: one an upstream invents (a guest or a scan not
 * here) is dropped. A real one whose other scan has not come down yet is found again by the
 * pull that brings it.
 */
export async function recordDoubleAdmissions(db: Conn, eventId: number, found: FoundDoubleAdmission[]): Promise<void> {
  const now = nowIso();
  const pairs = found
    .filter((d) => d.checkins.length >= 2)
    .map((d) => ({ guest_uid: d.guest_uid, checkins: [...d.checkins].sort((a, b) => (a.uid < b.uid ? -1 : 1)).slice(0, 2) }));
  let room = await roomFor(db, 'sync_double_admissions', eventId);
  for (const part of chunks(pairs, FINDINGS_PER_STATEMENT)) {
    if (room <= 0) return;
    const guestOf = await checkinGuests(db, eventId, part.flatMap((d) => d.checkins.map((c) => c.uid)));
    const rows = part
      .filter((d) => d.checkins.every((c) => guestOf.get(c.uid) === d.guest_uid))
      .slice(0, room)
      .map(({ guest_uid, checkins: [first, second] }) => ({
        ...newRecord(now),
        event_id: eventId,
        guest_uid,
        first_checkin_uid: first.uid,
        first_station: first.station?.slice(0, 128) ?? null,
        first_scanned_at: first.scanned_at.slice(0, 32),
        second_checkin_uid: second.uid,
        second_station: second.station?.slice(0, 128) ?? null,
        second_scanned_at: second.scanned_at.slice(0, 32),
      }));
    if (rows.length === 0) continue;
    await db('sync_double_admissions').insert(rows).onConflict(['event_id', 'first_checkin_uid', 'second_checkin_uid']).ignore();
    room -= rows.length;
  }
}

/** The guest uid of each of `uids` that is a check-in of this event here. */
async function checkinGuests(db: Conn, eventId: number, uids: string[]): Promise<Map<string, string>> {
  const rows: { uid: string; guest_uid: string }[] = await db('checkins as c')
    .join('guests as g', 'g.id', 'c.guest_id')
    .where('c.event_id', eventId)
    .whereIn('c.uid', [...new Set(uids)])
    .select('c.uid', 'g.uid as guest_uid');
  return new Map(rows.map((r) => [r.uid, r.guest_uid]));
}

/** How many more findings the event may keep in `table`. */
async function roomFor(db: Conn, table: 'sync_double_admissions' | 'sync_conflicts', eventId: number): Promise<number> {
  const [{ n }] = await db(table).where('event_id', eventId).count({ n: '*' });
  return Math.max(0, FINDINGS_KEPT - Number(n));
}

export interface StoredDoubleAdmission {
  guest_id: number | null;
  guest_uid: string;
  first_name: string | null;
  last_name: string | null;
  checkins: { uid: string; station: string | null; scanned_at: string }[];
  found_at: string;
}

/** A page of what is kept, the latest first. */
export interface FindingsPage {
  limit: number;
  offset: number;
}

/** The double admissions kept whose guest and both check-ins are this event's here (rows an earlier version kept unchecked included). */
function doubleAdmissionsOf(db: Conn, eventId: number) {
  const exists = (column: string) => (q: Knex.QueryBuilder) =>
    q.select(db.raw('1')).from('checkins as c').whereRaw('c.event_id = d.event_id').whereRaw(`c.uid = d.${column}`).whereRaw('c.guest_id = g.id');
  return db('sync_double_admissions as d')
    .join('guests as g', function () {
      this.on('g.uid', '=', 'd.guest_uid').andOn('g.event_id', '=', 'd.event_id');
    })
    .where('d.event_id', eventId)
    .whereExists(exists('first_checkin_uid'))
    .whereExists(exists('second_checkin_uid'));
}

export async function countDoubleAdmissions(db: Conn, eventId: number): Promise<number> {
  const [{ n }] = await doubleAdmissionsOf(db, eventId).count({ n: '*' });
  return Number(n);
}

export async function listDoubleAdmissions(db: Conn, eventId: number, page: FindingsPage): Promise<StoredDoubleAdmission[]> {
  const rows = await doubleAdmissionsOf(db, eventId)
    .orderBy('d.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .select('d.*', 'g.id as guest_id', 'g.first_name', 'g.last_name');
  return rows.map((r) => {
    const checkins = [
      { uid: r.first_checkin_uid, station: r.first_station ?? null, scanned_at: r.first_scanned_at },
      { uid: r.second_checkin_uid, station: r.second_station ?? null, scanned_at: r.second_scanned_at },
    ].sort((a, b) => (a.scanned_at < b.scanned_at ? -1 : a.scanned_at > b.scanned_at ? 1 : 0));
    return { guest_id: r.guest_id, guest_uid: r.guest_uid, first_name: r.first_name ?? null, last_name: r.last_name ?? null, checkins, found_at: r.created };
  });
}

/** Kept once per record and kind; at most FINDINGS_KEPT per event, a few dozen rows a statement. */
export async function recordConflicts(db: Conn, eventId: number, found: FoundConflict[]): Promise<void> {
  const now = nowIso();
  const rows = found.map((c) => ({
    ...newRecord(now),
    event_id: eventId,
    table_name: c.table,
    record_uid: c.uid,
    kind: c.kind,
    // Cut to the columns' sizes, which PostgreSQL enforces.
    value: c.value?.slice(0, 255) ?? null,
    resolution: c.resolution.slice(0, 255),
  }));
  const room = await roomFor(db, 'sync_conflicts', eventId);
  for (const part of chunks(rows.slice(0, room), FINDINGS_PER_STATEMENT)) {
    await db('sync_conflicts').insert(part).onConflict(['event_id', 'table_name', 'record_uid', 'kind']).ignore();
  }
}

export interface StoredConflict {
  table: string;
  uid: string;
  kind: string;
  value: string | null;
  resolution: string;
  found_at: string;
}

export async function countConflicts(db: Conn, eventId: number): Promise<number> {
  const [{ n }] = await db('sync_conflicts').where({ event_id: eventId }).count({ n: '*' });
  return Number(n);
}

export async function listConflicts(db: Conn, eventId: number, page: FindingsPage): Promise<StoredConflict[]> {
  const rows = await db('sync_conflicts').where({ event_id: eventId }).orderBy('id', 'desc').limit(page.limit).offset(page.offset);
  return rows.map((r) => ({ table: r.table_name, uid: r.record_uid, kind: r.kind, value: r.value ?? null, resolution: r.resolution, found_at: r.created }));
}

export type ArrivalVia = 'push' | 'pull';

/** Noted before a merge starts, so a pull that reads while it runs still reaches back for it. */
export async function recordArrival(db: Conn, eventId: number, oldestModified: string, via: ArrivalVia): Promise<void> {
  await db('sync_arrivals').insert({ event_id: eventId, received_at: nowIso(), oldest_modified: oldestModified, via });
}

/**
 * Where a delta asked from `since` must start: earlier when changes older than `since` arrived
 * here at or after it. A follower's pull counts every arrival; this laptop's push to its own
 * upstream counts only what followers pushed here (what it pulled came from there).
 */
export async function deltaStart(db: Conn, eventId: number, since: string, via?: ArrivalVia): Promise<string> {
  const q = db('sync_arrivals').where('event_id', eventId).where('received_at', '>=', since);
  if (via) q.where('via', via);
  const [{ oldest }] = await q.min({ oldest: 'oldest_modified' });
  return oldest && oldest < since ? oldest : since;
}

/** A record's version (its `modified`) as an event file carries it. */
export interface RecordVersion {
  table: string;
  uid: string;
  modified: string;
}

// Rows per upsert: four values each.
const VERSIONS_PER_STATEMENT = 200;

/**
 * Notes that the upstream holds these versions (they came down in a pull, or went up in a
 * push it acknowledged): this laptop's push leaves out a record still at that very version.
 */
export async function noteUpstreamVersions(db: Conn, eventId: number, versions: RecordVersion[]): Promise<void> {
  // One row per record: the latest version a file named wins within it too.
  const latest = new Map<string, RecordVersion>();
  for (const v of versions) {
    const key = `${v.table}:${v.uid}`;
    const held = latest.get(key);
    if (!held || held.modified < v.modified) latest.set(key, v);
  }
  const rows = [...latest.values()].map((v) => ({ event_id: eventId, table_name: v.table, uid: v.uid, modified: v.modified }));
  for (const part of chunks(rows, VERSIONS_PER_STATEMENT)) {
    await db('sync_upstream_versions').insert(part).onConflict(['event_id', 'table_name', 'uid']).merge(['modified']);
  }
}

/** Whether the upstream is noted as holding this record at this very version. */
export async function heldUpstream(db: Conn, eventId: number, version: RecordVersion): Promise<boolean> {
  const row = await db('sync_upstream_versions').where({ event_id: eventId, table_name: version.table, uid: version.uid, modified: version.modified }).first('uid');
  return row !== undefined;
}

/** Forgets the notes (all, or those of versions older than `before`, which no later push reaches). */
export async function forgetUpstreamVersions(db: Conn, eventId: number, before?: string): Promise<void> {
  const q = db('sync_upstream_versions').where('event_id', eventId);
  if (before !== undefined) q.where('modified', '<', before);
  await q.delete();
}
