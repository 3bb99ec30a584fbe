/**
 * How a batch of scans is decided on what its reads found, and the one place each answer the
 * door sees is shaped: no SQL here (db/repositories/scans.ts reads and writes, ./scans.ts runs
 * a batch). The door's rules are core/scan.ts's; these apply them in arrival order.
 */
import { newUid } from '../../core/uid';
import { storedInstant, toApiDatetime } from '../../core/time';
import { NotFoundError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { acceptedStatus, doorRefusal, guestDoorState, REFUSAL_MESSAGE, SCAN_STATUS, type CheckinDirection, type ScanRefusal, type ScanStatus } from '../../core/scan';
import { eventInScope } from '../../db/repositories/events';
import type { GroupScope } from '../../db/repositories/groups';
import type { CheckinRow } from '../../db/repositories/checkins';
import type { BatchReads, NewCheckin, ScanGuestRow, ScanSessionRow } from '../../db/repositories/scans';

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

/** One scan of a batch: its event, the caller's group scope, what was scanned. */
export interface ScanRequest {
  eventId: number;
  scope: GroupScope;
  input: ScanInput;
}

/** A scan's answer in the domain's terms: its status (see core/scan.ts) and the body the door sees. */
export interface ScanOutcome {
  status: ScanStatus;
  body: Record<string, unknown>;
}

/** A scan's answer, or the NotFoundError of an event the caller cannot see (or of an unknown session). */
export type ScanAnswer = ScanOutcome | NotFoundError;

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

/** Who is standing at the door. */
export function toScanGuest(row: ScanGuestRow) {
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

export function turnedAway(status: ScanRefusal, guest?: ScanGuestRow, extra: Record<string, unknown> = {}): ScanOutcome {
  return { status, body: { details: REFUSAL_MESSAGE[status], status, ...extra, ...(guest ? { guest: toScanGuest(guest) } : {}) } };
}

/** The answer to a guest who is in already: when and where they came in, with the guest. */
export function alreadyIn(guest: ScanGuestRow, inSince: string | null, station: string | null | undefined): ScanOutcome {
  return turnedAway(SCAN_STATUS.alreadyCheckedIn, guest, { checked_in_at: toApiDatetime(inSince), checked_in_station: station ?? null });
}

export function accepted(row: Pick<CheckinRow, 'id' | 'uid' | 'guest_id' | 'session_id' | 'direction' | 'scanned_at' | 'station'>, guest: ScanGuestRow): ScanOutcome {
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

/** When a scan happened, stored as an instant: the Datetime its station sent (validated), or now to the second. */
export function scanInstant(input: ScanInput, now: string): string {
  return storedInstant(input.scannedAt ?? (toApiDatetime(now) as string)) as string;
}

export function newCheckin(scan: ScanRequest, guestId: number, sessionId: number | null, scannedAt: string, now: string): NewCheckin {
  const { input, eventId } = scan;
  return { uid: input.uid ?? newUid(), created: now, modified: now, event_id: eventId, guest_id: guestId, session_id: sessionId, direction: input.direction, scanned_at: scannedAt, station: input.station ?? null };
}

/** The guest a scan names, among the batch's guests. */
export function guestKey(eventId: number, input: ScanInput): string {
  if (input.barcode !== undefined) return `${eventId}|b|${input.barcode}`;
  if (input.nfcTag !== undefined) return `${eventId}|n|${input.nfcTag}`;
  return `${eventId}|i|${input.guestId}`;
}

export const uidKey = (eventId: number, uid: string) => `${eventId}|${uid}`;

/** What the batch decided, before it writes. */
export interface Plan {
  answers: ScanAnswer[];
  /** Event-door check-ins, written in one statement; each answers with the guest as it stood at its turn. */
  checkins: { index: number; guest: ScanGuestRow; row: NewCheckin & { id: number } }[];
  /** Uids whose answers are remembered, once every answer is known. */
  replies: { index: number; uid: string; eventId: number }[];
  /** Guests inside before this batch, turned away: where they came in is read after. */
  standingStation: { index: number; guest: ScanGuestRow }[];
  /** Scans decided one at a time after the batch's writes: session doors, uids an event file brought. */
  oneAtATime: { index: number; session?: ScanSessionRow; guest?: ScanGuestRow; checkinId?: number }[];
  /** A uid sent twice in the batch: the later scan answers as the first. */
  repeatOf: Map<number, number>;
  /** The event-door guest state as read, for the compare-and-set, and as the batch leaves it. */
  stateRead: Map<number, { checked_in_at: string | null; objstatus: number }>;
  finalState: Map<number, string | null>;
}

/** The batch's reads keyed as its decisions look them up: by id, by uid, by each code of a guest. */
function lookupsOf(reads: BatchReads) {
  const events = new Map(reads.visible.map((e) => [e.id, e]));
  const sessions = new Map(reads.sessionRows.map((s) => [s.id, s]));
  const earlier = new Map<string, { body: string | null; checkin_id: number | null }>();
  for (const row of reads.earlierRows) {
    const key = uidKey(row.event_id, row.uid);
    // A scan answered here has both; its remembered answer wins.
    if (!earlier.has(key) || row.body !== null) earlier.set(key, row);
  }
  const guests = new Map<string, ScanGuestRow>();
  for (const row of reads.guestRows) {
    guests.set(`${row.event_id}|b|${row.barcode}`, row);
    if (row.nfc_tag !== null) guests.set(`${row.event_id}|n|${row.nfc_tag}`, row);
    guests.set(`${row.event_id}|i|${row.id}`, row);
  }
  return { events, sessions, earlier, guests };
}

/**
 * The batch's decisions in arrival order, on the reads alone (no statement): scope, a uid seen
 * before, an unknown session or guest, the event door's rule (core/scan.ts) on the state as
 * read and as the batch moves it. What needs statements of its own is left in the plan.
 */
export function decideScans(scans: ScanRequest[], now: string, reads: BatchReads): Plan {
  const { events, sessions, earlier, guests } = lookupsOf(reads);
  const plan: Plan = { answers: [], checkins: [], replies: [], standingStation: [], oneAtATime: [], repeatOf: new Map(), stateRead: new Map(), finalState: new Map() };
  const admittedHere = new Map<number, string | null>();
  const answeredUid = new Map<string, number>();
  scans.forEach((scan, index) => {
    const { input, eventId } = scan;
    const event = events.get(eventId);
    if (!event || !eventInScope(event, scan.scope)) {
      plan.answers[index] = new NotFoundError(MSG.eventNotFound);
      return;
    }
    if (input.uid !== undefined) {
      const key = uidKey(eventId, input.uid);
      const seen = earlier.get(key);
      if (seen?.body != null) {
        const body = JSON.parse(seen.body) as Record<string, unknown>;
        plan.answers[index] = { status: body.status as ScanStatus, body };
        return;
      }
      if (seen) {
        plan.oneAtATime.push({ index, checkinId: seen.checkin_id as number });
        return;
      }
      const first = answeredUid.get(key);
      if (first !== undefined) {
        plan.repeatOf.set(index, first);
        return;
      }
    }
    const session = input.sessionId == null ? undefined : sessions.get(input.sessionId);
    if (input.sessionId != null && (!session || session.event_id !== eventId)) {
      // Nothing of it is written, its answer not remembered: the session may yet be made.
      plan.answers[index] = new NotFoundError(MSG.sessionNotFound);
      return;
    }
    if (input.uid !== undefined) {
      answeredUid.set(uidKey(eventId, input.uid), index);
      plan.replies.push({ index, uid: input.uid, eventId });
    }
    const found = guests.get(guestKey(eventId, input));
    if (!found) {
      plan.answers[index] = turnedAway(SCAN_STATUS.notFound);
      return;
    }
    // Each scan answers with the guest as it stood at its own turn.
    const guest = { ...found };
    if (session) {
      plan.oneAtATime.push({ index, session, guest });
      return;
    }
    if (!plan.stateRead.has(found.id)) plan.stateRead.set(found.id, { checked_in_at: found.checked_in_at, objstatus: found.objstatus });
    const turnedAwayAs = doorRefusal(input.direction, guestDoorState(guest));
    if (turnedAwayAs === SCAN_STATUS.alreadyCheckedIn && !admittedHere.has(guest.id)) {
      plan.standingStation.push({ index, guest });
      return;
    }
    if (turnedAwayAs === SCAN_STATUS.alreadyCheckedIn) {
      plan.answers[index] = alreadyIn(guest, guest.checked_in_at, admittedHere.get(guest.id));
      return;
    }
    if (turnedAwayAs) {
      plan.answers[index] = turnedAway(turnedAwayAs as ScanRefusal, guest);
      return;
    }
    const scannedAt = scanInstant(input, now);
    found.checked_in_at = input.direction === 'in' ? scannedAt : null;
    plan.finalState.set(found.id, found.checked_in_at);
    if (input.direction === 'in') admittedHere.set(guest.id, input.station ?? null);
    else admittedHere.delete(guest.id);
    plan.checkins.push({ index, guest, row: { id: reads.checkinIds[plan.checkins.length], ...newCheckin(scan, guest.id, null, scannedAt, now) } });
  });
  return plan;
}
