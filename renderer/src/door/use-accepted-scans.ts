import { useCallback, useState, type RefObject } from 'react';
import type { ScanSend } from '../checkin';
import type { ScanResult } from '../types';
import { needsAttention, typeIdOf, type PipelineDeps } from './scan-rules';

export type AcceptedScan = Pick<ScanSend, 'direction' | 'sessionId' | 'station' | 'scannedAt' | 'uid'>;

/**
 * What follows a scan let through, by the server or by the station offline: the counters
 * count it at once, the guest list knows where the guest is, and a guest the door must stop
 * for waits on the attention card until someone acknowledges them.
 */
export function useAcceptedScans(deps: RefObject<PipelineDeps>) {
  const [attention, setAttention] = useState<ScanResult[]>([]);

  /** True when the door must stop for this guest (the answer sounds the attention tone). */
  const accepted = useCallback(
    (next: ScanResult, send: AcceptedScan): boolean => {
      const { countStats, guestList, types } = deps.current;
      const scannedAt = next.scannedAt ?? send.scannedAt;
      countStats({ uid: send.uid, delta: send.direction === 'in' ? 1 : -1, direction: send.direction, typeId: typeIdOf(next.guest), sessionId: send.sessionId, station: send.station, scannedAt });
      if (next.guest && send.sessionId === undefined) void guestList?.record(next.guest.id, send.direction, scannedAt, send.station);
      const stop = send.direction === 'in' && needsAttention(next.guest, types);
      if (stop) setAttention((list) => [...list, next]);
      return stop;
    },
    [deps],
  );

  /** One guest seen: the one named, or else the one waiting longest (Enter on the empty field). */
  const acknowledge = useCallback((serial?: number) => setAttention((list) => (serial === undefined ? list.slice(1) : list.filter((r) => r.serial !== serial))), []);
  const dropAttention = useCallback((serial: number) => setAttention((list) => list.filter((r) => r.serial !== serial)), []);

  return { accepted, attention, acknowledge, dropAttention };
}
