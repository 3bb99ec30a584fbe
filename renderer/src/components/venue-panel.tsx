import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, OfflineError, type Api } from '../api';
import { utcInstant } from '../i18n/format';
import type { SyncStatus, VenueMember, VenueView } from '../types';
import { useNow } from './sync-chip';

/** How long the upstream must have been silent before the takeover is offered unasked (DESIGN: followers look after 10 s). */
export const TAKEOVER_OFFER_AFTER_S = 30;

/** Seconds since `at` (an API datetime in UTC, or an instant with its zone), or undefined for never. */
function secondsSince(at: string | null, now: number): number | undefined {
  if (!at) return undefined;
  const instant = /(Z|[+-]\d\d:\d\d)$/.test(at) ? new Date(at) : utcInstant(at);
  return Math.max(0, Math.round((now - instant.getTime()) / 1000));
}

/** The laptops of the venue: station, address, fingerprint, when the upstream last heard from it. */
export function VenueList({ members }: { members: VenueMember[] }) {
  const { t } = useTranslation('sync');
  const now = useNow();
  if (members.length === 0) return <p className="muted">{t('venueAlone')}</p>;
  return (
    <ul className="venue-list" data-testid="venue-list">
      {members.map((m) => {
        const seconds = secondsSince(m.last_seen_at, now);
        return (
          <li key={m.url}>
            <strong>{m.name}</strong> <span className="muted">{m.url}</span>
            <code className="venue-fingerprint">{m.fingerprint}</code>
            <span className="muted">{seconds === undefined ? t('venueNeverSeen') : seconds < 120 ? t('venueSeenAgo', { seconds }) : t('venueSeenMinutesAgo', { minutes: Math.floor(seconds / 60) })}</span>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A follower's part in its venue: the epoch, the laptops, and "Take over as this venue's
 * upstream", offered with what it means once the upstream has been unreachable for
 * TAKEOVER_OFFER_AFTER_S, and behind a request before that.
 */
export function FollowerVenue({ api, status, onTakenOver }: { api: Api; status: SyncStatus; onTakenOver: () => void }) {
  const { t } = useTranslation('sync');
  const now = useNow();
  const [asked, setAsked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const silent = status.state !== 'ok' ? (secondsSince(status.last_pull_at, now) ?? Infinity) : 0;
  const offered = asked || silent >= TAKEOVER_OFFER_AFTER_S;

  const takeOver = useCallback(async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.request<{ epoch: number }>('POST', `/events/${status.event_id}/sync/takeover`);
      if (answer.status === 200) onTakenOver();
      else setError(detailOf(answer.body) ?? t('failed', { status: answer.status }));
    } catch (err) {
      setError(err instanceof OfflineError ? t('serverUnreachable') : (err as Error).message);
    } finally {
      setBusy(false);
    }
  }, [api, status.event_id, onTakenOver, t]);

  return (
    <div className="venue" data-testid="venue">
      <h3>{t('venueTitle', { epoch: status.epoch })}</h3>
      {status.venue_note && (
        <p className="venue-note" role="status" data-testid="venue-note">
          {status.venue_note}
        </p>
      )}
      {offered ? (
        <div className="takeover" data-testid="takeover">
          {silent >= TAKEOVER_OFFER_AFTER_S && <p className="takeover-why">{t('takeoverUnreachable', { minutes: Math.max(1, Math.floor(silent / 60)) })}</p>}
          <p>{t('takeoverMeans', { url: status.url })}</p>
          <p className="muted">{t('takeoverReturn')}</p>
          <button type="button" className="primary" disabled={busy} onClick={() => void takeOver()}>
            {t('takeover')}
          </button>
          {asked && (
            <button type="button" disabled={busy} onClick={() => setAsked(false)}>
              {t('takeoverCancel')}
            </button>
          )}
        </div>
      ) : (
        <button type="button" className="link" onClick={() => setAsked(true)}>
          {t('takeoverAsk')}
        </button>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <VenueList members={status.venue} />
    </div>
  );
}

/** This laptop is the venue's upstream for the event (it shares it, or took it over). */
export function UpstreamVenue({ view }: { view: VenueView }) {
  const { t } = useTranslation('sync');
  return (
    <div className="venue sync-state sync-ok" role="status" data-testid="venue-upstream">
      <strong>{t('venueUpstream', { epoch: view.epoch })}</strong>
      <span>{t('venueUpstreamHelp')}</span>
      {view.note && <p className="venue-note">{view.note}</p>}
      <VenueList members={view.venue} />
    </div>
  );
}
