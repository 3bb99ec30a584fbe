import { useCallback, useState, type RefObject } from 'react';
import type { ApiAnswer } from '../api';
import { resultOf } from '../checkin';
import type { QueuedScan } from '../scan-queue';
import type { ScanResult } from '../types';
import { ACCEPTED, type PipelineDeps } from './scan-rules';
import type { useVerdict } from './use-verdict';

type Verdict = Pick<ReturnType<typeof useVerdict>, 'setResult' | 'showLoud'>;

/**
 * What a queued scan's answer means once the server gives it: the log learns it, a scan
 * decided offline and turned away stops counting, and a guest this station let in whom
 * another station had let in first is a double admission, shown loudly and kept in a list
 * until someone deals with it.
 */
export function useReplayVerdicts(deps: RefObject<PipelineDeps>, verdict: Verdict, accepted: (next: ScanResult, send: QueuedScan) => void) {
  const [doubles, setDoubles] = useState<ScanResult[]>([]);
  const { setResult, showLoud } = verdict;

  /** The entry that stands for a double admission's guest, when the server's answer does not name its station. */
  const whoLetIn = useCallback(
    async (double: ScanResult) => {
      const { api, eventId } = deps.current;
      try {
        const body = await api.get<{ results: { direction: string; station: string | null; scanned_at: string; uid: string }[] }>(`/events/${eventId}/checkins?guest_id=${double.guest!.id}`);
        const first = body.results.find((c) => c.direction === 'in' && c.uid !== double.uid);
        if (!first) return;
        const named = { checkedInStation: first.station, checkedInAt: first.scanned_at };
        setDoubles((list) => list.map((r) => (r.serial === double.serial ? { ...r, ...named } : r)));
        setResult((shown) => (shown?.serial === double.serial ? { ...shown, ...named } : shown));
      } catch {
        // The list says "another station" until then.
      }
    },
    [deps, setResult],
  );

  const replayed = useCallback(
    (item: QueuedScan, answer: ApiAnswer) => {
      const { log, forgetStats } = deps.current;
      const next = resultOf(answer, item, 0);
      log.update((e) => e.uid === item.uid, { checkinId: next.checkinId, replayed: true, ...(item.offlineOutcome ? {} : { outcome: next.outcome, guest: next.guest }) });
      if (!item.offlineOutcome && ACCEPTED.has(next.outcome)) accepted(next, item);
      // Counted when decided here; the server turned it away, so it will never count it.
      if (item.offlineOutcome && ACCEPTED.has(item.offlineOutcome) && !ACCEPTED.has(next.outcome)) forgetStats(item.uid);
      if (item.offlineOutcome === 'checked_in' && next.outcome === 'already_checked_in') {
        const double: ScanResult = { ...next, outcome: 'double_admission', serial: log.nextSerial(), offline: false, replayed: true };
        log.update((e) => e.uid === item.uid, { outcome: 'double_admission', checkedInAt: next.checkedInAt, checkedInStation: next.checkedInStation });
        setDoubles((list) => [double, ...list]);
        if (!double.checkedInStation && double.guest) void whoLetIn(double);
        showLoud(double);
      }
      // A "queued" answer still on screen is out of date once its scan has been sent.
      setResult((shown) => (shown?.outcome === 'queued' && shown.uid === item.uid ? { ...next, serial: shown.serial, replayed: true } : shown));
    },
    [deps, accepted, whoLetIn, showLoud, setResult],
  );

  const dismissDouble = useCallback((serial: number) => setDoubles((list) => list.filter((r) => r.serial !== serial)), []);

  return { doubles, replayed, dismissDouble };
}
