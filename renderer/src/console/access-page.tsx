import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import QRCode from 'qrcode';
import type { Api } from '../api';
import { Dialog } from '../components/dialog';
import { FormFooter, SelectField, TextField, useServerForm } from './forms';
import { consoleHref } from './route';
import { useList } from './use-list';
import type { ApiKeyRecord, GroupRecord, LanStateRecord, Role, UserRecord } from './wire';

const ROLES: Role[] = ['manager', 'door'];

/** The address a phone should open: this page's own, unless that is the laptop's loopback. */
function phoneAddress(): string {
  const { origin, hostname } = window.location;
  return hostname === 'localhost' || hostname.startsWith('127.') || hostname === '[::1]' ? '' : origin;
}

/** The laptop's HTTPS address for phones while it shares the LAN (GET /lan), to start the field with. */
function useSharedAddress(api: Api, setAddress: (update: (current: string) => string) => void): void {
  useEffect(() => {
    let live = true;
    api.request<LanStateRecord>('GET', '/lan').then(
      (answer) => live && answer.status === 200 && answer.body.https_urls[0] && setAddress((current) => current || answer.body.https_urls[0]),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, setAddress]);
}

/** A new key, shown this once, with a QR code that signs a phone straight in to the door screen. */
function NewKey({ api, apiKey, onClose }: { api: Api; apiKey: { name: string; key: string; role?: Role }; onClose: () => void }) {
  const { t } = useTranslation('console');
  const [address, setAddress] = useState(phoneAddress);
  useSharedAddress(api, setAddress);
  const [qr, setQr] = useState<string>();
  const link = address ? `${address.replace(/\/+$/, '')}/#key=${encodeURIComponent(apiKey.key)}` : '';
  useEffect(() => {
    if (!link) return setQr(undefined);
    QRCode.toDataURL(link, { margin: 1, width: 240 }).then(setQr, () => setQr(undefined));
  }, [link]);
  return (
    <Dialog title={t('access.newKeyTitle', { name: apiKey.name })} onClose={onClose} wide>
      <p className="notice">{t('access.shownOnce')}</p>
      <label className="field">
        <span>{t('access.key')}</span>
        <input readOnly value={apiKey.key} onFocus={(e) => e.target.select()} className="mono" aria-label={t('access.key')} />
      </label>
      <label className="field">
        <span>{t('access.phoneAddress')}</span>
        <input value={address} placeholder="https://192.168.1.20:8788" onChange={(e) => setAddress(e.target.value)} spellCheck={false} />
      </label>
      <p className="muted">{t('access.phoneHint')}</p>
      {qr && (
        <figure className="key-qr">
          <img src={qr} width={240} height={240} alt={t('access.qrAlt')} />
          <figcaption className="mono">{link.replace(/#key=.*/, '#key=…')}</figcaption>
        </figure>
      )}
    </Dialog>
  );
}

function KeysSection({ api, groupId }: { api: Api; groupId: number }) {
  const { t } = useTranslation('console');
  const { items, error, reload } = useList<ApiKeyRecord>(api, `/groups/${groupId}/api_keys`);
  const [shown, setShown] = useState<{ name: string; key: string; role?: Role }>();
  const { form, formError, submitWith } = useServerForm<{ name: string; role: Role }>({ defaultValues: { name: '', role: 'door' } });
  const submit = submitWith(
    (values) => api.request('POST', `/groups/${groupId}/api_keys`, values),
    (body) => {
      setShown(body);
      form.reset();
      reload();
    },
  );
  const revoke = async (key: ApiKeyRecord) => {
    if (!window.confirm(t('access.confirmRevoke', { name: key.name }))) return;
    await api.request('DELETE', `/groups/${groupId}/api_keys/${key.id}`);
    reload();
  };
  return (
    <section className="console-section" aria-labelledby="keys-title">
      <h2 id="keys-title">{t('access.keys')}</h2>
      {error && <p className="error" role="alert">{error}</p>}
      {items && items.length > 0 && (
        <ul className="plain-list">
          {items.map((key) => (
            <li key={key.id}>
              <span>
                <strong>{key.name}</strong> <span className="chip">{t(`roles.${key.role}`)}</span>
              </span>
              <button type="button" className="danger" onClick={() => void revoke(key)}>
                {t('access.revoke')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="form inline-form" onSubmit={submit} noValidate aria-label={t('access.newKey')}>
        <TextField form={form} name="name" label={t('access.keyName')} required />
        <SelectField form={form} name="role" label={t('access.role')} options={ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }))} />
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={t('access.newKey')} />
      </form>
      {shown && <NewKey api={api} apiKey={shown} onClose={() => setShown(undefined)} />}
    </section>
  );
}

function UserDialog({ api, groupId, user, onDone, onClose }: { api: Api; groupId: number; user?: UserRecord; onDone: () => void; onClose: () => void }) {
  const { t } = useTranslation('console');
  const { form, formError, submitWith } = useServerForm<{ username: string; password: string; role: Role }>({ defaultValues: { username: user?.username ?? '', password: '', role: user?.role ?? 'door' } });
  const submit = submitWith(
    ({ username, password, role }) =>
      user ? api.request('PUT', `/groups/${groupId}/users/${user.id}`, password ? { password, role } : { role }) : api.request('POST', `/groups/${groupId}/users`, { username, password, role }),
    onDone,
  );
  return (
    <Dialog title={user ? t('editNoun', { noun: user.username }) : t('add', { noun: t('nouns.user') })} onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate>
        {!user && <TextField form={form} name="username" label={t('fields.username')} required autoFocus />}
        <TextField form={form} name="password" label={user ? t('access.newPassword') : t('fields.password')} type="password" required={!user} />
        <SelectField form={form} name="role" label={t('access.role')} options={ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }))} />
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={user ? t('saveChanges') : t('create')} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function UsersSection({ api, groupId }: { api: Api; groupId: number }) {
  const { t } = useTranslation('console');
  const { items, error, reload } = useList<UserRecord>(api, `/groups/${groupId}/users`);
  const [editing, setEditing] = useState<UserRecord | 'new'>();
  const remove = async (user: UserRecord) => {
    if (!window.confirm(t('access.confirmRemove', { name: user.username }))) return;
    await api.request('DELETE', `/groups/${groupId}/users/${user.id}`);
    reload();
  };
  return (
    <section className="console-section" aria-labelledby="users-title">
      <header className="section-head">
        <h2 id="users-title">{t('access.users')}</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          {t('add', { noun: t('nouns.user') })}
        </button>
      </header>
      {error && <p className="error" role="alert">{error}</p>}
      {items && items.length > 0 && (
        <ul className="plain-list">
          {items.map((user) => (
            <li key={user.id}>
              <span>
                <strong>{user.username}</strong> <span className="chip">{t(`roles.${user.role}`)}</span>
              </span>
              <span className="row-actions">
                <button type="button" onClick={() => setEditing(user)}>
                  {t('edit')}
                </button>
                <button type="button" className="danger" onClick={() => void remove(user)}>
                  {t('delete')}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {editing && (
        <UserDialog
          api={api}
          groupId={groupId}
          user={editing === 'new' ? undefined : editing}
          onDone={() => {
            setEditing(undefined);
            reload();
          }}
          onClose={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}

/** Keys and users of one group, with their roles (only signed-in managers may change them). */
export function AccessPage({ api, groupId }: { api: Api; groupId?: number }) {
  const { t } = useTranslation('console');
  const { items: groups } = useList<GroupRecord>(api, '/groups');
  const chosen = groupId ?? groups?.[0]?.id;
  return (
    <>
      <section className="console-section">
        <h2>{t('access.title')}</h2>
        <p className="muted">{t('access.intro')}</p>
        {groups?.length === 0 && <p className="notice">{t('events.needGroup')}</p>}
        {groups && groups.length > 0 && (
          <label className="field">
            <span>{t('fields.group')}</span>
            <select value={chosen} onChange={(e) => (window.location.hash = consoleHref('access', e.target.value))}>
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </section>
      {chosen !== undefined && (
        <>
          <UsersSection key={`u${chosen}`} api={api} groupId={chosen} />
          <KeysSection key={`k${chosen}`} api={api} groupId={chosen} />
        </>
      )}
    </>
  );
}
