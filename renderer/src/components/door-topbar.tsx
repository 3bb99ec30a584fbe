import { useTranslation } from 'react-i18next';
import { formatNumber } from '../i18n/format';
import type { EventStats } from '../stats';
import type { SessionSummary, SyncStatus } from '../types';
import { SyncChip } from './sync-chip';

interface Props {
  eventName: string;
  session?: SessionSummary;
  stats?: EventStats;
  /** The figures are not live (the server away): shown as approximate. */
  approx?: boolean;
  online: boolean;
  pending: number;
  /** Guests in the station's offline guest list (what it can decide from offline). */
  guestListSize: number;
  /** The event's link to the central Doorlist; absent when this laptop does not follow one. */
  sync?: SyncStatus;
  station: string;
  muted: boolean;
  locked: boolean;
  onSession: () => void;
  onSyncDoubles: () => void;
  onMute: () => void;
  onSettings: () => void;
  onEvents: () => void;
  onSignOut: () => void;
}

/** A speaker, struck through when muted (drawn: emoji fonts are missing on many kiosks). */
function SpeakerIcon({ muted }: { muted: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" className="icon">
      <path d="M3 9v6h4l5 4V5L7 9H3z" fill="currentColor" />
      {muted ? (
        <path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" strokeWidth="2" />
      ) : (
        <path d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" strokeWidth="2" fill="none" />
      )}
    </svg>
  );
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
          {p.stats ? t(p.approx ? 'top.miniCountApprox' : 'top.miniCount', { in: formatNumber(p.stats.checked_in), total: formatNumber(expected) }) : ''}
        </span>
      </div>
      <div className="status-area">
        {/* role=status: going offline and back is announced, politely, between scans. */}
        <span className={p.online ? 'conn ok' : 'conn off'} role="status" data-testid="connection" data-copy-size={p.guestListSize} title={t('top.copy', { count: p.guestListSize })}>
          {p.online ? t('top.online') : t('top.offline')}
        </span>
        {p.pending > 0 && (
          <span className="pending" data-testid="pending" aria-label={t('top.pendingLabel', { count: p.pending })}>
            {t('top.pending', { count: p.pending })}
          </span>
        )}
        {p.sync && <SyncChip status={p.sync} onDoubles={p.onSyncDoubles} />}
        {/* A toggle keeps one name ("Sound off") and says its state by aria-pressed: pressed = muted. */}
        <button type="button" className="chip" aria-pressed={p.muted} onClick={p.onMute} title={p.muted ? t('top.unmute') : t('top.mute')} aria-label={t('top.mute')} data-testid="mute">
          <SpeakerIcon muted={p.muted} />
        </button>
        <button type="button" className="chip" onClick={p.onSettings} title={t('top.settingsTitle')} data-testid="station">
          {p.locked && <span className="sr-only">{t('top.locked')} </span>}
          {p.station || t('top.station')}
        </button>
        {/* On a phone these two live in the station's settings (the same lock guards both). */}
        <button type="button" className="wide-only" onClick={p.onEvents}>
          {t('top.events')}
        </button>
        <button type="button" className="wide-only" onClick={p.onSignOut}>
          {t('common:signOut')}
        </button>
      </div>
    </header>
  );
}
