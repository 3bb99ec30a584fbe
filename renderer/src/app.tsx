import { useCallback, useMemo, useState } from 'react';
import { Api } from './api';
import { DoorScreen } from './components/door-screen';
import { EventPicker } from './components/event-picker';
import { SignIn } from './components/sign-in';
import type { EventSummary } from './types';

const TOKEN_KEY = 'doorlist.token';
const EVENT_KEY = 'doorlist.event';

function savedEvent(): EventSummary | undefined {
  try {
    const parsed = JSON.parse(localStorage.getItem(EVENT_KEY) ?? 'null');
    return parsed && typeof parsed.id === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Sign in, pick an event, then the door. Token and event survive a reload. */
export function App() {
  const [token, setToken] = useState<string | null>(() => localStorage.getItem(TOKEN_KEY));
  const [event, setEvent] = useState<EventSummary | undefined>(savedEvent);
  const [notice, setNotice] = useState<string>();

  const signOut = useCallback((message?: string) => {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(EVENT_KEY);
    setToken(null);
    setEvent(undefined);
    setNotice(message);
  }, []);

  // An expired token or revoked key mid-shift: sign in again and the door is back on the same
  // event (the door screen sends the station back to the picker if the new sign-in cannot see it).
  const expired = useCallback((detail: string) => {
    localStorage.removeItem(TOKEN_KEY);
    setToken(null);
    setNotice(detail);
  }, []);

  const api = useMemo(() => (token ? new Api(token, expired) : undefined), [token, expired]);

  const signedIn = (newToken: string) => {
    localStorage.setItem(TOKEN_KEY, newToken);
    setNotice(undefined);
    setToken(newToken);
  };

  const pickEvent = (picked: EventSummary | undefined) => {
    if (picked) localStorage.setItem(EVENT_KEY, JSON.stringify({ id: picked.id, name: picked.name }));
    else localStorage.removeItem(EVENT_KEY);
    setEvent(picked);
  };

  if (!api) return <SignIn onSignedIn={signedIn} notice={notice} />;
  if (!event) return <EventPicker api={api} onPick={pickEvent} onSignOut={() => signOut()} />;
  return <DoorScreen key={event.id} api={api} event={event} onChangeEvent={() => pickEvent(undefined)} onSignOut={() => signOut()} />;
}
