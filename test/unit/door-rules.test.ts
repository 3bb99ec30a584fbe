import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doorDecision, doorRefusal, doorStateOf, guestDoorState, sessionEntryRefusal, sessionFill, sessionSeats, SCAN_STATUS, type SessionFill, type CheckinDirection, type DoorState, type SessionEntry, type StandingScan } from '../../core/scan';

/** The door's rules (core/scan.ts), shared by the server's scans, undo, merges and the browser's offline copy. */
describe('doorRefusal', () => {
  const IN: DoorState = { inactive: false, inSince: '2026-12-01T18:00:00Z' };
  const OUT: DoorState = { inactive: false, inSince: null };
  const table: [CheckinDirection, DoorState, string | undefined][] = [
    ['in', OUT, undefined],
    ['in', IN, SCAN_STATUS.alreadyCheckedIn],
    ['in', { ...OUT, inactive: true }, SCAN_STATUS.inactive],
    ['in', { ...IN, inactive: true }, SCAN_STATUS.inactive],
    ['out', IN, undefined],
    ['out', OUT, SCAN_STATUS.notCheckedIn],
    // A guest made inactive while inside can still be let out.
    ['out', { ...IN, inactive: true }, undefined],
    ['out', { ...OUT, inactive: true }, SCAN_STATUS.notCheckedIn],
  ];
  for (const [direction, state, expected] of table) {
    it(`${direction} for a guest ${state.inSince ? 'in' : 'out'}${state.inactive ? ', inactive' : ''}: ${expected ?? 'let through'}`, () => {
      assert.equal(doorRefusal(direction, state), expected);
    });
  }
});

describe('sessionEntryRefusal', () => {
  const open = { accessControl: false, autoRegistration: false };
  const closed = { accessControl: true, autoRegistration: false };
  const table: [string, SessionEntry, string | undefined][] = [
    ['an open session with seats left', { ...open, seatsTaken: 2, seats: 3 }, undefined],
    ['an open session at its seats', { ...open, seatsTaken: 3, seats: 3 }, SCAN_STATUS.sessionFull],
    ['an open session past its seats (an import brought more)', { ...open, seatsTaken: 5, seats: 3 }, SCAN_STATUS.sessionFull],
    ['an open session without seats', { ...open, seatsTaken: 0, seats: 0 }, SCAN_STATUS.sessionFull],
    ['a guest back in at a full open session, seated before', { ...open, seated: true, seatsTaken: 3, seats: 3 }, undefined],
    ['auto_registration alone (no access control) counts seats the same', { ...open, autoRegistration: true, seatsTaken: 1, seats: 1 }, SCAN_STATUS.sessionFull],
    ['access control, registered', { ...closed, registered: true }, undefined],
    ['access control, not registered', { ...closed, registered: false }, SCAN_STATUS.notRegistered],
    ['access control with auto_registration, not registered', { ...closed, autoRegistration: true, registered: false }, 'register'],
    ['access control with auto_registration, registered', { ...closed, autoRegistration: true, registered: true }, undefined],
  ];
  for (const [name, entry, expected] of table) {
    it(`${name}: ${expected ?? 'let in'}`, () => {
      assert.equal(sessionEntryRefusal(entry), expected);
    });
  }

  it('counts capacity plus overbook_capacity as seats', () => {
    assert.equal(sessionSeats({ capacity: 3, overbook_capacity: 2 }), 5);
    assert.equal(sessionSeats({ capacity: 0, overbook_capacity: 0 }), 0);
  });
});

describe('sessionFill (the session counter turns red at capacity)', () => {
  const table: [string, { checked_in: number; capacity: number; overbook_capacity: number }, SessionFill][] = [
    ['below capacity', { checked_in: 2, capacity: 3, overbook_capacity: 0 }, 'open'],
    ['at capacity, no overbooking', { checked_in: 3, capacity: 3, overbook_capacity: 0 }, 'full'],
    ['past capacity (an import brought more)', { checked_in: 5, capacity: 3, overbook_capacity: 0 }, 'full'],
    ['at capacity, overbooking seats left', { checked_in: 3, capacity: 3, overbook_capacity: 2 }, 'atCapacity'],
    ['into the overbooking', { checked_in: 4, capacity: 3, overbook_capacity: 2 }, 'atCapacity'],
    ['capacity and overbooking taken', { checked_in: 5, capacity: 3, overbook_capacity: 2 }, 'full'],
    ['no seats at all', { checked_in: 0, capacity: 0, overbook_capacity: 0 }, 'full'],
    ['the default capacity, nearly empty', { checked_in: 1, capacity: 10000, overbook_capacity: 0 }, 'open'],
  ];
  for (const [name, session, expected] of table) {
    it(`${name}: ${expected}`, () => assert.equal(sessionFill(session), expected));
  }
});

describe('doorStateOf (is the guest in?)', () => {
  const at = '2026-12-01T18:05:00Z';
  const table: [string, StandingScan | null | undefined, number | string | undefined, DoorState][] = [
    ['no scan standing', undefined, undefined, { inactive: false, inSince: null }],
    ['no scan standing (null)', null, 1, { inactive: false, inSince: null }],
    ['last standing scan an in', { direction: 'in', scanned_at: at }, 1, { inactive: false, inSince: at }],
    ['last standing scan an out', { direction: 'out', scanned_at: at }, 1, { inactive: false, inSince: null }],
    ['inactive, stored as 2', { direction: 'in', scanned_at: at }, 2, { inactive: true, inSince: at }],
    ['inactive, listed as "2"', undefined, '2', { inactive: true, inSince: null }],
    ['active, listed as "1"', undefined, '1', { inactive: false, inSince: null }],
  ];
  for (const [name, last, objstatus, expected] of table) {
    it(name, () => assert.deepEqual(doorStateOf(last, objstatus), expected));
  }

  it("reads the guest record's own state as the scan decider and the offline copy do", () => {
    assert.deepEqual(guestDoorState({ objstatus: 1, checked_in_at: null }), { inactive: false, inSince: null });
    assert.deepEqual(guestDoorState({ objstatus: '2', checked_in_at: at }), { inactive: true, inSince: at });
  });
});

describe('doorDecision (the offline copy\'s whole answer)', () => {
  const table: [CheckinDirection, DoorState | undefined, string][] = [
    ['in', undefined, SCAN_STATUS.notFound],
    ['out', undefined, SCAN_STATUS.notFound],
    ['in', { inactive: false, inSince: null }, SCAN_STATUS.checkedIn],
    ['in', { inactive: false, inSince: 'x' }, SCAN_STATUS.alreadyCheckedIn],
    ['in', { inactive: true, inSince: null }, SCAN_STATUS.inactive],
    ['out', { inactive: false, inSince: 'x' }, SCAN_STATUS.checkedOut],
    ['out', { inactive: true, inSince: 'x' }, SCAN_STATUS.checkedOut],
    ['out', { inactive: false, inSince: null }, SCAN_STATUS.notCheckedIn],
  ];
  for (const [direction, state, expected] of table) {
    it(`${direction}, ${JSON.stringify(state)}: ${expected}`, () => assert.equal(doorDecision(direction, state), expected));
  }
});
