import { useCallback, useEffect, useRef, useState } from 'react';

const hasWebNfc = typeof window !== 'undefined' && 'NDEFReader' in window;

interface NdefReader {
  scan(options: { signal: AbortSignal }): Promise<void>;
  onreading: ((e: { serialNumber: string }) => void) | null;
}

/**
 * Web NFC (Chrome on Android): each tag read is handed to the latest `onTag`, so a reader
 * switched on in door mode checks out once the screen is in check-out mode.
 */
export function useNfc(onTag: (serialNumber: string) => void, onError: (message: string) => void) {
  const [on, setOn] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const latest = useRef(onTag);
  latest.current = onTag;

  useEffect(() => () => abort.current?.abort(), []);

  const toggle = useCallback(async () => {
    if (abort.current) {
      abort.current.abort();
      abort.current = undefined;
      setOn(false);
      return;
    }
    try {
      const Reader = (window as unknown as { NDEFReader: new () => NdefReader }).NDEFReader;
      const reader = new Reader();
      const controller = new AbortController();
      await reader.scan({ signal: controller.signal });
      reader.onreading = (e) => latest.current(e.serialNumber);
      abort.current = controller;
      setOn(true);
    } catch (err) {
      onError((err as Error).message);
    }
  }, [onError]);

  return { supported: hasWebNfc, on, toggle };
}
