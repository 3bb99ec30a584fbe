import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countsOnScreen, queuedChanges } from '../../renderer/src/known-counts';
import type { QueuedItem, QueuedScan } from '../../renderer/src/scan-queue';
import type { EventStats } from '../../renderer/src/stats';

const KNOWN: EventStats = {
  total: 800,
  checked_in: 412,
  inactive: 0,
  registration_types: [
    { id: 1, name: 'General', total: 700, checked_in: 380 },
    { id: 2, name: 'VIP', total: 100, checked_in: 32 },
  ],
  sessions: [],
  stations: [{ station: 'Phone', checked_in: 40, checked_out: 1 }],
  arrivals: [{ starts: '2026-12-01T20:00:00', checked_in: 5 }],
};

function scan(uid: string, fields: Partial<QueuedScan> = {}): QueuedScan {
  return { uid, eventId: 7, queuedAt: 1, kind: 'barcode', code: `CODE-${uid}`, nfcFallback: true, direction: 'in', scannedAt: '2026-12-01T20:03:00', station: 'Phone', offlineOutcome: 'checked_in', ...fields };
}

const typeOf = (s: QueuedScan) => (s.code.endsWith('vip') ? 2 : 1);

describe('the door\'s counters after an offline reload (issue 44)', () => {
  it('counts only this event\'s scans the station decided: admissions in, check-outs out, session scans not at all', () => {
    const items: QueuedItem[] = [scan('a'), scan('b', { eventId: 8 }), scan('c', { sessionId: 3, offlineOutcome: undefined }), scan('d', { direction: 'out', offlineOutcome: 'checked_out' })];
    assert.deepEqual(
      queuedChanges(items, 7, typeOf).map((c) => [c.uid, c.delta, c.direction]),
      [
        ['a', 1, 'in'],
        ['d', -1, 'out'],
      ],
    );
  });

  it('reloaded offline: the last known figures plus the queue, marked as of when they were fetched', () => {
    const items: QueuedItem[] = [scan('a'), scan('b-vip'), scan('c'), scan('d', { direction: 'out', offlineOutcome: 'checked_out' })];
    const { stats, asOf } = countsOnScreen({ known: { stats: KNOWN, at: 1000 }, online: false, queued: items, eventId: 7, typeOf });
    assert.equal(stats?.checked_in, 412 + 3 - 1);
    assert.deepEqual(stats?.registration_types.map((t) => t.checked_in), [380 + 2 - 1, 33]);
    assert.deepEqual(stats?.stations, [{ station: 'Phone', checked_in: 43, checked_out: 2 }]);
    assert.deepEqual(asOf, { at: 1000, queuedIn: 3, queuedOut: 1 });
    assert.equal(KNOWN.checked_in, 412, 'the kept figures are left as they were');
  });

  it('a walk-in queued offline adds a guest expected, and its scan one in', () => {
    const walkIn: QueuedItem = { type: 'walk_in', uid: 'w', eventId: 7, queuedAt: 1, fields: { registration_type: 2, first_name: 'Walk', last_name: 'In', email: 'w@example.test', barcode: 'WALKvip' } };
    const { stats } = countsOnScreen({ known: { stats: KNOWN, at: 1000 }, online: false, queued: [walkIn, scan('x', { code: 'WALKvip' })], eventId: 7, typeOf });
    assert.equal(stats?.total, 801);
    assert.deepEqual(stats?.registration_types.map((t) => [t.total, t.checked_in]), [
      [700, 380],
      [101, 33],
    ]);
    assert.equal(KNOWN.total, 800);
  });

  it('live figures stand as they are; once the server is gone they are marked as of their fetch', () => {
    const live = { ...KNOWN, checked_in: 500 };
    assert.deepEqual(countsOnScreen({ live, liveAt: 5000, known: { stats: KNOWN, at: 1000 }, online: true, queued: [scan('a')], eventId: 7, typeOf }), { stats: live, asOf: undefined });
    assert.deepEqual(countsOnScreen({ live, liveAt: 5000, online: false, queued: [scan('a')], eventId: 7, typeOf }), { stats: live, asOf: { at: 5000, queuedIn: 1, queuedOut: 0 } });
  });

  it('nothing known and nothing live: no figures (the door shows – / –)', () => {
    assert.deepEqual(countsOnScreen({ online: false, queued: [scan('a')], eventId: 7, typeOf }), {});
  });
});
