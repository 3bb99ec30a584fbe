import { useCallback, useEffect, useRef, useState } from 'react';
import { OfflineError, type Api } from '../api';
import { applyChanges, type EventStats, type LocalChange } from '../stats';

const STATS_TIMEOUT_MS = 3000;

/**
 * The event's counters: polled from the server, with this station's own accepted scans and
 * undos counted in at once (each until a poll that started after it has come back, which then
 * includes it).
 */
export function useLiveStats(api: Api, eventId: number, onReachable: (reachable: boolean) => void) {
  const [server, setServer] = useState<EventStats>();
  const [changes, setChanges] = useState<LocalChange[]>([]);
  const reachable = useRef(onReachable);
  reachable.current = onReachable;

  const refresh = useCallback(async (): Promise<boolean> => {
    const startedAt = Date.now();
    try {
      const answer = await api.request<EventStats>('GET', `/events/${eventId}/stats`, undefined, { timeoutMs: STATS_TIMEOUT_MS });
      reachable.current(true);
      if (answer.status === 200) {
        setServer(answer.body);
        setChanges((list) => list.filter((c) => c.at >= startedAt));
      }
      return true;
    } catch (err) {
      if (err instanceof OfflineError) reachable.current(false);
      return false;
    }
  }, [api, eventId]);

  const count = useCallback((change: Omit<LocalChange, 'at'>) => setChanges((list) => [...list, { ...change, at: Date.now() }]), []);

  return { stats: server && applyChanges(server, changes), refresh, count };
}

/** Runs `tick` every `ms` and once at once; the latest `tick` is always the one called. */
export function useInterval(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    latest.current();
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}
