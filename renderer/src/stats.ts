/** GET /events/:id/stats, as the server's EventStats schema gives it. */
export interface EventStats {
  total: number;
  checked_in: number;
  inactive: number;
  registration_types: { id: number; name: string; total: number; checked_in: number }[];
  sessions: { id: number; name: string; registered: number; checked_in: number; capacity: number; overbook_capacity: number }[];
  stations: { station: string | null; checked_in: number; checked_out: number; undone?: number }[];
  /** Arrivals per 5-minute bucket; `starts` is UTC `YYYY-MM-DDThh:mm:ss`. */
  arrivals: { starts: string; checked_in: number }[];
}

export interface ArrivalBar {
  starts: Date;
  count: number;
}

const BUCKET_MS = 5 * 60 * 1000;

/**
 * The last `buckets` five-minute buckets up to the latest arrival (or now), empty buckets
 * included, so the chart's x axis is time and quiet spells show as gaps.
 */
export function arrivalBars(stats: EventStats | undefined, buckets = 24, now = Date.now()): ArrivalBar[] {
  const counts = new Map<number, number>();
  for (const a of stats?.arrivals ?? []) {
    const at = Date.parse(/[zZ]$/.test(a.starts) ? a.starts : `${a.starts}Z`);
    if (Number.isNaN(at)) continue;
    const bucket = Math.floor(at / BUCKET_MS) * BUCKET_MS;
    counts.set(bucket, (counts.get(bucket) ?? 0) + a.checked_in);
  }
  // Anchored at now; a past event's chart is anchored at its last arrival instead.
  const nowBucket = Math.floor(now / BUCKET_MS) * BUCKET_MS;
  const lastArrival = counts.size ? Math.max(...counts.keys()) : nowBucket;
  const latest = lastArrival <= nowBucket - buckets * BUCKET_MS ? lastArrival : Math.max(nowBucket, lastArrival);
  const bars: ArrivalBar[] = [];
  for (let i = buckets - 1; i >= 0; i -= 1) {
    const starts = latest - i * BUCKET_MS;
    bars.push({ starts: new Date(starts), count: counts.get(starts) ?? 0 });
  }
  return bars;
}

/** One of this station's own accepted scans or undos, counted before the server's figures show it. */
export interface LocalChange {
  /** When the answer came (ms). */
  at: number;
  /** +1 or -1: how the station's figure for `direction` moves with this change. */
  step: 1 | -1;
  /** The station's stationRecorded figure once the server counts this change. */
  expect: number;
  /** The scan's uid: a scan the server turned away after all (a replay) is forgotten by it. */
  uid?: string;
  /** +1 a guest in, -1 out (a check-out, or an entry undone). */
  delta: 1 | -1;
  direction: 'in' | 'out';
  typeId?: number;
  sessionId?: number;
  station: string;
  /** The scan's time (UTC API Datetime), for the arrivals. */
  scannedAt?: string;
}

/**
 * Every scan a station made and every undo of one, as the server has seen them: standing scans
 * plus twice the undone ones (an undo takes one from the standing and adds one undone). It
 * only grows, by one per change, so "has the server seen this change" is one comparison,
 * whatever undos, scans and replays came between.
 */
export function stationRecorded(stats: EventStats, station: string): number {
  const row = stats.stations.find((s) => s.station === station);
  return row ? row.checked_in + row.checked_out + 2 * (row.undone ?? 0) : 0;
}

/** The station's changes with one more: it expects the station's record one past the last. */
export function addChange(list: LocalChange[], change: Omit<LocalChange, 'at' | 'step' | 'expect'>, server: EventStats | undefined, now: number): LocalChange[] {
  // The station's in (or out) figure steps by one per change: up for a scan, down for its undo.
  const step = (change.direction === 'in' ? change.delta : -change.delta) as 1 | -1;
  const before = [...list].reverse().find((c) => c.station === change.station);
  const base = before ? before.expect : server ? stationRecorded(server, change.station) : 0;
  return [...list, { ...change, at: now, step, expect: base + 1 }];
}

/** The changes the server's figures do not show yet (and are not so old they were lost). */
export function unseenChanges(list: LocalChange[], figures: EventStats, now: number, expiresMs: number): LocalChange[] {
  return list.filter((c) => stationRecorded(figures, c.station) < c.expect && now - c.at < expiresMs);
}

/** Without the change of a scan the server will never record; the station's later ones expect one less. */
export function forgetChange(list: LocalChange[], uid: string): LocalChange[] {
  const gone = list.find((c) => c.uid === uid);
  if (!gone) return list;
  return list.filter((c) => c !== gone).map((c) => (c.station === gone.station && c.expect > gone.expect ? { ...c, expect: c.expect - 1 } : c));
}

/** This station's accepted scans in one direction, as the server counts them. */
export function stationFigure(stats: EventStats, station: string, direction: 'in' | 'out'): number {
  const row = stats.stations.find((s) => s.station === station);
  return row ? (direction === 'in' ? row.checked_in : row.checked_out) : 0;
}

function bucketStart(apiDatetime: string): string {
  const at = Date.parse(`${apiDatetime}Z`);
  return new Date(Math.floor(at / BUCKET_MS) * BUCKET_MS).toISOString().slice(0, 19);
}

/** The server's figures with the station's own changes that they do not include yet. */
export function applyChanges(stats: EventStats, changes: LocalChange[]): EventStats {
  if (!changes.length) return stats;
  const next: EventStats = {
    ...stats,
    registration_types: stats.registration_types.map((t) => ({ ...t })),
    sessions: stats.sessions.map((s) => ({ ...s })),
    stations: stats.stations.map((s) => ({ ...s })),
    arrivals: stats.arrivals.map((a) => ({ ...a })),
  };
  for (const change of changes) {
    // A session scan counts for the session only; the event's door counts the guest in or out.
    if (change.sessionId !== undefined) {
      const session = next.sessions.find((s) => s.id === change.sessionId);
      if (session && change.direction === 'in') session.checked_in += change.delta;
    } else {
      next.checked_in += change.delta;
      const type = next.registration_types.find((t) => t.id === change.typeId);
      if (type) type.checked_in += change.delta;
    }
    let station = next.stations.find((s) => s.station === change.station);
    if (!station) {
      station = { station: change.station, checked_in: 0, checked_out: 0, undone: 0 };
      next.stations.push(station);
    }
    if (change.direction === 'in') station.checked_in += change.step;
    else station.checked_out += change.step;
    const sign = Math.sign(change.delta);
    if (change.direction === 'in' && change.scannedAt) {
      const starts = bucketStart(change.scannedAt);
      const bucket = next.arrivals.find((a) => a.starts === starts);
      if (bucket) bucket.checked_in += sign;
      else if (sign > 0) next.arrivals.push({ starts, checked_in: 1 });
    }
  }
  return next;
}
