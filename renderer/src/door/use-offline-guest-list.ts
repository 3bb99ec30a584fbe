import { useEffect, useRef, useState } from 'react';
import { OfflineError, type Api } from '../api';
import { OfflineGuestList } from '../offline-guest-list';
import { useInterval } from './use-live-stats';

const REFRESH_EVERY_MS = 10_000;

/** The station's offline copy of the event's guest list, kept fresh while the server answers. */
export function useOfflineGuestList(api: Api, eventId: number, online: boolean, onReachable: (reachable: boolean) => void) {
  const [list, setList] = useState<OfflineGuestList>();
  const [size, setSize] = useState(0);
  const refreshing = useRef(false);

  useEffect(() => {
    let live = true;
    void OfflineGuestList.open(eventId).then((opened) => {
      if (!live) return;
      setList(opened);
      setSize(opened.size);
    });
    return () => {
      live = false;
    };
  }, [eventId]);

  const refresh = useRef(async () => {});
  refresh.current = async () => {
    if (!list || !online || refreshing.current) return;
    refreshing.current = true;
    try {
      await list.refresh(api);
      setSize(list.size);
    } catch (err) {
      if (err instanceof OfflineError) onReachable(false);
    } finally {
      refreshing.current = false;
    }
  };
  useInterval(() => void refresh.current(), REFRESH_EVERY_MS);
  // The first load as soon as the stored list is open.
  useEffect(() => {
    if (list) void refresh.current();
  }, [list]);

  return { list, size };
}
