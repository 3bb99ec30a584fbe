import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyChanges, stationFigure, type EventStats, type LocalChange } from '../../renderer/src/stats';

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
    assert.deepEqual(shown.stations.at(-1), { station: 'Side door', checked_in: 1, checked_out: 0 });
    assert.deepEqual(shown.arrivals.at(-1), { starts: '2026-12-01T18:30:00', checked_in: 1 });
  });
});
