import { useCallback, useEffect, useRef, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { desktop } from '../desktop';
import type { DoorDialogs } from './use-door-dialogs';
import { useDoorShortcuts } from './use-door-shortcuts';
import type { DoorStation } from './use-door-station';
import { useNfc } from './use-nfc';
import { useWedgeReaderOverDialogs } from './use-wedge-reader-over-dialogs';

interface Commands {
  /** Something else holds the keys (a dialog, the undo question, the kiosk PIN). */
  dialogOpen: boolean;
  toggleCamera?: () => void;
  undoLast: () => void;
}

/**
 * Every way a scan or a command reaches the door besides its buttons: the function keys, a
 * keyboard-wedge reader firing while a dialog is open (its answer shows in front of the
 * dialog: staff see the verdict first), Web NFC, and the desktop app's menu.
 */
export function useDoorInput(station: DoorStation, dialogs: DoorDialogs, scanInput: RefObject<HTMLInputElement | null>, commands: Commands) {
  const { t } = useTranslation('door');
  const { pipeline } = station;
  const { setNotice } = pipeline;
  const { open, setVerdictOver } = dialogs;
  const dialogOpen = useRef(commands.dialogOpen);
  dialogOpen.current = commands.dialogOpen;

  useEffect(() => {
    if (!commands.dialogOpen) setVerdictOver(false);
  }, [commands.dialogOpen, setVerdictOver]);
  useWedgeReaderOverDialogs(commands.dialogOpen, (code) => {
    setVerdictOver(true);
    void pipeline.scan('barcode', code);
  });

  const nfc = useNfc(
    (serial) => {
      if (dialogOpen.current) setVerdictOver(true);
      void pipeline.scan('nfc_tag', serial);
    },
    useCallback((message: string) => setNotice(t('nfc.cannot', { message })), [setNotice, t]),
  );

  useDoorShortcuts(!commands.dialogOpen, () => scanInput.current, {
    search: () => open('search'),
    walkIn: () => open('walk-in'),
    toggleDirection: station.toggleDirection,
    session: () => open('session'),
    camera: commands.toggleCamera,
    log: () => open('log'),
    undo: commands.undoLast,
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

  return { nfc };
}
