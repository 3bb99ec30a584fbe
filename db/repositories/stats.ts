import type { Conn } from '../knex';

// Divides 60, so a bucket never spans two hours (see bucketEdge).
const BUCKET_MINUTES = 5;
const GUEST_INACTIVE = 2;

function n(value: unknown): number {
  return Number(value ?? 0);
}

// Every door screen polls these figures, and each door scan waits behind them on the one
// connection. So each is a count of one index range (the stats_*_indexes migrations add them):
// no row is read and nothing sorted. A figure per type, station or time bucket walks the
// distinct values with a recursive CTE, one index seek from each value to the next, and
// counts each value's range. (SQLite's SQL: printf, and times compared as text.)

/**
 * Each registration type the event's guests have, with how many are in and how many are not:
 * together every guest of the event once. (Not-in entries carry no timestamp, so two ranges
 * read less than one over all the type's guests and one over those in.)
 */
const GUESTS_BY_TYPE = `WITH RECURSIVE types(id) AS (
    SELECT MIN(registration_type_id) FROM guests WHERE event_id = :event
    UNION ALL
    SELECT (SELECT MIN(registration_type_id) FROM guests WHERE event_id = :event AND registration_type_id > types.id)
      FROM types WHERE types.id IS NOT NULL
  )
  SELECT id,
    (SELECT COUNT(*) FROM guests g WHERE g.event_id = :event AND g.registration_type_id = types.id AND g.checked_in_at IS NULL) AS not_in,
    (SELECT COUNT(*) FROM guests g WHERE g.event_id = :event AND g.registration_type_id = types.id AND g.checked_in_at IS NOT NULL) AS checked_in
  FROM types WHERE id IS NOT NULL`;

/** Scans still standing per station (null first, as ORDER BY puts it), in and out apart. */
const STATIONS = `WITH RECURSIVE named(station) AS (
    SELECT MIN(station) FROM checkins WHERE event_id = :event AND undone_at IS NULL
    UNION ALL
    SELECT (SELECT MIN(station) FROM checkins WHERE event_id = :event AND undone_at IS NULL AND station > named.station)
      FROM named WHERE named.station IS NOT NULL
  ), stations(station) AS (
    SELECT NULL WHERE EXISTS (SELECT 1 FROM checkins WHERE event_id = :event AND undone_at IS NULL AND station IS NULL)
    UNION ALL
    SELECT station FROM named WHERE station IS NOT NULL
  )
  SELECT station,
    (SELECT COUNT(*) FROM checkins c WHERE c.event_id = :event AND c.undone_at IS NULL AND c.station IS s.station AND c.direction = 'in') AS checked_in,
    (SELECT COUNT(*) FROM checkins c WHERE c.event_id = :event AND c.undone_at IS NULL AND c.station IS s.station AND c.direction = 'out') AS checked_out
  FROM stations s ORDER BY station`;

// Arrivals at the event door by when the scan happened (an offline station's time kept):
// accepted in-scans with no session.
const ARRIVAL = `event_id = :event AND session_id IS NULL AND undone_at IS NULL AND direction = 'in'`;
/**
 * `YYYY-MM-DDThh:mm...` -> the start (`YYYY-MM-DDThh:mm`) or end of its bucket. The last end of
 * an hour is `hh:60`, which sorts after every scan of that hour and before the next hour.
 */
const bucketEdge = (at: string, end: boolean) =>
  `substr(${at}, 1, 14) || printf('%02d', CAST(substr(${at}, 15, 2) AS INTEGER) / :bucket * :bucket${end ? ' + :bucket' : ''})`;
/** Arrivals per bucket that has any, hopping from each bucket to the first arrival after it. */
const ARRIVALS = `WITH RECURSIVE firsts(at) AS (
    SELECT MIN(scanned_at) FROM checkins WHERE ${ARRIVAL}
    UNION ALL
    SELECT (SELECT MIN(scanned_at) FROM checkins WHERE ${ARRIVAL} AND scanned_at >= ${bucketEdge('firsts.at', true)})
      FROM firsts WHERE firsts.at IS NOT NULL
  ), buckets(starts, ends) AS (
    SELECT ${bucketEdge('at', false)}, ${bucketEdge('at', true)} FROM firsts WHERE at IS NOT NULL
  )
  SELECT starts, (SELECT COUNT(*) FROM checkins WHERE ${ARRIVAL} AND scanned_at >= starts AND scanned_at < ends) AS checked_in
  FROM buckets ORDER BY starts`;

/** The door's numbers for one event; see above for how each stays cheap at 100k guests. */
export async function eventStats(db: Conn, eventId: number) {
  const byType: { id: number; not_in: number; checked_in: number }[] = await db.raw(GUESTS_BY_TYPE, { event: eventId });
  const [inactive] = await db('guests').where({ event_id: eventId, objstatus: GUEST_INACTIVE }).count({ n: '*' });
  const types = await db('registration_types').where({ event_id: eventId }).select('id', 'name').orderBy('id');
  const ofType = new Map(byType.map((r) => [r.id, { total: n(r.not_in) + n(r.checked_in), checked_in: n(r.checked_in) }]));

  const sessions = await db('sessions as s')
    .where('s.event_id', eventId)
    .select(
      's.id',
      's.name',
      's.capacity',
      's.overbook_capacity',
      db.raw('(SELECT COUNT(*) FROM session_registrations r WHERE r.session_id = s.id) AS registered'),
    )
    .orderBy('s.id');
  // Session attendance: guests with an accepted in-scan at that session.
  const sessionsIn = await db('checkins')
    .where({ event_id: eventId, direction: 'in' })
    .whereNotNull('session_id')
    .whereNull('undone_at')
    .groupBy('session_id')
    .select('session_id', db.raw('COUNT(DISTINCT guest_id) AS n'));
  const inBySession = new Map(sessionsIn.map((r: { session_id: number; n: number }) => [r.session_id, n(r.n)]));

  const stations: { station: string | null; checked_in: number; checked_out: number }[] = await db.raw(STATIONS, { event: eventId });
  const arrivals: { starts: string; checked_in: number }[] = await db.raw(ARRIVALS, { event: eventId, bucket: BUCKET_MINUTES });

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
    sessions: sessions.map((s: { id: number; name: string; capacity: number; overbook_capacity: number; registered: number }) => ({
      id: s.id,
      name: s.name,
      registered: n(s.registered),
      checked_in: inBySession.get(s.id) ?? 0,
      capacity: s.capacity,
      overbook_capacity: s.overbook_capacity,
    })),
    stations: stations.map((s) => ({ station: s.station, checked_in: n(s.checked_in), checked_out: n(s.checked_out) })),
    arrivals: arrivals.map((a) => ({ starts: `${a.starts}:00`, checked_in: n(a.checked_in) })),
  };
}
