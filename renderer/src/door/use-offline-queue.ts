import { useCallback, useRef, useState } from 'react';
import { OfflineError, SessionExpiredError, type Api, type ApiAnswer } from '../api';
import { sendScan } from '../checkin';
import { dropQueued, queuedItems, queueItem, type QueuedItem, type QueuedScan, type QueuedWalkIn } from '../scan-queue';

export interface QueueEvents {
  /** A queued scan's answer from the server (once per scan: the uid makes a resend harmless). */
  onScanAnswer: (item: QueuedScan, answer: ApiAnswer) => void;
  /** A queued walk-in the server refused (its field errors); its check-in is dropped with it. */
  onWalkInRefused: (item: QueuedWalkIn, answer: ApiAnswer) => void;
  onReachable: (reachable: boolean) => void;
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

/** Scans and walk-ins the server could not take, in IndexedDB, replayed oldest first. */
export function useOfflineQueue(api: Api, events: QueueEvents) {
  const [pending, setPending] = useState(0);
  const flushing = useRef(false);
  const latest = useRef(events);
  latest.current = events;

  const count = useCallback(async () => {
    const waiting = await queuedItems().catch(() => []);
    setPending(waiting.length);
    return waiting.length;
  }, []);

  const enqueue = useCallback(
    async (item: QueuedItem) => {
      await queueItem(item);
      await count();
    },
    [count],
  );

  /** Takes a scan back before it was sent; false when it is gone already (sent, or being sent). */
  const withdraw = useCallback(
    async (uid: string): Promise<boolean> => {
      if (flushing.current) return false;
      const waiting = await queuedItems().catch(() => []);
      if (!waiting.some((item) => item.uid === uid)) return false;
      await dropQueued(uid);
      await count();
      return true;
    },
    [count],
  );

  const flush = useCallback(async () => {
    if (flushing.current) return;
    flushing.current = true;
    try {
      const refusedWalkIns = new Set<string>();
      for (const item of await queuedItems()) {
        try {
          if (item.type === 'walk_in') {
            const answer = await api.request('POST', `/events/${item.eventId}/guests`, item.fields);
            if (!walkInDone(answer)) {
              refusedWalkIns.add(item.fields.barcode);
              latest.current.onWalkInRefused(item, answer);
            }
          } else if (item.kind === 'barcode' && refusedWalkIns.has(item.code)) {
            // The check-in of a walk-in the server refused: nobody to check in.
          } else {
            latest.current.onScanAnswer(item, await sendScan(api, item.eventId, item));
          }
        } catch (err) {
          if (err instanceof OfflineError) latest.current.onReachable(false);
          if (err instanceof OfflineError || err instanceof SessionExpiredError) break;
          throw err;
        }
        await dropQueued(item.uid);
        latest.current.onReachable(true);
        await count();
      }
    } finally {
      flushing.current = false;
      await count();
    }
  }, [api, count]);

  return { pending, enqueue, flush, count, withdraw };
}
