import { useEffect, useState } from 'react';
import { listAll, OfflineError, type Api } from '../api';
import { desktop } from '../desktop';
import type { EventSummary } from '../types';
import { EventFilePanel } from './event-file-panel';

function when(event: EventSummary): string {
  if (!event.starts) return '';
  const [date, time] = event.starts.split('T');
  return `${date}${time ? ` ${time.slice(0, 5)}` : ''}${event.timezone ? ` (${event.timezone})` : ''}`;
}

/** The events this token sees, newest first; one click opens the door. */
export function EventPicker({ api, onPick, onSignOut }: { api: Api; onPick: (event: EventSummary) => void; onSignOut: () => void }) {
  const [events, setEvents] = useState<EventSummary[]>();
  const [error, setError] = useState<string>();
  const [filter, setFilter] = useState('');
  const [importing, setImporting] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setError(undefined);
    listAll<EventSummary>(api, '/events')
      .then((all) => live && setEvents([...all].sort((a, b) => (b.starts ?? '').localeCompare(a.starts ?? ''))))
      .catch((err) => live && setError(err instanceof OfflineError ? 'The server cannot be reached.' : (err as Error).message));
    return () => {
      live = false;
    };
  }, [api, reload]);

  useEffect(() => desktop?.onMenu((action) => action === 'import-event' && setImporting(true)), []);

  const shown = (events ?? []).filter((e) => e.name.toLowerCase().includes(filter.trim().toLowerCase()));

  return (
    <main className="center-page">
      <section className="card picker" aria-labelledby="picker-title">
        <header className="picker-head">
          <h1 id="picker-title">Pick the event</h1>
          <div className="row">
            <button type="button" onClick={() => setImporting(true)}>
              Import event file
            </button>
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          </div>
        </header>
        {events && events.length > 6 && (
          <label>
            Find an event
            <input type="search" value={filter} autoFocus onChange={(e) => setFilter(e.target.value)} />
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}{' '}
            <button type="button" onClick={() => setReload((n) => n + 1)}>
              Try again
            </button>
          </p>
        )}
        {!events && !error && <p role="status">Loading events…</p>}
        {events && events.length === 0 && <p>No events yet. Create one through the API or import an event file.</p>}
        <ul className="event-list">
          {shown.map((event, i) => (
            <li key={event.id}>
              <button type="button" className="event-choice" autoFocus={i === 0 && events!.length <= 6} onClick={() => onPick(event)}>
                <span className="event-name">{event.name}</span>
                <span className="event-when">{when(event)}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      {importing && (
        <EventFilePanel
          api={api}
          mode="import"
          onClose={(importedEventId) => {
            setImporting(false);
            if (importedEventId) setReload((n) => n + 1);
          }}
        />
      )}
    </main>
  );
}
