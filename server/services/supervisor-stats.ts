import type { Conn } from '../../db/knex';
import { RECENT_MINUTES, supervisorStats, type eventStats } from '../../db/repositories/stats';
import { ONLINE_WINDOW_MS, stationHealth, type StationHealth, type StationHeartbeats } from './station-heartbeats';

type DoorStats = Awaited<ReturnType<typeof eventStats>>;

// Problems first: a supervisor looks for the station that needs someone.
const HEALTH_RANK: Record<StationHealth, number> = { offline: 0, queued: 1, online: 2 };

const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * The supervisor view's block of the stats answer: what remains, the pace, every station's
 * health from its last scan and its heartbeats (server/services/station-heartbeats.ts), and the
 * latest scans. Read in the caller's snapshot, after the door's figures it builds on.
 */
export async function supervisorBlock(db: Conn, eventId: number, door: DoorStats, heartbeats: StationHeartbeats, now = new Date()) {
  const beats = heartbeats.of(eventId);
  const known = door.stations.map((s) => s.station);
  const names = [...known, ...[...beats.keys()].filter((name) => !known.includes(name))];
  const figures = await supervisorStats(db, eventId, names, now);
  const nowMs = now.getTime();
  const stations = figures.stations.map((s) => {
    const beat = s.station === null ? undefined : beats.get(s.station);
    const scannedMs = s.last_scan_at ? Math.min(Date.parse(`${s.last_scan_at}Z`), nowMs) : undefined;
    const seen = [beat?.seenAt, scannedMs].filter((ms): ms is number => ms !== undefined);
    const lastSeen = seen.length > 0 ? Math.max(...seen) : undefined;
    // A heartbeat's count of unsent scans holds only while the station keeps saying it.
    const queued = beat && nowMs - beat.seenAt <= ONLINE_WINDOW_MS ? beat.queued : 0;
    return { station: s.station, health: stationHealth(lastSeen, queued, nowMs), last_scan_at: s.last_scan_at, last_seen_at: lastSeen === undefined ? null : apiTime(lastSeen), queued, scans_recent: s.scans_recent };
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
    latest: figures.latest,
  };
}
