import { useTranslation } from 'react-i18next';
import { formatNumber } from '../i18n/format';
import type { EventStats } from '../stats';
import type { SessionSummary } from '../types';

interface Props {
  eventName: string;
  session?: SessionSummary;
  stats?: EventStats;
  online: boolean;
  pending: number;
  /** Guests in the station's copy of the list (what it can decide from offline). */
  copySize: number;
  station: string;
  muted: boolean;
  locked: boolean;
  onSession: () => void;
  onMute: () => void;
  onSettings: () => void;
  onEvents: () => void;
  onSignOut: () => void;
}

/** The event, the counter at a glance, the connection, the station and what the kiosk lock guards. */
export function DoorTopbar(p: Props) {
  const { t } = useTranslation('door');
  const expected = p.stats ? p.stats.total - p.stats.inactive : 0;
  return (
    <header className="topbar">
      <div className="event-title">
        <h1 title={p.eventName}>{p.eventName}</h1>
        {p.session && (
          <button type="button" className="chip session-chip" onClick={p.onSession}>
            {t('top.session', { session: p.session.name })}
          </button>
        )}
        <span className="mini-count" data-testid="mini-count">
          {p.stats ? t('top.miniCount', { in: formatNumber(p.stats.checked_in), total: formatNumber(expected) }) : ''}
        </span>
      </div>
      <div className="status-area">
        <span className={p.online ? 'conn ok' : 'conn off'} data-testid="connection" data-copy-size={p.copySize} title={t('top.copy', { count: p.copySize })}>
          {p.online ? t('top.online') : t('top.offline')}
        </span>
        {p.pending > 0 && (
          <span className="pending" data-testid="pending" aria-label={t('top.pendingLabel', { count: p.pending })}>
            {t('top.pending', { count: p.pending })}
          </span>
        )}
        <button type="button" className="chip" aria-pressed={p.muted} onClick={p.onMute} title={p.muted ? t('top.unmute') : t('top.mute')} aria-label={p.muted ? t('top.unmute') : t('top.mute')}>
          {p.muted ? '🔇' : '🔊'}
        </button>
        <button type="button" className="chip" onClick={p.onSettings} title={t('top.settingsTitle')} data-testid="station">
          {p.locked && <span aria-label={t('top.locked')}>🔒 </span>}
          {p.station || t('top.station')}
        </button>
        <button type="button" onClick={p.onEvents}>
          {t('top.events')}
        </button>
        <button type="button" onClick={p.onSignOut}>
          {t('common:signOut')}
        </button>
      </div>
    </header>
  );
}
