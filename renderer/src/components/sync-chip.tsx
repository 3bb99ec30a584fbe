import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { eventTime } from '../event-clock';
import { utcInstant } from '../i18n/format';
import type { SyncStatus } from '../types';
import { Dialog } from './dialog';

/** The current time, once a second: "Synced 4 s ago" keeps counting between polls. */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The chip's words: how long since the central server was last heard and what waits to be
 * sent, or why it is not heard (the sync's own cause: plain HTTP, certificate, key, silence).
 */
function useSyncLine(status: SyncStatus): string {
  const { t } = useTranslation('door');
  const now = useNow();
  if (status.state === 'offline') return t('sync.offline', { count: status.pending });
  if (status.state === 'error') return status.error ? t('sync.stoppedWhy', { error: status.error }) : t('sync.stopped');
  const waiting = status.pending > 0 ? ` · ${t('sync.pending', { count: status.pending })}` : '';
  if (!status.last_pull_at) return t('sync.never') + waiting;
  // A station's clock a little ahead of the server's would say "in 2 s": never below zero.
  const seconds = Math.max(0, Math.round((now - utcInstant(status.last_pull_at).getTime()) / 1000));
  return (seconds < 120 ? t('sync.secondsAgo', { count: seconds }) : t('sync.minutesAgo', { count: Math.floor(seconds / 60) })) + waiting;
}

/**
 * The top bar's view of the link to the central Doorlist: a chip with its state and, when
 * two stations that could not see each other both let a guest in, a badge that opens the list.
 * Amber, never red: the door keeps working and every scan still counts.
 */
export function SyncChip({ status, onDoubles }: { status: SyncStatus; onDoubles: () => void }) {
  const { t } = useTranslation('door');
  const line = useSyncLine(status);
  const doubles = status.double_admissions_count;
  const explained =
    status.state === 'ok' ? t('sync.okTitle') : status.state === 'offline' ? t('sync.offlineTitle') : t('sync.stoppedTitle', { error: status.error ?? '' });
  // A phone's top bar has room for a word or a count, not the sentence.
  const short =
    status.state === 'offline' || (status.state === 'ok' && status.pending > 0)
      ? t('sync.offlineShort', { count: status.pending })
      : status.state === 'ok'
        ? t('sync.okShort')
        : t('sync.stopped');
  return (
    <>
      <span className={`sync-chip sync-${status.state} has-short`} data-testid="sync-state" data-state={status.state} data-pending={status.pending} title={explained}>
        <span className="sync-long">{line}</span>
        <span className="sync-short" aria-hidden="true">
          {short}
        </span>
        {status.state !== 'ok' && <span className="sr-only"> {explained}</span>}
      </span>
      {doubles > 0 && (
        <button type="button" className="chip sync-doubles has-short" data-testid="sync-doubles" onClick={onDoubles}>
          <span className="sync-long">{t('sync.doubles', { count: doubles })}</span>
          <span className="sync-short" aria-hidden="true">
            {t('sync.doublesShort', { number: doubles })}
          </span>
        </button>
      )}
    </>
  );
}

/** The latest guests let in at two stations that could not see each other (who, where and when, twice), and how many more. */
export function SyncDoublesPanel({ status, timezone, onClose }: { status: SyncStatus; timezone: string; onClose: () => void }) {
  const { t } = useTranslation('door');
  return (
    <Dialog title={t('sync.doublesTitle')} onClose={onClose} wide>
      <p className="muted">{t('sync.doublesHelp')}</p>
      <ul className="sync-doubles-list" data-testid="sync-doubles-list">
        {status.double_admissions.map((d) => (
          <li key={d.checkins.map((c) => c.uid).join(' ')}>
            <strong>{`${d.first_name ?? ''} ${d.last_name ?? ''}`.trim() || t('sync.unknownGuest')}</strong>
            <ul>
              {d.checkins.map((c) => (
                <li key={c.uid}>{t('sync.admittedAt', { station: c.station ?? t('double.anotherStation'), time: eventTime(c.scanned_at, timezone) })}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {status.double_admissions_count > status.double_admissions.length && (
        <p className="muted" data-testid="sync-doubles-more">
          {t('sync.doublesMore', { count: status.double_admissions_count - status.double_admissions.length })}
        </p>
      )}
    </Dialog>
  );
}
