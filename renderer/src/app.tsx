import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Api, apiRequest } from './api';
import { managesEvents, useCaller } from './console/access';
import { navigate, useHashPath } from './console/route';
import { DoorScreen } from './components/door-screen';
import { EventPicker } from './components/event-picker';
import { SignIn } from './components/sign-in';
import { SignOutDialog, type Leaving } from './components/sign-out-dialog';
import { discardQueued, EVENT_POINTER, wipeDeviceData } from './device-data';
import { queuedItems, sendQueued } from './scan-queue';
import type { EventSummary } from './types';

// The console and the first-run form load only when opened: a door station never downloads them.
const ConsoleApp = lazy(() => import('./console/console-app').then((m) => ({ default: m.ConsoleApp })));
const FirstRun = lazy(() => import('./components/first-run').then((m) => ({ default: m.FirstRun })));

const TOKEN_KEY = 'doorlist.token';
// A user's token is revoked on sign-out; an API key must never be (a phone signing out would
// lock out every station sharing it).
const TOKEN_KIND_KEY = 'doorlist.tokenKind';
const EVENT_KEY = EVENT_POINTER;

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
  const [leaving, setLeaving] = useState<Leaving>();
  // Scans left on this device by a sign-in that ended (a 401): the sign-in screen says so.
  const [unsent, setUnsent] = useState(0);
  // Each sign-out attempt's number: one abandoned (Stay signed in, a 401) never finishes later.
  const attempt = useRef(0);
  const path = useHashPath();
  const setupNeeded = useSetupNeeded(!token && !presetKey);

  // An expired token or revoked key mid-shift: the offline copy is wiped (below, once nobody is
  // signed in), the waiting scans are kept, and whoever signs in next comes back to the event
  // and hands them over (the door sends the station to the picker if they cannot see it).
  const expired = useCallback((detail: string) => {
    attempt.current += 1;
    setLeaving(undefined);
    localStorage.removeItem(TOKEN_KEY);
    setToken(null);
    setNotice(detail);
  }, []);

  const api = useMemo(() => (token ? new Api(token, expired) : undefined), [token, expired]);
  // A token given up answers nothing more: no late answer writes a guest back after the wipe.
  useEffect(() => () => api?.close(), [api]);

  // Nobody signed in: nothing of any event or guest stays in this browser but the waiting scans.
  useEffect(() => {
    // Signed in meanwhile in another tab of this browser (the page was loading): nothing to wipe.
    if (token || localStorage.getItem(TOKEN_KEY)) return;
    let live = true;
    void wipeDeviceData({ signedOut: true, keepEventPointer: true })
      .then(() => queuedItems())
      .then(
        (items) => live && setUnsent(items.length),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [token]);

  const finishSignOut = useCallback(
    async (discard: boolean) => {
      attempt.current += 1;
      if (discard) await discardQueued().catch(() => undefined);
      if (token && localStorage.getItem(TOKEN_KIND_KEY) === 'user') void apiRequest(token, 'POST', '/apps/api/auth/logout').catch(() => undefined);
      api?.close();
      localStorage.removeItem(TOKEN_KEY);
      localStorage.removeItem(TOKEN_KIND_KEY);
      localStorage.removeItem(EVENT_KEY);
      setLeaving(undefined);
      setToken(null);
      setEvent(undefined);
      setNotice(undefined);
    },
    [token, api],
  );

  // Scans still waiting are handed over first; those the server cannot take are only thrown
  // away when the user says so (SignOutDialog).
  const signOut = useCallback(async () => {
    if (!api) return;
    const mine = (attempt.current += 1);
    const waiting = (await queuedItems().catch(() => [])).length;
    if (mine !== attempt.current) return;
    if (waiting === 0) return finishSignOut(false);
    setLeaving({ phase: 'sending', count: waiting });
    const left = await sendQueued(api, {}, true).catch(() => queuedItems().then((items) => items.length, () => waiting));
    if (mine !== attempt.current) return;
    if (left === 0) await finishSignOut(false);
    else setLeaving({ phase: 'unsent', count: left });
  }, [api, finishSignOut]);

  const stayIn = useCallback(() => {
    attempt.current += 1;
    setLeaving(undefined);
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
    // A station on another event keeps nothing of the one before (its waiting scans excepted).
    if (picked) void wipeDeviceData({ signedOut: false, eventId: picked.id });
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
    return (
      <SignIn
        onSignedIn={signedIn}
        notice={notice}
        presetKey={presetKey}
        unsent={unsent}
        onDiscard={() => {
          void discardQueued()
            .catch(() => undefined)
            .then(() => setUnsent(0));
        }}
      />
    );
  }
  // The door never waits for GET /me (a reload must scan at once); the console does.
  const manager = caller ? managesEvents(caller) : false;
  const inConsole = path[0] === 'console' && manager;
  if (path[0] === 'console' && !caller) return null;
  const door = !event ? (
    <EventPicker api={api} manager={manager} onPick={pickEvent} onSignOut={() => void signOut()} />
  ) : (
    <DoorScreen key={event.id} api={api} event={event} onChangeEvent={() => pickEvent(undefined)} onSignOut={() => void signOut()} />
  );
  // At the door the way to the console floats in a corner, outside the door's layout, so the
  // door keeps every pixel it is designed for (and the same place in the tree: no remount).
  const signOutDialog = leaving && <SignOutDialog leaving={leaving} onStay={stayIn} onDiscard={() => void finishSignOut(true)} />;
  if (!inConsole || !caller)
    return (
      <>
        {door}
        {signOutDialog}
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
          onSignOut={() => void signOut()}
          onOpenDoor={(picked) => {
            pickEvent(picked);
            navigate('/');
          }}
        />
      </Suspense>
      {signOutDialog}
    </div>
  );
}
