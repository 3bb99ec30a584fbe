import { MSG } from './messages';

/** The scan's vocabulary, shared by the rules, the database and the wire. */
export const CHECKIN_DIRECTIONS = ['in', 'out'] as const;
export type CheckinDirection = (typeof CHECKIN_DIRECTIONS)[number];

/** The `status` of every scan answer, as the door screen switches on it. */
export const SCAN_STATUS = {
  checkedIn: 'checked_in',
  checkedOut: 'checked_out',
  alreadyCheckedIn: 'already_checked_in',
  notCheckedIn: 'not_checked_in',
  notFound: 'not_found',
  inactive: 'inactive',
  sessionFull: 'session_full',
  notRegistered: 'not_registered',
} as const;
export type ScanStatus = (typeof SCAN_STATUS)[keyof typeof SCAN_STATUS];

/** The answers that turn a guest away: every other answer records a check-in. */
export type ScanRefusal = Exclude<ScanStatus, typeof SCAN_STATUS.checkedIn | typeof SCAN_STATUS.checkedOut>;

/** Where the guest stands at the door being scanned (the event's, or a session's). */
export interface DoorState {
  inactive: boolean;
  /** When the standing in-scan happened; null when the guest is not in. */
  inSince: string | null;
}

/** A guest's `objstatus` once made inactive (stored as 2, listed as "2"). */
export const GUEST_INACTIVE = 2;

/** A scan as the door's state is worked out from it: the last one still standing (not undone) at that door. */
export interface StandingScan {
  direction: CheckinDirection;
  scanned_at: string;
}

/**
 * Is the guest in? At a door (the event's, or a session's) a guest is in since their last
 * scan still standing there when it was an 'in', and out otherwise (none, or an 'out'). The
 * one answer for scans, undo, merges and the browser's offline copy.
 */
export function doorStateOf(last: StandingScan | null | undefined, objstatus: number | string = 1): DoorState {
  return { inactive: Number(objstatus) === GUEST_INACTIVE, inSince: last?.direction === 'in' ? last.scanned_at : null };
}

/**
 * The event door's state as a guest's record keeps it (`checked_in_at`, which scans, undo and
 * merges set from doorStateOf): what the scan decider and the offline copy read.
 */
export function guestDoorState(guest: { objstatus: number | string; checked_in_at: string | null }): DoorState {
  return { inactive: Number(guest.objstatus) === GUEST_INACTIVE, inSince: guest.checked_in_at };
}

/**
 * The door's rule for a known guest: the refusal, or undefined to let the scan through. A
 * guest made inactive while inside can still be let out.
 */
export function doorRefusal(direction: CheckinDirection, state: DoorState): ScanRefusal | undefined {
  if (direction === 'in' && state.inactive) return SCAN_STATUS.inactive;
  if (direction === 'in' && state.inSince !== null) return SCAN_STATUS.alreadyCheckedIn;
  if (direction === 'out' && state.inSince === null) return SCAN_STATUS.notCheckedIn;
  return undefined;
}

/** A session's seats (DESIGN "Check-in API"): its capacity plus its overbook_capacity. */
export function sessionSeats(session: { capacity: number; overbook_capacity: number }): number {
  return session.capacity + session.overbook_capacity;
}

/**
 * How full a session's door counter reads: `atCapacity` once as many guests are in as its
 * capacity (overbooking may still let some in), `full` once its seats are all taken (the door
 * refuses: session_full), else `open`. The counter turns red from capacity on.
 */
export type SessionFill = 'open' | 'atCapacity' | 'full';

export function sessionFill(session: { checked_in: number; capacity: number; overbook_capacity: number }): SessionFill {
  if (session.checked_in >= sessionSeats(session)) return 'full';
  return session.checked_in >= session.capacity ? 'atCapacity' : 'open';
}

/** What a session door knows of an entry the door's own rule (doorRefusal) let through. */
export interface SessionEntry {
  accessControl: boolean;
  autoRegistration: boolean;
  /** Access control: the guest is registered for the session. */
  registered?: boolean;
  /** No access control: the guest already holds a seat (a standing in-scan here, since left). */
  seated?: boolean;
  /** No access control: the guests holding a seat (a standing in-scan here), and the seats. */
  seatsTaken?: number;
  seats?: number;
}

/**
 * A session door's rule past the door's own, for an entry: the refusal, `register` for a seat
 * to be taken by registering the guest on the spot (whose compare-and-set may still find the
 * session full), or undefined to let the guest in. With access control a registration holds
 * the seat; without it, an admission does, and once admitted a guest keeps theirs (back in
 * after leaving). Either way no more guests than the seats get in.
 */
export function sessionEntryRefusal(entry: SessionEntry): ScanRefusal | 'register' | undefined {
  if (entry.accessControl) {
    if (entry.registered) return undefined;
    return entry.autoRegistration ? 'register' : SCAN_STATUS.notRegistered;
  }
  if (entry.seated) return undefined;
  return (entry.seatsTaken ?? 0) >= (entry.seats ?? Infinity) ? SCAN_STATUS.sessionFull : undefined;
}

/** The whole answer's status for a guest (or none found) at a door in the given state: what the offline copy decides. */
export function doorDecision(direction: CheckinDirection, state: DoorState | undefined): ScanStatus {
  if (!state) return SCAN_STATUS.notFound;
  return doorRefusal(direction, state) ?? acceptedStatus(direction);
}

/** The status of an accepted scan. */
export function acceptedStatus(direction: CheckinDirection): typeof SCAN_STATUS.checkedIn | typeof SCAN_STATUS.checkedOut {
  return direction === 'in' ? SCAN_STATUS.checkedIn : SCAN_STATUS.checkedOut;
}

/** The `details` wording of each refusal. */
export const REFUSAL_MESSAGE: Record<ScanRefusal, string> = {
  [SCAN_STATUS.alreadyCheckedIn]: MSG.guestAlreadyCheckedIn,
  [SCAN_STATUS.notCheckedIn]: MSG.guestNotCheckedIn,
  [SCAN_STATUS.notFound]: MSG.guestNotFound,
  [SCAN_STATUS.inactive]: MSG.guestInactive,
  [SCAN_STATUS.sessionFull]: MSG.sessionFull,
  [SCAN_STATUS.notRegistered]: MSG.guestNotRegisteredForSession,
};
