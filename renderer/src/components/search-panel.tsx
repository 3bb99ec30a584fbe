import { useEffect, useState } from 'react';
import { localTime, OfflineError, type Api } from '../api';
import type { GuestSummary, RegistrationType } from '../types';
import { Dialog } from './dialog';
import { guestName, typeName } from './result-panel';

const PAGE = 25;

/** Find a guest by name, e-mail, company or code and check them in (or out) from the list. */
export function SearchPanel({
  api,
  eventId,
  types,
  onCheck,
  onClose,
}: {
  api: Api;
  eventId: number;
  types: RegistrationType[];
  onCheck: (guest: GuestSummary, direction: 'in' | 'out') => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const [guests, setGuests] = useState<GuestSummary[]>();
  const [count, setCount] = useState(0);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const term = query.trim();
    if (!term) {
      setGuests(undefined);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      api
        .get<{ count: number; results: GuestSummary[] }>(`/events/${eventId}/guests?search=${encodeURIComponent(term)}&page_size=${PAGE}`)
        .then((body) => {
          if (!live) return;
          setError(undefined);
          setGuests(body.results ?? []);
          setCount(body.count ?? 0);
        })
        .catch((err) => live && setError(err instanceof OfflineError ? 'The server cannot be reached: search needs it.' : (err as Error).message));
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, eventId, query]);

  return (
    <Dialog title="Find a guest" onClose={onClose} wide>
      <label>
        Name, e-mail, company or code
        <input type="search" name="search" autoFocus autoComplete="off" spellCheck={false} value={query} onChange={(e) => setQuery(e.target.value)} />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted" role="status">
        {guests === undefined ? 'Type at least one word.' : guests.length === 0 ? 'Nobody matches.' : count > guests.length ? `First ${guests.length} of ${count} matches` : `${count} found`}
      </p>
      {guests && guests.length > 0 && (
        <ul className="guest-list">
          {guests.map((guest) => {
            const inactive = String(guest.objstatus) === '2';
            return (
              <li key={guest.id} className="guest-row" data-guest-id={guest.id}>
                <div className="guest-info">
                  <span className="name">{guestName(guest)}</span>
                  <span className="meta">{[typeName(guest, types), guest.company, guest.email, guest.barcode].filter(Boolean).join(' · ')}</span>
                </div>
                <span className={guest.checked_in ? 'status in' : inactive ? 'status off' : 'status'}>
                  {guest.checked_in ? `In since ${localTime(guest.checked_in_at)}` : inactive ? 'Inactive' : 'Not in'}
                </span>
                <div className="row">
                  <button type="button" className="primary" onClick={() => onCheck(guest, 'in')} aria-label={`Check in ${guestName(guest)}`}>
                    Check in
                  </button>
                  {guest.checked_in && (
                    <button type="button" onClick={() => onCheck(guest, 'out')} aria-label={`Check out ${guestName(guest)}`}>
                      Check out
                    </button>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </Dialog>
  );
}
