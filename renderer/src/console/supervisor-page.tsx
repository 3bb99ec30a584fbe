import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Api } from '../api';
import { ArrivalsChart } from '../components/arrivals-chart';
import { formatNumber } from '../i18n/format';
import { i18next } from '../i18n';
import { eventTime } from '../event-clock';
import type { StatsRecord, SupervisorRecord } from './wire';

/** As often as the doors poll: a scan at any station shows here within about two seconds. */
const POLL_MS = 2000;

type Station = SupervisorRecord['stations'][number];

/**
 * The night as a supervisor follows it: `GET /events/:id/stats?supervisor=true` every two
 * seconds (one request; the doors' own polls do not carry these figures). Each poll waits for
 * the one before, so a slow server is never asked twice at once.
 */
function useSupervisorStats(api: Api, eventId: number) {
  const [stats, setStats] = useState<StatsRecord>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const answer = await api.get<StatsRecord>(`/events/${eventId}/stats?supervisor=true`);
        if (!live) return;
        setStats(answer);
        setFailed(false);
      } catch {
        if (live) setFailed(true);
      }
      if (live) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, eventId]);
  return { stats, failed };
}

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);

/** "12 seconds ago" in the console's language, measured on the server's clock. */
function ago(at: string | null, now: string): string {
  if (!at) return '';
  const seconds = Math.max(0, Math.round((Date.parse(`${now}Z`) - Date.parse(`${at}Z`)) / 1000));
  const format = new Intl.RelativeTimeFormat(i18next.language, { numeric: 'auto', style: 'short' });
  if (seconds < 60) return format.format(-seconds, 'second');
  if (seconds < 3600) return format.format(-Math.floor(seconds / 60), 'minute');
  return format.format(-Math.floor(seconds / 3600), 'hour');
}

const HEALTH_ICON: Record<Station['health'], string> = { online: '●', queued: '◐', offline: '✕', left: '○' };

export function SupervisorPage({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const { stats, failed } = useSupervisorStats(api, eventId);
  const sup = stats?.supervisor;
  if (!stats || !sup) {
    return <section className="console-section">{failed ? <p className="error" role="alert">{t('offline')}</p> : <p className="muted">…</p>}</section>;
  }
  const expected = stats.checked_in + sup.remaining;
  // Stations that left are listed apart and never counted as doors, open or offline.
  const open = sup.stations.filter((s) => s.health !== 'left');
  const left = sup.stations.filter((s) => s.health === 'left');
  const online = open.filter((s) => s.health !== 'offline').length;
  const perMinute = sup.scans_recent / sup.recent_minutes;
  const typeName = (id: number) => stats.registration_types.find((rt) => rt.id === id)?.name ?? '';
  const sessionName = (id: number | null) => (id === null ? '' : (stats.sessions.find((s) => s.id === id)?.name ?? ''));

  return (
    <section className="console-section supervisor" aria-labelledby="supervisor-title">
      <header className="section-head">
        <h2 id="supervisor-title">{t('tabs.supervisor')}</h2>
        <span className={failed ? 'error' : 'muted'} role="status">
          {failed ? t('supervisor.stale', { time: eventTime(sup.now, timezone) }) : t('supervisor.live', { time: eventTime(sup.now, timezone) })}
        </span>
      </header>
      <p className="muted sv-note">{t('supervisor.timesIn', { zone: timezone })}</p>
      <div className="sv-cards">
        <Card label={t('supervisor.checkedIn')} value={`${formatNumber(stats.checked_in)} / ${formatNumber(expected)}`} testId="sv-checked-in" />
        <Card label={t('supervisor.remaining')} value={formatNumber(sup.remaining)} testId="sv-remaining" />
        <Card label={t('supervisor.done')} value={`${percent(stats.checked_in, expected)} %`} testId="sv-percent" />
        <Card label={t('supervisor.pace')} value={formatNumber(Math.round(perMinute * 10) / 10)} hint={t('supervisor.paceHint', { minutes: sup.recent_minutes })} testId="sv-pace" />
        <Card label={t('supervisor.stationsOnline')} value={`${online} / ${open.length}`} testId="sv-online" />
      </div>
      <div className="sv-grid">
        <div className="sv-main">
          <ArrivalsChart stats={stats} timezone={timezone} />
          <h3>{t('supervisor.latest')}</h3>
          {sup.latest.length === 0 && <p className="muted">{t('supervisor.noScans')}</p>}
          <ol className="sv-latest" aria-label={t('supervisor.latest')}>
            {sup.latest.map((c) => (
              <li key={c.id} className={c.direction === 'out' ? 'out' : undefined}>
                <span className="sv-time">{eventTime(c.scanned_at, timezone)}</span>
                <span className="sv-who">
                  {c.first_name} {c.last_name}
                </span>
                <span className="muted">{[typeName(c.registration_type), sessionName(c.session_id), c.direction === 'out' ? t('supervisor.out') : ''].filter(Boolean).join(' · ')}</span>
                <span className="sv-station" title={c.station ?? undefined}>
                  {c.station ?? t('supervisor.noStation')}
                </span>
              </li>
            ))}
          </ol>
        </div>
        <div className="sv-side">
          <h3>
            {t('supervisor.stations')} <span className="muted">({open.length})</span>
          </h3>
          {open.length === 0 ? (
            <p className="muted">{t('supervisor.noStations')}</p>
          ) : (
            <StationsTable stations={open} label={t('supervisor.stations')} minutes={sup.recent_minutes} now={sup.now} timezone={timezone} t={t} />
          )}
          <h3>{t('supervisor.byType')}</h3>
          <ProgressTable
            nameHeading={t('fields.registrationType')}
            rows={stats.registration_types.map((rt, i) => {
              const remaining = sup.registration_types[i]?.remaining ?? 0;
              return { key: rt.id, name: rt.name, checkedIn: rt.checked_in, remaining, expected: rt.checked_in + remaining };
            })}
            t={t}
          />
          {stats.sessions.length > 0 && (
            <>
              <h3>{t('supervisor.bySession')}</h3>
              <ProgressTable
                nameHeading={t('nouns.session')}
                rows={stats.sessions.map((s) => {
                  // Registered guests are who a session expects; an open session, its capacity.
                  const expected = s.registered > 0 ? s.registered : s.capacity;
                  return {
                    key: s.id,
                    name: s.name,
                    checkedIn: s.checked_in,
                    remaining: Math.max(0, expected - s.checked_in),
                    expected,
                    remainingTitle: s.registered > 0 ? t('supervisor.ofRegistered', { n: formatNumber(s.registered) }) : t('supervisor.ofCapacity', { n: formatNumber(s.capacity) }),
                  };
                })}
                t={t}
              />
            </>
          )}
          {left.length > 0 && (
            <details className="sv-left" data-testid="sv-left">
              <summary>
                {t('supervisor.stationsLeft')} <span className="muted">({left.length})</span>
              </summary>
              <p className="muted">{t('supervisor.stationsLeftHint')}</p>
              <StationsTable stations={left} label={t('supervisor.stationsLeft')} minutes={sup.recent_minutes} now={sup.now} timezone={timezone} t={t} />
            </details>
          )}
        </div>
      </div>
    </section>
  );
}

interface ProgressRow {
  key: number;
  name: string;
  checkedIn: number;
  remaining: number;
  /** Who is expected: the % is checked in of this. */
  expected: number;
  remainingTitle?: string;
}

/** Checked in / remaining / % per registration type or session. */
function ProgressTable({ nameHeading, rows, t }: { nameHeading: string; rows: ProgressRow[]; t: TFunction<'console'> }) {
  return (
    <table className="records sv-table">
      <thead>
        <tr>
          <th>{nameHeading}</th>
          <th>{t('supervisor.checkedIn')}</th>
          <th>{t('supervisor.remaining')}</th>
          <th>%</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <td>{row.name}</td>
            <td>{formatNumber(row.checkedIn)}</td>
            <td title={row.remainingTitle}>{formatNumber(row.remaining)}</td>
            <td>
              <Meter value={percent(row.checkedIn, row.expected)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Card({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId: string }) {
  return (
    <div className="sv-card" data-testid={testId}>
      <span className="sv-label">{label}</span>
      <strong>{value}</strong>
      {hint && <span className="muted">{hint}</span>}
    </div>
  );
}

function Meter({ value }: { value: number }) {
  return (
    <span className="sv-meter">
      <span style={{ width: `${Math.min(100, value)}%` }} />
      <em>{value} %</em>
    </span>
  );
}

/** Compact and scrolling: 38 stations take the height of eight rows, never push the page down. */
function StationsTable({ stations, label, minutes, now, timezone, t }: { stations: Station[]; label: string; minutes: number; now: string; timezone: string; t: TFunction<'console'> }) {
  return (
    <div className="sv-stations" tabIndex={0} role="region" aria-label={label}>
      <table className="records sv-table">
        <thead>
          <tr>
            <th>{t('supervisor.station')}</th>
            <th>{t('supervisor.health')}</th>
            <th>{t('supervisor.lastScan')}</th>
            <th>{t('supervisor.perMinute')}</th>
          </tr>
        </thead>
        <tbody>
          {stations.map((s) => (
            <tr key={s.station ?? ''} data-station={s.station ?? ''}>
              <td>{s.station ?? t('supervisor.noStation')}</td>
              <td>
                <span className={`sv-health ${s.health}`} title={s.last_seen_at ? t('supervisor.lastSeen', { ago: ago(s.last_seen_at, now) }) : undefined}>
                  <span aria-hidden="true">{HEALTH_ICON[s.health]}</span> {t(`supervisor.healthStates.${s.health}`)}
                  {s.health === 'queued' && ` (${formatNumber(s.queued)})`}
                </span>
              </td>
              <td title={s.last_scan_at ? ago(s.last_scan_at, now) : undefined}>{s.last_scan_at ? eventTime(s.last_scan_at, timezone) : <span className="muted">{t('supervisor.none')}</span>}</td>
              <td>{formatNumber(Math.round((s.scans_recent / minutes) * 10) / 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
