import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Api, apiRequest } from './api';
import { managesEvents, useCaller } from './console/access';
import { navigate, useHashPath } from './console/route';
import { DoorScreen } from './components/door-screen';
import { EventPicker } from './components/event-picker';
import { SignIn } from './components/sign-in';
import type { EventSummary } from './types';

// The console and the first-run form load only when opened: a door station never downloads them.
const ConsoleApp = lazy(() => import('./console/console-app').then((m) => ({ default: m.ConsoleApp })));
const FirstRun = lazy(() => import('./components/first-run').then((m) => ({ default: m.FirstRun })));

const TOKEN_KEY = 'doorlist.token';
// A user's token is revoked on sign-out; an API key must never be (a phone signing out would
// lock out every station sharing it).
const TOKEN_KIND_KEY = 'doorlist.tokenKind';
const EVENT_KEY = 'doorlist.event';

export type TokenKind = 'user' | 'key';

function savedEvent(): EventSummary | undefined {
  try {
    const parsed = JSON.parse(localStorage.getItem(EVENT_KEY) ?? 'null');
    return parsed && typeof parsed.id === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A key handed over by QR code arrives as `#key=...`: taken once and wiped from the address. */
function keyFromAddress(): string | undefined {
  const match = /^#key=([^&]+)/.exec(window.location.hash);
  if (!match) return undefined;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return decodeURIComponent(match[1]);
}

/** While no user exists, the first screen creates the administrator (DESIGN "First run"). */
function useSetupNeeded(ask: boolean): boolean | undefined {
  const [needed, setNeeded] = useState<boolean>();
  useEffect(() => {
    if (!ask) return;
    let live = true;
    apiRequest<{ needed?: boolean }>(null, 'GET', '/setup')
      .then((answer) => live && setNeeded(answer.status === 200 && answer.body.needed === true))
      .catch(() => live && setNeeded(false));
    return () => {
      live = false;
    };
  }, [ask]);
  return ask ? needed : false;
}

/**
 * First run, sign in, then the door; a manager also has the console, one click from the door.
 * Token and event survive a reload.
 */
export function App() {
  const { t } = useTranslation('console');
  const [presetKey, setPresetKey] = useState(keyFromAddress);
  const [token, setToken] = useState<string | null>(() => (presetKey ? null : localStorage.getItem(TOKEN_KEY)));
  const [event, setEvent] = useState<EventSummary | undefined>(savedEvent);
  const [notice, setNotice] = useState<string>();
  const path = useHashPath();
  const setupNeeded = useSetupNeeded(!token && !presetKey);

  const signOut = useCallback(
    (message?: string) => {
      if (token && localStorage.getItem(TOKEN_KIND_KEY) === 'user') void apiRequest(token, 'POST', '/apps/api/auth/logout').catch(() => undefined);
      localStorage.removeItem(TOKEN_KEY);
      localStorage.removeItem(TOKEN_KIND_KEY);
      localStorage.removeItem(EVENT_KEY);
      setToken(null);
      setEvent(undefined);
      setNotice(message);
    },
    [token],
  );

  // An expired token or revoked key mid-shift: sign in again and the door is back on the same
  // event (the door screen sends the station back to the picker if the new sign-in cannot see it).
  const expired = useCallback((detail: string) => {
    localStorage.removeItem(TOKEN_KEY);
    setToken(null);
    setNotice(detail);
  }, []);

  // A QR code opened in a tab that already shows Doorlist changes only the hash.
  useEffect(() => {
    const onHash = () => {
      const key = keyFromAddress();
      if (!key) return;
      setPresetKey(key);
      setToken(null);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const api = useMemo(() => (token ? new Api(token, expired) : undefined), [token, expired]);
  const caller = useCaller(api);

  const signedIn = (newToken: string, kind: TokenKind) => {
    localStorage.setItem(TOKEN_KEY, newToken);
    localStorage.setItem(TOKEN_KIND_KEY, kind);
    // Taken once: signing out later must not sign the same key straight back in.
    setPresetKey(undefined);
    setNotice(undefined);
    setToken(newToken);
  };

  const pickEvent = (picked: EventSummary | undefined) => {
    if (picked) localStorage.setItem(EVENT_KEY, JSON.stringify({ id: picked.id, name: picked.name }));
    else localStorage.removeItem(EVENT_KEY);
    setEvent(picked);
  };

  if (!api) {
    if (setupNeeded === undefined) return null;
    if (setupNeeded)
      return (
        <Suspense fallback={null}>
          <FirstRun
            onSignedIn={(newToken) => {
              signedIn(newToken, 'user');
              navigate('/console');
            }}
          />
        </Suspense>
      );
    return <SignIn onSignedIn={signedIn} notice={notice} presetKey={presetKey} />;
  }
  // The door never waits for GET /me (a reload must scan at once); the console does.
  const manager = caller ? managesEvents(caller) : false;
  const inConsole = path[0] === 'console' && manager;
  if (path[0] === 'console' && !caller) return null;
  const door = !event ? (
    <EventPicker api={api} manager={manager} onPick={pickEvent} onSignOut={() => signOut()} />
  ) : (
    <DoorScreen key={event.id} api={api} event={event} onChangeEvent={() => pickEvent(undefined)} onSignOut={() => signOut()} />
  );
  // At the door the way to the console floats in a corner, outside the door's layout, so the
  // door keeps every pixel it is designed for (and the same place in the tree: no remount).
  if (!inConsole || !caller)
    return (
      <>
        {door}
        {manager && (
          <nav className="console-pill" aria-label={t('nav.label')}>
            <a href="#/console">{t('nav.console')}</a>
          </nav>
        )}
      </>
    );
  return (
    <div className="shell">
      {/* The first Tab stop: past the menus to the page. A button, since the address's #hash is the router's. */}
      <button type="button" className="skip-link" onClick={() => document.getElementById('console-main')?.focus()}>
        {t('skipToContent')}
      </button>
      <nav className="app-bar" aria-label={t('nav.label')}>
        <a href="#/" className="app-tab">
          {t('nav.door')}
        </a>
        <a href="#/console" className="app-tab active" aria-current="page">
          {t('nav.console')}
        </a>
      </nav>
      <Suspense fallback={null}>
        <ConsoleApp
          api={api}
          caller={caller}
          path={path.slice(1)}
          onSignOut={() => signOut()}
          onOpenDoor={(picked) => {
            pickEvent(picked);
            navigate('/');
          }}
        />
      </Suspense>
    </div>
  );
}
