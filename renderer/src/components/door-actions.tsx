import { useTranslation } from 'react-i18next';

interface Props {
  direction: 'in' | 'out';
  canUndo: boolean;
  hasCamera: boolean;
  cameraOn: boolean;
  nfc: { supported: boolean; on: boolean };
  onSearch: () => void;
  onWalkIn: () => void;
  onUndo: () => void;
  onLog: () => void;
  onDirection: () => void;
  onSession: () => void;
  onCamera: () => void;
  onNfc: () => void;
  onExport: () => void;
}

/** The door's buttons, each with its key. */
export function DoorActions(p: Props) {
  const { t } = useTranslation('door');
  return (
    <nav className="actions" aria-label={t('actions.label')}>
      <button type="button" onClick={p.onSearch}>
        <kbd>F2</kbd> {t('actions.search')}
      </button>
      <button type="button" onClick={p.onWalkIn}>
        <kbd>F4</kbd> {t('actions.walkIn')}
      </button>
      <button type="button" onClick={p.onUndo} disabled={!p.canUndo}>
        <kbd>Ctrl+Z</kbd> {t('actions.undo')}
      </button>
      <button type="button" onClick={p.onLog}>
        <kbd>F3</kbd> {t('actions.log')}
      </button>
      <button type="button" aria-pressed={p.direction === 'out'} onClick={p.onDirection}>
        <kbd>F6</kbd> {t('actions.checkOut')}
      </button>
      <button type="button" onClick={p.onSession}>
        <kbd>F7</kbd> {t('actions.session')}
      </button>
      {p.hasCamera && (
        <button type="button" aria-pressed={p.cameraOn} onClick={p.onCamera}>
          <kbd>F8</kbd> {t('actions.camera')}
        </button>
      )}
      {p.nfc.supported && (
        <button type="button" aria-pressed={p.nfc.on} onClick={p.onNfc}>
          {p.nfc.on ? t('actions.nfcOn') : t('actions.nfcOff')}
        </button>
      )}
      <button type="button" onClick={p.onExport}>
        {t('actions.export')}
      </button>
    </nav>
  );
}
