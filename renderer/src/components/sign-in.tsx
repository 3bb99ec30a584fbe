import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiRequest, OfflineError, SessionExpiredError, signIn } from '../api';

type Method = 'password' | 'key';

/**
 * Username and password, or an API key pasted from the group settings or handed over by QR
 * code (`presetKey`, signed in at once).
 */
export function SignIn({ onSignedIn, notice, presetKey, unsent = 0, onDiscard }: { onSignedIn: (token: string, kind: 'user' | 'key') => void; notice?: string; presetKey?: string; unsent?: number; onDiscard?: () => void }) {
  const { t } = useTranslation('console');
  const [method, setMethod] = useState<Method>(presetKey ? 'key' : 'password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState(presetKey ?? '');
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (method === 'password') {
        onSignedIn(await signIn(username.trim(), password), 'user');
      } else {
        const key = apiKey.trim().replace(/^Token\s+/i, '');
        const answer = await apiRequest(key, 'GET', '/events').catch((err) => {
          throw err instanceof SessionExpiredError ? new Error(t('signIn.badKey')) : err;
        });
        if (answer.status !== 200) throw new Error(t('signIn.badKey'));
        onSignedIn(key, 'key');
      }
    } catch (err) {
      setError(err instanceof OfflineError ? t('offline') : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (presetKey) form.current?.requestSubmit();
  }, [presetKey]);

  return (
    <main className="center-page">
      <form ref={form} className="card sign-in" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Doorlist</h1>
        <p className="subtitle">{t('signIn.subtitle')}</p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {unsent > 0 && <UnsentScans count={unsent} onDiscard={onDiscard} />}
        <div className="tabs" role="tablist" aria-label={t('signIn.how')}>
          <button type="button" role="tab" aria-selected={method === 'password'} className={method === 'password' ? 'tab active' : 'tab'} onClick={() => setMethod('password')}>
            {t('fields.username')}
          </button>
          <button type="button" role="tab" aria-selected={method === 'key'} className={method === 'key' ? 'tab active' : 'tab'} onClick={() => setMethod('key')}>
            {t('signIn.apiKey')}
          </button>
        </div>
        {method === 'password' ? (
          <>
            <label>
              {t('fields.username')}
              <input name="username" autoComplete="username" autoFocus required value={username} onChange={(e) => setUsername(e.target.value)} />
            </label>
            <label>
              {t('fields.password')}
              <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
          </>
        ) : (
          <label>
            {t('signIn.apiKey')}
            <input name="api_key" autoComplete="off" autoFocus required spellCheck={false} value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button className="primary big" type="submit" disabled={busy}>
          {busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
      </form>
    </main>
  );
}

/**
 * Scans this device made that the server never had (the sign-in ended with a 401 before they
 * were sent): kept for whoever signs in next, or thrown away on purpose, after a second "yes".
 */
function UnsentScans({ count, onDiscard }: { count: number; onDiscard?: () => void }) {
  const { t } = useTranslation('door');
  const [asking, setAsking] = useState(false);
  return (
    <div className="notice unsent" data-testid="unsent-scans">
      <p>{t('signOut.keptForNext', { count })}</p>
      {onDiscard &&
        (asking ? (
          <div className="row">
            <span>{t('signOut.discardQuestion', { count })}</span>
            <button type="button" className="danger" onClick={onDiscard}>
              {t('signOut.discardYes')}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              {t('signOut.keep')}
            </button>
          </div>
        ) : (
          <button type="button" className="link" onClick={() => setAsking(true)}>
            {t('signOut.discardKept', { count })}
          </button>
        ))}
    </div>
  );
}
