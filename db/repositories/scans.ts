/**
 * Recording scans: the statements of a batch (a lone scan is a batch of one), read at once,
 * then written together. What each scan gets is decided in scan-decisions.ts, on these reads.
 */
import type { Trx } from '../knex';
import { isUniqueViolation, uniqueKey } from '../errors';
import { nowIso, toApiDatetime } from '../../core/time';
import { isGuestRegistered, lockSessionSeats, REGISTRATION_OUTCOME, registerGuestInSession } from './sessions';
import { visibleEvents } from './events';
import { dialectOf } from '../dialect';
import { jsonArrayText, jsonObjectText } from '../dialect/json';
import { sentAtOnce } from '../write-transaction';
import { doorRefusal, doorStateOf, SCAN_STATUS, sessionEntryRefusal, type ScanRefusal } from '../../core/scan';
import type { CheckinRow } from './checkins';
import { accepted, decideScans, newCheckin, scanInstant, turnedAway, type Plan, type ScanAnswer, type ScanGuestRow, type ScanOutcome, type ScanRequest, type ScanSessionRow } from './scan-decisions';

export type { ScanAnswer, ScanInput, ScanOutcome, ScanRequest } from './scan-decisions';

/**
 * The guest `g`'s answers to the event's active questions marked show_at_door, as JSON text,
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

function scanGuests(trx: Trx, eventIds: number[]) {
  return trx<ScanGuestRow>('guests as g')
    .join('registration_types as rt', 'rt.id', 'g.registration_type_id')
    .whereIn('g.event_id', eventIds)
    .select(
      'g.id',
      'g.event_id',
      'g.first_name',
      'g.last_name',
      'g.email',
      'g.company',
      'g.registration_type_id',
      'rt.name as registration_type_name',
      'g.barcode',
      'g.nfc_tag',
      'g.objstatus',
      'g.checked_in_at',
      'g.attention',
      'g.notes',
      'rt.attention as registration_type_attention',
      trx.raw(`${doorAnswersSql(trx)} as door_answers`),
    );
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

// ---------------------------------------------------------------------------------------
// The batch's reads

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
async function guestsOfScans(trx: Trx, eventIds: number[], scans: ScanRequest[]): Promise<ScanGuestRow[]> {
  const named = [
    { column: 'g.barcode', values: scans.flatMap((s) => (s.input.barcode === undefined ? [] : [s.input.barcode])) },
    { column: 'g.nfc_tag', values: scans.flatMap((s) => (s.input.nfcTag === undefined ? [] : [s.input.nfcTag])) },
    { column: 'g.id', values: scans.flatMap((s) => (s.input.guestId === undefined ? [] : [s.input.guestId])) },
  ].filter((kind) => kind.values.length > 0);
  if (named.length === 0) return [];
  if (dialectOf(trx).name === 'postgres') {
    return (await scanGuests(trx, eventIds)
      .where((q) => named.forEach((kind) => q.orWhereIn(kind.column, kind.values)))
      .forUpdate('g')) as ScanGuestRow[];
  }
  return (await sentAtOnce(named.map((kind) => scanGuests(trx, eventIds).whereIn(kind.column, kind.values) as Promise<ScanGuestRow[]>))).flat();
}

/** The session doors the scans name, of the batch's events. */
async function sessionsOfScans(trx: Trx, eventIds: number[], scans: ScanRequest[]): Promise<ScanSessionRow[]> {
  const ids = [...new Set(scans.flatMap((s) => (s.input.sessionId == null ? [] : [s.input.sessionId])))];
  if (ids.length === 0) return [];
  return trx('sessions').whereIn('id', ids).whereIn('event_id', eventIds).select('id', 'event_id', 'access_control', 'auto_registration');
}

// ---------------------------------------------------------------------------------------
// Session doors: attendance, seats and registrations, one scan at a time

/** The guest's last scan still standing at the event door (session null) or at a session. */
function lastStanding(trx: Trx, eventId: number, guestId: number, sessionId: number | null) {
  return trx<CheckinRow>('checkins')
    .where({ event_id: eventId, guest_id: guestId, session_id: sessionId })
    .whereNull('undone_at')
    .orderBy('id', 'desc')
    .first('direction', 'scanned_at', 'station');
}

/**
 * A session door is attendance only: the guest's event state stays. The guest's row is locked
 * first (an update that changes nothing), so scans of one guest at any session queue behind
 * each other in every process and database; then the last scan there decides, and a seat is
 * taken by registerGuestInSession's compare-and-set on the session (access control) or under
 * lockSessionSeats' lock on it until this transaction commits (core's sessionEntryRefusal).
 */
async function passSessionDoor(trx: Trx, scan: ScanRequest, guest: ScanGuestRow, session: ScanSessionRow, now: string): Promise<ScanOutcome> {
  const { eventId, input } = scan;
  await trx('guests').where({ id: guest.id }).update({ modified: trx.ref('modified') });
  const last = await lastStanding(trx, eventId, guest.id, session.id);
  const state = doorStateOf(last, guest.objstatus);
  let turnedAwayAs = doorRefusal(input.direction, state) as ScanRefusal | undefined;
  if (!turnedAwayAs && input.direction === 'in') {
    const accessControl = Boolean(session.access_control);
    const entry = sessionEntryRefusal({
      accessControl,
      autoRegistration: Boolean(session.auto_registration),
      ...(accessControl ? { registered: await isGuestRegistered(trx, session.id, guest.id) } : await lockSessionSeats(trx, session.id, guest.id)),
    });
    if (entry === 'register') {
      if ((await registerGuestInSession(trx, session, guest.id)) === REGISTRATION_OUTCOME.full) turnedAwayAs = SCAN_STATUS.sessionFull;
    } else turnedAwayAs = entry;
  }
  if (turnedAwayAs === SCAN_STATUS.alreadyCheckedIn) {
    return turnedAway(turnedAwayAs, guest, { checked_in_at: toApiDatetime(state.inSince), checked_in_station: last?.station ?? null });
  }
  if (turnedAwayAs) return turnedAway(turnedAwayAs, guest);
  const row = newCheckin(scan, guest.id, session.id, scanInstant(input, now), now);
  const [{ id }] = await trx('checkins').insert({ ...row, scanned_by: input.scannedBy ?? null }).returning('id');
  return accepted({ ...row, id }, guest);
}

/** A check-in an event file brought under the scan's uid: its answer from the stored row (writes nothing). */
async function answerOfImported(trx: Trx, eventId: number, checkinId: number): Promise<ScanOutcome> {
  const imported = (await trx<CheckinRow>('checkins').where({ id: checkinId }).first()) as CheckinRow;
  return accepted(imported, (await scanGuests(trx, [eventId]).where('g.id', imported.guest_id).first()) as ScanGuestRow);
}

// ---------------------------------------------------------------------------------------
// Every scan: a batch, a lone scan being a batch of one

/**
 * Records scans, each exactly once, inside the caller's write transaction: a lone scan is a
 * batch of one. Scope, the remembered answers of the uids, the guests (locked on PostgreSQL),
 * the session doors and the ids the event-door check-ins will take are read at once; the
 * event-door scans are decided in arrival order on the state as read and as the batch moves
 * it (a guest scanned twice is admitted once, a uid sent twice gets one answer); then one
 * insert of those check-ins, one compare-and-set update of the guests' state and one insert
 * of the answers go out together. Session-door scans (seats, registrations) and uids an event
 * file brought are answered one at a time after that, in the same transaction. A guest whose
 * state changed since it was read fails the compare-and-set, and the whole batch throws.
 */
export async function recordScans(trx: Trx, scans: ScanRequest[]): Promise<ScanAnswer[]> {
  const now = nowIso();
  const eventIds = [...new Set(scans.map((s) => s.eventId))];
  const uids = [...new Set(scans.flatMap((s) => (s.input.uid === undefined ? [] : [s.input.uid])))];
  const eventDoor = scans.filter((s) => s.input.sessionId == null).length;
  // Every scan's reads, in scope or not (scope decides below). The event-door check-ins' ids
  // are known before they are written: the answers that hold them go in with them.
  const [visible, earlierRows, guestRows, sessionRows, checkinIds] = await sentAtOnce([
    visibleEvents(trx, eventIds),
    rememberedOfUids(trx, eventIds, uids),
    guestsOfScans(trx, eventIds, scans),
    sessionsOfScans(trx, eventIds, scans),
    dialectOf(trx).nextIds(trx, 'checkins', eventDoor),
  ]);
  const plan = decideScans(scans, now, { visible, earlierRows, guestRows, sessionRows, checkinIds });
  const { answers } = plan;

  // Where the guests already inside before this batch came in: one read for all of them.
  if (plan.standingStation.length > 0) {
    const lastIds = dialectOf(trx)
      .whereInUnindexed(trx('checkins'), 'event_id', eventIds)
      .whereIn('guest_id', plan.standingStation.map((s) => s.guest.id))
      .whereNull('session_id')
      .whereNull('undone_at')
      .groupBy('guest_id')
      .max('id');
    const rows: Pick<CheckinRow, 'guest_id' | 'direction' | 'station'>[] = await trx('checkins').whereIn('id', lastIds).select('guest_id', 'direction', 'station');
    const station = new Map(rows.map((r) => [r.guest_id, r.direction === 'in' ? r.station : null]));
    for (const { index, guest } of plan.standingStation) {
      answers[index] = turnedAway(SCAN_STATUS.alreadyCheckedIn, guest, { checked_in_at: toApiDatetime(guest.checked_in_at), checked_in_station: station.get(guest.id) ?? null });
    }
  }
  for (const c of plan.checkins) answers[c.index] = accepted(c.row, c.guest);

  // Without a scan decided one at a time, every answer is known: the answers to remember go
  // out with the event door's writes.
  const repliesNow = plan.oneAtATime.length === 0;
  if (repliesNow) for (const [index, first] of plan.repeatOf) answers[index] = answers[first];

  // The event-door writes, together: the check-ins, one compare-and-set for every guest they
  // moved (each row must still hold the state read above, or the update counts short and the
  // batch rolls back).
  const moved = [...new Set(plan.checkins.map((c) => c.row.guest_id))];
  const [, changed] = await sentAtOnce([
    plan.checkins.length > 0 ? trx('checkins').insert(plan.checkins.map((c) => ({ ...c.row, scanned_by: scans[c.index].input.scannedBy ?? null }))) : undefined,
    moved.length > 0 ? compareAndSetDoorState(trx, moved, plan, now) : 0,
    repliesNow ? rememberAnswers(trx, plan, now) : undefined,
  ]);
  if (changed !== moved.length) throw new Error('A guest scanned in this batch changed since it was read');
  if (repliesNow) return answers;

  // After the event door's check-ins, so that ids counted by the database come after theirs.
  for (const one of plan.oneAtATime) {
    const scan = scans[one.index];
    if (one.checkinId !== undefined) answers[one.index] = await answerOfImported(trx, scan.eventId, one.checkinId);
    else answers[one.index] = await passSessionDoor(trx, scan, one.guest as ScanGuestRow, one.session as ScanSessionRow, now);
  }
  for (const [index, first] of plan.repeatOf) answers[index] = answers[first];
  await rememberAnswers(trx, plan, now);
  return answers;
}

/** The answers of the batch's new uids, remembered: a scan sent again gets its first answer. */
async function rememberAnswers(trx: Trx, plan: Plan, now: string): Promise<void> {
  if (plan.replies.length === 0) return;
  await trx('scan_replies').insert(plan.replies.map((r) => ({ uid: r.uid, created: now, modified: now, event_id: r.eventId, body: JSON.stringify((plan.answers[r.index] as ScanOutcome).body) })));
}

/** Moves the event-door state of `moved` guests, each only if it still holds what was read. */
function compareAndSetDoorState(trx: Trx, moved: number[], plan: Plan, now: string): Promise<number> {
  return trx('guests')
    .whereIn('id', moved)
    .where((q) => {
      for (const id of moved) {
        const read = plan.stateRead.get(id)!;
        q.orWhere((g) => {
          g.where({ id, objstatus: read.objstatus });
          if (read.checked_in_at === null) g.whereNull('checked_in_at');
          else g.where('checked_in_at', read.checked_in_at);
        });
      }
    })
    .update({
      // ELSE keeps the column's type for PostgreSQL; the WHERE leaves only moved guests.
      checked_in_at: trx.raw(`CASE ${moved.map(() => 'WHEN id = ? THEN ?').join(' ')} ELSE checked_in_at END`, moved.flatMap((id) => [id, plan.finalState.get(id) ?? null])),
      modified: now,
    }) as Promise<number>;
}
