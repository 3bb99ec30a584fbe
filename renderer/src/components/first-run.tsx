import { useTranslation } from 'react-i18next';
import { apiRequest } from '../api';
import { FormFooter, TextField, useServerForm } from '../console/forms';

interface AdminForm {
  username: string;
  password: string;
  repeat: string;
}

/**
 * A fresh laptop has no user: its first screen creates the administrator (POST /setup, which the
 * server accepts only from the laptop itself) and signs them straight in.
 */
export function FirstRun({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const { t } = useTranslation('console');
  const { form, formError, submitWith } = useServerForm<AdminForm>({ defaultValues: { username: '', password: '', repeat: '' } });
  const submit = submitWith(
    async ({ username, password, repeat }) => {
      if (password !== repeat) return { status: 400, body: { repeat: [t('firstRun.mismatch')] } };
      return apiRequest(null, 'POST', '/setup', { username, password });
    },
    (body: { token: string }) => onSignedIn(body.token),
  );
  return (
    <main className="center-page">
      <form className="card sign-in" onSubmit={submit} aria-labelledby="first-run-title" noValidate>
        <h1 id="first-run-title">{t('firstRun.title')}</h1>
        <p className="subtitle">{t('firstRun.intro')}</p>
        <TextField form={form} name="username" label={t('fields.username')} required autoFocus />
        <TextField form={form} name="password" label={t('fields.password')} type="password" required />
        <TextField form={form} name="repeat" label={t('firstRun.repeat')} type="password" required />
        <p className="muted">{t('firstRun.loopbackOnly')}</p>
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={t('firstRun.create')} />
      </form>
    </main>
  );
}
