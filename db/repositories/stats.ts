import type { Conn } from '../knex';

const BUCKET_MINUTES = 5;
const GUEST_INACTIVE = 2;

function n(value: unknown): number {
  return Number(value ?? 0);
}

/** `YYYY-MM-DDThh:mm` -> the start of its 5-minute bucket, `YYYY-MM-DDThh:mm:00`. */
function bucketOf(minute: string): string {
  const mm = Math.floor(Number(minute.slice(14, 16)) / BUCKET_MINUTES) * BUCKET_MINUTES;
  return `${minute.slice(0, 14)}${String(mm).padStart(2, '0')}:00`;
}

// Every door screen polls these figures, and each door scan waits behind them on the one
// connection. So each guest figure is a count of one index range (the stats_guest_indexes
// migration adds them): no row is read and nothing sorted. The figures per type walk the
// distinct types with a recursive CTE, one index seek from each type to the next, and count
// each type's range.

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

/** The door's numbers for one event; see above for how the guest figures stay cheap at 100k guests. */
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

  const stations = await db('checkins')
    .where({ event_id: eventId })
    .whereNull('undone_at')
    .groupBy('station')
    .select(
      'station',
      db.raw("SUM(CASE WHEN direction = 'in' THEN 1 ELSE 0 END) AS checked_in"),
      db.raw("SUM(CASE WHEN direction = 'out' THEN 1 ELSE 0 END) AS checked_out"),
    )
    .orderBy('station');

  // Arrivals at the event door by when the scan happened (an offline station's time kept).
  const minutes = await db('checkins')
    .where({ event_id: eventId, direction: 'in' })
    .whereNull('session_id')
    .whereNull('undone_at')
    .groupBy('minute')
    .select(db.raw('substr(scanned_at, 1, 16) AS minute'), db.raw('COUNT(*) AS n'))
    .orderBy('minute');
  const arrivals = new Map<string, number>();
  for (const row of minutes as { minute: string; n: number }[]) {
    const bucket = bucketOf(row.minute);
    arrivals.set(bucket, (arrivals.get(bucket) ?? 0) + n(row.n));
  }

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
    stations: stations.map((s: { station: string | null; checked_in: number; checked_out: number }) => ({
      station: s.station,
      checked_in: n(s.checked_in),
      checked_out: n(s.checked_out),
    })),
    arrivals: [...arrivals].map(([starts, count]) => ({ starts, checked_in: count })),
  };
}
