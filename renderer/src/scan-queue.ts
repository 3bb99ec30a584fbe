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

/**
 * Whether the server has decided a queued scan, so it may leave the queue: a check-in made
 * (201), or refused for good (409 already in/out, 404 nobody, 400 inactive, full, not registered
 * or a body it cannot take). Anything else (a 403, 408, 429, a redirect, an opaque or empty
 * answer) is no decision: the scan stays and is sent again. A network error, a timeout, a 5xx or
 * an abort never comes here (they throw), and never takes a scan off the queue either.
 */
export function scanAnswered(answer: Pick<ApiAnswer, 'status'>): boolean {
  return answer.status === 201 || answer.status === 200 || answer.status === 400 || answer.status === 404 || answer.status === 409;
}

/** The same for a queued walk-in's create: made, or refused for its fields. */
export function walkInAnswered(answer: Pick<ApiAnswer, 'status'>): boolean {
  return answer.status === 201 || answer.status === 400;
}

/** Where the waiting items are kept (IndexedDB in the browser; a plain list in the unit tests). */
export interface QueueStore {
  items(): Promise<QueuedItem[]>;
  drop(uid: string): Promise<unknown>;
}

const idbQueue: QueueStore = { items: queuedItems, drop: dropQueued };

/**
 * One hand-over: each item oldest first, taken off the store only once the server has decided
 * it (scanAnswered); the first item without a decision ends the hand-over with it still queued.
 */
export async function sendItems(api: Api, handlers: ReplayHandlers, store: QueueStore = idbQueue): Promise<void> {
  const refusedWalkIns = new Set<string>();
  for (const item of await store.items()) {
    try {
      if (item.type === 'walk_in') {
        const answer = await api.request('POST', `/events/${item.eventId}/guests`, item.fields);
        if (!walkInAnswered(answer)) return;
        if (!walkInDone(answer)) {
          refusedWalkIns.add(item.fields.barcode);
          handlers.onWalkInRefused?.(item, answer);
        }
      } else if (item.kind === 'barcode' && refusedWalkIns.has(item.code)) {
        // The check-in of a walk-in the server refused: nobody to check in.
      } else {
        // Sent first, whatever the handlers: `onScanAnswer?.(item, await sendScan(...))` skipped
        // the send itself when a sign-out gave no handlers, and the scan was dropped unsent.
        const answer = await sendScan(api, item.eventId, item);
        // No decision from the server: the scan stays, and so does every later one (oldest first).
        if (!scanAnswered(answer)) return;
        handlers.onScanAnswer?.(item, answer);
      }
    } catch (err) {
      if (err instanceof OfflineError) handlers.onReachable?.(false);
      if (err instanceof OfflineError || err instanceof SessionExpiredError || err instanceof SignedOutError) return;
      throw err;
    }
    await store.drop(item.uid);
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
  const run = sendItems(api, handlers);
  sending = run;
  try {
    await run;
  } finally {
    if (sending === run) sending = undefined;
  }
  return (await queuedItems()).length;
}

/** Whether the queue is being sent now (a scan taken back then may be on its way already). */
export function sendingQueued(): boolean {
  return sending !== undefined;
}

/**
 * Takes a scan back before it was sent: false when it is gone already, or when a hand-over is
 * running (it may be on its way). The check and the removal hold the same lock as a hand-over,
 * so none can start in between and send a scan this call then removes.
 */
export async function withdrawQueued(uid: string): Promise<boolean> {
  if (sending) return false;
  const withdraw = (async () => {
    const waiting = await queuedItems();
    if (!waiting.some((item) => item.uid === uid)) return false;
    await dropQueued(uid);
    return true;
  })();
  const held = withdraw.then(() => undefined);
  sending = held;
  try {
    return await withdraw;
  } finally {
    if (sending === held) sending = undefined;
  }
}
