/** GET /events/:id/stats, as the server's EventStats schema gives it. */
export interface EventStats {
  total: number;
  checked_in: number;
  inactive: number;
  registration_types: { id: number; name: string; total: number; checked_in: number }[];
  sessions: { id: number; name: string; registered: number; checked_in: number; capacity: number; overbook_capacity: number }[];
  stations: { station: string | null; checked_in: number; checked_out: number }[];
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
