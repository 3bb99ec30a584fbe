import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { Dialog } from '../components/dialog';
import { DateTimeField, FormFooter, SelectField, TextField, TimezoneField, useServerForm } from './forms';
import { EventFileImport } from './event-files';
import { SyncPanel } from '../components/sync-panel';
import { consoleHref, navigate } from './route';
import { toFormDatetime, useList } from './use-list';
import type { EventInput, EventRecord, GroupRecord } from './wire';

type EventForm = { [K in keyof EventInput]: EventInput[K] | '' };

/** Create or edit an event: timezone from the spec's list, dates picked on a calendar. */
export function EventDialog({ api, groups, event, onDone, onClose }: { api: Api; groups: GroupRecord[]; event?: EventRecord; onDone: (id: number) => void; onClose: () => void }) {
  const { t } = useTranslation('console');
  const { form, formError, submitWith } = useServerForm<EventForm>({
    defaultValues: event
      ? { name: event.name, group_id: event.group_id, timezone: event.timezone, starts: toFormDatetime(event.starts), ends: toFormDatetime(event.ends) }
      : { name: '', group_id: groups[0]?.id ?? '', timezone: '', starts: '', ends: '' },
  });
  const submit = submitWith(
    (values) => (event ? api.request('PUT', `/events/${event.id}`, values) : api.request('POST', '/events', values)),
    (body: { id: number }) => onDone(body.id),
  );
  return (
    <Dialog title={event ? t('editNoun', { noun: event.name }) : t('add', { noun: t('nouns.event') })} onClose={onClose} wide>
      <form className="form record-form" onSubmit={submit} noValidate>
        <div className="field-grid">
          <TextField form={form} name="name" label={t('fields.name')} required autoFocus />
          <SelectField form={form} name="group_id" label={t('fields.group')} required numeric options={groups.map((g) => ({ value: g.id, label: g.name }))} />
          <TimezoneField form={form} name="timezone" label={t('fields.timezone')} required />
          <DateTimeField form={form} name="starts" label={t('fields.starts')} required />
          <DateTimeField form={form} name="ends" label={t('fields.ends')} required defaultTime="23:00" />
        </div>
        <p className="muted">{t('events.localTime')}</p>
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={event ? t('saveChanges') : t('create')} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

export function EventsPage({ api, groupId }: { api: Api; groupId?: number }) {
  const { t } = useTranslation('console');
  const { items: groups, reload: reloadGroups } = useList<GroupRecord>(api, '/groups');
  const { items: events, error, reload } = useList<EventRecord>(api, groupId ? `/events?group_id=${groupId}` : '/events');
  const [creating, setCreating] = useState(false);
  const groupName = (id: number) => groups?.find((g) => g.id === id)?.name ?? '';

  return (
    <>
      <section className="console-section" aria-labelledby="events-title">
        <header className="section-head">
          <h2 id="events-title">{groupId ? t('events.ofGroup', { name: groupName(groupId) }) : t('events.title')}</h2>
          <button type="button" className="primary" onClick={() => setCreating(true)} disabled={!groups?.length}>
            {t('add', { noun: t('nouns.event') })}
          </button>
        </header>
        {groups?.length === 0 && (
          <p className="notice">
            {t('events.needGroup')} <a href={consoleHref('groups')}>{t('groups.title')}</a>
          </p>
        )}
        {error && <p className="error" role="alert">{error}</p>}
        {events?.length === 0 && <p className="muted">{t('none', { noun: t('nouns.event') })}</p>}
        {events && events.length > 0 && (
          <div className="table-wrap">
            <table className="records">
              <thead>
                <tr>
                  <th>{t('fields.name')}</th>
                  <th>{t('fields.starts')}</th>
                  <th>{t('fields.timezone')}</th>
                  <th>{t('fields.group')}</th>
                </tr>
              </thead>
              <tbody>
                {events.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <a href={consoleHref('events', e.id)}>{e.name}</a>
                    </td>
                    <td>{toFormDatetime(e.starts).replace('T', ' ')}</td>
                    <td>{e.timezone}</td>
                    <td>{groupName(e.group_id)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {creating && groups && (
          <EventDialog
            api={api}
            groups={groupId ? [...groups.filter((g) => g.id === groupId), ...groups.filter((g) => g.id !== groupId)] : groups}
            onDone={(id) => {
              setCreating(false);
              reload();
              navigate(`/console/events/${id}/registration-types`);
            }}
            onClose={() => setCreating(false)}
          />
        )}
      </section>
      <EventFileImport
        api={api}
        onImported={() => {
          reloadGroups();
          reload();
        }}
      />
      <SyncPanel
        api={api}
        onFollowed={(id) => {
          reloadGroups();
          reload();
          navigate(`/console/events/${id}/file`);
        }}
      />
    </>
  );
}
