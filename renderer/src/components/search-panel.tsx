import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { OfflineError, type Api } from '../api';
import type { OfflineGuestList } from '../offline-guest-list';
import { eventTime } from '../event-clock';
import type { GuestSummary, RegistrationType } from '../types';
import { Dialog } from './dialog';
import { guestName, typeName } from './result-panel';

const PAGE = 25;

interface Found {
  guests: GuestSummary[];
  count: number;
  /** Answered from the station's offline guest list: the server could not be reached. */
  offline: boolean;
}

/** Find a guest by name, e-mail, company or code and check them in (or out) from the list. */
export function SearchPanel({
  api,
  eventId,
  types,
  guestList,
  online,
  timezone,
  inSession = false,
  onCheck,
  onPrintBadge,
  onClose,
}: {
  api: Api;
  eventId: number;
  types: RegistrationType[];
  guestList?: OfflineGuestList;
  online: boolean;
  timezone: string;
  /** Session attendance: a guest in the event may still be checked in to the session. */
  inSession?: boolean;
  onCheck: (guest: GuestSummary, direction: 'in' | 'out') => void;
  onPrintBadge?: (guest: GuestSummary) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('door');
  const { t: tb } = useTranslation('badges');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    const term = query.trim();
    if (!term) {
      setFound(undefined);
      return;
    }
    let live = true;
    const fromCopy = () => {
      if (!guestList?.loaded) return false;
      const { count, results } = guestList.search(term, PAGE);
      setError(undefined);
      setFound({ guests: results, count, offline: true });
      return true;
    };
    const timer = setTimeout(() => {
      if (!online && fromCopy()) return;
      api
        .get<{ count: number; results: GuestSummary[] }>(`/events/${eventId}/guests?search=${encodeURIComponent(term)}&page_size=${PAGE}`, { timeoutMs: 2500 })
        .then((body) => {
          if (!live) return;
          setError(undefined);
          setFound({ guests: body.results ?? [], count: body.count ?? 0, offline: false });
        })
        .catch((err) => {
          if (!live) return;
          if (err instanceof OfflineError && fromCopy()) return;
          setError(err instanceof OfflineError ? t('search.needsServer') : (err as Error).message);
        });
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, eventId, query, guestList, online, t]);

  const guests = found?.guests;
  return (
    <Dialog title={t('search.title')} onClose={onClose} wide>
      <label>
        {t('search.field')}
        <input type="search" name="search" autoFocus autoComplete="off" spellCheck={false} value={query} onChange={(e) => setQuery(e.target.value)} />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted" role="status">
        {guests === undefined ? t('search.typeWord') : guests.length === 0 ? t('search.nobody') : found!.count > guests.length ? t('search.firstOf', { shown: guests.length, count: found!.count }) : t('search.found', { count: found!.count })}
        {found?.offline ? ` · ${t('search.fromCopy')}` : ''}
      </p>
      {guests && guests.length > 0 && (
        <ul className="guest-list">
          {guests.map((guest) => {
            const inactive = String(guest.objstatus) === '2';
            const name = guestName(guest);
            return (
              <li key={guest.id} className="guest-row" data-guest-id={guest.id}>
                <div className="guest-info">
                  <span className="name">
                    {guest.attention && <span aria-label={t('search.attention')}>★ </span>}
                    {name}
                  </span>
                  <span className="meta">{[typeName(guest, types), guest.company, guest.email, guest.barcode].filter(Boolean).join(' · ')}</span>
                </div>
                <span className={guest.checked_in_at ? 'status in' : inactive ? 'status off' : 'status'}>
                  {guest.checked_in_at ? t('search.inSince', { time: eventTime(guest.checked_in_at, timezone) }) : inactive ? t('search.inactive') : t('search.notIn')}
                </span>
                <div className="row">
                  {/* A guest already in shows their state (beside), not a check-in that would answer amber. */}
                  {(!guest.checked_in_at || inSession) && (
                    <button type="button" className="primary" onClick={() => onCheck(guest, 'in')} aria-label={t('search.checkInLabel', { name })}>
                      {t('search.checkIn')}
                    </button>
                  )}
                  {guest.checked_in_at && (
                    <button type="button" onClick={() => onCheck(guest, 'out')} aria-label={t('search.checkOutLabel', { name })}>
                      {t('search.checkOut')}
                    </button>
                  )}
                  {onPrintBadge && !inactive && (
                    <button type="button" onClick={() => onPrintBadge(guest)} aria-label={tb('door.printLabel', { name })}>
                      {tb('door.print')}
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
