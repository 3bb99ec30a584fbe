import type { Conn } from '../../db/knex';
import { RECENT_MINUTES, supervisorStats, type eventStats } from '../../db/repositories/stats';
import { stationRenames } from '../../db/repositories/station-renames';
import { ONLINE_WINDOW_MS, stationPresence, type StationPresence, type StationHeartbeats } from './station-heartbeats';

type DoorStats = Awaited<ReturnType<typeof eventStats>>;

// Problems first: a supervisor looks for the station that needs someone.
const HEALTH_RANK: Record<StationPresence, number> = { offline: 0, queued: 1, online: 2, left: 3 };

const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * The supervisor view's block of the stats answer: what remains, the pace, every station's
 * health from its last scan and its heartbeats (server/services/station-heartbeats.ts), and the
 * latest scans; a renamed station's scans under the name it goes by now. Read in the caller's
 * snapshot, after the door's figures it builds on.
 */
export async function supervisorBlock(db: Conn, eventId: number, door: DoorStats, heartbeats: StationHeartbeats, now = new Date()) {
  const beats = heartbeats.of(eventId);
  const known = door.stations.map((s) => s.station);
  const names = [...known, ...[...beats.keys()].filter((name) => !known.includes(name))];
  const figures = await supervisorStats(db, eventId, names, now);
  const renames = await stationRenames(db, eventId);
  const currentName = (station: string | null) => (station === null ? null : (renames.get(station) ?? station));
  const nowMs = now.getTime();
  // A renamed station's scans count under its new name: one row, one history.
  const merged = new Map<string | null, { station: string | null; last_scan_at: string | null; scans_recent: number }>();
  for (const s of figures.stations) {
    const name = currentName(s.station);
    const row = merged.get(name);
    if (!row) merged.set(name, { ...s, station: name });
    else {
      row.scans_recent += s.scans_recent;
      if (s.last_scan_at !== null && (row.last_scan_at === null || s.last_scan_at > row.last_scan_at)) row.last_scan_at = s.last_scan_at;
    }
  }
  const stations = [...merged.values()].map((s) => {
    const beat = s.station === null ? undefined : beats.get(s.station);
    const scannedMs = s.last_scan_at ? Math.min(Date.parse(`${s.last_scan_at}Z`), nowMs) : undefined;
    const seen = [beat?.seenAt, scannedMs].filter((ms): ms is number => ms !== undefined);
    const lastSeen = seen.length > 0 ? Math.max(...seen) : undefined;
    // A heartbeat's count of unsent scans holds only while the station keeps saying it.
    const queued = beat && nowMs - beat.seenAt <= ONLINE_WINDOW_MS ? beat.queued : 0;
    const health = stationPresence(lastSeen, beat?.seenAt, queued, nowMs);
    return { station: s.station, health, last_scan_at: s.last_scan_at, last_seen_at: lastSeen === undefined ? null : apiTime(lastSeen), queued, scans_recent: s.scans_recent };
  });
  stations.sort((a, b) => HEALTH_RANK[a.health] - HEALTH_RANK[b.health] || (a.station ?? '').localeCompare(b.station ?? ''));
  const remainingOf = (t: { id: number; total: number; checked_in: number }) => t.total - t.checked_in - (figures.inactiveOut.get(t.id) ?? 0);
  return {
    now: apiTime(nowMs),
    remaining: door.total - door.checked_in - [...figures.inactiveOut.values()].reduce((sum, k) => sum + k, 0),
    registration_types: door.registration_types.map((t) => ({ id: t.id, remaining: remainingOf(t) })),
    recent_minutes: RECENT_MINUTES,
    scans_recent: stations.reduce((sum, s) => sum + s.scans_recent, 0),
    stations,
    latest: figures.latest.map((c) => ({ ...c, station: currentName(c.station) })),
  };
}
