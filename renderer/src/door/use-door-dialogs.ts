import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { LogEntry } from './use-scan-log';

export type Panel = 'none' | 'search' | 'walk-in' | 'session' | 'settings' | 'log' | 'export' | 'import' | 'share' | 'sync-doubles';

/** What takes the keys when nothing else holds the focus: the top dialog's first field (or button), else the scan field. */
function keyboardHome(scanField: HTMLElement | null): HTMLElement | null {
  const dialogs = document.querySelectorAll<HTMLElement>('[role="dialog"]');
  const top = dialogs[dialogs.length - 1];
  if (!top) return scanField;
  return top.querySelector<HTMLElement>('input:not([type="hidden"]), select, textarea') ?? top.querySelector<HTMLElement>('.dialog-body button, button');
}

/**
 * The door's dialogs (one panel at a time, the undo question over it, a scan's verdict shown
 * in front) and where the keyboard goes when one closes. The scan field takes it back, so the
 * next keyboard-wedge scan lands there; whenever what is open changes and the focus was left
 * on nothing (its control removed with a dialog or a verdict), it goes home again.
 */
export function useDoorDialogs(scanInput: RefObject<HTMLInputElement | null>, onOpen: () => void) {
  const [panel, setPanel] = useState<Panel>('none');
  const panelRef = useRef(panel);
  panelRef.current = panel;
  const [confirmUndo, setConfirmUndo] = useState<LogEntry>();
  // A scan's answer shown in front of an open dialog, until tapped away or the dialog closes.
  const [verdictOver, setVerdictOver] = useState(false);

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => {
      if (panelRef.current === 'none') scanInput.current?.focus();
    });
  }, [scanInput]);

  const open = useCallback(
    (next: Panel) => {
      onOpen();
      panelRef.current = next;
      setPanel(next);
    },
    [onOpen],
  );
  const close = useCallback(() => {
    panelRef.current = 'none';
    setPanel('none');
    focusScan();
  }, [focusScan]);

  useEffect(() => {
    if (panel === 'none') focusScan();
  }, [panel, focusScan]);

  /** Called whenever what is open may have changed: gives a focus left on nothing a home. */
  const refocus = useCallback(() => {
    requestAnimationFrame(() => {
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected) return;
      keyboardHome(scanInput.current)?.focus();
    });
  }, [scanInput]);
  useEffect(refocus, [panel, confirmUndo, verdictOver, refocus]);

  return { panel, open, close, confirmUndo, setConfirmUndo, verdictOver, setVerdictOver, focusScan, refocus };
}

export type DoorDialogs = ReturnType<typeof useDoorDialogs>;
