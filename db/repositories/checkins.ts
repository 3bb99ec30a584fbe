import { randomUUID } from 'node:crypto';
import type { Conn, Db, Trx } from '../knex';
import { isUniqueViolation } from '../records';
import { nowIso, toApiDatetime } from '../time';
import { REGISTRATION_OUTCOME, registerGuestInSession } from './sessions';
import { ValidationError } from '../../server/errors';
import { MSG } from '../../server/schemas/messages';
import { SCAN_STATUS, type CheckinDirection } from '../../server/schemas/checkins';

export interface CheckinRow {
  id: number;
  uid: string;
  event_id: number;
  guest_id: number;
  session_id: number | null;
  direction: CheckinDirection;
  scanned_at: string;
  station: string | null;
  undone_at: string | null;
  created: string;
  modified: string;
}

/** A list record: undone scans stay listed (flagged) so a delta sync learns about the undo. */
export function toCheckin(row: CheckinRow) {
  return {
    id: row.id,
    uid: row.uid,
    guest_id: row.guest_id,
    session_id: row.session_id,
    direction: row.direction,
    scanned_at: toApiDatetime(row.scanned_at) as string,
    station: row.station,
    undone_at: toApiDatetime(row.undone_at),
    created: toApiDatetime(row.created) as string,
    modified: toApiDatetime(row.modified) as string,
  };
}

export interface CheckinListFilter {
  guestId?: number;
  sessionId?: number;
}

export async function listCheckins(db: Conn, eventId: number, filter: CheckinListFilter, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<CheckinRow>('checkins').where({ event_id: eventId });
  if (filter.guestId !== undefined) base.where({ guest_id: filter.guestId });
  if (filter.sessionId !== undefined) base.where({ session_id: filter.sessionId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as CheckinRow[] };
}

// ---------------------------------------------------------------------------------------
// Undo

/** The guest's event-level door state, from the last accepted event-level scan still standing. */
async function recomputeGuestState(trx: Trx, guestId: number, now: string): Promise<void> {
  const last = await trx<CheckinRow>('checkins')
    .where({ guest_id: guestId })
    .whereNull('session_id')
    .whereNull('undone_at')
    .orderBy('id', 'desc')
    .first('direction', 'scanned_at');
  const checkedInAt = last?.direction === 'in' ? last.scanned_at : null;
  await trx('guests').where({ id: guestId }).update({ checked_in_at: checkedInAt, modified: now });
}

/**
 * Undoes a mistaken scan: the row stays (so the undo travels in event files and delta syncs)
 * and is marked; the guest's state is recomputed in the same transaction. False if unknown.
 */
export async function undoCheckin(trx: Trx, eventId: number, checkinId: number): Promise<boolean> {
  const row = await trx<CheckinRow>('checkins').where({ id: checkinId, event_id: eventId }).whereNull('undone_at').first();
  if (!row) return false;
  const now = nowIso();
  await trx('checkins').where({ id: row.id }).update({ undone_at: now, modified: now });
  if (row.session_id === null) await recomputeGuestState(trx, row.guest_id, now);
  return true;
}

// ---------------------------------------------------------------------------------------
// Scanning: the door's hot path

export interface ScanInput {
  eventId: number;
  barcode?: string;
  nfcTag?: string;
  guestId?: number;
  sessionId?: number | null;
  direction: CheckinDirection;
  uid?: string;
  /** Stored form `YYYY-MM-DDThh:mm:ss`; the server's now (UTC) when the client sent none. */
  scannedAt?: string;
  station?: string | null;
}

export interface ScanReply {
  status: number;
  body: Record<string, unknown>;
}

interface ScanGuestRow {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  company: string | null;
  registration_type_id: number;
  registration_type_name: string;
  barcode: string;
  objstatus: number;
  checked_in_at: string | null;
}

interface ScanSessionRow {
  id: number;
  access_control: number;
  auto_registration: number;
  capacity: number;
  overbook_capacity: number;
}

/** Who is standing at the door. */
function toScanGuest(row: ScanGuestRow) {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    company: row.company,
    registration_type: row.registration_type_id,
    registration_type_name: row.registration_type_name,
    barcode: row.barcode,
  };
}

const GUEST_COLUMNS = `g.id, g.first_name, g.last_name, g.email, g.company, g.registration_type_id, rt.name AS registration_type_name,
  g.barcode, g.objstatus, g.checked_in_at
  FROM guests g JOIN registration_types rt ON rt.id = g.registration_type_id`;

// Every statement of the hot path, prepared once per connection.
const SQL = {
  reply: 'SELECT event_id, status_code, body FROM scan_replies WHERE uid = ?',
  guestByBarcode: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.barcode = ?`,
  guestByNfcTag: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.nfc_tag = ?`,
  guestById: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.id = ?`,
  session: 'SELECT id, access_control, auto_registration, capacity, overbook_capacity FROM sessions WHERE id = ? AND event_id = ?',
  lastSessionScan: `SELECT direction, scanned_at FROM checkins
    WHERE event_id = ? AND guest_id = ? AND session_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1`,
  registered: 'SELECT 1 AS yes FROM session_registrations WHERE session_id = ? AND guest_id = ?',
  insertCheckin: `INSERT INTO checkins (uid, created, modified, event_id, guest_id, session_id, direction, scanned_at, station)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  checkinByUid: 'SELECT * FROM checkins WHERE uid = ?',
  guestState: 'UPDATE guests SET checked_in_at = ?, modified = ? WHERE id = ?',
  insertReply: 'INSERT INTO scan_replies (uid, created, modified, event_id, status_code, body) VALUES (?, ?, ?, ?, ?, ?)',
} as const;

type SqlName = keyof typeof SQL;

interface RawStatement {
  all(params: unknown[], cb: (err: Error | null, rows: unknown[]) => void): void;
}
interface RawConnection {
  prepare(sql: string): RawStatement;
}

/** Prepared statements on sqlite3's own connection: no query building, no re-parsing per scan. */
class Statements {
  private prepared = new Map<SqlName, RawStatement>();

  constructor(private readonly conn: RawConnection) {}

  all<T>(name: SqlName, params: unknown[]): Promise<T[]> {
    let stmt = this.prepared.get(name);
    if (!stmt) {
      stmt = this.conn.prepare(SQL[name]);
      this.prepared.set(name, stmt);
    }
    const s = stmt;
    return new Promise((resolve, reject) => s.all(params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  }

  async first<T>(name: SqlName, params: unknown[]): Promise<T | undefined> {
    return (await this.all<T>(name, params))[0];
  }
}

const statementsByConnection = new WeakMap<object, Statements>();

/** The statements of the connection a knex transaction holds, so they stay serialised with knex's own. */
async function statementsOf(trx: Trx): Promise<Statements> {
  const conn = (await trx.client.acquireConnection()) as RawConnection;
  let statements = statementsByConnection.get(conn);
  if (!statements) {
    statements = new Statements(conn);
    statementsByConnection.set(conn, statements);
  }
  return statements;
}

function refusal(status: number, details: string, scanStatus: string, guest?: ScanGuestRow, extra: Record<string, unknown> = {}): ScanReply {
  return { status, body: { details, status: scanStatus, ...extra, ...(guest ? { guest: toScanGuest(guest) } : {}) } };
}

async function findScanGuest(sql: Statements, input: ScanInput): Promise<ScanGuestRow | undefined> {
  if (input.barcode !== undefined) return sql.first('guestByBarcode', [input.eventId, input.barcode]);
  if (input.nfcTag !== undefined) return sql.first('guestByNfcTag', [input.eventId, input.nfcTag]);
  return sql.first('guestById', [input.eventId, input.guestId]);
}

/** Access control at a session door: registered, or registered now if auto-registration has room. */
async function admitToSession(sql: Statements, trx: Trx, session: ScanSessionRow, guest: ScanGuestRow): Promise<ScanReply | undefined> {
  if (!session.access_control) return undefined;
  if (await sql.first('registered', [session.id, guest.id])) return undefined;
  if (!session.auto_registration) return refusal(400, MSG.guestNotRegisteredForSession, SCAN_STATUS.notRegistered, guest);
  // The sessions module owns the capacity rule (capacity plus overbook_capacity).
  const outcome = await registerGuestInSession(trx, session, guest.id);
  if (outcome === REGISTRATION_OUTCOME.full) return refusal(400, MSG.sessionFull, SCAN_STATUS.sessionFull, guest);
  return undefined;
}

/** Decides one scan and writes what it changes; runs inside the caller's transaction. */
async function decide(sql: Statements, trx: Trx, input: ScanInput, now: string): Promise<ScanReply> {
  let session: ScanSessionRow | undefined;
  if (input.sessionId != null) {
    session = await sql.first<ScanSessionRow>('session', [input.sessionId, input.eventId]);
    if (!session) return { status: 404, body: { detail: MSG.sessionNotFound } };
  }
  const guest = await findScanGuest(sql, input);
  if (!guest) return refusal(404, MSG.guestNotFound, SCAN_STATUS.notFound);
  // A guest made inactive while inside can still be let out.
  if (input.direction === 'in' && guest.objstatus === 2) return refusal(400, MSG.guestInactive, SCAN_STATUS.inactive, guest);

  let inSince: string | null;
  if (session) {
    const last = await sql.first<{ direction: string; scanned_at: string }>('lastSessionScan', [input.eventId, guest.id, session.id]);
    inSince = last?.direction === 'in' ? last.scanned_at : null;
  } else {
    inSince = guest.checked_in_at;
  }
  if (input.direction === 'in') {
    if (inSince) {
      return refusal(409, MSG.guestAlreadyCheckedIn, SCAN_STATUS.alreadyCheckedIn, guest, { checked_in_at: toApiDatetime(inSince) });
    }
    if (session) {
      const refused = await admitToSession(sql, trx, session, guest);
      if (refused) return refused;
    }
  } else if (!inSince) {
    return refusal(409, MSG.guestNotCheckedIn, SCAN_STATUS.notCheckedIn, guest);
  }

  const scannedAt = input.scannedAt ?? (toApiDatetime(now) as string);
  const uid = input.uid ?? randomUUID();
  const sessionId = session?.id ?? null;
  let id: number;
  try {
    [{ id }] = await sql.all<{ id: number }>('insertCheckin', [uid, now, now, input.eventId, guest.id, sessionId, input.direction, scannedAt, input.station ?? null]);
  } catch (err) {
    // The uid names a check-in that came in an event file from another laptop: that scan is already recorded.
    if (!isUniqueViolation(err, 'uid')) throw err;
    return replayImported(sql, input, uid, guest);
  }
  // Only the event door moves the guest in or out; a session scan is attendance only.
  if (!session) await sql.all('guestState', [input.direction === 'in' ? scannedAt : null, now, guest.id]);
  return {
    status: 201,
    body: {
      id,
      uid,
      guest_id: guest.id,
      session_id: sessionId,
      direction: input.direction,
      status: input.direction === 'in' ? SCAN_STATUS.checkedIn : SCAN_STATUS.checkedOut,
      scanned_at: toApiDatetime(scannedAt),
      station: input.station ?? null,
      guest: toScanGuest(guest),
    },
  };
}

async function replayImported(sql: Statements, input: ScanInput, uid: string, guest: ScanGuestRow): Promise<ScanReply> {
  const row = await sql.first<CheckinRow>('checkinByUid', [uid]);
  if (!row || row.event_id !== input.eventId) throw ValidationError.field('uid', MSG.scanUidUsedElsewhere);
  return {
    status: 201,
    body: {
      id: row.id,
      uid: row.uid,
      guest_id: row.guest_id,
      session_id: row.session_id,
      direction: row.direction,
      status: row.direction === 'in' ? SCAN_STATUS.checkedIn : SCAN_STATUS.checkedOut,
      scanned_at: toApiDatetime(row.scanned_at),
      station: row.station,
      guest: row.guest_id === guest.id ? toScanGuest(guest) : undefined,
    },
  };
}

/**
 * One scan, exactly once: a uid seen before gets its first answer back and writes nothing;
 * otherwise the decision, the check-in, the guest's state and the remembered answer are
 * written together in the caller's transaction.
 */
export async function recordScan(trx: Trx, input: ScanInput): Promise<ScanReply> {
  const sql = await statementsOf(trx);
  if (input.uid !== undefined) {
    const earlier = await sql.first<{ event_id: number; status_code: number; body: string }>('reply', [input.uid]);
    if (earlier) {
      // Another event's scan (perhaps another organiser's): never shown, never overwritten.
      if (earlier.event_id !== input.eventId) throw ValidationError.field('uid', MSG.scanUidUsedElsewhere);
      return { status: earlier.status_code, body: JSON.parse(earlier.body) };
    }
  }
  const now = nowIso();
  const reply = await decide(sql, trx, input, now);
  if (input.uid !== undefined) {
    await sql.all('insertReply', [input.uid, now, now, input.eventId, reply.status, JSON.stringify(reply.body)]);
  }
  return reply;
}

// ---------------------------------------------------------------------------------------
// Group commit

interface PendingScan {
  input: ScanInput;
  resolve(reply: ScanReply): void;
  reject(err: unknown): void;
}

// Large enough to absorb a burst, small enough that one slow batch never stalls the door.
const MAX_BATCH = 128;

/**
 * The single writer of scans. Scans arriving while a transaction is open wait and are then
 * decided one after another in ONE transaction (one commit for the lot), each answered on its
 * own. If a batch fails, its scans are retried one transaction each, so one bad scan never
 * takes the others down and nothing is half-written.
 */
export class ScanDesk {
  private queue: PendingScan[] = [];
  private draining = false;

  constructor(private readonly db: Db) {}

  scan(input: ScanInput): Promise<ScanReply> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.commit(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = false;
    }
  }

  private async commit(batch: PendingScan[]): Promise<void> {
    try {
      const replies = await this.db.transaction(async (trx) => {
        const out: ScanReply[] = [];
        for (const pending of batch) out.push(await recordScan(trx, pending.input));
        return out;
      });
      batch.forEach((pending, i) => pending.resolve(replies[i]));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      for (const pending of batch) {
        try {
          pending.resolve(await this.db.transaction((trx) => recordScan(trx, pending.input)));
        } catch (single) {
          pending.reject(single);
        }
      }
    }
  }
}

const desks = new WeakMap<Db, ScanDesk>();

/** The one desk of a database. */
export function scanDesk(db: Db): ScanDesk {
  let desk = desks.get(db);
  if (!desk) {
    desk = new ScanDesk(db);
    desks.set(db, desk);
  }
  return desk;
}
