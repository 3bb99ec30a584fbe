import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doorRefusal, sessionEntryRefusal, sessionSeats, SCAN_STATUS, type CheckinDirection, type DoorState, type SessionEntry } from '../../core/scan';

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
