import { useCallback, type RefObject } from 'react';
import type { ScanSend } from '../checkin';
import { i18next } from '../i18n';
import type { QueuedScan } from '../scan-queue';
import type { ScanResult } from '../types';
import { ACCEPTED, type PipelineDeps } from './scan-rules';
import type { AcceptedScan } from './use-accepted-scans';
import type { Sound } from './use-verdict';

/**
 * The station's own answer when the server cannot be reached, from its guest list, exactly as
 * the server would answer at the event's door; admissions and check-outs wait in the queue for
 * the server. A session scan (registrations, capacity: the server's rules) waits undecided.
 */
export function useOfflineDecision(deps: RefObject<PipelineDeps>, show: (next: ScanResult, sound?: Sound) => void, accepted: (next: ScanResult, send: AcceptedScan) => boolean) {
  /** Queued for the server; false (and a red answer) when this browser cannot store it. */
  const enqueue = useCallback(
    async (item: QueuedScan, serial: number): Promise<boolean> => {
      try {
        await deps.current.queue.enqueue(item);
        return true;
      } catch {
        show({ outcome: 'refused', code: item.code, message: i18next.t('door:offline.cannotStore'), serial });
        return false;
      }
    },
    [deps, show],
  );

  return useCallback(
    async (send: ScanSend, serial: number) => {
      const { guestList, eventId } = deps.current;
      const queued: QueuedScan = { ...send, eventId, queuedAt: Date.now() };
      const code = send.label ?? send.code;
      if (!guestList?.loaded || send.sessionId !== undefined) {
        if (await enqueue(queued, serial)) show({ outcome: 'queued', code, sessionName: send.sessionName, serial, uid: send.uid, direction: send.direction, scannedAt: send.scannedAt });
        return;
      }
      const guest = guestList.find(send.kind, send.code, send.nfcFallback);
      const outcome = guestList.decide(guest, send.direction);
      const amber = outcome === 'already_checked_in';
      const next: ScanResult = { outcome, code, guest, offline: true, uid: send.uid, serial, direction: send.direction, scannedAt: send.scannedAt, checkedInAt: amber ? guest?.checked_in_at : undefined, checkedInStation: amber ? guest?.checked_in_station : undefined };
      if (!ACCEPTED.has(outcome)) return show(next);
      if (!(await enqueue({ ...queued, offlineOutcome: outcome }, serial))) return;
      show(next, accepted(next, send) ? 'attention' : undefined);
    },
    [deps, enqueue, show, accepted],
  );
}
