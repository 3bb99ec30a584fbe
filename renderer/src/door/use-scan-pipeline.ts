import { useCallback, useRef, useState } from 'react';
import { apiNow, OfflineError, SessionExpiredError } from '../api';
import { newUid } from '../../../core/uid';
import { resultOf, sendScan, type ScanSend } from '../checkin';
import { i18next } from '../i18n';
import type { CodeKind, Direction, ScanResult } from '../types';
import { RepeatGuard } from './repeat-guard';
import type { PipelineDeps } from './scan-rules';
import { useAcceptedScans } from './use-accepted-scans';
import { useOfflineDecision } from './use-offline-decision';
import { useReplayVerdicts } from './use-replay-verdicts';
import { useUndoScan } from './use-undo-scan';
import { useVerdict } from './use-verdict';

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

/**
 * One scan from code to answer: the repeat guard, the request, the station's own decision
 * from its guest list when the server is out of reach (queued for replay), the answer on
 * screen with its sound, the counters and the log. Replayed answers (double admissions) and
 * undo live in their own hooks; this one ties them together.
 */
export function useScanPipeline(deps: PipelineDeps) {
  const d = useRef(deps);
  d.current = deps;
  const verdict = useVerdict(d);
  const { show } = verdict;
  const [notice, setNotice] = useState<string>();
  const guard = useRef(new RepeatGuard()).current;

  const { accepted, attention, acknowledge, dropAttention } = useAcceptedScans(d);
  const replay = useReplayVerdicts(d, verdict, accepted);
  const undo = useUndoScan(d, { guard, show, setNotice, dropAttention });

  const decideOffline = useOfflineDecision(d, show, accepted);

  /** Sends the scan and shows the server's answer; decides offline when the server cannot be reached. */
  const sendOnline = useCallback(
    async (typed: ScanSend, serial: number, settle: (answer: ScanResult) => void) => {
      const { api, eventId, setReachable, queue } = d.current;
      const { send, exact } = inKnownForm(typed, d.current);
      try {
        const answer = await sendScan(api, eventId, send, { timeoutMs: SCAN_TIMEOUT_MS, exact });
        setReachable(true);
        const next = resultOf(answer, send, serial);
        // Where the first entry was, from the guest list when the server's answer does not say.
        if (next.outcome === 'already_checked_in' && !next.checkedInStation && next.guest) {
          next.checkedInStation = d.current.guestList?.find('guest_id', String(next.guest.id), false)?.checked_in_station;
        }
        settle(next);
        const stop = answer.status === 201 && next.checkinId !== undefined && accepted(next, send);
        show(next, stop ? 'attention' : undefined);
        if (queue.pending > 0) void queue.flush();
      } catch (err) {
        if (err instanceof SessionExpiredError) {
          // The screen goes back to sign-in; the guest was scanned all the same, so the scan
          // waits in the queue and is sent (with its uid and time) once someone signs in again.
          verdict.setChecking(undefined);
          await queue.enqueue({ ...send, eventId, queuedAt: Date.now() }).catch(() => undefined);
        } else if (err instanceof OfflineError) {
          setReachable(false);
          await decideOffline(send, serial);
        } else {
          show({ outcome: 'refused', code: typed.code, message: (err as Error).message, serial });
        }
      }
    },
    [accepted, decideOffline, show, verdict.setChecking],
  );

  /** One scan: typed, read by a reader or camera, or a guest picked from a list. */
  const scan = useCallback(
    async (kind: CodeKind, code: string, options: { direction?: Direction; label?: string } = {}) => {
      const { station, nfcFallback, direction, session, online, log } = d.current;
      const now = Date.now();
      const scanDirection = options.direction ?? direction;
      // Switching to check-out or to a session and scanning again is meant: a new scan.
      const guardKey = `${kind}:${code}:${scanDirection}:${session?.id ?? ''}`;
      const repeat = kind === 'guest_id' ? undefined : guard.repeatOf(guardKey, now);
      if (repeat) {
        // The reader fired twice: the first answer stands (shown again once it is here).
        if (repeat.result) verdict.showAgain(repeat.result);
        return;
      }
      const guarded = kind === 'guest_id' ? undefined : guard.start(guardKey, now);
      const serial = log.nextSerial();
      const shownAs = options.label ?? code;
      verdict.setChecking({ serial, code: shownAs });
      log.put({ outcome: 'checking', code: shownAs, serial });
      const send: ScanSend = { uid: newUid(), kind, code, nfcFallback: kind === 'barcode' && nfcFallback, direction: scanDirection, sessionId: session?.id, sessionName: session?.name, scannedAt: apiNow(), station, label: options.label };
      if (!online) return decideOffline(send, serial);
      await sendOnline(send, serial, (answer) => {
        if (guarded) guarded.result = answer;
      });
    },
    [decideOffline, sendOnline, guard, verdict.showAgain, verdict.setChecking],
  );

  return {
    result: verdict.result,
    checking: verdict.checking,
    spoken: verdict.spoken,
    clearResult: verdict.clear,
    attention,
    acknowledge,
    doubles: replay.doubles,
    dismissDouble: replay.dismissDouble,
    replayed: replay.replayed,
    notice,
    setNotice,
    scan,
    undo,
  };
}
