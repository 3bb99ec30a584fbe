import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError } from '../../core/errors';
import { MSG } from '../../core/messages';
import type { EventRow } from '../../db/repositories/events';
import type { BatchReads, ScanGuestRow } from '../../db/repositories/scans';
import { decideScans, type ScanInput, type ScanOutcome, type ScanRequest } from '../../server/services/scan-decisions';

/** The event door's batch decider (server/services/scan-decisions.ts) on reads made up here: no database. */
const NOW = '2026-12-01T18:00:00.000Z';
const event = { id: 1, group_id: 10 } as EventRow;
const guestRow = (id: number, fields: Partial<ScanGuestRow> = {}): ScanGuestRow => ({
  id,
  event_id: 1,
  first_name: `First${id}`,
  last_name: `Last${id}`,
  email: '',
  company: null,
  registration_type_id: 5,
  registration_type_name: 'Ticket',
  barcode: `B${id}`,
  nfc_tag: null,
  objstatus: 1,
  checked_in_at: null,
  attention: 0,
  notes: null,
  registration_type_attention: 0,
  door_answers: null,
  ...fields,
});
const reads = (fields: Partial<BatchReads> = {}): BatchReads => ({
  visible: [event],
  earlierRows: [],
  guestRows: [guestRow(1), guestRow(2, { checked_in_at: '2026-12-01T17:00:00.000Z' }), guestRow(3, { objstatus: 2 })],
  sessionRows: [{ id: 7, event_id: 1, access_control: 0, auto_registration: 0 }],
  checkinIds: [100, 101, 102, 103],
  ...fields,
});
const scan = (input: Partial<ScanInput>, scope: readonly number[] | null = [10]): ScanRequest => ({ eventId: 1, scope, input: { direction: 'in', ...input } });
const statusOf = (answer: unknown) => (answer instanceof NotFoundError ? `404 ${answer.message}` : (answer as ScanOutcome | undefined)?.status);

describe('decideScans', () => {
  const table: { name: string; scans: ScanRequest[]; reads?: Partial<BatchReads>; answers: (string | undefined)[]; checkins?: number[]; standing?: number[]; oneAtATime?: number[]; repeats?: [number, number][] }[] = [
    { name: 'an event out of the caller\'s scope', scans: [scan({ barcode: 'B1' }, [99])], answers: [`404 ${MSG.eventNotFound}`] },
    { name: 'an unknown code', scans: [scan({ barcode: 'NOPE' })], answers: ['not_found'] },
    { name: 'a first entry by barcode', scans: [scan({ barcode: 'B1' })], answers: [undefined], checkins: [100] },
    { name: 'a guest by NFC tag', scans: [scan({ nfcTag: 'TAG4' })], reads: { guestRows: [guestRow(4, { nfc_tag: 'TAG4' })] }, answers: [undefined], checkins: [100] },
    { name: 'a guest by id', scans: [scan({ guestId: 1 })], answers: [undefined], checkins: [100] },
    { name: 'the same guest twice in one batch: admitted once', scans: [scan({ barcode: 'B1', station: 'A' }), scan({ guestId: 1, station: 'B' })], answers: [undefined, 'already_checked_in'], checkins: [100] },
    { name: 'in, out and in again in one batch', scans: [scan({ barcode: 'B1' }), scan({ barcode: 'B1', direction: 'out' }), scan({ barcode: 'B1' })], answers: [undefined, undefined, undefined], checkins: [100, 101, 102] },
    { name: 'a guest in before the batch: where they came in is read after', scans: [scan({ barcode: 'B2' })], answers: [undefined], standing: [0] },
    { name: 'an inactive guest', scans: [scan({ barcode: 'B3' })], answers: ['inactive'] },
    { name: 'an inactive guest let out', scans: [scan({ barcode: 'B3', direction: 'out' })], answers: ['not_checked_in'] },
    { name: 'a check-out of a guest not in', scans: [scan({ barcode: 'B1', direction: 'out' })], answers: ['not_checked_in'] },
    { name: 'a session door: decided one at a time', scans: [scan({ barcode: 'B1', sessionId: 7 })], answers: [undefined], oneAtATime: [0] },
    { name: 'an unknown session', scans: [scan({ barcode: 'B1', sessionId: 8 })], answers: [`404 ${MSG.sessionNotFound}`] },
    { name: 'a uid sent twice in one batch: the later answers as the first', scans: [scan({ barcode: 'B1', uid: 'u1' }), scan({ barcode: 'B1', uid: 'u1' })], answers: [undefined, undefined], checkins: [100], repeats: [[1, 0]] },
    {
      name: 'a uid answered before: its remembered answer',
      scans: [scan({ barcode: 'B1', uid: 'u9' })],
      reads: { earlierRows: [{ event_id: 1, uid: 'u9', body: JSON.stringify({ status: 'checked_in', id: 5 }), checkin_id: null }] },
      answers: ['checked_in'],
    },
    { name: 'a uid an event file brought', scans: [scan({ barcode: 'B1', uid: 'u8' })], reads: { earlierRows: [{ event_id: 1, uid: 'u8', body: null, checkin_id: 55 }] }, answers: [undefined], oneAtATime: [0] },
  ];
  for (const row of table) {
    it(row.name, () => {
      const plan = decideScans(row.scans, NOW, reads(row.reads));
      assert.deepEqual(row.scans.map((_, i) => statusOf(plan.answers[i])), row.answers);
      assert.deepEqual(plan.checkins.map((c) => c.row.id), row.checkins ?? []);
      assert.deepEqual(plan.standingStation.map((s) => s.index), row.standing ?? []);
      assert.deepEqual(plan.oneAtATime.map((s) => s.index), row.oneAtATime ?? []);
      assert.deepEqual([...plan.repeatOf], row.repeats ?? []);
    });
  }

  it('answers a second entry in the batch with where the first came in, and the guest as it stood', () => {
    const plan = decideScans([scan({ barcode: 'B1', station: 'Door A', scannedAt: '2026-12-01T18:01:00' }), scan({ barcode: 'B1', station: 'Door B' })], NOW, reads());
    const body = (plan.answers[1] as ScanOutcome).body;
    assert.equal(body.details, MSG.guestAlreadyCheckedIn);
    assert.equal(body.checked_in_station, 'Door A');
    assert.equal(body.checked_in_at, '2026-12-01T18:01:00');
    assert.equal((body.guest as { id: number }).id, 1);
  });

  it('keeps the state read for the compare-and-set and the state the batch leaves', () => {
    const plan = decideScans([scan({ barcode: 'B1' }), scan({ barcode: 'B1', direction: 'out' })], NOW, reads());
    assert.deepEqual(plan.stateRead.get(1), { checked_in_at: null, objstatus: 1 });
    assert.equal(plan.finalState.get(1), null);
    assert.equal(plan.checkins[1].row.direction, 'out');
  });

  it('lets any event through for an administrator (scope null)', () => {
    assert.equal(decideScans([scan({ barcode: 'B1' }, null)], NOW, reads()).checkins.length, 1);
  });
});
