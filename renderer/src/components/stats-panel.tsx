import type { ReactNode } from 'react';
import type { EventStats } from '../stats';
import type { SessionSummary } from '../types';
import { ArrivalsChart } from './arrivals-chart';

function percent(part: number, whole: number): number {
  return whole > 0 ? Math.min(100, Math.round((part / whole) * 100)) : 0;
}

/** Live counters: the event, each registration type, the current session, and arrivals. */
export function StatsPanel({ stats, session, children }: { stats?: EventStats; session?: SessionSummary; children?: ReactNode }) {
  const sessionStats = session ? stats?.sessions.find((s) => s.id === session.id) : undefined;
  return (
    <aside className="side" aria-label="Counters">
      <section className="counter" data-testid="event-counter">
        <h2>Checked in</h2>
        <p className="count">
          <span data-testid="checked-in">{stats?.checked_in ?? '–'}</span>
          <span className="of"> / </span>
          <span data-testid="total">{stats?.total ?? '–'}</span>
        </p>
        <div className="meter" aria-hidden="true">
          <span style={{ width: `${percent(stats?.checked_in ?? 0, stats?.total ?? 0)}%` }} />
        </div>
      </section>
      {children}
      {session && (
        <section className="counter session" data-testid="session-counter">
          <h2>{session.name}</h2>
          <p className="count">
            <span data-testid="session-checked-in">{sessionStats?.checked_in ?? '–'}</span>
            <span className="of"> / </span>
            <span data-testid="session-capacity">{sessionStats ? sessionStats.capacity : (session.capacity ?? '–')}</span>
          </p>
          <p className="muted">
            {sessionStats ? `${sessionStats.registered} registered` : ''}
            {sessionStats?.overbook_capacity ? ` · ${sessionStats.overbook_capacity} overbooking allowed` : ''}
          </p>
          <div className="meter" aria-hidden="true">
            <span style={{ width: `${percent(sessionStats?.checked_in ?? 0, sessionStats?.capacity ?? 0)}%` }} />
          </div>
        </section>
      )}
      {!!stats?.registration_types.length && (
        <section className="types">
          <h2>By registration type</h2>
          <ul>
            {stats.registration_types.map((t) => (
              <li key={t.id} data-testid={`type-${t.id}`}>
                <span className="type-name">{t.name}</span>
                <span className="type-count">
                  {t.checked_in} / {t.total}
                </span>
                <div className="meter thin" aria-hidden="true">
                  <span style={{ width: `${percent(t.checked_in, t.total)}%` }} />
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ArrivalsChart stats={stats} />
    </aside>
  );
}
