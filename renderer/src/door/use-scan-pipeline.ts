import { useCallback, useRef, useState } from 'react';
import { apiNow } from '../api';
import { newUid } from '../../../core/uid';
import type { ScanSend } from '../checkin';
import type { CodeKind, Direction, ScanResult } from '../types';
import { RepeatGuard } from './repeat-guard';
import type { PipelineDeps } from './scan-rules';
import { useAcceptedScans } from './use-accepted-scans';
import { useOfflineDecision } from './use-offline-decision';
import { useReplayVerdicts } from './use-replay-verdicts';
import { useServerScan } from './use-server-scan';
import { useUndoScan } from './use-undo-scan';
import { useVerdict } from './use-verdict';

/**
 * One scan from code to answer: the repeat guard, the request, the station's own decision
 * from its guest list when the server is out of reach (queued for replay), the answer on
 * screen with its sound, the counters and the log. Each step lives in its own hook (verdict,
 * accepted scans, offline decision, server scan, replay verdicts, undo); this one runs a scan
 * through them.
 */
export function useScanPipeline(deps: PipelineDeps) {
  const latest = useRef(deps);
  latest.current = deps;
  const verdict = useVerdict(latest);
  const { show } = verdict;
  const [notice, setNotice] = useState<string>();
  const guard = useRef(new RepeatGuard()).current;

  const { accepted, attention, acknowledge, dropAttention } = useAcceptedScans(latest);
  const replay = useReplayVerdicts(latest, verdict, accepted);
  const undo = useUndoScan(latest, { guard, show, setNotice, dropAttention });
  const decideOffline = useOfflineDecision(latest, show, accepted);
  const sendOnline = useServerScan(latest, verdict, accepted, decideOffline);

  /** One scan: typed, read by a reader or camera, or a guest picked from a list. */
  const scan = useCallback(
    async (kind: CodeKind, code: string, options: { direction?: Direction; label?: string } = {}) => {
      const { station, nfcFallback, direction, session, online, log } = latest.current;
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
