import { OfflineError, SessionExpiredError, SignedOutError, type Api, type ApiAnswer } from './api';
import { sendScan, type ScanSend } from './checkin';
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

/** What the door does with each answer as the queue is handed over (sign-out needs none). */
export interface ReplayHandlers {
  /** A queued scan's answer from the server (once per scan: the uid makes a resend harmless). */
  onScanAnswer?: (item: QueuedScan, answer: ApiAnswer) => void;
  /** A queued walk-in the server refused (its field errors); its check-in is dropped with it. */
  onWalkInRefused?: (item: QueuedWalkIn, answer: ApiAnswer) => void;
  onReachable?: (reachable: boolean) => void;
  /** After each item taken off the queue. */
  onSent?: () => void;
}

/**
 * A walk-in create whose answer was lost is sent again: the barcode this station gave the
 * guest is unique in the event, so the second create answers "barcode already exists" and
 * nothing is made twice. The guest-create API takes no client uid; the barcode plays its part.
 */
function walkInDone(answer: ApiAnswer): boolean {
  if (answer.status === 201) return true;
  const body = (answer.body ?? {}) as Record<string, unknown>;
  return answer.status === 400 && Object.keys(body).length === 1 && Array.isArray(body.barcode);
}

async function sendAll(api: Api, handlers: ReplayHandlers): Promise<void> {
  const refusedWalkIns = new Set<string>();
  for (const item of await queuedItems()) {
    try {
      if (item.type === 'walk_in') {
        const answer = await api.request('POST', `/events/${item.eventId}/guests`, item.fields);
        if (!walkInDone(answer)) {
          refusedWalkIns.add(item.fields.barcode);
          handlers.onWalkInRefused?.(item, answer);
        }
      } else if (item.kind === 'barcode' && refusedWalkIns.has(item.code)) {
        // The check-in of a walk-in the server refused: nobody to check in.
      } else {
        handlers.onScanAnswer?.(item, await sendScan(api, item.eventId, item));
      }
    } catch (err) {
      if (err instanceof OfflineError) handlers.onReachable?.(false);
      if (err instanceof OfflineError || err instanceof SessionExpiredError || err instanceof SignedOutError) return;
      throw err;
    }
    await dropQueued(item.uid);
    handlers.onReachable?.(true);
    handlers.onSent?.();
  }
}

// One hand-over at a time in this page: the door's poll and a sign-out never send a scan twice at once.
let sending: Promise<void> | undefined;

/**
 * Sends the waiting items oldest first, until the server cannot be reached or refuses the
 * token; answers how many are still waiting. With `wait`, a hand-over already running is
 * waited for and the queue tried once more (a sign-out); without, it is left to finish.
 */
export async function sendQueued(api: Api, handlers: ReplayHandlers = {}, wait = false): Promise<number> {
  if (sending && !wait) return -1;
  while (sending) await sending.catch(() => undefined);
  const run = sendAll(api, handlers);
  sending = run;
  try {
    await run;
  } finally {
    sending = undefined;
  }
  return (await queuedItems()).length;
}

/** Whether the queue is being sent now (a scan taken back then may be on its way already). */
export function sendingQueued(): boolean {
  return sending !== undefined;
}
