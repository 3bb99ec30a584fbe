import { useTranslation } from 'react-i18next';
import { eventTime, zoneName } from '../event-clock';
import { formatTime } from '../i18n/format';
import { undoable, type LogEntry } from '../door/use-scan-log';
import { Dialog } from './dialog';
import { guestName, viewOf } from './result-panel';

/** The last scans under the answer, newest first: one a faster scan replaced is still seen. */
export function RecentScans({ entries }: { entries: LogEntry[] }) {
  const { t } = useTranslation('door');
  return (
    <ol className="recent" aria-label={t('log.recent')} data-testid="recent">
      {entries.slice(0, 8).map((entry) => {
        const view = viewOf(entry, t);
        return (
          <li key={entry.serial} className={`tone-${view.tone}${entry.undone ? ' undone' : ''}`} data-outcome={entry.outcome} title={view.headline}>
            <span className="recent-icon" aria-hidden="true">
              {view.icon}
            </span>
            <span className="recent-who">{guestName(entry.guest) || entry.code}</span>
            <span className="sr-only">{view.headline}</span>
          </li>
        );
      })}
    </ol>
  );
}

/** This station's scans with their answers (kept over a reload); any accepted one can be undone. */
export function ScanLogPanel({ entries, timezone, onUndo, onClose }: { entries: LogEntry[]; timezone: string; onUndo: (entry: LogEntry) => void; onClose: () => void }) {
  const { t } = useTranslation('door');
  return (
    <Dialog title={t('log.title')} onClose={onClose} wide>
      {entries.length ? (
        <p className="muted zone-note" data-testid="log-zone">
          {t('clock.timesIn', { zone: zoneName(timezone, entries[0].at) })}
        </p>
      ) : (
        <p className="muted">{t('log.empty')}</p>
      )}
      <ol className="scan-log" aria-label={t('log.title')}>
        {entries.map((entry) => {
          const view = viewOf(entry, t, timezone);
          const name = guestName(entry.guest) || entry.code;
          return (
            <li key={entry.serial} className={`tone-${view.tone}`} data-outcome={entry.outcome} data-undone={entry.undone ? 'true' : undefined}>
              <span className="log-time">{formatTime(new Date(entry.at), timezone)}</span>
              <span className="log-icon" aria-hidden="true">
                {view.icon}
              </span>
              <span className="log-what">
                <span className="name">{name}</span>
                <span className="meta">
                  {view.headline}
                  {entry.offline ? ` · ${t('log.offline')}` : ''}
                  {entry.undone ? ` · ${t('log.undone')}` : ''}
                </span>
              </span>
              {undoable(entry) && (
                <button type="button" onClick={() => onUndo(entry)} aria-label={t('log.undoLabel', { name })}>
                  {t('log.undo')}
                </button>
              )}
            </li>
          );
        })}
      </ol>
    </Dialog>
  );
}

/** One confirmation before a scan is taken back, naming who and when. */
export function UndoConfirm({ entry, timezone, onConfirm, onClose }: { entry: LogEntry; timezone: string; onConfirm: () => void; onClose: () => void }) {
  const { t } = useTranslation('door');
  const name = guestName(entry.guest) || entry.code;
  const time = eventTime(entry.at, timezone);
  return (
    <Dialog title={t('undo.title')} onClose={onClose}>
      <p className="confirm-text" data-testid="undo-question">
        {entry.direction === 'out' ? t('undo.questionOut', { name, time }) : t('undo.questionIn', { name, time })}
      </p>
      <div className="row">
        <button type="button" className="primary big" autoFocus onClick={onConfirm}>
          {t('undo.confirm')}
        </button>
        <button type="button" className="big" onClick={onClose}>
          {t('undo.keep')}
        </button>
      </div>
    </Dialog>
  );
}
