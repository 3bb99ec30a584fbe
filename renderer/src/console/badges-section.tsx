import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { eventDateTime } from '../event-clock';
import { BADGE_SIZES, MAX_BADGE_IDS, MAX_BADGES_PER_PDF, type BadgeSize } from '../../../core/badges';
import { fetchBadge, printInBrowser } from '../door/use-badge-printer';
import { useList } from './use-list';
import type { RegistrationTypeRecord } from './wire';

interface BadgePrintRecord {
  id: number;
  guest_id: number;
  station: string | null;
  printed_by_name: string | null;
  printed_at: string;
}

// A PDF holds at most MAX_BADGES_PER_PDF: everyone not printed yet comes a part at a time.
type Selection = { registration_type: number } | { not_printed: true; limit: number } | { guest_ids: number[] };

/** Runs one sheet: the PDF is fetched (and its prints recorded), then the print dialog opens on it. */
function useSheet(api: Api, eventId: number) {
  const { t } = useTranslation('badges');
  const [state, setState] = useState<{ busy?: boolean; done?: string; error?: string }>({});
  const print = async (selection: Selection | (() => Promise<Selection | undefined>)) => {
    setState({ busy: true });
    try {
      const chosen = typeof selection === 'function' ? await selection() : selection;
      if (!chosen) {
        setState({ done: t('console.none') });
        return;
      }
      void printInBrowser(await fetchBadge(api, `/events/${eventId}/badges.pdf`, { ...chosen, station: 'Console' }));
      setState({ done: t('console.opened') });
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  return { state, print };
}

/** The event's badges: the label size, and sheets of many badges at once. */
export function BadgesSection({ api, eventId }: { api: Api; eventId: number }) {
  const { t } = useTranslation('badges');
  const [size, setSize] = useState<BadgeSize>();
  const [saved, setSaved] = useState<string>();
  const [typeId, setTypeId] = useState<number>();
  const [search, setSearch] = useState('');
  const { items: types } = useList<RegistrationTypeRecord>(api, `/events/${eventId}/registration_types`);
  const sheet = useSheet(api, eventId);

  useEffect(() => {
    api.get<{ size: BadgeSize }>(`/events/${eventId}/badge_layout`).then((layout) => setSize(layout.size), () => undefined);
  }, [api, eventId]);

  const choose = async (next: BadgeSize) => {
    setSize(next);
    const answer = await api.request('PUT', `/events/${eventId}/badge_layout`, { size: next });
    setSaved(answer.status === 200 ? t('console.saved', { size: t(`console.sizes.${next}`) }) : undefined);
  };
  const searched = async (): Promise<Selection | undefined> => {
    const found = await api.get<{ results: { id: number }[] }>(`/events/${eventId}/guests?search=${encodeURIComponent(search.trim())}&page_size=${MAX_BADGE_IDS}`);
    return found.results.length > 0 ? { guest_ids: found.results.map((g) => g.id) } : undefined;
  };

  return (
    <section className="console-section badges" aria-labelledby="badges-title">
      <h2 id="badges-title">{t('console.tab')}</h2>
      <label>
        {t('console.size')}
        <select name="badge-size" value={size ?? ''} onChange={(e) => void choose(e.target.value as BadgeSize)}>
          {BADGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {t(`console.sizes.${s}`)}
            </option>
          ))}
        </select>
      </label>
      {saved && <p className="notice" role="status">{saved}</p>}
      <div className="form-buttons">
        <select name="badge-type" aria-label={t('console.printType')} value={typeId ?? ''} onChange={(e) => setTypeId(Number(e.target.value) || undefined)}>
          <option value="">{t('console.printType')}</option>
          {types?.map((rt) => (
            <option key={rt.id} value={rt.id}>
              {rt.name}
            </option>
          ))}
        </select>
        <button type="button" disabled={!typeId || sheet.state.busy} onClick={() => typeId && void sheet.print({ registration_type: typeId })}>
          {t('console.print')}
        </button>
      </div>
      <div className="form-buttons">
        <input type="search" name="badge-search" aria-label={t('console.printSearch')} placeholder={t('console.search')} value={search} onChange={(e) => setSearch(e.target.value)} />
        <button type="button" disabled={!search.trim() || sheet.state.busy} onClick={() => void sheet.print(searched)}>
          {t('console.printSearch')}
        </button>
      </div>
      <div className="form-buttons">
        <button type="button" className="primary" disabled={sheet.state.busy} onClick={() => void sheet.print({ not_printed: true, limit: MAX_BADGES_PER_PDF })}>
          {t('console.printPending')}
        </button>
      </div>
      {sheet.state.busy && <progress aria-label={t('console.printing')} />}
      {sheet.state.done && <p className="notice" role="status">{sheet.state.done}</p>}
      {sheet.state.error && <p className="error" role="alert">{sheet.state.error}</p>}
    </section>
  );
}

/** A guest's badge prints, first and reprints, with a button for one more. */
export function GuestBadgePrints({ api, eventId, guestId, timezone }: { api: Api; eventId: number; guestId: number; timezone: string }) {
  const { t } = useTranslation('badges');
  const { items, error, reload } = useList<BadgePrintRecord>(api, `/events/${eventId}/badge_prints?guest_id=${guestId}`);
  const sheet = useSheet(api, eventId);
  return (
    <section className="history" aria-labelledby="badge-prints-title">
      <h3 id="badge-prints-title">{t('console.prints')}</h3>
      {error && <p className="error">{error}</p>}
      {items?.length === 0 && <p className="muted">{t('console.noPrints')}</p>}
      <ul className="history-list">
        {items?.map((p, i) => (
          <li key={p.id}>
            <span>{eventDateTime(p.printed_at, timezone)}</span>
            <span className="muted">{[p.station, p.printed_by_name].filter(Boolean).join(' · ')}</span>
            {i > 0 && <span className="muted">{t('console.reprint')}</span>}
          </li>
        ))}
      </ul>
      <button type="button" disabled={sheet.state.busy} onClick={() => void sheet.print({ guest_ids: [guestId] }).then(reload)}>
        {t('console.printOne')}
      </button>
      {sheet.state.error && <p className="error" role="alert">{sheet.state.error}</p>}
    </section>
  );
}
