import { useCallback, useEffect, useRef, useState } from 'react';
import { OfflineError, type Api } from '../api';
import { loadKnownCounts, saveKnownCounts } from '../known-counts';
import { addChange, applyChanges, forgetChange, unseenChanges, type EventStats, type LocalChange } from '../stats';

const STATS_TIMEOUT_MS = 3000;
/** A change the server's figures never show (lost on its way) stops counting after this. */
const CHANGE_EXPIRES_MS = 30_000;

/**
 * The event's counters: polled from the server, with this station's own accepted scans and
 * undos counted in at once. Each change counts until the server's record of this station
 * (stationRecorded: grows by one per scan or undo, and only this station moves it) reaches it,
 * so a change is never counted twice nor dropped early, whatever came between. A scan the
 * server turns away after all (a replayed offline admission) is forgotten, and the changes
 * after it expect one less. Each answer is also kept for the event (known-counts.ts), so a page
 * reloaded while the server is away starts from the last figures.
 */
export function useLiveStats(api: Api, eventId: number, onReachable: (reachable: boolean) => void) {
  const [server, setServer] = useState<{ figures: EventStats; at: number }>();
  const [known] = useState(() => loadKnownCounts(eventId));
  const [changes, setChanges] = useState<LocalChange[]>([]);
  const serverRef = useRef<EventStats | undefined>(undefined);
  // Until the first answer, the kept figures give this station's record to count changes from.
  serverRef.current = server?.figures ?? known?.stats;
  const reachable = useRef(onReachable);
  reachable.current = onReachable;

  /** Fetches the figures; `heartbeat` (this station and its unsent scans) shows it on the supervisor view. */
  const refresh = useCallback(async (heartbeat?: { station: string; queued: number; previous?: string }): Promise<boolean> => {
    const beat = heartbeat && { station: heartbeat.station, queued: String(heartbeat.queued), ...(heartbeat.previous ? { previous_station: heartbeat.previous } : {}) };
    const query = beat ? `?${new URLSearchParams(beat)}` : '';
    try {
      const answer = await api.request<EventStats>('GET', `/events/${eventId}/stats${query}`, undefined, { timeoutMs: STATS_TIMEOUT_MS });
      reachable.current(true);
      if (answer.status === 200) {
        const figures = answer.body;
        const now = Date.now();
        setServer({ figures, at: now });
        saveKnownCounts(eventId, figures, now);
        setChanges((list) => unseenChanges(list, figures, now, CHANGE_EXPIRES_MS));
      }
      return true;
    } catch (err) {
      if (err instanceof OfflineError) reachable.current(false);
      return false;
    }
  }, [api, eventId]);

  const count = useCallback((change: Omit<LocalChange, 'at' | 'step' | 'expect'>) => {
    setChanges((list) => addChange(list, change, serverRef.current, Date.now()));
  }, []);

  /** A counted scan the server will never record (its replay refused, or taken back before it was sent). */
  const forget = useCallback((uid: string) => {
    setChanges((list) => forgetChange(list, uid));
  }, []);

  return { stats: server && applyChanges(server.figures, changes), fetchedAt: server?.at, known, refresh, count, forget };
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
