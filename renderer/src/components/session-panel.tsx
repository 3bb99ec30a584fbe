import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { zoneName } from '../event-clock';
import { formatTime, utcInstant } from '../i18n/format';
import type { SessionSummary } from '../types';
import { Dialog } from './dialog';

function rules(t: TFunction, session: SessionSummary): string {
  if (!session.access_control) return t('session.open');
  return session.auto_registration ? t('session.autoRegistration') : t('session.registeredOnly');
}

/** A session's times (stored in GMT) on the event's clock. */
function times(session: SessionSummary, timezone: string): string {
  if (!session.starts) return '';
  const starts = formatTime(utcInstant(session.starts), timezone);
  return session.ends ? `${starts}–${formatTime(utcInstant(session.ends), timezone)}` : starts;
}

/** Event door, or attendance for one session: scans then carry its id. */
export function SessionPanel({ sessions, current, timezone, onPick, onClose }: { sessions: SessionSummary[]; current?: SessionSummary; timezone: string; onPick: (session?: SessionSummary) => void; onClose: () => void }) {
  const { t } = useTranslation('door');
  return (
    <Dialog title={t('session.title')} onClose={onClose}>
      <ul className="choice-list">
        <li>
          <button type="button" className={!current ? 'choice active' : 'choice'} aria-pressed={!current} autoFocus={!current} onClick={() => onPick(undefined)}>
            <span className="name">{t('session.event')}</span>
            <span className="meta">{t('session.eventDetail')}</span>
          </button>
        </li>
        {sessions.map((s) => (
          <li key={s.id}>
            <button type="button" className={current?.id === s.id ? 'choice active' : 'choice'} aria-pressed={current?.id === s.id} autoFocus={current?.id === s.id} onClick={() => onPick(s)}>
              <span className="name">{s.name}</span>
              <span className="meta">{[times(s, timezone), rules(t, s), s.capacity !== undefined ? t('session.capacity', { count: s.capacity }) : ''].filter(Boolean).join(' · ')}</span>
            </button>
          </li>
        ))}
      </ul>
      {sessions.some((s) => s.starts) && (
        <p className="muted zone-note" data-testid="session-zone">
          {t('clock.timesIn', { zone: zoneName(timezone, sessions.find((s) => s.starts)?.starts) })}
        </p>
      )}
      {!sessions.length && <p className="muted">{t('session.none')}</p>}
    </Dialog>
  );
}
