import { sentAtOnce } from '../write-transaction';
import type { Conn, Trx } from '../knex';
import { newRecord, toBool } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';
import type { PageRequest } from '../../core/paging';
import { sessionSeats } from '../../core/scan';

export interface SessionRow {
  id: number;
  uid: string;
  event_id: number;
  track_id: number | null;
  name: string;
  starts: string;
  ends: string;
  access_control: number | boolean;
  capacity: number;
  auto_registration: number | boolean;
  overbook_capacity: number;
  hidden_session: number | boolean;
  overlap_enabled: number | boolean;
  created: string;
  modified: string;
}

/** A session with what lives in other tables: its tags (in order) and how many guests registered. */
export interface SessionRecord extends SessionRow {
  tags: string[];
  registered: number;
}

export interface SessionFields {
  name: string;
  starts: string;
  ends: string;
  access_control: boolean;
  capacity: number;
  auto_registration: boolean;
  overbook_capacity: number;
  track_id: number | null;
  hidden_session: boolean;
}

export function toSession(row: SessionRecord) {
  return {
    id: row.id,
    event_id: row.event_id,
    name: row.name,
    starts: toApiDatetime(row.starts),
    ends: toApiDatetime(row.ends),
    tags: row.tags,
    access_control: toBool(row.access_control),
    capacity: row.capacity,
    auto_registration: toBool(row.auto_registration),
    overbook_capacity: row.overbook_capacity,
    track_id: row.track_id,
    hidden_session: toBool(row.hidden_session),
    overlap_enabled: toBool(row.overlap_enabled),
    registered: row.registered,
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

/** Loads tags and registration counts for a page of sessions in two queries. */
async function withDetails(db: Conn, rows: SessionRow[]): Promise<SessionRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [tags, counts] = await Promise.all([
    db('session_tags').whereIn('session_id', ids).orderBy(['session_id', 'position', 'id']).select('session_id', 'tag'),
    db('session_registrations').whereIn('session_id', ids).groupBy('session_id').select('session_id').count({ n: '*' }),
  ]);
  const tagsBySession = new Map<number, string[]>();
  for (const t of tags as { session_id: number; tag: string }[]) {
    const list = tagsBySession.get(t.session_id) ?? [];
    list.push(t.tag);
    tagsBySession.set(t.session_id, list);
  }
  const registered = new Map((counts as { session_id: number; n: number | string }[]).map((c) => [c.session_id, Number(c.n)]));
  return rows.map((row) => ({ ...row, tags: tagsBySession.get(row.id) ?? [], registered: registered.get(row.id) ?? 0 }));
}

/** A session of the event (the caller has already scoped the event), with tags and count. */
export async function findSession(db: Conn, eventId: number, sessionId: number): Promise<SessionRecord | undefined> {
  const row = await db<SessionRow>('sessions').where({ id: sessionId, event_id: eventId }).first();
  if (!row) return undefined;
  const [record] = await withDetails(db, [row]);
  return record;
}

export async function listSessions(db: Conn, eventId: number, filter: { trackId?: number }, page: PageRequest) {
  const base = db<SessionRow>('sessions').where({ event_id: eventId });
  if (filter.trackId !== undefined) base.where({ track_id: filter.trackId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = (await base.clone().orderBy('id').limit(page.limit).offset(page.offset)) as SessionRow[];
  return { count: Number(count), rows: await withDetails(db, rows) };
}

async function writeTags(trx: Trx, sessionId: number, tags: string[]): Promise<void> {
  await trx('session_tags').where({ session_id: sessionId }).delete();
  if (tags.length === 0) return;
  const now = nowIso();
  await trx('session_tags').insert(tags.map((tag, position) => ({ ...newRecord(now), session_id: sessionId, tag, position })));
}

/** Inserts the session and its tags; run it inside a transaction. */
export async function insertSession(trx: Trx, eventId: number, fields: SessionFields, tags: string[]): Promise<number> {
  const [row] = await trx('sessions').insert({ ...newRecord(), event_id: eventId, ...fields }).returning('id');
  await writeTags(trx, row.id, tags);
  return row.id;
}

/** Updates the given fields; `tags`, when given, replaces the whole list. Run it inside a transaction. */
export async function updateSession(trx: Trx, sessionId: number, fields: Partial<SessionFields>, tags?: string[]): Promise<void> {
  await trx('sessions').where({ id: sessionId }).update({ ...fields, modified: nowIso() });
  if (tags !== undefined) await writeTags(trx, sessionId, tags);
}

/** Deletes a session with its tags, registrations and check-ins (foreign keys cascade). */
export async function deleteSession(db: Conn, eventId: number, sessionId: number): Promise<boolean> {
  return (await db('sessions').where({ id: sessionId, event_id: eventId }).delete()) > 0;
}

/** The guest's id when the guest belongs to the event; the caller has already scoped the event. */
export async function isGuestRegistered(db: Conn, sessionId: number, guestId: number): Promise<boolean> {
  return (await db('session_registrations').where({ session_id: sessionId, guest_id: guestId }).first('id')) !== undefined;
}

export const REGISTRATION_OUTCOME = {
  registered: 'registered',
  alreadyRegistered: 'already_registered',
  full: 'full',
} as const;
export type RegistrationOutcome = (typeof REGISTRATION_OUTCOME)[keyof typeof REGISTRATION_OUTCOME];

/**
 * Registers a guest into a session unless every seat (capacity + overbook_capacity) is taken.
 * The session's row is locked first (an update that changes nothing), so registrations for one
 * session queue in every process and database; then the count and the insert are one
 * statement, and the (session, guest) pair is unique (ON CONFLICT: no error that would abort
 * the caller's transaction on PostgreSQL), so concurrent calls never admit more than the seats
 * and a repeat never takes a second seat. Run it inside a transaction; the guest must already
 * be known to belong to the session's event.
 */
export async function registerGuestInSession(trx: Trx, session: Pick<SessionRow, 'id'>, guestId: number): Promise<RegistrationOutcome> {
  await trx('sessions').where({ id: session.id }).update({ modified: trx.ref('modified') });
  if (await isGuestRegistered(trx, session.id, guestId)) return REGISTRATION_OUTCOME.alreadyRegistered;
  const { uid, created, modified } = newRecord();
  await trx.raw(
    `insert into session_registrations (uid, created, modified, session_id, guest_id)
     select ?, ?, ?, s.id, ? from sessions s
     where s.id = ?
       and (select count(*) from session_registrations r where r.session_id = s.id) < s.capacity + s.overbook_capacity
     on conflict (session_id, guest_id) do nothing`,
    [uid, created, modified, guestId, session.id],
  );
  const registration = await trx('session_registrations').where({ session_id: session.id, guest_id: guestId }).first('uid');
  if (!registration) return REGISTRATION_OUTCOME.full;
  // A writer that takes no session lock (an event-file import) registered the guest meanwhile.
  if (registration.uid !== uid) return REGISTRATION_OUTCOME.alreadyRegistered;
  // The session's `registered` count changed: move `modified` so list deltas carry it.
  await trx('sessions').where({ id: session.id }).update({ modified });
  return REGISTRATION_OUTCOME.registered;
}

/**
 * A session door's seats as an entry finds them, without access control: the session's seats
 * (capacity + overbook_capacity), the guests holding one (a standing in-scan at the session)
 * and whether this guest is among them. The session's row is locked first (an update that
 * changes nothing), so entries at one session queue in every process and database and the
 * count holds until the caller's transaction commits its check-in. Run it inside a transaction.
 */
export async function lockSessionSeats(trx: Trx, sessionId: number, guestId: number): Promise<{ seats: number; seatsTaken: number; seated: boolean }> {
  await trx('sessions').where({ id: sessionId }).update({ modified: trx.ref('modified') });
  const admitted = () => trx('checkins').where({ session_id: sessionId, direction: 'in' }).whereNull('undone_at');
  const [session, taken, own] = await sentAtOnce([
    trx('sessions').where({ id: sessionId }).first('capacity', 'overbook_capacity'),
    admitted().countDistinct({ n: 'guest_id' }).first(),
    admitted().where({ guest_id: guestId }).first('id'),
  ]);
  return { seats: sessionSeats({ capacity: Number(session.capacity), overbook_capacity: Number(session.overbook_capacity) }), seatsTaken: Number(taken?.n ?? 0), seated: own !== undefined };
}

export interface SessionRegistrationRow {
  id: number;
  guest_id: number;
  session_id: number;
  first_name: string;
  last_name: string;
  email: string;
  created: string;
  modified: string;
}

export function toSessionRegistration(row: SessionRegistrationRow) {
  return {
    id: row.id,
    guest_id: row.guest_id,
    session_id: row.session_id,
    status: REGISTRATION_OUTCOME.registered,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

/** The guests registered for a session, oldest registration first. */
export async function listSessionRegistrations(db: Conn, sessionId: number, page: PageRequest) {
  const base = db('session_registrations as r').join('guests as g', 'g.id', 'r.guest_id').where('r.session_id', sessionId);
  if (page.modifiedSince) base.where('r.modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base
    .clone()
    .select('r.id', 'r.guest_id', 'r.session_id', 'g.first_name', 'g.last_name', 'g.email', 'r.created', 'r.modified')
    .orderBy('r.id')
    .limit(page.limit)
    .offset(page.offset);
  return { count: Number(count), rows: rows as SessionRegistrationRow[] };
}

/** Removes a registration; false when the guest was not registered. */
export async function unregisterGuestFromSession(trx: Trx, sessionId: number, guestId: number): Promise<boolean> {
  const removed = (await trx('session_registrations').where({ session_id: sessionId, guest_id: guestId }).delete()) > 0;
  if (removed) await trx('sessions').where({ id: sessionId }).update({ modified: nowIso() });
  return removed;
}
