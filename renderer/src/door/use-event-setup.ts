import { useCallback, useEffect, useRef, useState } from 'react';
import { listAll, type Api } from '../api';
import type { EventSummary, RegistrationType, SessionSummary } from '../types';

/** A list kept from the last time the server answered, so a reload while it is out of reach still has it. */
function cached<T>(key: string): T[] {
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? '[]');
    return Array.isArray(saved) ? saved : [];
  } catch {
    return [];
  }
}

/** The event's own parts the door needs: registration types, sessions, its timezone; the session picked here. */
export function useEventSetup(api: Api, event: EventSummary, onGone: () => void) {
  const [types, setTypes] = useState<RegistrationType[]>(() => cached(`doorlist.types.${event.id}`));
  const [sessions, setSessions] = useState<SessionSummary[]>(() => cached(`doorlist.sessions.${event.id}`));
  const [session, setSession] = useState<SessionSummary | undefined>(() => {
    const saved = Number(localStorage.getItem(`doorlist.session.${event.id}`));
    return cached<SessionSummary>(`doorlist.sessions.${event.id}`).find((s) => s.id === saved);
  });
  const [timezone, setTimezone] = useState<string>(() => localStorage.getItem(`doorlist.timezone.${event.id}`) ?? 'UTC');
  const gone = useRef(onGone);
  gone.current = onGone;

  useEffect(() => {
    // An event deleted (or taken out of this key's scope) since the last visit: pick again.
    api
      .request<EventSummary>('GET', `/events/${event.id}`)
      .then((answer) => {
        if (answer.status === 404) gone.current();
        else if (answer.status === 200 && answer.body.timezone) {
          setTimezone(answer.body.timezone);
          localStorage.setItem(`doorlist.timezone.${event.id}`, answer.body.timezone);
        }
      })
      .catch(() => undefined);
    listAll<RegistrationType>(api, `/events/${event.id}/registration_types`)
      .then((all) => {
        setTypes(all);
        localStorage.setItem(`doorlist.types.${event.id}`, JSON.stringify(all));
      })
      .catch(() => undefined);
    listAll<SessionSummary>(api, `/events/${event.id}/sessions`)
      .then((all) => {
        setSessions(all);
        localStorage.setItem(`doorlist.sessions.${event.id}`, JSON.stringify(all));
        const saved = Number(localStorage.getItem(`doorlist.session.${event.id}`));
        setSession(all.find((s) => s.id === saved));
      })
      .catch(() => undefined);
  }, [api, event.id]);

  const pickSession = useCallback(
    (picked?: SessionSummary) => {
      setSession(picked);
      if (picked) localStorage.setItem(`doorlist.session.${event.id}`, String(picked.id));
      else localStorage.removeItem(`doorlist.session.${event.id}`);
    },
    [event.id],
  );

  return { types, sessions, session, pickSession, timezone };
}
