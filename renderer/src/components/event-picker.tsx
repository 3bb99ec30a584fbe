import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { listAll, OfflineError, type Api } from '../api';
import { consoleHref } from '../console/route';
import { desktop } from '../desktop';
import { formatDateTime, utcInstant } from '../i18n/format';
import type { EventSummary } from '../types';
import { EventFilePanel } from './event-file-panel';

interface Group {
  id: number;
  name: string;
}

/**
 * The events this token sees, newest first; one click opens the door. Each shows when it starts
 * on its own clock (the API's wall-clock time, labelled with the event's timezone) and its group,
 * so two events of the same name stay apart. With none, a manager gets the way to the console's
 * events page.
 */
export function EventPicker({ api, manager, onPick, onSignOut }: { api: Api; manager: boolean; onPick: (event: EventSummary) => void; onSignOut: () => void }) {
  const { t } = useTranslation('door');
  const [events, setEvents] = useState<EventSummary[]>();
  const [groups, setGroups] = useState<Map<number, string>>(new Map());
  const [error, setError] = useState<string>();
  const [filter, setFilter] = useState('');
  const [importing, setImporting] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setError(undefined);
    listAll<EventSummary>(api, '/events')
      .then((all) => live && setEvents([...all].sort((a, b) => (b.starts ?? '').localeCompare(a.starts ?? ''))))
      .catch((err) => live && setError(err instanceof OfflineError ? t('picker.unreachable') : (err as Error).message));
    // Group names are a help, not a need: without them the picker still lists and opens events.
    listAll<Group>(api, '/groups')
      .then((all) => live && setGroups(new Map(all.map((g) => [g.id, g.name]))))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, reload, t]);

  useEffect(() => desktop?.onMenu((action) => action === 'import-event' && setImporting(true)), []);

  const groupOf = (event: EventSummary) => (event.group_id === undefined ? undefined : groups.get(event.group_id));
  const wanted = filter.trim().toLowerCase();
  const shown = (events ?? []).filter((e) => `${e.name}\n${groupOf(e) ?? ''}`.toLowerCase().includes(wanted));

  return (
    <main className="center-page">
      <section className="card picker" aria-labelledby="picker-title">
        <header className="picker-head">
          <h1 id="picker-title">{t('picker.title')}</h1>
          <div className="row">
            <button type="button" onClick={() => setImporting(true)}>
              {t('picker.importFile')}
            </button>
            <button type="button" onClick={onSignOut}>
              {t('picker.signOut')}
            </button>
          </div>
        </header>
        {events && events.length > 6 && (
          <label>
            {t('picker.find')}
            <input type="search" value={filter} autoFocus onChange={(e) => setFilter(e.target.value)} />
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}{' '}
            <button type="button" onClick={() => setReload((n) => n + 1)}>
              {t('picker.retry')}
            </button>
          </p>
        )}
        {!events && !error && <p role="status">{t('picker.loading')}</p>}
        {events && events.length === 0 && (
          <div className="picker-empty">
            <p>{t('picker.empty')}</p>
            <p>{manager ? <Trans t={t} i18nKey="picker.emptyManager" components={{ console: <a href={consoleHref('events')} /> }} /> : t('picker.emptyStaff')}</p>
          </div>
        )}
        <ul className="event-list">
          {shown.map((event, i) => (
            <li key={event.id}>
              <button type="button" className="event-choice" autoFocus={i === 0 && events!.length <= 6} onClick={() => onPick(event)}>
                <span className="event-name">{event.name}</span>
                {event.starts && (
                  <span className="event-when">{t('picker.starts', { when: formatDateTime(utcInstant(event.starts), 'UTC'), timezone: event.timezone ?? 'UTC' })}</span>
                )}
                {groupOf(event) && <span className="event-group">{t('picker.group', { name: groupOf(event) })}</span>}
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
