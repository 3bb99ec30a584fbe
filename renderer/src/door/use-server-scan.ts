import { useCallback, type RefObject } from 'react';
import { OfflineError, SessionExpiredError, SignedOutError } from '../api';
import { resultOf, sendScan, type ScanSend } from '../checkin';
import type { ScanResult } from '../types';
import type { PipelineDeps } from './scan-rules';
import type { AcceptedScan } from './use-accepted-scans';
import type { useVerdict } from './use-verdict';

/** A scan waits this long for the server before the station decides from its guest list. */
export const SCAN_TIMEOUT_MS = 2500;

/**
 * The scan as the server knows its code: the station's guest list names the form (barcode or
 * tag, which letter case), so one request answers it; a code the list does not hold is sent
 * as typed, once. Without a loaded list the request tries the forms one after another.
 */
function inKnownForm(send: ScanSend, deps: PipelineDeps): { send: ScanSend; exact: boolean } {
  const list = deps.guestList;
  if (send.kind === 'guest_id' || !list?.loaded) return { send, exact: send.kind === 'guest_id' };
  const known = list.knownForm(send.kind, send.code, send.nfcFallback);
  return { send: known ? { ...send, kind: known.kind, code: known.code, label: send.label ?? send.code } : send, exact: true };
}

type Verdict = Pick<ReturnType<typeof useVerdict>, 'show' | 'setChecking'>;

/**
 * A scan sent to the server and its answer shown; when the server cannot be reached the
 * station decides offline, and a scan made as the sign-in expired waits in the queue.
 */
export function useServerScan(deps: RefObject<PipelineDeps>, verdict: Verdict, accepted: (next: ScanResult, send: AcceptedScan) => boolean, decideOffline: (send: ScanSend, serial: number) => Promise<void>) {
  const { show, setChecking } = verdict;
  return useCallback(
    async (typed: ScanSend, serial: number, settle: (answer: ScanResult) => void) => {
      const { api, eventId, setReachable, queue } = deps.current;
      const { send, exact } = inKnownForm(typed, deps.current);
      try {
        const answer = await sendScan(api, eventId, send, { timeoutMs: SCAN_TIMEOUT_MS, exact });
        setReachable(true);
        const next = resultOf(answer, send, serial);
        // Where the first entry was, from the guest list when the server's answer does not say.
        if (next.outcome === 'already_checked_in' && !next.checkedInStation && next.guest) {
          next.checkedInStation = deps.current.guestList?.find('guest_id', String(next.guest.id), false)?.checked_in_station;
        }
        settle(next);
        const stop = answer.status === 201 && next.checkinId !== undefined && accepted(next, send);
        show(next, stop ? 'attention' : undefined);
        if (queue.pending > 0) void queue.flush();
      } catch (err) {
        if (err instanceof SessionExpiredError || err instanceof SignedOutError) {
          // The screen goes back to sign-in (or is signing out); the guest was scanned all the same,
          // so the scan waits in the queue and is sent (with its uid and time) once someone signs in again.
          setChecking(undefined);
          await queue.enqueue({ ...send, eventId, queuedAt: Date.now() }).catch(() => undefined);
        } else if (err instanceof OfflineError) {
          setReachable(false);
          await decideOffline(send, serial);
        } else {
          show({ outcome: 'refused', code: typed.code, message: (err as Error).message, serial });
        }
      }
    },
    [deps, accepted, decideOffline, show, setChecking],
  );
}
