import type { ScanSend } from './checkin';
import { QUEUE_STORE, run } from './local-db';

/** A walk-in added while the server could not be reached: created on replay, then checked in. */
export interface WalkInFields {
  registration_type: number;
  first_name: string;
  last_name: string;
  email: string;
  company?: string;
  /** Made by this station; the guest's barcode is what makes the create safe to replay. */
  barcode: string;
}

interface Queued {
  uid: string;
  eventId: number;
  queuedAt: number;
}

/** A scan the server could not take yet, kept in IndexedDB until it answers. */
export interface QueuedScan extends ScanSend, Queued {
  type?: 'scan';
  /** What this station answered from its copy, so a different answer on replay is caught. */
  offlineOutcome?: string;
}

export interface QueuedWalkIn extends Queued {
  type: 'walk_in';
  fields: WalkInFields;
}

export type QueuedItem = QueuedScan | QueuedWalkIn;

export function queueItem(item: QueuedItem): Promise<IDBValidKey> {
  return run(QUEUE_STORE, 'readwrite', (store) => store.put(item));
}

/** Every waiting item (of any event: a station may have switched events since), oldest first. */
export async function queuedItems(): Promise<QueuedItem[]> {
  const all = await run<QueuedItem[]>(QUEUE_STORE, 'readonly', (store) => store.getAll());
  return all.sort((a, b) => a.queuedAt - b.queuedAt);
}

export function dropQueued(uid: string): Promise<undefined> {
  return run(QUEUE_STORE, 'readwrite', (store) => store.delete(uid));
}
