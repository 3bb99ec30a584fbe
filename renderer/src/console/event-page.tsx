import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { listAll, type Api } from '../api';
import { copyNames } from '../../../core/copy-names';
import type { EventSummary } from '../types';
import { CsvImport } from './csv-import';
import { EventFileExport } from './event-files';
import { SyncPanel } from '../components/sync-panel';
import { EventDialog } from './events-page';
import { PromotionCodesSection, QuestionsSection, RegistrationTypesSection, SessionsSection, TracksSection } from './event-sections';
import { GuestsPage } from './guests-page';
import { SupervisorPage } from './supervisor-page';
import { BadgesSection } from './badges-section';
import { consoleHref } from './route';
import { toFormDatetime, useList } from './use-list';
import type { EventRecord, GroupRecord } from './wire';

const EVENT_TABS = ['registration-types', 'questions', 'sessions', 'tracks', 'promotion-codes', 'guests', 'supervisor', 'badges', 'csv', 'file'] as const;
type EventTab = (typeof EVENT_TABS)[number];
const TAB_KEYS: Record<EventTab, string> = {
  'registration-types': 'registrationTypes',
  questions: 'questions',
  sessions: 'sessions',
  tracks: 'tracks',
  'promotion-codes': 'promotionCodes',
  guests: 'guests',
  supervisor: 'supervisor',
  badges: 'badges:console.tab',
  csv: 'csv',
  file: 'file',
};

export function EventPage({ api, eventId, tab, onOpenDoor }: { api: Api; eventId: number; tab?: string; onOpenDoor: (event: EventSummary) => void }) {
  const { t } = useTranslation('console');
  const [event, setEvent] = useState<EventRecord>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState(false);
  const [duplicated, setDuplicated] = useState<{ id: number; name: string }>();
  const { items: groups } = useList<GroupRecord>(api, '/groups');
  const current: EventTab = EVENT_TABS.includes(tab as EventTab) ? (tab as EventTab) : 'registration-types';

  useEffect(() => {
    api.get<EventRecord>(`/events/${eventId}`).then(setEvent, (err) => setError((err as Error).message));
  }, [api, eventId, version]);

  // The copy is named in the organiser's language ("Gala (Kopie)"), the next name free in its group.
  const duplicate = async () => {
    if (!event) return;
    const siblings = await listAll<EventRecord>(api, `/events?group_id=${event.group_id}`).catch(() => []);
    const [name] = copyNames(event.name, 1, siblings.map((e) => e.name), undefined, 255, t('events.copyWord'));
    const answer = await api.request<{ new_event_ids: number[] }>('POST', `/events/${eventId}/duplicate_event`, { quantity: 1, name });
    if (answer.status === 200) setDuplicated({ id: answer.body.new_event_ids[0], name });
  };

  if (error) return <p className="error" role="alert">{error}</p>;
  if (!event) return null;
  return (
    <div className="event-page">
      <header className="event-head">
        <div>
          <h1>{event.name}</h1>
          <p className="muted">
            {toFormDatetime(event.starts).replace('T', ' ')} – {toFormDatetime(event.ends).replace('T', ' ')} · {event.timezone}
          </p>
        </div>
        <div className="row-actions">
          <button type="button" className="primary" onClick={() => onOpenDoor({ id: event.id, name: event.name, starts: event.starts, ends: event.ends, timezone: event.timezone })}>
            {t('events.openDoor')}
          </button>
          <button type="button" onClick={() => setEditing(true)}>
            {t('edit')}
          </button>
          <button type="button" onClick={() => void duplicate()}>
            {t('events.duplicate')}
          </button>
        </div>
      </header>
      {duplicated && (
        <p className="notice" role="status">
          {t('events.duplicated')}{' '}
          <a href={consoleHref('events', duplicated.id)} data-testid="copy-link">
            {t('events.openCopy', { name: duplicated.name })}
          </a>
        </p>
      )}
      <nav className="event-tabs" aria-label={t('events.sections')}>
        {EVENT_TABS.map((key) => (
          <a key={key} href={consoleHref('events', eventId, key)} className={key === current ? 'event-tab active' : 'event-tab'} aria-current={key === current ? 'page' : undefined}>
            {t(TAB_KEYS[key].includes(':') ? TAB_KEYS[key] : `tabs.${TAB_KEYS[key]}`)}
          </a>
        ))}
      </nav>
      {current === 'registration-types' && <RegistrationTypesSection api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'questions' && <QuestionsSection api={api} eventId={eventId} />}
      {current === 'sessions' && <SessionsSection api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'tracks' && <TracksSection api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'promotion-codes' && <PromotionCodesSection api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'guests' && <GuestsPage api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'supervisor' && <SupervisorPage api={api} eventId={eventId} timezone={event.timezone} />}
      {current === 'badges' && <BadgesSection api={api} eventId={eventId} />}
      {current === 'csv' && <CsvImport api={api} eventId={eventId} eventName={event.name} />}
      {current === 'file' && (
        <>
          <EventFileExport api={api} eventId={eventId} eventName={event.name} />
          <SyncPanel api={api} eventId={eventId} timezone={event.timezone} />
        </>
      )}
      {editing && groups && (
        <EventDialog
          api={api}
          groups={groups}
          event={event}
          onDone={() => {
            setEditing(false);
            setVersion((v) => v + 1);
          }}
          onClose={() => setEditing(false)}
        />
      )}
    </div>
  );
}

