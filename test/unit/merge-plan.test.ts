import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodeHolders } from '../../core/guest-codes';
import type { Row } from '../../db/repositories/event-file-merge';
import { DEFS, MergePlan, type CodeHolder } from '../../server/event-file/merge-plan';

/** The merge policy of event files (server/event-file/merge-plan.ts) on records and lookups made up here: no database. */
const EVENT = 1;
const guests = DEFS.get('guests')!;
const checkins = DEFS.get('checkins')!;
const types = DEFS.get('registration_types')!;
const tags = DEFS.get('session_tags')!;
const T0 = '2026-12-01T10:00:00.000Z';
const T1 = '2026-12-01T11:00:00.000Z';

/** A merge into event 1, with registration type `rt-1` known as id 5. */
function merge(allowSetup = true): MergePlan {
  const plan = new MergePlan(allowSetup);
  plan.eventId = EVENT;
  plan.ids.get('registration_types')!.set('rt-1', 5);
  return plan;
}
const guestRecord = (fields: Row = {}): Row => ({ uid: 'g-1', registration_type_uid: 'rt-1', first_name: 'Ada', last_name: 'L', email: '', barcode: 'B-1', nfc_tag: null, modified: T0, ...fields });
const localGuest = (fields: Row = {}): Row => ({ id: 10, owner_event_id: EVENT, uid: 'g-1', registration_type_id: 5, first_name: 'Ada', last_name: 'L', email: '', barcode: 'B-1', nfc_tag: null, modified: T0, ...fields });
const holders = (entries: ['barcode' | 'nfc_tag', string, CodeHolder][]) => {
  const held = new CodeHolders<CodeHolder>();
  for (const [column, code, holder] of entries) held.hold(column, code, holder);
  return held;
};
const grace: CodeHolder = { id: 20, uid: 'g-2', first_name: 'Grace', last_name: 'H' };

describe('MergePlan.decideExisting: the door state of a later guest', () => {
  it('is worked out again from the scans here once they are merged, where it differs', () => {
    const plan = merge();
    plan.decideExisting(guests, localGuest(), localGuest({ modified: T1, checked_in_at: T1 }));
    assert.deepEqual([...plan.checkinGuests], [10]);
  });

  it('is left alone where it is the same', () => {
    const plan = merge();
    plan.decideExisting(guests, localGuest({ checked_in_at: T0 }), localGuest({ modified: T1, checked_in_at: T0, first_name: 'Augusta' }));
    assert.deepEqual([...plan.checkinGuests], []);
  });
});

describe('MergePlan.decideExisting: the later record wins', () => {
  const table: [string, Row, Row, { changes: Row; updated: boolean } | undefined, 'updated' | 'unchanged'][] = [
    ['an older record leaves the guest as it is', localGuest({ modified: T1 }), { ...localGuest(), first_name: 'Old' }, undefined, 'unchanged'],
    ['the same time leaves it too', localGuest(), { ...localGuest(), first_name: 'Other' }, undefined, 'unchanged'],
    ['a later record of the same content only moves modified', localGuest(), localGuest({ modified: T1 }), { changes: { modified: T1 }, updated: false }, 'unchanged'],
    ['a later record with a new name changes the guest', localGuest(), localGuest({ modified: T1, first_name: 'Augusta' }), undefined, 'updated'],
    // Its door state comes with it (worked out again from the scans here: see below), so a scan elsewhere does not restamp the guest.
    ['a later record differing only in door state (derived) is the same content, its door state taken', localGuest(), localGuest({ modified: T1, checked_in_at: T1 }), { changes: { modified: T1, checked_in_at: T1 }, updated: false }, 'unchanged'],
  ];
  for (const [name, local, incoming, expected, counted] of table) {
    it(name, () => {
      const plan = merge();
      const decided = plan.decideExisting(guests, local, incoming);
      if (expected) assert.deepEqual(decided, expected);
      else if (counted === 'updated') assert.equal(decided?.updated, true);
      else assert.equal(decided, undefined);
      if (counted === 'updated') assert.equal(decided!.changes.first_name, 'Augusta');
      assert.equal(plan.result[counted].guests, 1);
    });
  }
});

describe('MergePlan.decideExisting: a check-in is never changed, an undo on either side wins', () => {
  const scan = (fields: Row = {}): Row => ({ id: 7, guest_id: 10, undone_at: null, modified: T0, ...fields });
  const table: [string, Row, Row, Row | undefined][] = [
    ['the same check-in', scan(), scan(), undefined],
    ['undone in the file', scan({ modified: T1 }), scan({ undone_at: T1, modified: T0 }), { undone_at: T1, modified: T1 }],
    ['undone in the file, later', scan(), scan({ undone_at: T1, modified: T1 }), { undone_at: T1, modified: T1 }],
    ['undone here: the file cannot take it back', scan({ undone_at: T0 }), scan({ modified: T1 }), undefined],
    ['undone on both sides', scan({ undone_at: T0 }), scan({ undone_at: T1, modified: T1 }), undefined],
  ];
  for (const [name, local, incoming, changes] of table) {
    it(name, () => {
      const plan = merge();
      const decided = plan.decideExisting(checkins, local, incoming);
      assert.deepEqual(decided, changes && { changes, updated: true });
      // The guest's door state is worked out again only when a check-in changed.
      assert.deepEqual([...plan.checkinGuests], changes ? [10] : []);
    });
  }
});

describe('MergePlan.stage: what a merge keeps for its turns', () => {
  const table: [string, boolean, Row, Row | undefined, { staged: boolean; counts: Partial<Record<'unchanged' | 'skipped', number>>; conflict?: string }][] = [
    ['a new guest', true, guestRecord(), undefined, { staged: true, counts: {} }],
    ['a new guest from a door', false, guestRecord(), undefined, { staged: true, counts: {} }],
    ['an older guest', true, guestRecord(), localGuest({ modified: T1 }), { staged: false, counts: { unchanged: 1 } }],
    ['a later guest', true, guestRecord({ modified: T1, first_name: 'Augusta' }), localGuest(), { staged: true, counts: {} }],
    ["another event's uid", true, guestRecord({ modified: T1 }), localGuest({ owner_event_id: 2 }), { staged: false, counts: { skipped: 1 }, conflict: 'other_event' }],
    ["a door's rename is set-up: listed, not applied", false, guestRecord({ modified: T1, first_name: 'Augusta' }), localGuest(), { staged: false, counts: { skipped: 1 }, conflict: 'setup_change' }],
    ["a door's scan moved only door state", false, guestRecord({ modified: T1, checked_in_at: T1 }), localGuest(), { staged: false, counts: { unchanged: 1 } }],
  ];
  for (const [name, allowSetup, record, local, expected] of table) {
    it(name, () => {
      const plan = merge(allowSetup);
      const staged = plan.stage(guests, [record], new Map(local ? [['g-1', local]] : []));
      assert.equal(staged.length, expected.staged ? 1 : 0);
      assert.equal(plan.result.unchanged.guests, expected.counts.unchanged ?? 0);
      assert.equal(plan.result.skipped.guests, expected.counts.skipped ?? 0);
      assert.deepEqual(plan.result.conflicts.map((c) => c.kind), expected.conflict ? [expected.conflict] : []);
    });
  }

  it('a door brings no new registration type', () => {
    const plan = merge(false);
    assert.deepEqual(plan.stage(types, [{ uid: 'rt-2', modified: T0 }], new Map()), []);
    assert.equal(plan.result.conflicts[0].kind, 'setup_change');
  });

  it("a child of a skipped parent is skipped with it; another event's parent acts as absent", () => {
    const plan = merge();
    plan.foundParents(guests, guests.refs[0], 1, [{ id: 9, uid: 'rt-9', owner_event_id: 2 }]);
    assert.deepEqual(plan.stage(guests, [guestRecord({ registration_type_uid: 'rt-9' })], new Map()), []);
    assert.equal(plan.result.skipped.guests, 1);
    assert.deepEqual(plan.result.conflicts.map((c) => [c.table, c.kind]), [['registration_types', 'other_event']]);
  });

  it('a parent found nowhere refuses the file', () => {
    assert.throws(() => merge().foundParents(guests, guests.refs[0], 1, []), /refers to a registration_types record that is not in the file/);
  });
});

describe('MergePlan codes: unique within the event (core/guest-codes.ts)', () => {
  it('a new guest whose barcode is taken is skipped, one whose tag is taken comes without it', () => {
    const plan = merge();
    const held = holders([['barcode', 'B-1', grace], ['nfc_tag', 'N-2', grace]]);
    const kept = plan.newGuestsClear([{ uid: 'g-1', barcode: 'B-1', nfc_tag: null }, { uid: 'g-3', barcode: 'B-3', nfc_tag: 'N-2' }, { uid: 'g-4', barcode: 'B-4', nfc_tag: 'N-4' }], held);
    assert.deepEqual(kept.map((g) => [g.uid, g.nfc_tag]), [['g-3', null], ['g-4', 'N-4']]);
    assert.deepEqual(plan.result.conflicts.map((c) => [c.uid, c.kind, c.resolution, c.existing_id]), [
      ['g-1', 'barcode', 'guest skipped', 20],
      ['g-3', 'nfc_tag', 'guest added without NFC tag', 20],
    ]);
    assert.equal(plan.result.skipped.guests, 1);
  });

  const table: [string, Row, ['barcode' | 'nfc_tag', string, CodeHolder][], Row, string[]][] = [
    ['a new barcode nobody holds', { barcode: 'B-9' }, [], { barcode: 'B-9' }, []],
    ["another guest's barcode: kept its own", { barcode: 'B-2' }, [['barcode', 'B-2', grace]], { barcode: 'B-1' }, ['barcode']],
    ["another guest's tag: kept its own", { nfc_tag: 'N-2' }, [['nfc_tag', 'N-2', grace]], { nfc_tag: null }, ['nfc_tag']],
    ['its own barcode again', { barcode: 'B-1' }, [['barcode', 'B-1', { ...grace, id: 10 }]], { barcode: 'B-1' }, []],
  ];
  for (const [name, change, held, expected, conflicts] of table) {
    it(`a changed guest taking ${name}`, () => {
      const plan = merge();
      const changes = { modified: T1, ...change };
      plan.keepCodesUnique(localGuest(), changes, holders(held));
      assert.deepEqual(changes, { modified: T1, ...expected });
      assert.deepEqual(plan.result.conflicts.map((c) => c.kind), conflicts);
    });
  }
});

describe('MergePlan: the event record and natural keys', () => {
  const local = { name: 'Gala', starts: T0, ends: T1, timezone: 'UTC', modified: T0 };
  const table: [string, boolean, typeof local, Row | undefined, string[]][] = [
    ['a later rename', true, { ...local, name: 'Ball', modified: T1 }, { name: 'Ball', starts: T0, ends: T1, timezone: 'UTC', modified: T1 }, []],
    ['an older rename', true, { ...local, name: 'Ball', modified: '2026-11-30T00:00:00.000Z' }, undefined, []],
    ['a later record, the same fields', true, { ...local, modified: T1 }, undefined, []],
    ["a door's rename", false, { ...local, name: 'Ball', modified: T1 }, undefined, ['setup_change']],
  ];
  for (const [name, allowSetup, incoming, changes, conflicts] of table) {
    it(name, () => {
      const plan = merge(allowSetup);
      plan.decideEvent(local, { ...incoming, uid: 'e-1' });
      assert.deepEqual(plan.eventChanges, changes);
      assert.deepEqual(plan.result.conflicts.map((c) => c.kind), conflicts);
      assert.equal(plan.result.unchanged.events, changes ? 0 : 1);
    });
  }

  it('a tag added on both sides is the one here', () => {
    const plan = merge();
    const rows = [{ uid: 'tag-a', session_id: 3, tag: 'VIP' }, { uid: 'tag-b', session_id: 3, tag: 'Press' }];
    assert.deepEqual(plan.newNaturalRows(tags, rows, [{ id: 40, uid: 'tag-here', session_id: 3, tag: 'VIP' }]).map((r) => r.uid), ['tag-b']);
    assert.equal(plan.result.unchanged.session_tags, 1);
    assert.ok(plan.seenChildren.get('session_tags')!.has('tag-here'));
  });
});
