import { randomUUID } from 'node:crypto';
import type { Conn, Db, Trx } from '../knex';
import { isUniqueViolation } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';
import type { GroupScope } from './groups';
import { REGISTRATION_OUTCOME, registerGuestInSession } from './sessions';
import { ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { SCAN_STATUS, type CheckinDirection } from '../../core/scan';

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
async function recomputeGuestState(trx: Trx, eventId: number, guestId: number, now: string): Promise<void> {
  // event_id too, so the (event_id, guest_id, session_id) index finds the guest's scans.
  const last = await trx<CheckinRow>('checkins')
    .where({ event_id: eventId, guest_id: guestId })
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
  if (row.session_id === null) await recomputeGuestState(trx, eventId, row.guest_id, now);
  return true;
}

// ---------------------------------------------------------------------------------------
// Scanning: the door's hot path

export interface ScanInput {
  eventId: number;
  /** The caller's groups (null: all). The scan checks the event's scope itself, see ScanDesk. */
  scope: GroupScope;
  barcode?: string;
  nfcTag?: string;
  guestId?: number;
  sessionId?: number | null;
  direction: CheckinDirection;
  uid?: string;
  /** Stored form `YYYY-MM-DDThh:mm:ss`; the server's now (UTC) when the client sent none. */
  scannedAt?: string;
  station?: string | null;
  /** Who scans (`key:<id>` / `user:<id>`), kept on the check-in: a door may undo only its own. */
  scannedBy?: string;
}

export interface ScanReply {
  status: number;
  body: Record<string, unknown>;
  /** `body` as JSON text when the desk has it already (the remembered answer), so it is serialised once. */
  json?: string;
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
  nfc_tag: string | null;
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

interface ReplyRow {
  uid: string;
  event_id: number;
  status_code: number;
  body: string;
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
  g.barcode, g.nfc_tag, g.objstatus, g.checked_in_at
  FROM guests g JOIN registration_types rt ON rt.id = g.registration_type_id`;

const GUEST_JSON = `json_array(g.id, g.first_name, g.last_name, g.email, g.company, g.registration_type_id, rt.name,
  g.barcode, g.nfc_tag, g.objstatus, g.checked_in_at)`;
// CROSS JOIN keeps the scanned values the outer loop: one index lookup per value, never a
// scan of the event's guests (which the planner picks for an empty id list otherwise).
const GUESTS_JSON = (column: string, param: string) =>
  `(SELECT json_group_array(${GUEST_JSON}) FROM json_each(${param}) AS v
    CROSS JOIN guests g ON g.event_id = ?1 AND g.${column} = v.value
    JOIN registration_types rt ON rt.id = g.registration_type_id)`;

/**
 * Everything a batch of event-door scans needs to be decided, in ONE statement: the event (for
 * its scope), the remembered answers of the batch's uids, the scanned guests by barcode, NFC
 * tag and id, and the last check-in id handed out.
 */
const DOOR_READ = `SELECT json_object(
  'event', (SELECT json_array(id, group_id) FROM events WHERE id = ?1),
  'replies', (SELECT json_group_array(json_array(uid, event_id, status_code, body)) FROM scan_replies
    WHERE uid IN (SELECT value FROM json_each(?2))),
  'by_barcode', ${GUESTS_JSON('barcode', '?3')},
  'by_nfc_tag', ${GUESTS_JSON('nfc_tag', '?4')},
  'by_id', ${GUESTS_JSON('id', '?5')},
  'last_id', COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'checkins'), (SELECT MAX(id) FROM checkins), 0)
) AS batch`;

// Every statement of the hot path, prepared once per connection.
const SQL = {
  event: 'SELECT id, group_id FROM events WHERE id = ?',
  reply: 'SELECT uid, event_id, status_code, body FROM scan_replies WHERE uid = ?',
  guestByBarcode: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.barcode = ?`,
  guestByNfcTag: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.nfc_tag = ?`,
  guestById: `SELECT ${GUEST_COLUMNS} WHERE g.event_id = ? AND g.id = ?`,
  session: 'SELECT id, access_control, auto_registration, capacity, overbook_capacity FROM sessions WHERE id = ? AND event_id = ?',
  lastSessionScan: `SELECT direction, scanned_at FROM checkins
    WHERE event_id = ? AND guest_id = ? AND session_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1`,
  registered: 'SELECT 1 AS yes FROM session_registrations WHERE session_id = ? AND guest_id = ?',
  insertCheckin: `INSERT INTO checkins (uid, created, modified, event_id, guest_id, session_id, direction, scanned_at, station, scanned_by)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  checkinByUid: 'SELECT * FROM checkins WHERE uid = ?',
  doorRead: DOOR_READ,
  guestState: 'UPDATE guests SET checked_in_at = ?, modified = ? WHERE id = ?',
  insertReply: 'INSERT INTO scan_replies (uid, created, modified, event_id, status_code, body) VALUES (?, ?, ?, ?, ?, ?)',
} as const;

type SqlName = keyof typeof SQL;

interface RawStatement {
  all(params: unknown[], cb: (err: Error | null, rows: unknown[]) => void): void;
}
interface RawConnection {
  prepare(sql: string): RawStatement;
  exec(sql: string, cb: (err: Error | null) => void): void;
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

  exec(script: string): Promise<void> {
    return new Promise((resolve, reject) => this.conn.exec(script, (err) => (err ? reject(err) : resolve())));
  }
}

const statementsByConnection = new WeakMap<object, Statements>();

function statementsFor(conn: RawConnection): Statements {
  let statements = statementsByConnection.get(conn);
  if (!statements) {
    statements = new Statements(conn);
    statementsByConnection.set(conn, statements);
  }
  return statements;
}

/** The statements of the connection a knex transaction holds, so they stay serialised with knex's own. */
async function statementsOf(trx: Trx): Promise<Statements> {
  return statementsFor((await trx.client.acquireConnection()) as RawConnection);
}

const EVENT_NOT_FOUND: ScanReply = { status: 404, body: { detail: MSG.eventNotFound } };

function inScope(event: { group_id: number } | undefined, scope: GroupScope): boolean {
  return event !== undefined && (scope === null || scope.includes(event.group_id));
}

function refusal(status: number, details: string, scanStatus: string, guest?: ScanGuestRow, extra: Record<string, unknown> = {}): ScanReply {
  return { status, body: { details, status: scanStatus, ...extra, ...(guest ? { guest: toScanGuest(guest) } : {}) } };
}

/** The door's rules that need no further lookup; undefined means "let them through". */
function judge(input: ScanInput, guest: ScanGuestRow | undefined, inSince: string | null): ScanReply | undefined {
  if (!guest) return refusal(404, MSG.guestNotFound, SCAN_STATUS.notFound);
  // A guest made inactive while inside can still be let out.
  if (input.direction === 'in' && guest.objstatus === 2) return refusal(400, MSG.guestInactive, SCAN_STATUS.inactive, guest);
  if (input.direction === 'in' && inSince) {
    return refusal(409, MSG.guestAlreadyCheckedIn, SCAN_STATUS.alreadyCheckedIn, guest, { checked_in_at: toApiDatetime(inSince) });
  }
  if (input.direction === 'out' && !inSince) return refusal(409, MSG.guestNotCheckedIn, SCAN_STATUS.notCheckedIn, guest);
  return undefined;
}

function accepted(input: ScanInput, id: number, uid: string, sessionId: number | null, scannedAt: string, guest: ScanGuestRow): ScanReply {
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

/** A remembered answer, or a field error when the uid belongs to another event's scan. */
function replayed(earlier: { event_id: number; status_code: number; body: string }, input: ScanInput): ScanReply {
  // Another event's scan (perhaps another organiser's): never shown, never overwritten.
  if (earlier.event_id !== input.eventId) throw ValidationError.field('uid', MSG.scanUidUsedElsewhere);
  return { status: earlier.status_code, body: JSON.parse(earlier.body), json: earlier.body };
}

/** The answer given earlier in the same batch to the same uid. */
function replayedInBatch(earlier: { eventId: number; reply: ScanReply }, input: ScanInput): ScanReply {
  if (earlier.eventId !== input.eventId) throw ValidationError.field('uid', MSG.scanUidUsedElsewhere);
  return earlier.reply;
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
  let inSince: string | null = null;
  if (guest && session) {
    const last = await sql.first<{ direction: string; scanned_at: string }>('lastSessionScan', [input.eventId, guest.id, session.id]);
    inSince = last?.direction === 'in' ? last.scanned_at : null;
  } else if (guest) {
    inSince = guest.checked_in_at;
  }
  const refused = judge(input, guest, inSince);
  if (refused) return refused;
  if (session && input.direction === 'in') {
    const notAdmitted = await admitToSession(sql, trx, session, guest!);
    if (notAdmitted) return notAdmitted;
  }

  const scannedAt = input.scannedAt ?? (toApiDatetime(now) as string);
  const uid = input.uid ?? randomUUID();
  const sessionId = session?.id ?? null;
  let id: number;
  try {
    [{ id }] = await sql.all<{ id: number }>('insertCheckin', [uid, now, now, input.eventId, guest!.id, sessionId, input.direction, scannedAt, input.station ?? null, input.scannedBy ?? null]);
  } catch (err) {
    // The uid names a check-in that came in an event file from another laptop: that scan is already recorded.
    if (!isUniqueViolation(err, 'uid')) throw err;
    return replayImported(sql, input, uid, guest!);
  }
  // Only the event door moves the guest in or out; a session scan is attendance only.
  if (!session) await sql.all('guestState', [input.direction === 'in' ? scannedAt : null, now, guest!.id]);
  return accepted(input, id, uid, sessionId, scannedAt, guest!);
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
 * One scan, exactly once: the event's scope is checked, a uid seen before gets its first
 * answer back and writes nothing; otherwise the decision, the check-in, the guest's state
 * and the remembered answer are written together in the caller's transaction.
 */
export async function recordScan(trx: Trx, input: ScanInput): Promise<ScanReply> {
  const sql = await statementsOf(trx);
  if (!inScope(await sql.first<{ group_id: number }>('event', [input.eventId]), input.scope)) return EVENT_NOT_FOUND;
  if (input.uid !== undefined) {
    const earlier = await sql.first<ReplyRow>('reply', [input.uid]);
    if (earlier) return replayed(earlier, input);
  }
  const now = nowIso();
  const reply = await decide(sql, trx, input, now);
  if (input.uid !== undefined) {
    await sql.all('insertReply', [input.uid, now, now, input.eventId, reply.status, JSON.stringify(reply.body)]);
  }
  return reply;
}

/** A SQL string literal: JSON text with its quotes doubled (SQLite has no other escape). */
function literal(json: string): string {
  return `'${json.replace(/'/g, "''")}'`;
}

type GuestTuple = [number, string, string, string, string | null, number, string, string, string | null, number, string | null];

function guestOf(t: GuestTuple): ScanGuestRow {
  const [id, first_name, last_name, email, company, registration_type_id, registration_type_name, barcode, nfc_tag, objstatus, checked_in_at] = t;
  return { id, first_name, last_name, email, company, registration_type_id, registration_type_name, barcode, nfc_tag, objstatus, checked_in_at };
}

interface DoorBatch {
  event: [number, number] | null;
  replies: [string, number, number, string][];
  by_barcode: GuestTuple[];
  by_nfc_tag: GuestTuple[];
  by_id: GuestTuple[];
  last_id: number;
}

/**
 * A batch of one event's door scans (no session) in two round trips, whatever its size: one
 * statement reads what the decisions need, the decisions run in memory in arrival order (a
 * guest's state carried from scan to scan, so two scans of one badge in a batch admit once),
 * and one script writes the check-ins, the guests' new states and the remembered answers in a
 * single IMMEDIATE transaction. The caller holds knex's only connection throughout, so
 * nothing of this process runs between the read and the write. Each entry is the scan's
 * answer, or the error it alone met.
 */
async function recordDoorScans(sql: Statements, eventId: number, inputs: ScanInput[]): Promise<(ScanReply | Error)[]> {
  const uids = inputs.filter((i) => i.uid !== undefined).map((i) => i.uid as string);
  const barcodes = inputs.filter((i) => i.barcode !== undefined).map((i) => i.barcode);
  const tags = inputs.filter((i) => i.barcode === undefined && i.nfcTag !== undefined).map((i) => i.nfcTag);
  const ids = inputs.filter((i) => i.barcode === undefined && i.nfcTag === undefined).map((i) => i.guestId);
  const [{ batch }] = await sql.all<{ batch: string }>('doorRead', [
    eventId,
    JSON.stringify(uids),
    JSON.stringify(barcodes),
    JSON.stringify(tags),
    JSON.stringify(ids),
  ]);
  const read = JSON.parse(batch) as DoorBatch;
  const event = read.event ? { id: read.event[0], group_id: read.event[1] } : undefined;
  const earlier = new Map(read.replies.map(([uid, event_id, status_code, body]) => [uid, { event_id, status_code, body }]));
  const byBarcode = new Map(read.by_barcode.map((t) => [t[7], guestOf(t)]));
  const byTag = new Map(read.by_nfc_tag.map((t) => [t[8] as string, guestOf(t)]));
  const byId = new Map(read.by_id.map((t) => [t[0], guestOf(t)]));

  const now = nowIso();
  const today = toApiDatetime(now) as string;
  let nextId = read.last_id;
  const out: (ScanReply | Error)[] = [];
  const state = new Map<number, string | null>();
  const fresh = new Map<string, { eventId: number; reply: ScanReply }>();
  const checkins: unknown[][] = [];
  for (const input of inputs) {
    if (!inScope(event, input.scope)) {
      out.push(EVENT_NOT_FOUND);
      continue;
    }
    if (input.uid !== undefined) {
      const prior = earlier.get(input.uid);
      const sameBatch = fresh.get(input.uid);
      if (prior || sameBatch) {
        try {
          out.push(prior ? replayed(prior, input) : replayedInBatch(sameBatch!, input));
        } catch (err) {
          out.push(err as Error);
        }
        continue;
      }
    }
    const guest = input.barcode !== undefined ? byBarcode.get(input.barcode) : input.nfcTag !== undefined ? byTag.get(input.nfcTag) : byId.get(input.guestId as number);
    const inSince = guest ? (state.has(guest.id) ? (state.get(guest.id) as string | null) : guest.checked_in_at) : null;
    let reply = judge(input, guest, inSince);
    if (!reply) {
      const scannedAt = input.scannedAt ?? today;
      const uid = input.uid ?? randomUUID();
      nextId += 1;
      state.set(guest!.id, input.direction === 'in' ? scannedAt : null);
      reply = accepted(input, nextId, uid, null, scannedAt, guest!);
      checkins.push([nextId, uid, guest!.id, input.direction, scannedAt, input.station ?? null, input.scannedBy ?? null]);
    }
    out.push(reply);
    if (input.uid !== undefined) fresh.set(input.uid, { eventId: input.eventId, reply });
  }

  const writes: string[] = [];
  if (checkins.length) {
    writes.push(
      `INSERT INTO checkins (id, uid, created, modified, event_id, guest_id, session_id, direction, scanned_at, station, scanned_by)
        SELECT j.value ->> 0, j.value ->> 1, '${now}', '${now}', ${eventId}, j.value ->> 2, NULL, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6
        FROM json_each(${literal(JSON.stringify(checkins))}) AS j ORDER BY j.key`,
      `UPDATE guests SET checked_in_at = j.value ->> 1, modified = '${now}'
        FROM json_each(${literal(JSON.stringify([...state]))}) AS j WHERE guests.id = j.value ->> 0`,
    );
  }
  if (fresh.size) {
    const replies = [...fresh].map(([uid, f]) => {
      f.reply.json ??= JSON.stringify(f.reply.body);
      return [uid, f.eventId, f.reply.status, f.reply.json];
    });
    writes.push(
      `INSERT INTO scan_replies (uid, created, modified, event_id, status_code, body)
        SELECT j.value ->> 0, '${now}', '${now}', j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(${literal(JSON.stringify(replies))}) AS j`,
    );
  }
  if (writes.length) await sql.exec(`BEGIN IMMEDIATE;\n${writes.join(';\n')};\nCOMMIT;`);
  return out;
}

// ---------------------------------------------------------------------------------------
// Group commit

interface PendingScan {
  input: ScanInput;
  resolve(reply: ScanReply): void;
  reject(err: unknown): void;
}

// Large enough to absorb a burst, small enough that one slow batch never stalls the door.
const MAX_BATCH = 256;

/**
 * The single writer of scans. Scans arriving while a batch is being written wait and are then
 * decided together, one transaction (one commit) per event per batch, each answered on its
 * own. The event's scope is checked here, in the batch, with the same rule as scopedEvent (one
 * query per batch instead of one per scan). Session scans, and any batch that fails, take the
 * one-by-one path: one knex transaction per scan, so one bad scan never takes the others down
 * and nothing is half-written.
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
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        const door = new Map<number, PendingScan[]>();
        const oneByOne: PendingScan[] = [];
        for (const pending of batch) {
          if (pending.input.sessionId != null) oneByOne.push(pending);
          else {
            const list = door.get(pending.input.eventId);
            if (list) list.push(pending);
            else door.set(pending.input.eventId, [pending]);
          }
        }
        for (const [eventId, pendings] of door) await this.commitDoor(eventId, pendings);
        await this.oneByOne(oneByOne);
      }
    } finally {
      this.draining = false;
    }
  }

  private async commitDoor(eventId: number, batch: PendingScan[]): Promise<void> {
    const conn = (await this.db.client.acquireConnection()) as RawConnection;
    let outcomes: (ScanReply | Error)[] | undefined;
    try {
      outcomes = await recordDoorScans(statementsFor(conn), eventId, batch.map((p) => p.input));
    } catch {
      // Undo whatever part of the script ran; the one-by-one path then settles every scan
      // (including what only it handles: a uid of a check-in imported from another laptop).
      await statementsFor(conn)
        .exec('ROLLBACK')
        .catch(() => undefined);
    } finally {
      await this.db.client.releaseConnection(conn);
    }
    if (!outcomes) return this.oneByOne(batch);
    // Answered after the next batch's read is on its way: the database thread works on it
    // while this thread writes these responses (the batch is committed already).
    setImmediate(() =>
      batch.forEach((pending, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof Error) pending.reject(outcome);
        else pending.resolve(outcome);
      }),
    );
  }

  private async oneByOne(batch: PendingScan[]): Promise<void> {
    for (const pending of batch) {
      try {
        pending.resolve(await this.db.transaction((trx) => recordScan(trx, pending.input)));
      } catch (err) {
        pending.reject(err);
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
