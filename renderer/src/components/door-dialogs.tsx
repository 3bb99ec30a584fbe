import type { Api } from '../api';
import type { DoorDialogs } from '../door/use-door-dialogs';
import type { DoorStation } from '../door/use-door-station';
import type { useKioskLock } from '../door/use-station-settings';
import type { Direction, EventSummary, GuestSummary } from '../types';
import { EventFilePanel } from './event-file-panel';
import { guestName, ResultPanel } from './result-panel';
import { ScanLogPanel, UndoConfirm } from './scan-log';
import { SearchPanel } from './search-panel';
import { SessionPanel } from './session-panel';
import { PinPrompt, SettingsPanel } from './settings-panel';
import { SharePanel } from './share-panel';
import { SyncDoublesPanel } from './sync-chip';
import { WalkInPanel } from './walk-in-panel';

interface Props {
  api: Api;
  event: EventSummary;
  station: DoorStation;
  dialogs: DoorDialogs;
  lock: ReturnType<typeof useKioskLock>;
  onChangeEvent: () => void;
  onSignOut: () => void;
  onPrintBadge: (guest: GuestSummary) => void;
}

/** The open panel of the door (one at a time), the undo question over it, and the kiosk PIN. */
export function DoorDialogs(p: Props) {
  const { pipeline, setup, guestList } = p.station;
  const { confirmUndo, setConfirmUndo, close, focusScan } = p.dialogs;
  return (
    <>
      {p.dialogs.verdictOver && (pipeline.result || pipeline.checking) && (
        <div className="verdict-over" data-testid="verdict-over">
          <ResultPanel
            result={pipeline.result}
            checking={pipeline.checking}
            types={setup.types}
            timezone={setup.timezone}
            // A guest the door stops for is shown as such over the dialog too, note and all.
            attention={pipeline.result && pipeline.attention.some((r) => r.serial === pipeline.result?.serial) ? { onSeen: () => pipeline.acknowledge(pipeline.result?.serial) } : undefined}
            onDismiss={() => p.dialogs.setVerdictOver(false)}
            onPrintBadge={p.onPrintBadge}
          />
        </div>
      )}
      <DoorPanel {...p} />
      {confirmUndo && (
        <UndoConfirm
          entry={confirmUndo}
          timezone={setup.timezone}
          onConfirm={() => {
            setConfirmUndo(undefined);
            close();
            void pipeline.undo(confirmUndo);
          }}
          onClose={() => {
            setConfirmUndo(undefined);
            focusScan();
          }}
        />
      )}
      {p.lock.asking && (
        <PinPrompt
          onUnlock={p.lock.unlock}
          onClose={() => {
            p.lock.cancel();
            focusScan();
          }}
        />
      )}
    </>
  );
}

/** The one panel open over the door, if any. */
function DoorPanel({ api, event, station, dialogs, onChangeEvent, onSignOut, onPrintBadge }: Props) {
  const { pipeline, setup, guestList, online, queue } = station;
  const { panel, close } = dialogs;
  const checkFromList = (guest: GuestSummary, direction: Direction) => {
    close();
    const label = guestName(guest);
    // A walk-in added offline has no server id yet: its barcode names it.
    if (guest.id < 0 && guest.barcode) void pipeline.scan('barcode', guest.barcode, { direction, label });
    else void pipeline.scan('guest_id', String(guest.id), { direction, label });
  };
  switch (panel) {
    case 'search':
      return <SearchPanel api={api} eventId={event.id} types={setup.types} guestList={guestList.list} online={online} timezone={setup.timezone} inSession={!!setup.session} onCheck={checkFromList} onPrintBadge={onPrintBadge} onClose={close} />;
    case 'walk-in':
      return (
        <WalkInPanel
          api={api}
          eventId={event.id}
          types={setup.types}
          guestList={guestList.list}
          online={online}
          onOffline={() => station.setOnline(false)}
          onQueue={queue.enqueue}
          onClose={close}
          onAdded={(added) => {
            close();
            void pipeline.scan(added.kind, added.code, { direction: 'in', label: added.label });
          }}
        />
      );
    case 'session':
      return (
        <SessionPanel
          sessions={setup.sessions}
          current={setup.session}
          timezone={setup.timezone}
          onPick={(picked) => {
            setup.pickSession(picked);
            close();
          }}
          onClose={close}
        />
      );
    case 'settings':
      return (
        <SettingsPanel
          settings={station.settings}
          onSave={(next) => {
            station.saveSettings(next);
            close();
          }}
          onEvents={onChangeEvent}
          onSignOut={onSignOut}
          onClose={close}
        />
      );
    case 'log':
      return <ScanLogPanel entries={station.log.entries} timezone={setup.timezone} onUndo={(entry) => dialogs.setConfirmUndo(entry)} onClose={close} />;
    case 'export':
      return <EventFilePanel api={api} mode="export" eventId={event.id} eventName={event.name} onClose={close} />;
    case 'import':
      return <EventFilePanel api={api} mode="import" onClose={close} />;
    case 'sync-doubles':
      return station.sync ? <SyncDoublesPanel status={station.sync} timezone={setup.timezone} onClose={close} /> : null;
    case 'share':
      return <SharePanel api={api} onClose={close} />;
    default:
      return null;
  }
}
