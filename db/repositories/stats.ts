import type { Conn } from '../knex';
import { toApiDatetime } from '../../core/time';
import { GUEST_INACTIVE } from './guests';

// Divides 60, so a bucket never spans two hours.
const BUCKET_MINUTES = 5;

function n(value: unknown): number {
  return Number(value ?? 0);
}

/** `YYYY-MM-DDThh:mm...` -> the start of its 5-minute bucket, `YYYY-MM-DDThh:mm:00`. */
function bucketOf(at: string): string {
  const iso = at.replace(' ', 'T');
  const minute = Math.floor(Number(iso.slice(14, 16)) / BUCKET_MINUTES) * BUCKET_MINUTES;
  return `${iso.slice(0, 14)}${String(minute).padStart(2, '0')}:00`;
}

/**
 * The door's numbers for one event, computed afresh on every call (never a copy that a write
 * could make stale) in portable SQL: each figure is a GROUP BY over one index range that holds
 * every column it needs (the stats_*_indexes migrations), so no table row is read and nothing
 * is sorted. At 100,000 guests that is a few index walks; callers run it on the read
 * connection, so scans never wait for it. Arrivals come grouped by their recorded time
 * (seconds at most, a few thousand values in an evening) and are bucketed here.
 */
export async function eventStats(db: Conn, eventId: number) {
  const guests = await guestFigures(db, eventId);
  const sessions = await sessionFigures(db, eventId);
  const stations = await stationFigures(db, eventId);
  const arrivals = await arrivalFigures(db, eventId);
  return { ...guests, sessions, stations, arrivals };
}

/** Guests in all and checked in, inactive ones, and both figures per registration type. */
async function guestFigures(db: Conn, eventId: number) {
  const byType: { registration_type_id: number; total: number; checked_in: number }[] = await db('guests')
    .where({ event_id: eventId })
    .groupBy('registration_type_id')
    .select('registration_type_id')
    .count({ total: '*' })
    .count({ checked_in: 'checked_in_at' });
  // A literal, not a parameter: so the planner can use the index that holds only inactive guests.
  const [inactive] = await db('guests').where({ event_id: eventId }).whereRaw(`objstatus = ${GUEST_INACTIVE}`).count({ n: '*' });
  const types = await db('registration_types').where({ event_id: eventId }).select('id', 'name').orderBy('id');
  const ofType = new Map(byType.map((r) => [r.registration_type_id, { total: n(r.total), checked_in: n(r.checked_in) }]));
  return {
    total: [...ofType.values()].reduce((sum, t) => sum + t.total, 0),
    checked_in: [...ofType.values()].reduce((sum, t) => sum + t.checked_in, 0),
    inactive: n(inactive?.n),
    registration_types: types.map((t: { id: number; name: string }) => ({
      id: t.id,
      name: t.name,
      total: ofType.get(t.id)?.total ?? 0,
      checked_in: ofType.get(t.id)?.checked_in ?? 0,
    })),
  };
}

/** Each session's registrations and attendance (guests with an accepted in-scan at it). */
async function sessionFigures(db: Conn, eventId: number) {
  const sessions = await db('sessions as s')
    .where('s.event_id', eventId)
    .select('s.id', 's.name', 's.capacity', 's.overbook_capacity', db('session_registrations as r').whereRaw('r.session_id = s.id').count('*').as('registered'))
    .orderBy('s.id');
  const sessionsIn: { session_id: number; n: number }[] = await db('checkins')
    .where({ event_id: eventId, direction: 'in' })
    .whereNotNull('session_id')
    .whereNull('undone_at')
    .groupBy('session_id')
    .select('session_id')
    .countDistinct({ n: 'guest_id' });
  const inBySession = new Map(sessionsIn.map((r) => [r.session_id, n(r.n)]));
  return sessions.map((s: { id: number; name: string; capacity: number; overbook_capacity: number; registered: number }) => ({
    id: s.id,
    name: s.name,
    registered: n(s.registered),
    checked_in: inBySession.get(s.id) ?? 0,
    capacity: s.capacity,
    overbook_capacity: s.overbook_capacity,
  }));
}

/** Per station: scans still standing, in and out apart, and scans undone; no station first. */
async function stationFigures(db: Conn, eventId: number) {
  const byStation: { station: string | null; direction: string; n: number }[] = await db('checkins')
    .where({ event_id: eventId })
    .whereNull('undone_at')
    .groupBy('station', 'direction')
    .select('station', 'direction')
    .count({ n: '*' });
  // Scans undone per station: with the standing ones, every scan and every undo a station made
  // counts once, a figure that only grows (the door's counters tell by it what the server has seen).
  const undoneByStation: { station: string | null; n: number }[] = await db('checkins')
    .where({ event_id: eventId })
    .whereNotNull('undone_at')
    .groupBy('station')
    .select('station')
    .count({ n: '*' });
  const stations = new Map<string | null, { station: string | null; checked_in: number; checked_out: number; undone: number }>();
  for (const row of undoneByStation) stations.set(row.station, { station: row.station, checked_in: 0, checked_out: 0, undone: n(row.n) });
  for (const row of byStation) {
    const entry = stations.get(row.station) ?? { station: row.station, checked_in: 0, checked_out: 0, undone: 0 };
    if (row.direction === 'in') entry.checked_in += n(row.n);
    else entry.checked_out += n(row.n);
    stations.set(row.station, entry);
  }
  return [...stations.values()].sort((a, b) => (a.station === null ? -1 : b.station === null ? 1 : a.station < b.station ? -1 : a.station > b.station ? 1 : 0));
}

/** Arrivals at the event door per 5-minute bucket of when the scan happened (an offline station's time kept). */
async function arrivalFigures(db: Conn, eventId: number) {
  const arrivalTimes: { scanned_at: string; n: number }[] = await db('checkins')
    .where({ event_id: eventId, session_id: null, undone_at: null, direction: 'in' })
    .groupBy('scanned_at')
    .select('scanned_at')
    .count({ n: '*' });
  const arrivals = new Map<string, number>();
  for (const row of arrivalTimes) {
    const bucket = bucketOf(String(row.scanned_at));
    arrivals.set(bucket, (arrivals.get(bucket) ?? 0) + n(row.n));
  }
  return [...arrivals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([starts, checkedIn]) => ({ starts, checked_in: checkedIn }));
}

/** Scans counted for a station's pace: those made in the last few minutes. */
export const RECENT_MINUTES = 5;
/** The latest scans listed across all stations. */
const LATEST_SCANS = 15;

/**
 * What the supervisor view adds to the door's numbers (issue 38): guests still expected, each
 * station's last scan and scans of the last minutes, and the latest scans of every station with
 * who they were. `stations`: the stations eventStats found. Each station's figures are two
 * seeks of the (event_id, station, scanned_at) index; the latest scans are the event's scans
 * by when they happened, a top-15 pass over its scans (about 20 ms at 100,000): asked only by
 * the supervisor view, never by the doors' polls.
 */
export async function supervisorStats(db: Conn, eventId: number, stations: readonly (string | null)[], now: Date) {
  const since = new Date(now.getTime() - RECENT_MINUTES * 60_000).toISOString();
  // Inactive guests are not expected: those not in come off what remains (the few, on their index).
  const inactiveOut: { registration_type_id: number; n: number }[] = await db('guests')
    .where({ event_id: eventId })
    .whereRaw(`objstatus = ${GUEST_INACTIVE}`)
    .whereNull('checked_in_at')
    .groupBy('registration_type_id')
    .select('registration_type_id')
    .count({ n: '*' });
  const perStation = [];
  for (const station of stations) {
    const own = () => db('checkins').where({ event_id: eventId }).andWhere((q) => (station === null ? q.whereNull('station') : q.where('station', station)));
    const [last] = await own().max({ at: 'scanned_at' });
    const [recent] = await own().where('scanned_at', '>=', since).whereNull('undone_at').count({ n: '*' });
    perStation.push({ station, last_scan_at: last?.at == null ? null : toApiDatetime(String(last.at)), scans_recent: n(recent?.n) });
  }
  const latest: LatestScanRow[] = await db('checkins as c')
    .join('guests as g', 'g.id', 'c.guest_id')
    .where('c.event_id', eventId)
    .whereNull('c.undone_at')
    .orderBy([
      { column: 'c.scanned_at', order: 'desc' },
      { column: 'c.id', order: 'desc' },
    ])
    .limit(LATEST_SCANS)
    .select('c.id', 'c.guest_id', 'g.first_name', 'g.last_name', 'g.registration_type_id', 'c.direction', 'c.session_id', 'c.station', 'c.scanned_at');
  return {
    inactiveOut: new Map(inactiveOut.map((r) => [r.registration_type_id, n(r.n)])),
    stations: perStation,
    latest: latest.map((r) => ({
      id: r.id,
      guest_id: r.guest_id,
      first_name: r.first_name,
      last_name: r.last_name,
      registration_type: r.registration_type_id,
      direction: r.direction as 'in' | 'out',
      session_id: r.session_id,
      station: r.station,
      scanned_at: toApiDatetime(String(r.scanned_at)) as string,
    })),
  };
}

interface LatestScanRow {
  id: number;
  guest_id: number;
  first_name: string;
  last_name: string;
  registration_type_id: number;
  direction: string;
  session_id: number | null;
  station: string | null;
  scanned_at: string | Date;
}
