import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addChange, applyChanges, forgetChange, stationFigure, unseenChanges, type EventStats, type LocalChange } from '../../renderer/src/stats';

const SERVER: EventStats = {
  total: 10,
  checked_in: 3,
  inactive: 1,
  registration_types: [{ id: 1, name: 'General', total: 10, checked_in: 3 }],
  sessions: [{ id: 7, name: 'Keynote', registered: 4, checked_in: 1, capacity: 50, overbook_capacity: 0 }],
  stations: [{ station: 'Front door', checked_in: 3, checked_out: 0 }],
  arrivals: [{ starts: '2026-12-01T18:00:00', checked_in: 3 }],
};

function change(fields: Partial<LocalChange>): LocalChange {
  return { at: 0, delta: 1, direction: 'in', typeId: 1, station: 'Front door', step: 1, expect: 4, scannedAt: '2026-12-01T18:02:07', ...fields };
}

describe('door counters: the station\'s own changes over the server\'s figures', () => {
  it('counts a scan here at once: event, type, station and its arrivals bucket', () => {
    const shown = applyChanges(SERVER, [change({})]);
    assert.equal(shown.checked_in, 4);
    assert.equal(shown.registration_types[0].checked_in, 4);
    assert.equal(stationFigure(shown, 'Front door', 'in'), 4);
    assert.deepEqual(shown.arrivals, [{ starts: '2026-12-01T18:00:00', checked_in: 4 }]);
    assert.equal(SERVER.checked_in, 3, 'the server figures are left as they came');
  });

  it('takes an undone entry and a check-out off, and counts a session scan for the session only', () => {
    const shown = applyChanges(SERVER, [
      change({ delta: -1, step: -1, expect: 2 }),
      change({ delta: -1, direction: 'out', step: 1, expect: 1, scannedAt: undefined }),
      change({ sessionId: 7, expect: 3 }),
    ]);
    assert.equal(shown.checked_in, 1);
    assert.equal(shown.sessions[0].checked_in, 2);
    assert.deepEqual(shown.stations, [{ station: 'Front door', checked_in: 3, checked_out: 1 }]);
    assert.deepEqual(shown.arrivals, [{ starts: '2026-12-01T18:00:00', checked_in: 3 }]);
  });

  it('adds a station the server has not seen yet, and a new arrivals bucket', () => {
    const shown = applyChanges(SERVER, [change({ station: 'Side door', scannedAt: '2026-12-01T18:31:00' })]);
    assert.deepEqual(shown.stations.at(-1), { station: 'Side door', checked_in: 1, checked_out: 0, undone: 0 });
    assert.deepEqual(shown.arrivals.at(-1), { starts: '2026-12-01T18:30:00', checked_in: 1 });
  });

  it('after an undo, scanning the next guest shows exactly the server\'s count once it has both (issue 38, item 9)', () => {
    const station = 'Front door';
    const server = (checkedIn: number, standing: number, undone: number): EventStats => ({
      ...SERVER,
      checked_in: checkedIn,
      registration_types: [{ id: 1, name: 'General', total: 10, checked_in: checkedIn }],
      stations: [{ station, checked_in: standing, checked_out: 0, undone }],
    });
    const scanIn = { delta: 1 as const, direction: 'in' as const, typeId: 1, station };
    const undoIn = { delta: -1 as const, direction: 'in' as const, typeId: 1, station };
    // The server holds 3; this station scans A (4), the server shows it.
    let list = addChange([], { ...scanIn, uid: 'a' }, server(3, 3, 0), 0);
    list = unseenChanges(list, server(4, 4, 0), 1, 30_000);
    assert.deepEqual(list, []);
    // Undo A, then scan B before the next poll: the screen reads 4 at once.
    list = addChange(list, undoIn, server(4, 4, 0), 2);
    list = addChange(list, { ...scanIn, uid: 'b' }, server(4, 4, 0), 3);
    assert.equal(applyChanges(server(4, 4, 0), list).checked_in, 4);
    // A poll taken between the undo and the scan: only the scan is still to come.
    list = unseenChanges(list, server(3, 3, 1), 4, 30_000);
    assert.equal(list.length, 1);
    assert.equal(applyChanges(server(3, 3, 1), list).checked_in, 4);
    // The server has both: nothing is added to its 4.
    list = unseenChanges(list, server(4, 4, 1), 5, 30_000);
    assert.deepEqual(list, []);
  });

  it('forgets an offline admission the server turned away (a double admission), and the later changes still meet the server', () => {
    const station = 'Front door';
    const base: EventStats = { ...SERVER, stations: [{ station, checked_in: 3, checked_out: 0, undone: 0 }] };
    let list = addChange([], { delta: 1, direction: 'in', typeId: 1, station, uid: 'offline-1' }, base, 0);
    list = addChange(list, { delta: 1, direction: 'in', typeId: 1, station, uid: 'online-2' }, base, 1);
    assert.equal(applyChanges(base, list).checked_in, 5);
    list = forgetChange(list, 'offline-1');
    assert.equal(applyChanges(base, list).checked_in, 4);
    const after: EventStats = { ...base, checked_in: 4, stations: [{ station, checked_in: 4, checked_out: 0, undone: 0 }] };
    assert.deepEqual(unseenChanges(list, after, 2, 30_000), []);
  });
});
