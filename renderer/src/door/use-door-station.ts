import { useCallback, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { useLeaveGuard } from '../app-shell';
import { countsOnScreen } from '../known-counts';
import type { Direction, EventSummary } from '../types';
import { useDoorSync } from './use-door-sync';
import { useEventSetup } from './use-event-setup';
import { useInterval, useLiveStats } from './use-live-stats';
import { useOfflineGuestList } from './use-offline-guest-list';
import { useOfflineQueue } from './use-offline-queue';
import { useReachable } from './use-reachable';
import { useScanLog } from './use-scan-log';
import { useScanPipeline } from './use-scan-pipeline';
import { useStationSettings } from './use-station-settings';

// The name this station's last answered heartbeat carried.
const LAST_BEAT_KEY = 'doorlist.stationLastBeat';
// Other stations' scans show within this; this station's own at once.
const STATS_EVERY_MS = 2000;

/**
 * Everything a door station works with for one event, wired together: its settings, the
 * event's setup, whether the server answers, the counters, the offline guest list and queue,
 * the scan pipeline and the scan direction. The screen only lays these out.
 */
export function useDoorStation(api: Api, event: EventSummary, onChangeEvent: () => void) {
  const { t } = useTranslation('door');
  const { settings, save: saveSettings, setSound } = useStationSettings();
  const setup = useEventSetup(api, event, onChangeEvent);
  const [online, setOnline] = useReachable();
  const [direction, setDirection] = useState<Direction>('in');
  const log = useScanLog(event.id);
  const live = useLiveStats(api, event.id, setOnline);
  const sync = useDoorSync(api, event.id);
  const guestList = useOfflineGuestList(api, event.id, online, setOnline);
  const queue = useOfflineQueue(api, {
    onScanAnswer: (item, answer) => pipeline.replayed(item, answer),
    onWalkInRefused: (item) => pipeline.setNotice(t('walkIn.refusedOnReplay', { name: `${item.fields.first_name} ${item.fields.last_name}` })),
    onReachable: setOnline,
  });
  const station = settings.station || 'Door';
  const pipeline = useScanPipeline({
    api,
    eventId: event.id,
    station,
    nfcFallback: settings.nfcFallback,
    direction,
    session: setup.session,
    types: setup.types,
    timezone: setup.timezone,
    guestList: guestList.list,
    online,
    setReachable: setOnline,
    log,
    countStats: live.count,
    forgetStats: live.forget,
    queue,
  });

  useLeaveGuard(!online || queue.pending > 0);

  // What the counters show: live, or (the server away) the last figures with this station's queue.
  const list = guestList.list;
  const counts = useMemo(
    () => countsOnScreen({ live: live.stats, liveAt: live.fetchedAt, known: live.known, online, queued: queue.items, eventId: event.id, typeOf: (scan) => list?.find(scan.kind, scan.code, scan.nfcFallback)?.registration_type }),
    [live.stats, live.fetchedAt, live.known, online, queue.items, event.id, list, guestList.size],
  );

  // The counters' poll doubles as the probe and as this station's heartbeat. Waiting scans go
  // first, so the figures fetched next include them (this station had counted them already).
  // No heartbeat before the station's name is known (the supervisor would list a "Door" that
  // never was); a renamed station's next one names the old name, so its history follows it.
  const named = settings.station;
  // Kept across reloads: a rename just before one still reaches the supervisor.
  const lastBeat = useRef<string | undefined>(localStorage.getItem(LAST_BEAT_KEY) ?? undefined);
  useInterval(() => {
    void (async () => {
      if ((await queue.count()) > 0) await queue.flush();
      if (!named) return void (await live.refresh());
      const previous = lastBeat.current !== undefined && lastBeat.current !== named ? lastBeat.current : undefined;
      if (!(await live.refresh({ station: named, queued: await queue.count(), previous }))) return;
      lastBeat.current = named;
      localStorage.setItem(LAST_BEAT_KEY, named);
    })();
  }, STATS_EVERY_MS);

  // A new mode starts from an empty stage: the last answer was for the other direction.
  const { clearResult } = pipeline;
  const toggleDirection = useCallback(() => {
    setDirection((d) => (d === 'in' ? 'out' : 'in'));
    clearResult();
  }, [clearResult]);

  return { settings, saveSettings, setSound, station, setup, online, setOnline, direction, toggleDirection, log, live, counts, sync, guestList, queue, pipeline };
}

export type DoorStation = ReturnType<typeof useDoorStation>;
