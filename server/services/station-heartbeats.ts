/**
 * What the door stations say about themselves, for the supervisor view (issue 38). A door
 * screen's stats poll (every 2 s) names its station and how many scans it holds unsent
 * (`GET /events/:id/stats?station=...&queued=N`): that poll is the heartbeat, so it costs no
 * request of its own. Kept in memory only: it describes the last seconds, a restart forgets
 * nothing a station does not say again within one poll, and no write waits for it.
 */

/** A station not heard from for this long is offline: several missed 2-second polls. */
export const ONLINE_WINDOW_MS = 15_000;
// Stations remembered per event; past it the longest silent is forgotten (a bounded map however
// many names a client invents).
const MAX_STATIONS = 500;

export type StationHealth = 'online' | 'offline' | 'queued';

interface Beat {
  seenAt: number;
  queued: number;
}

export class StationHeartbeats {
  private readonly events = new Map<number, Map<string, Beat>>();

  beat(eventId: number, station: string, queued: number, now = Date.now()): void {
    let stations = this.events.get(eventId);
    if (!stations) this.events.set(eventId, (stations = new Map()));
    // Deleted and set again, so the map's order is the order of the last beats.
    stations.delete(station);
    stations.set(station, { seenAt: now, queued });
    if (stations.size > MAX_STATIONS) stations.delete(stations.keys().next().value as string);
  }

  of(eventId: number): ReadonlyMap<string, Beat> {
    return this.events.get(eventId) ?? new Map();
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
