import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { desktop } from '../desktop';
import { useBadgePrinter, usePrintOnCheckIn } from '../door/use-badge-printer';
import { useDoorDialogs } from '../door/use-door-dialogs';
import { useDoorShortcuts } from '../door/use-door-shortcuts';
import { useDoorStation } from '../door/use-door-station';
import { useNfc } from '../door/use-nfc';
import { undoable, type LogEntry } from '../door/use-scan-log';
import { useKioskLock } from '../door/use-station-settings';
import { useWedgeReaderOverDialogs } from '../door/use-wedge-reader-over-dialogs';
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
 * the dialogs and the focus from useDoorDialogs; this lays them out and binds the keys.
 */
export function DoorScreen({ api, event, onChangeEvent, onSignOut }: { api: Api; event: EventSummary; onChangeEvent: () => void; onSignOut: () => void }) {
  const { t } = useTranslation('door');
  const station = useDoorStation(api, event, onChangeEvent);
  const { pipeline, settings, setup, log } = station;
  const { setNotice } = pipeline;
  const scanInput = useRef<HTMLInputElement>(null);
  const dialogs = useDoorDialogs(
    scanInput,
    useCallback(() => setNotice(undefined), [setNotice]),
  );
  const { open, focusScan, setConfirmUndo, setVerdictOver } = dialogs;
  const [cameraOn, setCameraOn] = useState(false);
  const hasCamera = useHasCamera();

  const guarded = useMemo(() => ({ 'sign-out': onSignOut, events: onChangeEvent, settings: () => open('settings') }), [onSignOut, onChangeEvent, open]);
  const lock = useKioskLock(settings.pin, guarded);
  // A reader firing while a dialog is open still scans, and its answer shows in front of the
  // dialog (verdictOver) until dismissed or the dialog closes: staff see the verdict first.
  const dialogOpen = dialogs.panel !== 'none' || !!dialogs.confirmUndo || !!lock.asking;
  const dialogOpenRef = useRef(dialogOpen);
  dialogOpenRef.current = dialogOpen;
  useEffect(() => {
    if (!dialogOpen) setVerdictOver(false);
  }, [dialogOpen, setVerdictOver]);
  useEffect(dialogs.refocus, [lock.asking, dialogs.refocus]);
  useWedgeReaderOverDialogs(dialogOpen, (code) => {
    setVerdictOver(true);
    void pipeline.scan('barcode', code);
  });

  const nfc = useNfc(
    (serial) => {
      if (dialogOpenRef.current) setVerdictOver(true);
      void pipeline.scan('nfc_tag', serial);
    },
    useCallback((message: string) => setNotice(t('nfc.cannot', { message })), [setNotice, t]),
  );

  const printBadge = useBadgePrinter(api, event.id, { ...settings.badges, station: station.station }, setNotice);
  usePrintOnCheckIn(pipeline.result, settings.badges.printOnCheckIn, printBadge);
  const printGuestBadge = (guest: GuestSummary) => void printBadge(guest.id, guestName(guest));

  const lastAccepted = log.entries.find(undoable);
  const askUndo = (entry?: LogEntry) => {
    if (entry) return setConfirmUndo(entry);
    setNotice(t('undo.nothing'));
    focusScan();
  };

  useDoorShortcuts(!dialogOpen, () => scanInput.current, {
    search: () => open('search'),
    walkIn: () => open('walk-in'),
    toggleDirection: station.toggleDirection,
    session: () => open('session'),
    camera: hasCamera ? () => setCameraOn((on) => !on) : undefined,
    log: () => open('log'),
    undo: () => askUndo(lastAccepted),
    escape: () => {
      if (scanInput.current) scanInput.current.value = '';
      setNotice(undefined);
      scanInput.current?.focus();
    },
    typing: () => scanInput.current?.focus(),
  });

  useEffect(
    () =>
      desktop?.onMenu((action) => {
        if (action === 'export-event') open('export');
        else if (action === 'import-event') open('import');
        else if (action === 'share-info') open('share');
      }),
    [open],
  );

  return (
    <div className={station.direction === 'out' ? 'door mode-out' : 'door'}>
      <DoorTopbar
        eventName={event.name}
        session={setup.session}
        stats={station.live.stats}
        online={station.online}
        pending={station.queue.pending}
        copySize={station.guestList.size}
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
      <StatsPanel stats={station.live.stats} session={setup.session} timezone={setup.timezone}>
        <DoubleAdmissions doubles={pipeline.doubles} timezone={setup.timezone} onDismiss={pipeline.dismissDouble} />
      </StatsPanel>
      <DoorDialogs api={api} event={event} station={station} dialogs={dialogs} lock={lock} onChangeEvent={onChangeEvent} onSignOut={onSignOut} onPrintBadge={printGuestBadge} />
    </div>
  );
}
