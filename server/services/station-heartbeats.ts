/**
 * What the door stations say about themselves, for the supervisor view (issue 38). A door
 * screen's stats poll (every 2 s) names its station and how many scans it holds unsent
 * (`GET /events/:id/stats?station=...&queued=N`): that poll is the heartbeat, so it costs no
 * request of its own. Kept in memory only: it describes the last seconds, a restart forgets
 * nothing a station does not say again within one poll, and no write waits for it.
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

interface EventStations {
  beats: Map<string, Beat>;
  /** A renamed station's old name and its new one: its scans are its history under the new name. */
  renamed: Map<string, string>;
}

export class StationHeartbeats {
  private readonly events = new Map<number, EventStations>();

  /**
   * A door station's heartbeat. `previous`: the name it had until now (renamed in its settings);
   * the old name's history then shows under the new one, if the same caller beat under it.
   */
  beat(eventId: number, station: string, queued: number, caller: string, previous?: string, now = Date.now()): void {
    let stations = this.events.get(eventId);
    if (!stations) this.events.set(eventId, (stations = { beats: new Map(), renamed: new Map() }));
    const { beats, renamed } = stations;
    if (previous !== undefined && previous !== station && beats.get(previous)?.caller === caller) {
      beats.delete(previous);
      renamed.set(previous, station);
      // A name taken back is a station again, not a rename of itself.
      renamed.delete(station);
      if (renamed.size > MAX_STATIONS) renamed.delete(renamed.keys().next().value as string);
    }
    // Deleted and set again, so the map's order is the order of the last beats.
    beats.delete(station);
    beats.set(station, { seenAt: now, queued, caller });
    const mine = [...beats].filter(([, beat]) => beat.caller === caller);
    if (mine.length > MAX_STATIONS_PER_CALLER) beats.delete(mine[0][0]);
    if (beats.size > MAX_STATIONS) beats.delete(beats.keys().next().value as string);
  }

  of(eventId: number): ReadonlyMap<string, Beat> {
    return this.events.get(eventId)?.beats ?? new Map();
  }

  /** The name a station goes by now: its old names followed to the latest (a bounded walk). */
  currentName(eventId: number, station: string): string {
    const renamed = this.events.get(eventId)?.renamed;
    let name = station;
    for (let hops = 0; renamed?.has(name) && hops < 10; hops++) name = renamed.get(name)!;
    return name;
  }
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
