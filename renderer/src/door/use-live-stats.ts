import { useCallback, useEffect, useRef, useState } from 'react';
import { OfflineError, type Api } from '../api';
import { applyChanges, stationFigure, type EventStats, type LocalChange } from '../stats';

const STATS_TIMEOUT_MS = 3000;
/** A change the server's figures never show (a replay refused) stops counting after this. */
const CHANGE_EXPIRES_MS = 10_000;

/**
 * The event's counters: polled from the server, with this station's own accepted scans and
 * undos counted in at once. Each change counts until the server's figure for this station
 * shows it: only this station moves that figure, so it tells whether the figures include the
 * change, whether they were counted before or after it (or served from a copy).
 */
export function useLiveStats(api: Api, eventId: number, onReachable: (reachable: boolean) => void) {
  const [server, setServer] = useState<EventStats>();
  const [changes, setChanges] = useState<LocalChange[]>([]);
  const serverRef = useRef(server);
  serverRef.current = server;
  const reachable = useRef(onReachable);
  reachable.current = onReachable;

  const refresh = useCallback(async (): Promise<boolean> => {
    try {
      const answer = await api.request<EventStats>('GET', `/events/${eventId}/stats`, undefined, { timeoutMs: STATS_TIMEOUT_MS });
      reachable.current(true);
      if (answer.status === 200) {
        const figures = answer.body;
        const now = Date.now();
        setServer(figures);
        setChanges((list) =>
          list.filter((c) => {
            const figure = stationFigure(figures, c.station, c.direction);
            const shown = c.step > 0 ? figure >= c.expect : figure <= c.expect;
            return !shown && now - c.at < CHANGE_EXPIRES_MS;
          }),
        );
      }
      return true;
    } catch (err) {
      if (err instanceof OfflineError) reachable.current(false);
      return false;
    }
  }, [api, eventId]);

  const count = useCallback((change: Omit<LocalChange, 'at' | 'step' | 'expect'>) => {
    setChanges((list) => {
      // The station's in (or out) figure steps by one per change: up for a scan, down for its undo.
      const step = (change.direction === 'in' ? change.delta : -change.delta) as 1 | -1;
      const before = [...list].reverse().find((c) => c.station === change.station && c.direction === change.direction);
      const base = before ? before.expect : serverRef.current ? stationFigure(serverRef.current, change.station, change.direction) : 0;
      return [...list, { ...change, at: Date.now(), step, expect: base + step }];
    });
  }, []);

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
