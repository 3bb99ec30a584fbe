import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { useBadgePrinter, usePrintOnCheckIn } from '../door/use-badge-printer';
import { useDoorDialogs } from '../door/use-door-dialogs';
import { useDoorInput } from '../door/use-door-input';
import { useDoorStation } from '../door/use-door-station';
import { useVenueMove } from '../door/use-venue-move';
import { undoable, type LogEntry } from '../door/use-scan-log';
import { useKioskLock } from '../door/use-station-settings';
import type { EventSummary, GuestSummary } from '../types';
import { useHasCamera } from './camera-panel';
import { DoorDialogs } from './door-dialogs';
import { DoorStage } from './door-stage';
import { DoorTopbar } from './door-topbar';
import { DoubleAdmissions } from './double-admissions';
import { guestName } from './result-panel';
import { StatsPanel } from './stats-panel';

/**
 * Door mode: the scan field keeps the focus (keyboard-wedge barcode and NFC readers type the
 * code and Enter), the answer fills the stage, and the station keeps deciding from its offline
 * guest list when the server cannot be reached. The station's parts come from useDoorStation,
 * the dialogs and the focus from useDoorDialogs, keys, readers and NFC from useDoorInput;
 * this lays them out.
 */
export function DoorScreen({ api, event, onChangeEvent, onSignOut }: { api: Api; event: EventSummary; onChangeEvent: () => void; onSignOut: () => void }) {
  const { t } = useTranslation('door');
  const station = useDoorStation(api, event, onChangeEvent);
  const moved = useVenueMove(api, event.id);
  const { pipeline, settings, setup, log } = station;
  const { setNotice } = pipeline;
  const scanInput = useRef<HTMLInputElement>(null);
  const dialogs = useDoorDialogs(
    scanInput,
    useCallback(() => setNotice(undefined), [setNotice]),
  );
  const { open, focusScan, setConfirmUndo } = dialogs;
  const [cameraOn, setCameraOn] = useState(false);
  const hasCamera = useHasCamera();

  const guarded = useMemo(() => ({ 'sign-out': onSignOut, events: onChangeEvent, settings: () => open('settings') }), [onSignOut, onChangeEvent, open]);
  const lock = useKioskLock(settings.pin, guarded);
  useEffect(dialogs.refocus, [lock.asking, dialogs.refocus]);

  const printBadge = useBadgePrinter(api, event.id, { ...settings.badges, station: station.station }, setNotice);
  usePrintOnCheckIn(pipeline.result, settings.badges.printOnCheckIn, printBadge);
  const printGuestBadge = (guest: GuestSummary) => void printBadge(guest.id, guestName(guest));

  const lastAccepted = log.entries.find(undoable);
  const askUndo = (entry?: LogEntry) => {
    if (entry) return setConfirmUndo(entry);
    setNotice(t('undo.nothing'));
    focusScan();
  };
  const { nfc } = useDoorInput(station, dialogs, scanInput, {
    dialogOpen: dialogs.panel !== 'none' || !!dialogs.confirmUndo || !!lock.asking,
    toggleCamera: hasCamera ? () => setCameraOn((on) => !on) : undefined,
    undoLast: () => askUndo(lastAccepted),
  });

  return (
    <div className={station.direction === 'out' ? 'door mode-out' : 'door'}>
      <DoorTopbar
        eventName={event.name}
        session={setup.session}
        stats={station.counts.stats}
        approx={!!station.counts.asOf}
        online={station.online}
        pending={station.queue.pending}
        guestListSize={station.guestList.size}
        sync={station.sync}
        station={settings.station}
        muted={settings.sound.muted}
        locked={lock.locked}
        onSession={() => open('session')}
        onSyncDoubles={() => open('sync-doubles')}
        onMute={() => {
          station.setSound({ ...settings.sound, muted: !settings.sound.muted });
          focusScan();
        }}
        onSettings={() => lock.guard('settings')}
        onEvents={() => lock.guard('events')}
        onSignOut={() => lock.guard('sign-out')}
      />
      {station.direction === 'out' && (
        <p className="mode-banner" role="status">
          {t('mode.checkOut')}
        </p>
      )}
      {moved && (
        <p className="mode-banner venue-moved" role="status" data-testid="venue-moved">
          {t('venue.movedTo', { name: moved.name, url: moved.base.replace(/\/api\/v1$/, '') })}
        </p>
      )}
      <DoorStage
        station={station}
        dialogs={dialogs}
        scanInput={scanInput}
        camera={{ available: hasCamera, on: cameraOn, toggle: () => setCameraOn((on) => !on), off: () => setCameraOn(false) }}
        nfc={nfc}
        canUndo={!!lastAccepted}
        onUndo={() => askUndo(lastAccepted)}
        onPrintBadge={printGuestBadge}
      />
      <StatsPanel stats={station.counts.stats} asOf={station.counts.asOf} session={setup.session} timezone={setup.timezone}>
        <DoubleAdmissions doubles={pipeline.doubles} timezone={setup.timezone} onDismiss={pipeline.dismissDouble} />
      </StatsPanel>
      <DoorDialogs api={api} event={event} station={station} dialogs={dialogs} lock={lock} onChangeEvent={onChangeEvent} onSignOut={onSignOut} onPrintBadge={printGuestBadge} />
    </div>
  );
}
