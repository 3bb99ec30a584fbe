import { useCallback, useRef, useState, type RefObject } from 'react';
import { announcement, type Checking } from '../components/result-panel';
import { beep } from '../sounds';
import type { ScanResult } from '../types';
import type { PipelineDeps } from './scan-rules';

export type Sound = Parameters<typeof beep>[0];

/**
 * The answer in front of the door staff: the latest scan's, with its sound and its words for
 * a screen reader, and the "checking" cover while a scan is on its way. An answer arriving
 * after a later scan's is logged but not shown.
 */
export function useVerdict(deps: RefObject<PipelineDeps>) {
  const [result, setResult] = useState<ScanResult>();
  const [checking, setChecking] = useState<Checking>();
  const [spoken, setSpoken] = useState({ text: '', serial: 0 });
  const shownSerial = useRef(0);

  /** In front, whatever was shown before (a double admission found on replay). */
  const showLoud = useCallback(
    (next: ScanResult, sound: Sound = next.outcome) => {
      shownSerial.current = next.serial;
      setResult(next);
      setSpoken({ text: announcement(next, deps.current.types, deps.current.timezone, sound === 'attention'), serial: next.serial });
      beep(sound);
    },
    [deps],
  );

  /** Logs an answer and shows it unless a later scan's answer is already on screen. */
  const show = useCallback(
    (next: ScanResult, sound?: Sound) => {
      deps.current.log.put(next);
      setChecking((c) => (c && c.serial <= next.serial ? undefined : c));
      if (next.serial < shownSerial.current) return;
      showLoud(next, sound);
    },
    [deps, showLoud],
  );

  /** An earlier answer again, with its sound: the reader fired twice. */
  const showAgain = useCallback((earlier: ScanResult) => {
    setResult(earlier);
    beep(earlier.outcome);
  }, []);

  /** An empty stage (a new mode): answers of scans made before it no longer show. */
  const clear = useCallback(() => {
    shownSerial.current = Math.max(shownSerial.current, deps.current.log.nextSerial());
    setResult(undefined);
  }, [deps]);

  return { result, setResult, checking, setChecking, spoken, show, showLoud, showAgain, clear };
}
