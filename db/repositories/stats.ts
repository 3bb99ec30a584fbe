import type { Conn } from '../knex';

const BUCKET_MINUTES = 5;

function n(value: unknown): number {
  return Number(value ?? 0);
}

/** `YYYY-MM-DDThh:mm` -> the start of its 5-minute bucket, `YYYY-MM-DDThh:mm:00`. */
function bucketOf(minute: string): string {
  const mm = Math.floor(Number(minute.slice(14, 16)) / BUCKET_MINUTES) * BUCKET_MINUTES;
  return `${minute.slice(0, 14)}${String(mm).padStart(2, '0')}:00`;
}

/**
 * The door's numbers for one event. Every figure is an aggregate the database computes from
 * an index (guests by event and checked_in_at, by registration type; check-ins by event),
 * so it stays cheap at 100k guests; JavaScript only folds per-minute rows into 5-minute buckets.
 */
export async function eventStats(db: Conn, eventId: number) {
  const [totals] = await db('guests')
    .where({ event_id: eventId })
    .select(db.raw('COUNT(*) AS total'), db.raw('SUM(CASE WHEN objstatus = 2 THEN 1 ELSE 0 END) AS inactive'));
  const [checkedIn] = await db('guests').where({ event_id: eventId }).whereNotNull('checked_in_at').count({ n: '*' });

  const types = await db('registration_types as rt')
    .where('rt.event_id', eventId)
    .select('rt.id', 'rt.name', db.raw('(SELECT COUNT(*) FROM guests g WHERE g.registration_type_id = rt.id) AS total'))
    .orderBy('rt.id');
  const typesIn = await db('guests')
    .where({ event_id: eventId })
    .whereNotNull('checked_in_at')
    .groupBy('registration_type_id')
    .select('registration_type_id', db.raw('COUNT(*) AS n'));
  const inByType = new Map(typesIn.map((r: { registration_type_id: number; n: number }) => [r.registration_type_id, n(r.n)]));

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
    total: n(totals?.total),
    checked_in: n(checkedIn?.n),
    inactive: n(totals?.inactive),
    registration_types: types.map((t: { id: number; name: string; total: number }) => ({
      id: t.id,
      name: t.name,
      total: n(t.total),
      checked_in: inByType.get(t.id) ?? 0,
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
