import type { Trx } from '../../db/knex';
import { chunks } from '../../db/bulk';
import { standingDoorScans, updateRow, type Row } from '../../db/repositories/event-file-merge';
import type { MergeJournal } from '../../db/repositories/merge-journal';
import { toApiDatetime } from '../../core/time';
import { doorStateOf, type StandingScan } from '../../core/scan';

/** A guest admitted on two stations while they could not see each other. */
export interface DoubleAdmission {
  guest_id: number;
  guest_uid: string;
  name: string;
  checkins: { uid: string; station: string | null; scanned_at: string }[];
}

/**
 * After a merge's check-ins are written: each affected guest is in when their latest
 * event-level check-in still standing is an 'in'; and two standing 'in's without an 'out'
 * between, one of them `added` by the merge, are a double admission made while the laptops
 * were apart. (A new event arrives with the door state it had.) A merge's `journal` notes each
 * change, so the merge can be undone.
 */
export async function refreshDoorState(trx: Trx, eventId: number, guestIds: number[], added: Set<number>, now: string, journal?: MergeJournal): Promise<DoubleAdmission[]> {
  const found: DoubleAdmission[] = [];
  for (const part of chunks(guestIds, 500)) {
    const { scans, guests } = await standingDoorScans(trx, eventId, part);
    const byGuest = new Map<number, Row[]>();
    for (const c of scans) {
      const list = byGuest.get(c.guest_id as number) ?? [];
      list.push(c);
      byGuest.set(c.guest_id as number, list);
    }
    for (const guest of guests) {
      const list = byGuest.get(guest.id as number) ?? [];
      const last = list[list.length - 1];
      const checkedInAt = doorStateOf(last as unknown as StandingScan | undefined).inSince;
      if ((guest.checked_in_at ?? null) !== checkedInAt) {
        journal?.updated('guests', guest, { checked_in_at: checkedInAt });
        await updateRow(trx, 'guests', guest.id as number, { checked_in_at: checkedInAt, modified: now });
      }
      found.push(...doubleAdmissions(guest, list, added));
    }
  }
  return found;
}

function doubleAdmissions(guest: Row, checkins: Row[], added: Set<number>): DoubleAdmission[] {
  const found: DoubleAdmission[] = [];
  let standingIn: Row | undefined;
  for (const c of checkins) {
    if (c.direction === 'out') {
      standingIn = undefined;
      continue;
    }
    if (standingIn) {
      const aNew = added.has(standingIn.id as number);
      const bNew = added.has(c.id as number);
      if ((aNew || bNew) && (aNew !== bNew || standingIn.station !== c.station)) {
        found.push({
          guest_id: guest.id as number,
          guest_uid: guest.uid as string,
          name: `${guest.first_name ?? ''} ${guest.last_name ?? ''}`.trim(),
          checkins: [standingIn, c].map((x) => ({ uid: x.uid as string, station: (x.station as string | null) ?? null, scanned_at: toApiDatetime(x.scanned_at as string) as string })),
        });
      }
      continue;
    }
    standingIn = c;
  }
  return found;
}
