import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { GROUP_TYPES } from '../../../core/messages';
import { withoutBlanks } from './forms';
import { RecordDialog, type FieldSpec } from './record-section';
import { consoleHref } from './route';
import { useList } from './use-list';
import type { GroupRecord } from './wire';
import type { Caller } from './access';

/** Groups as a tree: each top-level group with its sub-groups under it. */
function ordered(groups: GroupRecord[]): { group: GroupRecord; depth: number }[] {
  const ids = new Set(groups.map((g) => g.id));
  const children = (parent: number | null) => groups.filter((g) => (parent === null ? g.parent_id === null || !ids.has(g.parent_id) : g.parent_id === parent));
  const walk = (parent: number | null, depth: number): { group: GroupRecord; depth: number }[] =>
    children(parent).flatMap((group) => [{ group, depth }, ...walk(group.id, depth + 1)]);
  return walk(null, 0);
}

/** Editing a group is for those who manage access (its settings are the group's own, DESIGN "Identity"). */
export function GroupsPage({ api, caller }: { api: Api; caller: Caller }) {
  const { t } = useTranslation('console');
  const { items, error, reload } = useList<GroupRecord>(api, '/groups');
  const [editing, setEditing] = useState<{ group?: GroupRecord; parent?: GroupRecord }>();

  const fields: FieldSpec[] = [
    { name: 'name', label: t('fields.name'), kind: 'text', required: true },
    { name: 'type', label: t('fields.groupType'), kind: 'select', options: GROUP_TYPES.map((type) => ({ value: type, label: type })) },
    { name: 'email', label: t('fields.email'), kind: 'text' },
    { name: 'phone', label: t('fields.phone'), kind: 'text' },
    { name: 'website', label: t('fields.website'), kind: 'text' },
    { name: 'parent_id', label: t('fields.parent'), kind: 'select', numeric: true, options: [{ value: '', label: t('groups.topLevel') }, ...(items ?? []).filter((g) => g.id !== editing?.group?.id).map((g) => ({ value: g.id, label: g.name }))] },
  ];
  const initial = editing?.group
    ? { name: editing.group.name, type: editing.group.type, email: editing.group.email ?? '', phone: editing.group.phone ?? '', website: editing.group.website ?? '', parent_id: editing.group.parent_id ?? '' }
    : { name: '', type: 'Event Planner', email: '', phone: '', website: '', parent_id: editing?.parent?.id ?? '' };

  return (
    <section className="console-section" aria-labelledby="groups-title">
      <header className="section-head">
        <h2 id="groups-title">{t('groups.title')}</h2>
        <button type="button" className="primary" onClick={() => setEditing({})}>
          {t('add', { noun: t('nouns.group') })}
        </button>
      </header>
      <p className="muted">{t('groups.intro')}</p>
      {error && <p className="error" role="alert">{error}</p>}
      {items?.length === 0 && <p className="notice">{t('groups.empty')}</p>}
      <ul className="group-tree">
        {items &&
          ordered(items).map(({ group, depth }) => (
            <li key={group.id} style={{ marginInlineStart: `${depth * 1.5}rem` }}>
              <div>
                <strong>{group.name}</strong>
                <span className="muted"> · {group.type}</span>
                {group.email && <span className="muted"> · {group.email}</span>}
              </div>
              <div className="row-actions">
                <a className="button" href={consoleHref('events', 'group', group.id)}>
                  {t('groups.events')}
                </a>
                {caller.manages_access && (
                  <a className="button" href={consoleHref('access', group.id)}>
                    {t('groups.access')}
                  </a>
                )}
                <button type="button" onClick={() => setEditing({ parent: group })}>
                  {t('groups.addSub')}
                </button>
                {caller.manages_access && (
                  <button type="button" onClick={() => setEditing({ group })}>
                    {t('edit')}
                  </button>
                )}
              </div>
            </li>
          ))}
      </ul>
      {editing && (
        <RecordDialog
          title={editing.group ? t('editNoun', { noun: editing.group.name }) : editing.parent ? t('groups.subOf', { name: editing.parent.name }) : t('add', { noun: t('nouns.group') })}
          fields={fields}
          initial={initial}
          send={(values) => {
            const body = { ...withoutBlanks(values), parent_id: values.parent_id === '' || values.parent_id === undefined ? null : values.parent_id };
            return editing.group ? api.request('PUT', `/groups/${editing.group.id}`, body) : api.request('POST', '/groups', body);
          }}
          onDone={() => {
            setEditing(undefined);
            reload();
          }}
          onClose={() => setEditing(undefined)}
          submitLabel={editing.group ? t('saveChanges') : t('create')}
        />
      )}
    </section>
  );
}
