/**
 * Recording scans, each exactly once, inside the caller's write transaction: a lone scan is a
 * batch of one. The reads and writes are db/repositories/scans.ts's; the decisions are
 * ./scan-decisions.ts's (the event door's batch) and core/scan.ts's (every door's rule).
 */
import type { Trx } from '../../db/knex';
import { nowIso } from '../../core/time';
import { doorRefusal, doorStateOf, SCAN_STATUS, sessionEntryRefusal, type ScanRefusal } from '../../core/scan';
import { isGuestRegistered, lockSessionSeats, REGISTRATION_OUTCOME, registerGuestInSession } from '../../db/repositories/sessions';
import {
  compareAndSetDoorState,
  importedCheckin,
  insertCheckin,
  insertCheckins,
  lastStanding,
  lockGuest,
  readScanBatch,
  rememberAnswers,
  standingStations,
  type ScanGuestRow,
  type ScanSessionRow,
} from '../../db/repositories/scans';
import { sentAtOnce } from '../../db/write-transaction';
import { accepted, alreadyIn, decideScans, newCheckin, scanInstant, turnedAway, type Plan, type ScanAnswer, type ScanOutcome, type ScanRequest } from './scan-decisions';

export type { ScanAnswer, ScanInput, ScanOutcome, ScanRequest } from './scan-decisions';

/**
 * A session door is attendance only: the guest's event state stays. The guest's row is locked
 * first, so scans of one guest at any session queue behind each other in every process and
 * database; then the last scan there decides (core's doorStateOf and doorRefusal), and a seat
 * is taken by registerGuestInSession's compare-and-set on the session (access control) or
 * under lockSessionSeats' lock on it until this transaction commits (core's sessionEntryRefusal).
 */
async function passSessionDoor(trx: Trx, scan: ScanRequest, guest: ScanGuestRow, session: ScanSessionRow, now: string): Promise<ScanOutcome> {
  const { eventId, input } = scan;
  await lockGuest(trx, guest.id);
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
  if (turnedAwayAs === SCAN_STATUS.alreadyCheckedIn) return alreadyIn(guest, state.inSince, last?.station);
  if (turnedAwayAs) return turnedAway(turnedAwayAs, guest);
  const row = newCheckin(scan, guest.id, session.id, scanInstant(input, now), now);
  const id = await insertCheckin(trx, row, input.scannedBy ?? null);
  return accepted({ ...row, id }, guest);
}

/** A check-in an event file brought under the scan's uid: its answer from the stored row (writes nothing). */
async function answerOfImported(trx: Trx, eventId: number, checkinId: number): Promise<ScanOutcome> {
  const { row, guest } = await importedCheckin(trx, eventId, checkinId);
  return accepted(row, guest);
}

/** The answers of the batch's new uids, to remember. */
const repliesOf = (plan: Plan) => plan.replies.map((r) => ({ uid: r.uid, eventId: r.eventId, body: (plan.answers[r.index] as ScanOutcome).body }));

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
  const inputs = scans.map((s) => s.input);
  const reads = await readScanBatch(trx, {
    eventIds,
    uids: [...new Set(inputs.flatMap((i) => (i.uid === undefined ? [] : [i.uid])))],
    barcodes: inputs.flatMap((i) => (i.barcode === undefined ? [] : [i.barcode])),
    nfcTags: inputs.flatMap((i) => (i.nfcTag === undefined ? [] : [i.nfcTag])),
    guestIds: inputs.flatMap((i) => (i.guestId === undefined ? [] : [i.guestId])),
    sessionIds: inputs.flatMap((i) => (i.sessionId == null ? [] : [i.sessionId])),
    eventDoorScans: inputs.filter((i) => i.sessionId == null).length,
  });
  const plan = decideScans(scans, now, reads);
  const { answers } = plan;

  // Where the guests already inside before this batch came in: one read for all of them.
  if (plan.standingStation.length > 0) {
    const station = await standingStations(trx, eventIds, plan.standingStation.map((s) => s.guest.id));
    for (const { index, guest } of plan.standingStation) answers[index] = alreadyIn(guest, guest.checked_in_at, station.get(guest.id));
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
    insertCheckins(trx, plan.checkins.map((c) => ({ ...c.row, scanned_by: scans[c.index].input.scannedBy ?? null }))),
    moved.length > 0 ? compareAndSetDoorState(trx, moved, plan.stateRead, plan.finalState, now) : 0,
    repliesNow ? rememberAnswers(trx, repliesOf(plan), now) : undefined,
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
  await rememberAnswers(trx, repliesOf(plan), now);
  return answers;
}
