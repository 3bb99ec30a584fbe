import type { RefObject } from 'react';
import type { DoorDialogs } from '../door/use-door-dialogs';
import type { DoorStation } from '../door/use-door-station';
import type { GuestSummary } from '../types';
import { AttentionWaiting } from './attention-card';
import { CameraPanel } from './camera-panel';
import { DoorActions } from './door-actions';
import { ResultPanel } from './result-panel';
import { RecentScans } from './scan-log';
import { ScanBar } from './scan-bar';

interface Props {
  station: DoorStation;
  dialogs: DoorDialogs;
  scanInput: RefObject<HTMLInputElement | null>;
  camera: { available: boolean; on: boolean; toggle: () => void; off: () => void };
  nfc: { supported: boolean; on: boolean; toggle: () => Promise<void> | void };
  canUndo: boolean;
  onUndo: () => void;
  onPrintBadge: (guest: GuestSummary) => void;
}

/** The door's stage: the scan field, the answer in front, the last scans and the buttons. */
export function DoorStage({ station, dialogs, scanInput, camera, nfc, canUndo, onUndo, onPrintBadge }: Props) {
  const { pipeline, setup, log, direction } = station;
  const { open, focusScan } = dialogs;
  const inFront = pipeline.result && pipeline.attention.find((r) => r.serial === pipeline.result?.serial);
  const waiting = pipeline.attention.filter((r) => r !== inFront);
  return (
    <main className="stage">
      <ScanBar
        inputRef={scanInput}
        direction={direction}
        onCode={(code) => void pipeline.scan('barcode', code)}
        // Enter on the empty field acknowledges a guest who needs attention.
        onEmptyEnter={() => pipeline.attention.length > 0 && pipeline.acknowledge()}
        focusScan={focusScan}
      />
      {camera.on && (
        <CameraPanel
          onCode={(code) => void pipeline.scan('barcode', code)}
          onClose={() => {
            camera.off();
            focusScan();
          }}
        />
      )}
      {/* The guest in front is the answer, shown whole; those not yet seen wait above it. */}
      <AttentionWaiting
        waiting={waiting}
        onSeen={(serial) => {
          pipeline.acknowledge(serial);
          focusScan();
        }}
      />
      <ResultPanel
        result={pipeline.result}
        checking={pipeline.checking}
        types={setup.types}
        timezone={setup.timezone}
        attention={
          inFront
            ? {
                onSeen: () => {
                  pipeline.acknowledge(inFront.serial);
                  focusScan();
                },
              }
            : undefined
        }
        fitKey={`${waiting.length}:${camera.on}`}
        onDismiss={focusScan}
        onPrintBadge={onPrintBadge}
      />
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
        canUndo={canUndo}
        hasCamera={camera.available}
        cameraOn={camera.on}
        nfc={nfc}
        onSearch={() => open('search')}
        onWalkIn={() => open('walk-in')}
        onUndo={onUndo}
        onLog={() => open('log')}
        onDirection={() => {
          station.toggleDirection();
          focusScan();
        }}
        onSession={() => open('session')}
        onCamera={() => {
          camera.toggle();
          focusScan();
        }}
        onNfc={() => {
          focusScan();
          void nfc.toggle();
        }}
        onExport={() => open('export')}
      />
    </main>
  );
}
