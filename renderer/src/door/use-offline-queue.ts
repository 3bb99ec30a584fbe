import { useCallback, useRef, useState } from 'react';
import type { Api, ApiAnswer } from '../api';
import { queuedItems, queueItem, sendQueued, withdrawQueued, type QueuedItem, type QueuedScan, type QueuedWalkIn } from '../scan-queue';

export interface QueueEvents {
  /** A queued scan's answer from the server (once per scan: the uid makes a resend harmless). */
  onScanAnswer: (item: QueuedScan, answer: ApiAnswer) => void;
  /** A queued walk-in the server refused (its field errors); its check-in is dropped with it. */
  onWalkInRefused: (item: QueuedWalkIn, answer: ApiAnswer) => void;
  onReachable: (reachable: boolean) => void;
}

/** Scans and walk-ins the server could not take, in IndexedDB, replayed oldest first (sendQueued). */
export function useOfflineQueue(api: Api, events: QueueEvents) {
  const [items, setItems] = useState<QueuedItem[]>([]);
  const latest = useRef(events);
  latest.current = events;

  const count = useCallback(async () => {
    const waiting = await queuedItems().catch(() => []);
    setItems(waiting);
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
      const withdrawn = await withdrawQueued(uid).catch(() => false);
      await count();
      return withdrawn;
    },
    [count],
  );

  const flush = useCallback(async () => {
    try {
      await sendQueued(api, {
        onScanAnswer: (item, answer) => latest.current.onScanAnswer(item, answer),
        onWalkInRefused: (item, answer) => latest.current.onWalkInRefused(item, answer),
        onReachable: (reachable) => latest.current.onReachable(reachable),
        onSent: () => void count(),
      });
    } finally {
      await count();
    }
  }, [api, count]);

  /** Every waiting item of any event (the counters after an offline reload read this event's). */
  return { pending: items.length, items, enqueue, flush, count, withdraw };
}
