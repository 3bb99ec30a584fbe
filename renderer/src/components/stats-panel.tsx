import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { eventTime } from '../event-clock';
import { formatNumber } from '../i18n/format';
import type { CountsAsOf } from '../known-counts';
import type { EventStats } from '../stats';
import type { SessionSummary } from '../types';
import { ArrivalsChart } from './arrivals-chart';
import { sessionFill } from '../../../core/scan';

function percent(part: number, whole: number): number {
  return whole > 0 ? Math.min(100, Math.round((part / whole) * 100)) : 0;
}

/**
 * Live counters: the event (inactive guests counted apart, they cannot come in), each
 * registration type, each session, each station, and arrivals.
 */
/** What marks figures that are not live: "last known 21:04 CET · + 3 queued". */
export function AsOfNote({ asOf, timezone }: { asOf: CountsAsOf; timezone: string }) {
  const { t } = useTranslation('door');
  const parts = [t('stats.lastKnown', { time: eventTime(asOf.at, timezone) })];
  if (asOf.queuedIn) parts.push(t('stats.queuedIn', { count: asOf.queuedIn, number: formatNumber(asOf.queuedIn) }));
  if (asOf.queuedOut) parts.push(t('stats.queuedOut', { count: asOf.queuedOut, number: formatNumber(asOf.queuedOut) }));
  return (
    <p className="muted as-of" data-testid="counts-as-of" title={t('stats.notLive')}>
      {parts.join(' · ')}
    </p>
  );
}

export function StatsPanel({ stats, asOf, session, timezone, children }: { stats?: EventStats; asOf?: CountsAsOf; session?: SessionSummary; timezone: string; children?: ReactNode }) {
  const { t } = useTranslation('door');
  const expected = stats ? stats.total - stats.inactive : undefined;
  const current = session ? stats?.sessions.find((s) => s.id === session.id) : undefined;
  const others = stats?.sessions.filter((s) => s.id !== session?.id) ?? [];
  // Red from capacity on, and said in words too: the colour alone tells nobody who cannot see it.
  const fill = current ? sessionFill(current) : 'open';
  return (
    <aside className="side" aria-label={t('stats.label')}>
      <section className="counter" data-testid="event-counter">
        <h2>{t('stats.checkedIn')}</h2>
        <p className="count">
          {asOf && (
            <span className="approx" data-testid="approx" title={t('stats.notLive')}>
              ≈{' '}
            </span>
          )}
          <span data-testid="checked-in">{stats ? formatNumber(stats.checked_in) : '–'}</span>
          <span className="of"> / </span>
          <span data-testid="total">{expected !== undefined ? formatNumber(expected) : '–'}</span>
        </p>
        <div className="meter" aria-hidden="true">
          <span style={{ width: `${percent(stats?.checked_in ?? 0, expected ?? 0)}%` }} />
        </div>
        {asOf && <AsOfNote asOf={asOf} timezone={timezone} />}
        {!!stats?.inactive && (
          <p className="muted" data-testid="inactive">
            {t('stats.inactive', { count: stats.inactive })}
          </p>
        )}
      </section>
      {children}
      {session && (
        <section className={fill === 'open' ? 'counter session' : 'counter session at-capacity'} data-testid="session-counter" data-fill={fill}>
          <h2>{session.name}</h2>
          <p className="count">
            <span data-testid="session-checked-in">{current?.checked_in ?? '–'}</span>
            <span className="of"> / </span>
            <span data-testid="session-capacity">{current ? current.capacity : (session.capacity ?? '–')}</span>
          </p>
          {fill !== 'open' && (
            <p className="capacity-note" data-testid="session-fill">
              {t(fill === 'full' ? 'stats.sessionFull' : 'stats.atCapacity')}
            </p>
          )}
          <p className="muted">
            {current ? t('stats.registered', { count: current.registered }) : ''}
            {current?.overbook_capacity ? ` · ${t('stats.overbooking', { count: current.overbook_capacity })}` : ''}
          </p>
          <div className="meter" aria-hidden="true">
            <span style={{ width: `${percent(current?.checked_in ?? 0, current?.capacity ?? 0)}%` }} />
          </div>
        </section>
      )}
      {!!stats?.registration_types.length && (
        <section className="types">
          <h2>{t('stats.byType')}</h2>
          <ul>
            {stats.registration_types.map((type) => (
              <li key={type.id} data-testid={`type-${type.id}`}>
                <span className="type-name">{type.name}</span>
                <span className="type-count">
                  {formatNumber(type.checked_in)} / {formatNumber(type.total)}
                </span>
                <div className="meter thin" aria-hidden="true">
                  <span style={{ width: `${percent(type.checked_in, type.total)}%` }} />
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      {others.length > 0 && (
        <section className="types" data-testid="sessions-counts">
          <h2>{t('stats.bySession')}</h2>
          <ul>
            {others.map((s) => (
              <li key={s.id} data-fill={sessionFill(s)} className={sessionFill(s) === 'open' ? undefined : 'at-capacity'}>
                <span className="type-name">{s.name}</span>
                <span className="type-count">
                  {formatNumber(s.checked_in)} / {formatNumber(s.capacity)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {!!stats?.stations.length && (
        <section className="types" data-testid="stations">
          <h2>{t('stats.byStation')}</h2>
          <ul>
            {stats.stations.map((s) => (
              <li key={s.station ?? ''} data-station={s.station ?? ''}>
                <span className="type-name">{s.station ?? t('stats.noStation')}</span>
                <span className="type-count">{t('stats.stationIn', { count: s.checked_in, number: formatNumber(s.checked_in) })} · {t('stats.stationOut', { count: s.checked_out, number: formatNumber(s.checked_out) })}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ArrivalsChart stats={stats} timezone={timezone} />
    </aside>
  );
}
