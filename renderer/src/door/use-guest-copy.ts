import { useEffect, useRef, useState } from 'react';
import { OfflineError, type Api } from '../api';
import { GuestCopy } from '../guest-copy';
import { useInterval } from './use-live-stats';

const REFRESH_EVERY_MS = 10_000;

/** The station's copy of the event's guest list, kept fresh while the server answers. */
export function useGuestCopy(api: Api, eventId: number, online: boolean, onReachable: (reachable: boolean) => void) {
  const [copy, setCopy] = useState<GuestCopy>();
  const [size, setSize] = useState(0);
  const refreshing = useRef(false);

  useEffect(() => {
    let live = true;
    void GuestCopy.open(eventId).then((opened) => {
      if (!live) return;
      setCopy(opened);
      setSize(opened.size);
    });
    return () => {
      live = false;
    };
  }, [eventId]);

  const refresh = useRef(async () => {});
  refresh.current = async () => {
    if (!copy || !online || refreshing.current) return;
    refreshing.current = true;
    try {
      await copy.refresh(api);
      setSize(copy.size);
    } catch (err) {
      if (err instanceof OfflineError) onReachable(false);
    } finally {
      refreshing.current = false;
    }
  };
  useInterval(() => void refresh.current(), REFRESH_EVERY_MS);
  // The first load as soon as the stored copy is open.
  useEffect(() => {
    if (copy) void refresh.current();
  }, [copy]);

  return { copy, size };
}
