import { newUid } from '../../core/uid';
import type { Conn, Trx } from '../knex';
import { isUniqueViolation, uniqueKey } from '../errors';
import { nowIso, storedInstant, toApiDatetime } from '../../core/time';
import { isGuestRegistered, REGISTRATION_OUTCOME, registerGuestInSession } from './sessions';
import { NotFoundError } from '../../core/errors';
import { eventInScope, visibleEvents } from './events';
import type { GroupScope } from './groups';
import { dialectOf } from '../dialect';
import { together } from '../write-transaction';
import { MSG } from '../../core/messages';
import { acceptedStatus, doorRefusal, REFUSAL_MESSAGE, SCAN_STATUS, type CheckinDirection, type ScanRefusal, type ScanStatus } from '../../core/scan';
import { GUEST_INACTIVE } from './guests';
import { jsonArrayText, jsonObjectText } from '../dialect/json';

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

/** A list record; an undone scan carries its `undone_at`. */
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
  /** Undone scans too: asked for, or implied by a delta (a syncing client must learn of the undo). */
  includeUndone?: boolean;
}

export async function listCheckins(db: Conn, eventId: number, filter: CheckinListFilter, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<CheckinRow>('checkins');
  // One guest's scans are found by the guest's index, not among every scan of the event.
  if (filter.guestId === undefined) base.where({ event_id: eventId });
  else dialectOf(db).whereInUnindexed(base, 'event_id', [eventId]).where({ guest_id: filter.guestId });
  if (filter.sessionId !== undefined) base.where({ session_id: filter.sessionId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  if (!filter.includeUndone && !page.modifiedSince) base.whereNull('undone_at');
  const [{ count }] = await base.clone().count({ count: '*' });
  // The page's ids first, from an index alone, then only its rows: sorting every row of the event
  // to skip the pages before took 64 ms at offset 40,000 of 80,000 scans (26 ms so), and a door
  // screen's offline copy reads every page.
  const pageIds = base.clone().select('id').orderBy('id').limit(page.limit).offset(page.offset);
  const rows = await db<CheckinRow>('checkins').whereIn('id', pageIds).orderBy('id');
  return { count: Number(count), rows: rows as CheckinRow[] };
}

// ---------------------------------------------------------------------------------------
// Undo

/** The guest's event-level door state, from the last accepted event-level scan still standing. */
async function recomputeGuestState(trx: Trx, eventId: number, guestId: number, now: string): Promise<void> {
  // The (guest_id, event_id, session_id) index finds the guest's scans in this event.
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
 * and is marked by compare-and-set, so of two undos exactly one counts; the guest's state is
 * recomputed in the same transaction. False if unknown or undone already.
 */
export async function undoCheckin(trx: Trx, eventId: number, checkinId: number): Promise<boolean> {
  const now = nowIso();
  const changed = await trx('checkins').where({ id: checkinId, event_id: eventId }).whereNull('undone_at').update({ undone_at: now, modified: now });
  if (changed !== 1) return false;
  const row = await trx<CheckinRow>('checkins').where({ id: checkinId }).first('guest_id', 'session_id');
  if (row!.session_id === null) await recomputeGuestState(trx, eventId, row!.guest_id, now);
  return true;
}

// ---------------------------------------------------------------------------------------
// Scanning: one transaction per scan

export interface ScanInput {
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

/** A scan's answer in the domain's terms: its status (see core/scan.ts) and the body the door sees. */
export interface ScanOutcome {
  status: ScanStatus;
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
  attention: number;
  notes: string | null;
  registration_type_attention: number;
  /** JSON text: the guest's answers to questions shown at the door, a row per answer (null: none). */
  door_answers: string | null;
}

export interface DoorAnswer {
  question_id: number;
  question: string;
  answer: string;
}

/** A question's several answers (checkbox ticks) as one, in their order: what staff read. */
function doorAnswersOf(json: string | null): DoorAnswer[] {
  const byQuestion = new Map<number, DoorAnswer>();
  for (const row of JSON.parse(json ?? '[]') as DoorAnswer[]) {
    const seen = byQuestion.get(row.question_id);
    if (seen) seen.answer = `${seen.answer}; ${row.answer}`;
    else byQuestion.set(row.question_id, { ...row });
  }
  return [...byQuestion.values()];
}

/**
 * The guest \`g\`'s answers to the event's active questions marked show_at_door, as JSON text,
 * choices by their text. Found on guest_answers' guest_id index: a guest who answered nothing
 * costs one probe of it.
 */
function doorAnswersSql(trx: Trx): string {
  const row = jsonObjectText(trx, [
    ['question_id', 'q.id'],
    ['question', 'q.question'],
    ['answer', "case when a.choice_id is null then coalesce(a.text_answer, '') else coalesce(c.answer, '') end"],
  ]);
  return (
    `(select ${jsonArrayText(row, 'q.id, c.position, c.id, a.id')} from guest_answers a ` +
    'join custom_questions q on q.id = a.question_id left join question_choices c on c.id = a.choice_id ' +
    'where a.guest_id = g.id and q.show_at_door and q.objstatus = 1)'
  );
}

interface ScanSessionRow {
  id: number;
  access_control: number | boolean;
  auto_registration: number | boolean;
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
    attention: Boolean(row.attention),
    notes: row.notes,
    registration_type_attention: Boolean(row.registration_type_attention),
    door_answers: doorAnswersOf(row.door_answers),
  };
}

function scanGuests(trx: Trx, eventId: number | number[]) {
  return trx<ScanGuestRow>('guests as g')
    .join('registration_types as rt', 'rt.id', 'g.registration_type_id')
    .whereIn('g.event_id', Array.isArray(eventId) ? eventId : [eventId])
    .select(
      'g.id',
      'g.first_name',
      'g.last_name',
      'g.email',
      'g.company',
      'g.registration_type_id',
      'rt.name as registration_type_name',
      'g.barcode',
      'g.objstatus',
      'g.checked_in_at',
      'g.attention',
      'g.notes',
      'rt.attention as registration_type_attention',
      trx.raw(`${doorAnswersSql(trx)} as door_answers`),
    );
}

async function findScanGuest(trx: Trx, eventId: number, input: ScanInput): Promise<ScanGuestRow | undefined> {
  const query = scanGuests(trx, eventId);
  if (input.barcode !== undefined) query.where('g.barcode', input.barcode);
  else if (input.nfcTag !== undefined) query.where('g.nfc_tag', input.nfcTag);
  else query.where('g.id', input.guestId as number);
  return query.first();
}

function refusal(status: ScanRefusal, guest?: ScanGuestRow, extra: Record<string, unknown> = {}): ScanOutcome {
  return { status, body: { details: REFUSAL_MESSAGE[status], status, ...extra, ...(guest ? { guest: toScanGuest(guest) } : {}) } };
}

function accepted(row: Pick<CheckinRow, 'id' | 'uid' | 'guest_id' | 'session_id' | 'direction' | 'scanned_at' | 'station'>, guest: ScanGuestRow): ScanOutcome {
  const status = acceptedStatus(row.direction);
  return {
    status,
    body: {
      id: row.id,
      uid: row.uid,
      guest_id: row.guest_id,
      session_id: row.session_id,
      direction: row.direction,
      status,
      scanned_at: toApiDatetime(row.scanned_at),
      station: row.station,
      guest: toScanGuest(guest),
    },
  };
}

/** The guest's standing in-scan at the event door (session null) or at a session: when and where. */
async function standingIn(trx: Trx, eventId: number, guestId: number, sessionId: number | null) {
  const last = await trx<CheckinRow>('checkins')
    .where({ event_id: eventId, guest_id: guestId, session_id: sessionId })
    .whereNull('undone_at')
    .orderBy('id', 'desc')
    .first('direction', 'scanned_at', 'station');
  return last?.direction === 'in' ? last : undefined;
}

/** The refusal of a scan the rules turned away, with when and where an already-in guest came in. */
async function refused(trx: Trx, eventId: number, status: ScanRefusal, guest: ScanGuestRow, sessionId: number | null, inSince: string | null): Promise<ScanOutcome> {
  if (status !== SCAN_STATUS.alreadyCheckedIn) return refusal(status, guest);
  const standing = await standingIn(trx, eventId, guest.id, sessionId);
  return refusal(status, guest, { checked_in_at: toApiDatetime(inSince), checked_in_station: standing?.station ?? null });
}

/**
 * The event door: the guest's state moves by compare-and-set, so of two scans racing in two
 * processes exactly one changes the row, and the affected-row count decides admission.
 */
async function passEventDoor(trx: Trx, eventId: number, input: ScanInput, guest: ScanGuestRow, scannedAt: string, now: string): Promise<ScanRefusal | undefined> {
  const changed = await trx('guests')
    .where({ id: guest.id })
    .modify((q) => (input.direction === 'in' ? q.whereNull('checked_in_at').whereNot('objstatus', GUEST_INACTIVE) : q.whereNotNull('checked_in_at')))
    .update({ checked_in_at: input.direction === 'in' ? scannedAt : null, modified: now });
  if (changed === 1) return undefined;
  // Turned away: the row as it stands now, in this transaction, says why (the update's
  // condition is this rule, so one of its refusals applies).
  const current = await trx('guests').where({ id: guest.id }).first('objstatus', 'checked_in_at');
  if (!current) return SCAN_STATUS.notFound;
  Object.assign(guest, current);
  return doorRefusal(input.direction, { inactive: guest.objstatus === GUEST_INACTIVE, inSince: guest.checked_in_at }) as ScanRefusal;
}

/**
 * A session door is attendance only: the guest's event state stays. The guest's row is locked
 * first (an update that changes nothing), so scans of one guest at any session queue behind
 * each other in every process and database; then the last scan there decides, and a seat is
 * taken by registerGuestInSession's compare-and-set on the session.
 */
async function passSessionDoor(trx: Trx, eventId: number, input: ScanInput, guest: ScanGuestRow, session: ScanSessionRow): Promise<{ refusal?: ScanRefusal; inSince: string | null }> {
  await trx('guests').where({ id: guest.id }).update({ modified: trx.ref('modified') });
  const inSince = (await standingIn(trx, eventId, guest.id, session.id))?.scanned_at ?? null;
  const rule = doorRefusal(input.direction, { inactive: guest.objstatus === GUEST_INACTIVE, inSince });
  if (rule || input.direction === 'out' || !session.access_control) return { refusal: rule, inSince };
  if (await isGuestRegistered(trx, session.id, guest.id)) return { inSince };
  if (!session.auto_registration) return { refusal: SCAN_STATUS.notRegistered, inSince };
  const outcome = await registerGuestInSession(trx, session, guest.id);
  return { refusal: outcome === REGISTRATION_OUTCOME.full ? SCAN_STATUS.sessionFull : undefined, inSince };
}

/** Decides one new scan and writes what it changes. */
async function decide(trx: Trx, eventId: number, input: ScanInput, now: string): Promise<ScanOutcome> {
  let session: ScanSessionRow | undefined;
  if (input.sessionId != null) {
    session = await trx('sessions').where({ id: input.sessionId, event_id: eventId }).first('id', 'access_control', 'auto_registration');
    if (!session) throw new NotFoundError(MSG.sessionNotFound);
  }
  const guest = await findScanGuest(trx, eventId, input);
  if (!guest) return refusal(SCAN_STATUS.notFound);
  const scannedAt = scanInstant(input, now);
  if (session) {
    const { refusal: turnedAway, inSince } = await passSessionDoor(trx, eventId, input, guest, session);
    if (turnedAway) return refused(trx, eventId, turnedAway, guest, session.id, inSince);
  } else {
    const turnedAway = await passEventDoor(trx, eventId, input, guest, scannedAt, now);
    if (turnedAway) return refused(trx, eventId, turnedAway, guest, null, guest.checked_in_at);
  }
  const row = {
    uid: input.uid ?? newUid(),
    created: now,
    modified: now,
    event_id: eventId,
    guest_id: guest.id,
    session_id: session?.id ?? null,
    direction: input.direction,
    scanned_at: scannedAt,
    station: input.station ?? null,
  };
  const [{ id }] = await trx('checkins').insert({ ...row, scanned_by: input.scannedBy ?? null }).returning('id');
  return accepted({ ...row, id }, guest);
}

/** When a scan happened, stored as an instant: the Datetime its station sent (validated), or now to the second. */
function scanInstant(input: ScanInput, now: string): string {
  return storedInstant(input.scannedAt ?? (toApiDatetime(now) as string)) as string;
}

/** A uid this event has seen: its remembered answer, or the check-in an event file brought with it. */
async function earlierAnswer(trx: Trx, eventId: number, uid: string): Promise<ScanOutcome | undefined> {
  // Both lookups in one statement: the scan's hot path pays one round trip for "seen before?".
  const rows: { body: string | null; checkin_id: number | null }[] = await trx('scan_replies')
    .where({ event_id: eventId, uid })
    .select('body', trx.raw('NULL AS checkin_id'))
    .unionAll((q) => q.from('checkins').where({ event_id: eventId, uid }).select(trx.raw('NULL AS body'), 'id AS checkin_id'));
  // A scan answered here has both; its remembered answer wins.
  const earlier = rows.find((row) => row.body !== null) ?? rows[0];
  if (!earlier) return undefined;
  if (earlier.body !== null) {
    const body = JSON.parse(earlier.body) as Record<string, unknown>;
    return { status: body.status as ScanStatus, body };
  }
  const imported = (await trx<CheckinRow>('checkins').where({ id: earlier.checkin_id as number }).first()) as CheckinRow;
  return accepted(imported, (await scanGuests(trx, eventId).where('g.id', imported.guest_id).first()) as ScanGuestRow);
}

const SCAN_UID_KEYS = [uniqueKey('checkins', ['uid', 'event_id'], 'checkins_uid_event_unique'), uniqueKey('scan_replies', ['event_id', 'uid'], 'scan_replies_event_uid_unique')];

/**
 * Runs a scan's whole transaction again when another transaction stored the same uid first
 * (copies of one queued scan replayed at once on PostgreSQL, where the unique index, not a
 * single writer, decides): the rerun finds the first answer and returns it.
 */
export async function retryOnScanUidRace<T>(scan: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scan();
    } catch (err) {
      if (attempt >= 3 || !SCAN_UID_KEYS.some((key) => isUniqueViolation(err, key))) throw err;
    }
  }
}

/**
 * One scan, exactly once, inside the caller's transaction (the event already scope-checked in
 * it): a uid this event has seen gets its first answer back and writes nothing; otherwise the
 * decision, the check-in, the guest's state, the session seat and the remembered answer are
 * written together. The (uid, event_id) unique index makes a second answer to one uid fail
 * rather than be stored.
 */
export async function recordScan(trx: Trx, eventId: number, input: ScanInput): Promise<ScanOutcome> {
  if (input.uid !== undefined) {
    const earlier = await earlierAnswer(trx, eventId, input.uid);
    if (earlier) return earlier;
  }
  const now = nowIso();
  const outcome = await decide(trx, eventId, input, now);
  if (input.uid !== undefined) {
    await trx('scan_replies').insert({ uid: input.uid, created: now, modified: now, event_id: eventId, body: JSON.stringify(outcome.body) });
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------
// Group commit: event-door scans that queued while the writer was busy, decided together

/** One event-door scan of a batch: its event, the caller's group scope, what was scanned. */
export interface BatchScan {
  eventId: number;
  scope: GroupScope;
  input: ScanInput;
}

/** A batch scan's answer, or the NotFoundError of an event the caller cannot see. */
export type BatchAnswer = ScanOutcome | NotFoundError;

interface BatchGuestRow extends ScanGuestRow {
  event_id: number;
  nfc_tag: string | null;
}

/** The guest a scan names, among the batch's guests. */
function guestKey(eventId: number, input: ScanInput): string {
  if (input.barcode !== undefined) return `${eventId}|b|${input.barcode}`;
  if (input.nfcTag !== undefined) return `${eventId}|n|${input.nfcTag}`;
  return `${eventId}|i|${input.guestId}`;
}

const uidKey = (eventId: number, uid: string) => `${eventId}|${uid}`;

/** The remembered answers of these uids, and the check-ins an event file brought with them. */
async function rememberedOfUids(trx: Trx, eventIds: number[], uids: string[]): Promise<{ event_id: number; uid: string; body: string | null; checkin_id: number | null }[]> {
  if (uids.length === 0) return [];
  return trx('scan_replies')
    .whereIn('event_id', eventIds)
    .whereIn('uid', uids)
    .select('event_id', 'uid', 'body', trx.raw('NULL AS checkin_id'))
    .unionAll((q) => q.from('checkins').whereIn('event_id', eventIds).whereIn('uid', uids).select('event_id', 'uid', trx.raw('NULL AS body'), 'id AS checkin_id'));
}

/**
 * The guests the scans name, by barcode, NFC tag or id. SQLite, planning without statistics,
 * walked every guest of the event for one statement ORing the kinds: it reads each kind by its
 * own index (a guest named twice comes back twice). PostgreSQL locks them until commit in one
 * statement: locking kind after kind, two processes' batches could each wait for the other.
 */
async function guestsOfScans(trx: Trx, eventIds: number[], scans: BatchScan[]): Promise<BatchGuestRow[]> {
  const named = [
    { column: 'g.barcode', values: scans.flatMap((s) => (s.input.barcode === undefined ? [] : [s.input.barcode])) },
    { column: 'g.nfc_tag', values: scans.flatMap((s) => (s.input.nfcTag === undefined ? [] : [s.input.nfcTag])) },
    { column: 'g.id', values: scans.flatMap((s) => (s.input.guestId === undefined ? [] : [s.input.guestId])) },
  ].filter((kind) => kind.values.length > 0);
  if (named.length === 0) return [];
  const guests = () => scanGuests(trx, eventIds).select('g.event_id', 'g.nfc_tag');
  if (dialectOf(trx).name === 'postgres') {
    return (await guests()
      .where((q) => named.forEach((kind) => q.orWhereIn(kind.column, kind.values)))
      .forUpdate('g')) as BatchGuestRow[];
  }
  return (await together(named.map((kind) => guests().whereIn(kind.column, kind.values) as Promise<BatchGuestRow[]>))).flat();
}

/**
 * Event-door scans (no session) decided together inside the caller's transaction, with a
 * constant number of statements whatever the batch's size: the batch's events (scope), the
 * remembered answers of its uids, its guests (locked on PostgreSQL) and the ids its check-ins
 * will take, read together; then one insert of the check-ins, one compare-and-set update of
 * the guests' state and one insert of the answers, together. Two round trips between BEGIN
 * and COMMIT where there were six.
 * Decisions are made in arrival order, so a guest scanned twice is admitted once and a uid
 * sent twice gets one answer. A guest whose state changed since it was read fails the
 * compare-and-set and the whole batch throws (the caller retries its scans one by one).
 */
export async function recordEventDoorScans(trx: Trx, scans: BatchScan[]): Promise<BatchAnswer[]> {
  const now = nowIso();
  const eventIds = [...new Set(scans.map((s) => s.eventId))];
  // The batch's reads are sent at once (together): the remembered answers and guests of every
  // scan, in scope or not; scope decides below.
  const uids = [...new Set(scans.flatMap((s) => (s.input.uid === undefined ? [] : [s.input.uid])))];
  const [visible, earlierRows, guestRows, checkinIds] = await together([
    visibleEvents(trx, eventIds),
    rememberedOfUids(trx, eventIds, uids),
    guestsOfScans(trx, eventIds, scans),
    // The check-ins' ids, known before they are written: the answers that hold them go in
    // with them.
    dialectOf(trx).nextIds(trx, 'checkins', scans.length),
  ]);
  const events = new Map(visible.map((e) => [e.id, e]));
  const inScope = scans.map((s) => {
    const event = events.get(s.eventId);
    return event !== undefined && eventInScope(event, s.scope);
  });
  // Remembered answers (and check-ins an event file brought) of the batch's uids.
  const earlier = new Map<string, { body: string | null; checkin_id: number | null }>();
  for (const row of earlierRows) {
    const key = uidKey(row.event_id, row.uid);
    // A scan answered here has both; its remembered answer wins.
    if (!earlier.has(key) || row.body !== null) earlier.set(key, row);
  }
  const guests = new Map<string, BatchGuestRow>();
  for (const row of guestRows) {
    guests.set(`${row.event_id}|b|${row.barcode}`, row);
    if (row.nfc_tag !== null) guests.set(`${row.event_id}|n|${row.nfc_tag}`, row);
    guests.set(`${row.event_id}|i|${row.id}`, row);
  }

  // Decisions in arrival order, on the state as read and as this batch moves it.
  const stateRead = new Map<number, { checked_in_at: string | null; objstatus: number }>();
  const admittedHere = new Map<number, string | null>();
  const answers: BatchAnswer[] = [];
  const answeredUid = new Map<string, number>();
  const repeatOf = new Map<number, number>();
  const checkins: { index: number; guest: ScanGuestRow; row: Omit<CheckinRow, 'undone_at'> }[] = [];
  const replies: { index: number; uid: string; eventId: number }[] = [];
  const standingStation: { index: number; guest: BatchGuestRow }[] = [];
  const fromFile: number[] = [];
  scans.forEach((scan, index) => {
    if (!inScope[index]) {
      answers[index] = new NotFoundError(MSG.eventNotFound);
      return;
    }
    const { input, eventId } = scan;
    if (input.uid !== undefined) {
      const key = uidKey(eventId, input.uid);
      const seen = earlier.get(key);
      if (seen?.body != null) {
        const body = JSON.parse(seen.body) as Record<string, unknown>;
        answers[index] = { status: body.status as ScanStatus, body };
        return;
      }
      if (seen) {
        fromFile.push(index);
        return;
      }
      const first = answeredUid.get(key);
      if (first !== undefined) {
        repeatOf.set(index, first);
        return;
      }
      answeredUid.set(key, index);
      replies.push({ index, uid: input.uid, eventId });
    }
    const found = guests.get(guestKey(eventId, input));
    if (!found) {
      answers[index] = refusal(SCAN_STATUS.notFound);
      return;
    }
    if (!stateRead.has(found.id)) stateRead.set(found.id, { checked_in_at: found.checked_in_at, objstatus: found.objstatus });
    // Each scan answers with the guest as it stood at its own turn.
    const guest = { ...found };
    const rule = doorRefusal(input.direction, { inactive: guest.objstatus === GUEST_INACTIVE, inSince: guest.checked_in_at });
    if (rule === SCAN_STATUS.alreadyCheckedIn) {
      if (admittedHere.has(guest.id)) {
        answers[index] = refusal(rule, guest, { checked_in_at: toApiDatetime(guest.checked_in_at), checked_in_station: admittedHere.get(guest.id) ?? null });
      } else {
        standingStation.push({ index, guest });
      }
      return;
    }
    if (rule) {
      answers[index] = refusal(rule, guest);
      return;
    }
    const scannedAt = scanInstant(input, now);
    found.checked_in_at = input.direction === 'in' ? scannedAt : null;
    if (input.direction === 'in') admittedHere.set(guest.id, input.station ?? null);
    else admittedHere.delete(guest.id);
    checkins.push({
      index,
      guest,
      row: {
        id: checkinIds[checkins.length],
        uid: input.uid ?? newUid(),
        created: now,
        modified: now,
        event_id: eventId,
        guest_id: guest.id,
        session_id: null,
        direction: input.direction,
        scanned_at: scannedAt,
        station: input.station ?? null,
      },
    });
  });

  // Where the guests already inside before this batch came in: one read for all of them.
  if (standingStation.length > 0) {
    const lastIds = dialectOf(trx)
      .whereInUnindexed(trx('checkins'), 'event_id', eventIds)
      .whereIn('guest_id', standingStation.map((s) => s.guest.id))
      .whereNull('session_id')
      .whereNull('undone_at')
      .groupBy('guest_id')
      .max('id');
    const rows: Pick<CheckinRow, 'guest_id' | 'direction' | 'station'>[] = await trx('checkins').whereIn('id', lastIds).select('guest_id', 'direction', 'station');
    const station = new Map(rows.map((r) => [r.guest_id, r.direction === 'in' ? r.station : null]));
    for (const { index, guest } of standingStation) {
      answers[index] = refusal(SCAN_STATUS.alreadyCheckedIn, guest, { checked_in_at: toApiDatetime(guest.checked_in_at), checked_in_station: station.get(guest.id) ?? null });
    }
  }

  // Check-ins an event file brought: their answer from the stored row (rare; writes nothing).
  for (const index of fromFile) answers[index] = await recordScan(trx, scans[index].eventId, scans[index].input);

  for (const c of checkins) answers[c.index] = accepted(c.row, c.guest);
  // A uid sent twice in the batch answers as its first scan did.
  for (const [index, first] of repeatOf) answers[index] = answers[first];

  // The batch's writes, together: the check-ins, one compare-and-set for every guest they
  // moved (each row must still hold the state read above, or the update counts short and the
  // batch rolls back), and the answers to remember.
  const moved = [...new Set(checkins.map((c) => c.row.guest_id))];
  const finalState = new Map([...guests.values()].map((g) => [g.id, g.checked_in_at]));
  const [, changed] = await together([
    checkins.length > 0 ? trx('checkins').insert(checkins.map((c) => ({ ...c.row, scanned_by: scans[c.index].input.scannedBy ?? null }))) : undefined,
    moved.length > 0
      ? (trx('guests')
          .whereIn('id', moved)
          .where((q) => {
            for (const id of moved) {
              const read = stateRead.get(id)!;
              q.orWhere((g) => {
                g.where({ id, objstatus: read.objstatus });
                if (read.checked_in_at === null) g.whereNull('checked_in_at');
                else g.where('checked_in_at', read.checked_in_at);
              });
            }
          })
          .update({
            // ELSE keeps the column's type for PostgreSQL; the WHERE leaves only moved guests.
            checked_in_at: trx.raw(`CASE ${moved.map(() => 'WHEN id = ? THEN ?').join(' ')} ELSE checked_in_at END`, moved.flatMap((id) => [id, finalState.get(id) ?? null])),
            modified: now,
          }) as Promise<number>)
      : 0,
    replies.length > 0
      ? trx('scan_replies').insert(
          replies.map((r) => ({ uid: r.uid, created: now, modified: now, event_id: r.eventId, body: JSON.stringify((answers[r.index] as ScanOutcome).body) })),
        )
      : undefined,
  ]);
  if (changed !== moved.length) throw new Error('A guest scanned in this batch changed since it was read');
  return answers;
}
