import type { Knex } from 'knex';
import { nowIso } from '../../core/time';
import { renameStation, soleScanner } from '../../db/repositories/station-renames';
import { writeTransaction } from '../../db/write-transaction';

/**
 * What the door stations say about themselves, for the supervisor view (issue 38). A door
 * screen's stats poll (every 2 s) names its station and how many scans it holds unsent
 * (`GET /events/:id/stats?station=...&queued=N`): that poll is the heartbeat, so it costs no
 * request of its own. Heartbeats are kept in memory only: they describe the last seconds, a
 * restart forgets nothing a station does not say again within one poll, and no write waits
 * for them. A rename is stored (db/repositories/station-renames.ts): it carries history.
 */

/** A station not heard from for this long is offline: several missed 2-second polls. */
export const ONLINE_WINDOW_MS = 15_000;
/**
 * A station whose heartbeats stopped this long ago has left (closed, signed out), and one known
 * only from its scans never said it was open here: both are listed apart, never as doors offline.
 */
export const LEFT_AFTER_MS = 10 * 60_000;
// Stations remembered per event, and per caller (key or user) of it: past either the longest
// silent is forgotten, so however many names one door key invents it holds few rows.
const MAX_STATIONS = 200;
// A venue may run all its doors on one shared door key: 64 leaves room for a large one.
export const MAX_STATIONS_PER_CALLER = 64;

export type StationHealth = 'online' | 'offline' | 'queued';
export type StationPresence = StationHealth | 'left';

interface Beat {
  seenAt: number;
  queued: number;
  /** Who sent it (`kind:id`): only they may rename the station. */
  caller: string;
}

export class StationHeartbeats {
  private readonly events = new Map<number, Map<string, Beat>>();

  /** A door station's heartbeat. */
  beat(eventId: number, station: string, queued: number, caller: string, now = Date.now()): void {
    let beats = this.events.get(eventId);
    if (!beats) this.events.set(eventId, (beats = new Map()));
    // Deleted and set again, so the map's order is the order of the last beats.
    beats.delete(station);
    beats.set(station, { seenAt: now, queued, caller });
    const mine = [...beats].filter(([, beat]) => beat.caller === caller);
    if (mine.length > MAX_STATIONS_PER_CALLER) beats.delete(mine[0][0]);
    if (beats.size > MAX_STATIONS) beats.delete(beats.keys().next().value as string);
  }

  of(eventId: number): ReadonlyMap<string, Beat> {
    return this.events.get(eventId) ?? new Map();
  }

  /** A renamed station's old name: no longer a station of its own. */
  forget(eventId: number, station: string): void {
    this.events.get(eventId)?.delete(station);
  }
}

export interface Heartbeat {
  eventId: number;
  station: string;
  queued: number;
  /** Who sends it (`kind:id`, as checkins.scanned_by). */
  caller: string;
  /** The station's name until now (renamed in its settings). */
  previous?: string;
}

/**
 * A heartbeat, and with `previous` the rename it carries: stored, so the old name's history
 * shows under the new one from now on, restarts included. Only the caller the old name is
 * theirs may rename it: who beat under it, or (this process has not heard it, as after a
 * restart) who made its scans.
 */
export async function recordHeartbeat(db: Knex, heartbeats: StationHeartbeats, beat: Heartbeat): Promise<void> {
  const { eventId, station, previous, caller } = beat;
  if (previous !== undefined && previous !== station) {
    const owner = heartbeats.of(eventId).get(previous)?.caller ?? (await soleScanner(db, eventId, previous, caller));
    if (owner === caller) {
      await writeTransaction(db, (trx) => renameStation(trx, eventId, previous, station, nowIso()));
      heartbeats.forget(eventId, previous);
    }
  }
  heartbeats.beat(eventId, station, beat.queued, caller);
}

/**
 * A station's health from what the server knows: its last heartbeat and its last scan.
 * `queued`: heard within the window and still holding scans it has not handed over (back from
 * offline, replaying); `online`: heard or scanned within the window; `offline`: neither.
 */
export function stationHealth(lastSeenMs: number | undefined, queued: number, now: number): StationHealth {
  if (lastSeenMs === undefined || now - lastSeenMs > ONLINE_WINDOW_MS) return 'offline';
  return queued > 0 ? 'queued' : 'online';
}

/**
 * Whether a station is open (online, queued, offline) or has left: offline only while its
 * heartbeats stopped less than LEFT_AFTER_MS ago; never heard by heartbeat, it has left once its
 * last scan is out of the window.
 */
export function stationPresence(lastSeenMs: number | undefined, lastBeatMs: number | undefined, queued: number, now: number): StationPresence {
  const health = stationHealth(lastSeenMs, queued, now);
  if (health !== 'offline') return health;
  return lastBeatMs !== undefined && now - lastBeatMs <= LEFT_AFTER_MS ? 'offline' : 'left';
}
