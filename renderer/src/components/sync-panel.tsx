import { useCallback, useEffect, useReducer, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, OfflineError, type Api } from '../api';
import { utcInstant } from '../i18n/format';
import { eventTime } from '../event-clock';
import type { SyncStatus, VenueView } from '../types';
import { useNow } from './sync-chip';
import { FollowPanel } from './follow-panel';
import { Fingerprint } from './fingerprint';
import { FollowerVenue, UpstreamVenue } from './venue-panel';

const POLL_MS = 2000;

type Followed = { kind: 'loading' } | { kind: 'none' } | { kind: 'followed'; status: SyncStatus } | { kind: 'upstream'; view: VenueView } | { kind: 'unreachable' };

/** The event's sync status, polled while shown; `refresh` after a follow or unfollow. */
function useSyncStatus(api: Api, eventId: number | undefined): [Followed, () => void] {
  const [followed, setFollowed] = useState<Followed>({ kind: eventId === undefined ? 'none' : 'loading' });
  const [round, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (eventId === undefined) {
      setFollowed({ kind: 'none' });
      return;
    }
    let live = true;
    // Not followed: this laptop may be the venue's upstream for the event (it shares it, or took it over).
    const upstream = async (): Promise<Followed> => {
      const venue = await api.request<VenueView>('GET', `/events/${eventId}/sync/venue`);
      return venue.status === 200 && venue.body.part === 'upstream' ? { kind: 'upstream', view: venue.body } : { kind: 'none' };
    };
    const read = () =>
      api
        .request<SyncStatus>('GET', `/events/${eventId}/sync`)
        .then((answer) => (answer.status === 200 ? ({ kind: 'followed', status: answer.body } as const) : upstream()))
        .then(
          (next) => live && setFollowed(next),
          (err: unknown) => live && err instanceof OfflineError && setFollowed({ kind: 'unreachable' }),
        );
    void read();
    const timer = setInterval(read, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, eventId, round]);
  return [followed, bump];
}

/**
 * Following a central Doorlist: the form to follow an upstream event, then the state the door
 * needs ("synced 3 s ago", "offline, 5 waiting"), the double admissions found, and unfollow.
 * `eventId` is this laptop's event when one is open; `onFollowed` gets the event a follow made.
 */
/** `timezone`: the followed event's, so the times shown are on its clock (labelled). */
export function SyncPanel({ api, eventId, timezone, onFollowed }: { api: Api; eventId?: number; timezone?: string; onFollowed?: (eventId: number) => void }) {
  const { t } = useTranslation('sync');
  const [followed, refresh] = useSyncStatus(api, eventId);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // A laptop that leads the venue follows nobody: the panel is named for what it is.
  const title = followed.kind === 'upstream' ? t('venueUpstreamTitle') : t('title');

  const unfollow = useCallback(async () => {
    if (eventId === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.request('DELETE', `/events/${eventId}/sync`);
      if (answer.status !== 204) setError(detailOf(answer.body) ?? t('failed', { status: answer.status }));
      refresh();
    } catch (err) {
      setError(err instanceof OfflineError ? t('serverUnreachable') : (err as Error).message);
    } finally {
      setBusy(false);
    }
  }, [api, eventId, refresh, t]);

  return (
    <section className="sync-panel" aria-label={title}>
      <h2>{title}</h2>
      {followed.kind === 'unreachable' && <p className="error">{t('serverUnreachable')}</p>}
      {followed.kind === 'followed' && (
        <>
          <SyncState status={followed.status} />
          <FollowerVenue api={api} status={followed.status} onTakenOver={refresh} />
          <DoubleAdmissions api={api} status={followed.status} timezone={timezone} />
          <button type="button" disabled={busy} onClick={unfollow}>
            {t('unfollow')}
          </button>
          <p className="muted">{t('unfollowKeeps')}</p>
        </>
      )}
      {followed.kind === 'upstream' && <UpstreamVenue view={followed.view} />}
      {followed.kind === 'none' && (
        <FollowPanel
          api={api}
          onFollowed={(id) => {
            refresh();
            onFollowed?.(id);
          }}
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function SyncState({ status }: { status: SyncStatus }) {
  const { t } = useTranslation('sync');
  const now = useNow();
  const seconds = status.last_pull_at ? Math.max(0, Math.round((now - utcInstant(status.last_pull_at).getTime()) / 1000)) : undefined;
  const line =
    status.state === 'ok'
      ? seconds === undefined
        ? t('syncedNever')
        : seconds < 120
          ? t('syncedAgo', { seconds })
          : t('syncedMinutesAgo', { minutes: Math.floor(seconds / 60) })
      : status.state === 'offline'
        ? t('offline', { pending: status.pending })
        : t('error', { error: status.error ?? '', pending: status.pending });
  return (
    <div className={`sync-state sync-${status.state}`} role="status" data-testid="sync-link-state">
      <strong>{line}</strong>
      <span className="muted">{t('upstream', { url: status.url })}</span>
      {status.fingerprint && (
        <span className="muted">
          {t('pinnedLabel')}
          <Fingerprint value={status.fingerprint} testId="pinned-fingerprint" />
        </span>
      )}
      {status.state === 'ok' && status.pending > 0 && <span>{t('sending', { pending: status.pending })}</span>}
      {status.state !== 'ok' && <span>{t('worksAlone')}</span>}
    </div>
  );
}

type DoubleAdmission = SyncStatus['double_admissions'][number];

/** The latest double admissions as the status carries them; all of them (one page holds every one kept) on request. */
function DoubleAdmissions({ api, status, timezone }: { api: Api; status: SyncStatus; timezone?: string }) {
  const { t } = useTranslation('sync');
  const zone = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [all, setAll] = useState<DoubleAdmission[]>();
  const showAll = useCallback(async () => {
    const answer = await api.request<{ results: DoubleAdmission[] }>('GET', `/events/${status.event_id}/sync/double_admissions?page_size=1000`).catch(() => undefined);
    if (answer?.status === 200) setAll(answer.body.results);
  }, [api, status.event_id]);
  if (status.double_admissions_count === 0) return null;
  const shown = all ?? status.double_admissions;
  return (
    <div className="double-admissions">
      <h3>{t('doubleAdmissions', { number: status.double_admissions_count })}</h3>
      <p className="muted">{t('doubleAdmissionsHelp')}</p>
      {shown.length < status.double_admissions_count && (
        <p className="muted">
          {t('doubleAdmissionsLatest', { shown: shown.length, count: status.double_admissions_count })}{' '}
          <button type="button" className="link" onClick={() => void showAll()}>
            {t('doubleAdmissionsShowAll')}
          </button>
        </p>
      )}
      <ul>
        {shown.map((d) => (
          <li key={d.checkins.map((c) => c.uid).join(' ')}>
            <strong>{`${d.first_name ?? ''} ${d.last_name ?? ''}`.trim() || t('unknownGuest')}</strong>
            {': '}
            {d.checkins
              .map((c) => t('admittedAt', { station: c.station ?? t('unknownStation'), time: eventTime(c.scanned_at, zone) }))
              .join(t('and'))}
          </li>
        ))}
      </ul>
    </div>
  );
}
