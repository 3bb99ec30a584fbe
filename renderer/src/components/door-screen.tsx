import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { desktop } from '../desktop';
import { useEventSetup } from '../door/use-event-setup';
import { useGuestCopy } from '../door/use-guest-copy';
import { useDoorSync } from '../door/use-door-sync';
import { useDoorKeys, useReaderWhileDialogOpen } from '../door/use-keys';
import { useInterval, useLiveStats } from '../door/use-live-stats';
import { useNfc } from '../door/use-nfc';
import { useOfflineQueue } from '../door/use-offline-queue';
import { useReachable } from '../door/use-reachable';
import { useLeaveGuard } from '../app-shell';
import { useScanLog, undoable, type LogEntry } from '../door/use-scan-log';
import { useScanPipeline } from '../door/use-scan-pipeline';
import { useKioskLock, useStationSettings } from '../door/use-station-settings';
import { useBadgePrinter, usePrintOnCheckIn } from '../door/use-badge-printer';
import type { Direction, EventSummary, GuestSummary } from '../types';
import { AttentionCard } from './attention-card';
import { CameraPanel, useHasCamera } from './camera-panel';
import { DoorActions } from './door-actions';
import { DoorTopbar } from './door-topbar';
import { DoubleAdmissions } from './double-admissions';
import { EventFilePanel } from './event-file-panel';
import { guestName, ResultPanel } from './result-panel';
import { RecentScans, ScanLogPanel, UndoConfirm } from './scan-log';
import { SearchPanel } from './search-panel';
import { SessionPanel } from './session-panel';
import { PinPrompt, SettingsPanel } from './settings-panel';
import { SharePanel } from './share-panel';
import { StatsPanel } from './stats-panel';
import { SyncDoublesPanel } from './sync-chip';
import { WalkInPanel } from './walk-in-panel';

type Panel = 'none' | 'search' | 'walk-in' | 'session' | 'settings' | 'log' | 'export' | 'import' | 'share' | 'sync-doubles';

// Other stations' scans show within this; this station's own at once.
const STATS_EVERY_MS = 2000;

/**
 * Door mode: the scan field keeps the focus (keyboard-wedge barcode and NFC readers type the
 * code and Enter), the answer fills the stage, and the station keeps deciding from its copy of
 * the guest list when the server cannot be reached. Each concern lives in its own hook.
 */
export function DoorScreen({ api, event, onChangeEvent, onSignOut }: { api: Api; event: EventSummary; onChangeEvent: () => void; onSignOut: () => void }) {
  const { t } = useTranslation('door');
  const { settings, save: saveSettings, setSound } = useStationSettings();
  const setup = useEventSetup(api, event, onChangeEvent);
  const [online, setOnline] = useReachable();
  const [direction, setDirection] = useState<Direction>('in');
  const [panel, setPanel] = useState<Panel>('none');
  const [confirmUndo, setConfirmUndo] = useState<LogEntry>();
  const [cameraOn, setCameraOn] = useState(false);
  const hasCamera = useHasCamera();
  // On touch screens the field keeps the focus without calling up the on-screen keyboard
  // (which would cover the answer) until someone taps the field to type.
  const [touchTyping, setTouchTyping] = useState(false);
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  const scanInput = useRef<HTMLInputElement>(null);
  const panelRef = useRef(panel);
  panelRef.current = panel;

  const log = useScanLog(event.id);
  const live = useLiveStats(api, event.id, setOnline);
  const sync = useDoorSync(api, event.id);
  const { copy, size: copySize } = useGuestCopy(api, event.id, online, setOnline);
  const queue = useOfflineQueue(api, {
    onScanAnswer: (item, answer) => pipeline.replayed(item, answer),
    onWalkInRefused: (item) => pipeline.setNotice(t('walkIn.refusedOnReplay', { name: `${item.fields.first_name} ${item.fields.last_name}` })),
    onReachable: setOnline,
  });
  const pipeline = useScanPipeline({
    api,
    eventId: event.id,
    station: settings.station || 'Door',
    nfcFallback: settings.nfcFallback,
    direction,
    session: setup.session,
    types: setup.types,
    copy,
    online,
    setReachable: setOnline,
    log,
    countStats: live.count,
    forgetStats: live.forget,
    queue,
  });

  useLeaveGuard(!online || queue.pending > 0);

  // The counters' poll doubles as the probe. Waiting scans go first, so the figures fetched next
  // include them (this station had counted them already).
  useInterval(() => {
    void (async () => {
      if ((await queue.count()) > 0) await queue.flush();
      await live.refresh();
    })();
  }, STATS_EVERY_MS);

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => {
      if (panelRef.current === 'none') scanInput.current?.focus();
    });
  }, []);
  const { setNotice } = pipeline;
  const open = useCallback(
    (next: Panel) => {
      setNotice(undefined);
      panelRef.current = next;
      setPanel(next);
    },
    [setNotice],
  );
  const closePanel = useCallback(() => {
    panelRef.current = 'none';
    setPanel('none');
    focusScan();
  }, [focusScan]);
  useEffect(() => {
    if (panel === 'none') focusScan();
  }, [panel, focusScan]);

  const guarded = useMemo(() => ({ 'sign-out': onSignOut, events: onChangeEvent, settings: () => open('settings') }), [onSignOut, onChangeEvent, open]);
  const lock = useKioskLock(settings.pin, guarded);

  const nfc = useNfc(
    (serial) => {
      if (dialogOpenRef.current) setVerdictOver(true);
      void pipeline.scan('nfc_tag', serial);
    },
    useCallback((message: string) => setNotice(t('nfc.cannot', { message })), [setNotice, t]),
  );

  const printBadge = useBadgePrinter(api, event.id, { ...settings.badges, station: settings.station || 'Door' }, setNotice);
  usePrintOnCheckIn(pipeline.result, settings.badges.printOnCheckIn, printBadge);
  const printGuestBadge = (guest: GuestSummary) => void printBadge(guest.id, guestName(guest));

  const lastAccepted = log.entries.find(undoable);
  const askUndo = (entry?: LogEntry) => {
    if (!entry) {
      pipeline.setNotice(t('undo.nothing'));
      focusScan();
      return;
    }
    setConfirmUndo(entry);
  };

  const toggleDirection = () => setDirection((d) => (d === 'in' ? 'out' : 'in'));
  useDoorKeys(panel === 'none' && !confirmUndo && !lock.asking, () => scanInput.current, {
    search: () => open('search'),
    walkIn: () => open('walk-in'),
    toggleDirection,
    session: () => open('session'),
    camera: hasCamera ? () => setCameraOn((on) => !on) : undefined,
    log: () => open('log'),
    undo: () => askUndo(lastAccepted),
    escape: () => {
      if (scanInput.current) scanInput.current.value = '';
      pipeline.setNotice(undefined);
      scanInput.current?.focus();
    },
    typing: () => scanInput.current?.focus(),
  });
  // A reader firing while a dialog is open still scans, and its answer shows over the dialog
  // (verdictOver) until dismissed or the dialog closes: staff see the verdict first.
  const dialogOpen = panel !== 'none' || !!confirmUndo || !!lock.asking;
  const dialogOpenRef = useRef(dialogOpen);
  dialogOpenRef.current = dialogOpen;
  const [verdictOver, setVerdictOver] = useState(false);
  useEffect(() => {
    if (!dialogOpen) setVerdictOver(false);
  }, [dialogOpen]);
  useReaderWhileDialogOpen(dialogOpen, (code) => {
    setVerdictOver(true);
    void pipeline.scan('barcode', code);
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

  const submitScan = (e: FormEvent) => {
    e.preventDefault();
    const input = scanInput.current;
    const code = input?.value.trim() ?? '';
    if (input) input.value = '';
    // Enter on the empty field (a person, never a reader) acknowledges a guest who needs attention.
    if (code) void pipeline.scan('barcode', code);
    else if (pipeline.attention.length) pipeline.acknowledge();
    setTouchTyping(false);
    focusScan();
  };

  const checkFromList = (guest: GuestSummary, dir: Direction) => {
    closePanel();
    // A walk-in added offline has no server id yet: its barcode names it.
    if (guest.id < 0 && guest.barcode) void pipeline.scan('barcode', guest.barcode, { direction: dir, label: guestName(guest) });
    else void pipeline.scan('guest_id', String(guest.id), { direction: dir, label: guestName(guest) });
  };

  return (
    <div className={direction === 'out' ? 'door mode-out' : 'door'}>
      <DoorTopbar
        eventName={event.name}
        session={setup.session}
        stats={live.stats}
        online={online}
        pending={queue.pending}
        copySize={copySize}
        sync={sync}
        station={settings.station}
        muted={settings.sound.muted}
        locked={lock.locked}
        onSession={() => open('session')}
        onSyncDoubles={() => open('sync-doubles')}
        onMute={() => {
          setSound({ ...settings.sound, muted: !settings.sound.muted });
          focusScan();
        }}
        onSettings={() => lock.guard('settings')}
        onEvents={() => lock.guard('events')}
        onSignOut={() => lock.guard('sign-out')}
      />

      {direction === 'out' && (
        <p className="mode-banner" role="status">
          {t('mode.checkOut')}
        </p>
      )}

      <main className="stage">
        <form className="scanbar" onSubmit={submitScan} role="search" aria-label={t('scan.label')}>
          <label htmlFor="scan-field">{direction === 'out' ? t('scan.out') : t('scan.in')}</label>
          <input
            id="scan-field"
            ref={scanInput}
            name="scan"
            autoFocus
            autoComplete="off"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            enterKeyHint="go"
            inputMode={coarse && !touchTyping ? 'none' : 'text'}
            onPointerDown={() => setTouchTyping(true)}
            placeholder={t('scan.placeholder')}
            onBlur={(e) => {
              if (!e.relatedTarget) focusScan();
            }}
          />
          <button type="submit" className="primary">
            {t('scan.enter')}
          </button>
        </form>

        {cameraOn && (
          <CameraPanel
            onCode={(code) => void pipeline.scan('barcode', code)}
            onClose={() => {
              setCameraOn(false);
              focusScan();
            }}
          />
        )}
        {pipeline.attention.length > 0 && (
          <AttentionCard
            result={pipeline.attention[0]}
            waiting={pipeline.attention.length}
            types={setup.types}
            onAcknowledge={() => {
              pipeline.acknowledge();
              focusScan();
            }}
          />
        )}
        <ResultPanel result={pipeline.result} checking={pipeline.checking} types={setup.types} timezone={setup.timezone} onDismiss={focusScan} onPrintBadge={printGuestBadge} />
        <RecentScans entries={log.entries} />
        {/* A new node per scan, so the same words twice are announced twice. */}
        <div className="sr-only" aria-live="assertive" aria-atomic="true" data-testid="announcer">
          <p key={pipeline.spoken.serial}>{pipeline.spoken.text}</p>
        </div>
        {pipeline.notice && (
          <p className="notice" role="status" data-testid="notice">
            {pipeline.notice}
          </p>
        )}

        <DoorActions
          direction={direction}
          canUndo={!!lastAccepted}
          hasCamera={hasCamera}
          cameraOn={cameraOn}
          nfc={nfc}
          onSearch={() => open('search')}
          onWalkIn={() => open('walk-in')}
          onUndo={() => askUndo(lastAccepted)}
          onLog={() => open('log')}
          onDirection={() => {
            toggleDirection();
            focusScan();
          }}
          onSession={() => open('session')}
          onCamera={() => {
            setCameraOn((on) => !on);
            focusScan();
          }}
          onNfc={() => {
            focusScan();
            void nfc.toggle();
          }}
          onExport={() => open('export')}
        />
      </main>

      <StatsPanel stats={live.stats} session={setup.session} timezone={setup.timezone}>
        <DoubleAdmissions doubles={pipeline.doubles} timezone={setup.timezone} onDismiss={pipeline.dismissDouble} />
      </StatsPanel>

      {verdictOver && dialogOpen && (pipeline.result || pipeline.checking) && (
        <div className="verdict-over" data-testid="verdict-over">
          <ResultPanel result={pipeline.result} checking={pipeline.checking} types={setup.types} timezone={setup.timezone} onDismiss={() => setVerdictOver(false)} onPrintBadge={printGuestBadge} />
        </div>
      )}
      {panel === 'search' && <SearchPanel api={api} eventId={event.id} types={setup.types} copy={copy} online={online} timezone={setup.timezone} onCheck={checkFromList} onPrintBadge={printGuestBadge} onClose={closePanel} />}
      {panel === 'walk-in' && (
        <WalkInPanel
          api={api}
          eventId={event.id}
          types={setup.types}
          copy={copy}
          online={online}
          onOffline={() => setOnline(false)}
          onQueue={queue.enqueue}
          onClose={closePanel}
          onAdded={(added) => {
            closePanel();
            void pipeline.scan(added.kind, added.code, { direction: 'in', label: added.label });
          }}
        />
      )}
      {panel === 'session' && (
        <SessionPanel
          sessions={setup.sessions}
          current={setup.session}
          timezone={setup.timezone}
          onPick={(picked) => {
            setup.pickSession(picked);
            closePanel();
          }}
          onClose={closePanel}
        />
      )}
      {panel === 'settings' && (
        <SettingsPanel
          settings={settings}
          onSave={(next) => {
            saveSettings(next);
            closePanel();
          }}
          onEvents={onChangeEvent}
          onSignOut={onSignOut}
          onClose={closePanel}
        />
      )}
      {panel === 'log' && <ScanLogPanel entries={log.entries} timezone={setup.timezone} onUndo={(entry) => setConfirmUndo(entry)} onClose={closePanel} />}
      {panel === 'export' && <EventFilePanel api={api} mode="export" eventId={event.id} eventName={event.name} onClose={closePanel} />}
      {panel === 'import' && <EventFilePanel api={api} mode="import" onClose={closePanel} />}
      {panel === 'sync-doubles' && sync && <SyncDoublesPanel status={sync} timezone={setup.timezone} onClose={closePanel} />}
      {panel === 'share' && <SharePanel api={api} onClose={closePanel} />}
      {confirmUndo && (
        <UndoConfirm
          entry={confirmUndo}
          timezone={setup.timezone}
          onConfirm={() => {
            const entry = confirmUndo;
            setConfirmUndo(undefined);
            closePanel();
            void pipeline.undo(entry);
          }}
          onClose={() => {
            setConfirmUndo(undefined);
            focusScan();
          }}
        />
      )}
      {lock.asking && (
        <PinPrompt
          onUnlock={lock.unlock}
          onClose={() => {
            lock.cancel();
            focusScan();
          }}
        />
      )}
    </div>
  );
}
