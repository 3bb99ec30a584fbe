import { useCallback, useEffect, useRef, useState } from 'react';
import type { ScanResult } from '../types';

/** One line of the station's scan log. */
export interface LogEntry extends ScanResult {
  /** When the scan was made here (ms). */
  at: number;
  /** An accepted scan taken back from the log or with Ctrl+Z. */
  undone?: boolean;
}

const KEEP = 200;
const keyOf = (eventId: number) => `doorlist.log.${eventId}`;

function load(eventId: number): LogEntry[] {
  try {
    const saved = JSON.parse(localStorage.getItem(keyOf(eventId)) ?? '[]') as LogEntry[];
    // A scan still on its way when the page went away: its answer is unknown here.
    return Array.isArray(saved) ? saved.filter((e) => e.outcome !== 'checking') : [];
  } catch {
    return [];
  }
}

/** Whether an entry is an accepted scan that can still be taken back. */
export function undoable(entry: LogEntry): boolean {
  return !entry.undone && (entry.outcome === 'checked_in' || entry.outcome === 'checked_out') && (entry.checkinId !== undefined || entry.offline === true);
}

/**
 * This station's scans with their answers, newest first, kept in localStorage per event so a
 * reload keeps them. Serial numbers carry on from the log, so entries stay distinct.
 */
export function useScanLog(eventId: number) {
  const [entries, setEntries] = useState<LogEntry[]>(() => load(eventId));
  const serial = useRef(entries.reduce((max, e) => Math.max(max, e.serial), 0));

  useEffect(() => {
    try {
      localStorage.setItem(keyOf(eventId), JSON.stringify(entries.slice(0, KEEP)));
    } catch {
      // A full localStorage loses the log, never a scan (scans live on the server or in the queue).
    }
  }, [entries, eventId]);

  const nextSerial = useCallback(() => (serial.current += 1), []);

  /** Adds an entry, or replaces the one with the same serial (a scan's answer arriving). */
  const put = useCallback((entry: ScanResult, at = Date.now()) => {
    setEntries((list) => {
      const index = list.findIndex((e) => e.serial === entry.serial);
      if (index < 0) return [{ ...entry, at }, ...list].slice(0, KEEP);
      const next = [...list];
      next[index] = { ...list[index], ...entry };
      return next;
    });
  }, []);

  /** Updates the entry of a scan by its uid (its replayed answer, or an undo). */
  const update = useCallback((match: (e: LogEntry) => boolean, change: Partial<LogEntry>) => {
    setEntries((list) => list.map((e) => (match(e) ? { ...e, ...change } : e)));
  }, []);

  return { entries, nextSerial, put, update };
}
