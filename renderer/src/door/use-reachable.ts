import { useCallback, useEffect, useState } from 'react';
import { apiRequest } from '../api';

/** Kept for the tab, so a reload while the server is away starts offline. */
const OFFLINE_KEY = 'doorlist.offline';
/** A first answer takes milliseconds on a LAN; a hung server would otherwise cost the first scan its whole timeout. */
const PROBE_TIMEOUT_MS = 1000;

/**
 * Whether this station's server answers. A page that comes back from the app shell while the
 * server is away must answer its first scan from the copy at once, not after a scan's timeout:
 * it starts from the state it had before the reload, and a short probe at start settles it.
 */
export function useReachable(): [boolean, (reachable: boolean) => void] {
  const [online, setOnlineState] = useState(() => sessionStorage.getItem(OFFLINE_KEY) === null);
  const setOnline = useCallback((reachable: boolean) => {
    if (reachable) sessionStorage.removeItem(OFFLINE_KEY);
    else sessionStorage.setItem(OFFLINE_KEY, '1');
    setOnlineState(reachable);
  }, []);
  useEffect(() => {
    let live = true;
    apiRequest(null, 'GET', '/setup', undefined, { timeoutMs: PROBE_TIMEOUT_MS }).then(
      () => live && setOnline(true),
      () => live && setOnline(false),
    );
    return () => {
      live = false;
    };
  }, [setOnline]);
  return [online, setOnline];
}
