import { useCallback, type RefObject } from 'react';
import { apiNow, detailOf, OfflineError } from '../api';
import { i18next } from '../i18n';
import type { ScanResult } from '../types';
import type { RepeatGuard } from './repeat-guard';
import { typeIdOf, type PipelineDeps } from './scan-rules';
import { undoable, type LogEntry } from './use-scan-log';

interface UndoEffects {
  guard: RepeatGuard;
  show: (next: ScanResult) => void;
  setNotice: (notice: string | undefined) => void;
  /** The guest no longer waits on the attention card. */
  dropAttention: (serial: number) => void;
}

/**
 * Takes an accepted scan back: the server's (DELETE), or one still waiting in the queue
 * (withdrawn, so the server sees neither). Counters, the guest list and the log follow.
 */
export function useUndoScan(deps: RefObject<PipelineDeps>, effects: UndoEffects) {
  const { guard, show, setNotice, dropAttention } = effects;

  /** Whether the scan is taken back; says why not when it is not. */
  const takeBack = useCallback(
    async (entry: LogEntry): Promise<boolean> => {
      const { api, eventId, queue, forgetStats } = deps.current;
      if (entry.checkinId !== undefined) {
        try {
          const answer = await api.request('DELETE', `/events/${eventId}/checkins/${entry.checkinId}`);
          if (answer.status === 204) return true;
          setNotice(detailOf(answer.body) ?? i18next.t('door:undo.failed', { status: answer.status }));
        } catch (err) {
          if (err instanceof OfflineError) setNotice(i18next.t('door:undo.needsServer'));
        }
        return false;
      }
      if (!entry.uid) return false;
      const withdrawn = await queue.withdraw(entry.uid);
      // Never sent: the server will see neither the scan nor its undo.
      if (withdrawn) forgetStats(entry.uid);
      else setNotice(i18next.t('door:undo.sending'));
      return withdrawn;
    },
    [deps, setNotice],
  );

  return useCallback(
    async (entry: LogEntry) => {
      if (!undoable(entry) || !(await takeBack(entry))) return;
      const { log, countStats, guestList, session, station } = deps.current;
      setNotice(undefined);
      guard.clear();
      const direction = entry.direction ?? 'in';
      log.update((e) => e.serial === entry.serial, { undone: true });
      if (entry.checkinId !== undefined) countStats({ delta: direction === 'in' ? -1 : 1, direction, typeId: typeIdOf(entry.guest), sessionId: entry.sessionName ? session?.id : undefined, station, scannedAt: entry.scannedAt });
      if (entry.guest && !entry.sessionName) void guestList?.record(entry.guest.id, direction === 'in' ? 'out' : 'in', entry.scannedAt ?? apiNow(), station);
      dropAttention(entry.serial);
      show({ outcome: 'undone', code: entry.code, guest: entry.guest, direction, serial: log.nextSerial() });
    },
    [deps, takeBack, guard, show, setNotice, dropAttention],
  );
}
