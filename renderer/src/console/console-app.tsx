import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { LANGUAGES, setLanguage, type Language } from '../i18n';
import type { EventSummary } from '../types';
import type { Caller } from './access';
import { AccessPage } from './access-page';
import { EventPage } from './event-page';
import { EventsPage } from './events-page';
import { GroupsPage } from './groups-page';
import { consoleHref } from './route';
import { SharePage } from '../components/share-panel';

const PAGES = ['groups', 'events', 'access', 'share'] as const;

/**
 * The organiser's console: groups, events and everything under them, keys and users. `path` is
 * the address after `#/console/`.
 */
export function ConsoleApp({ api, caller, path, onSignOut, onOpenDoor }: { api: Api; caller: Caller; path: string[]; onSignOut: () => void; onOpenDoor: (event: EventSummary) => void }) {
  const { t, i18n } = useTranslation('console');
  const [page = 'groups', id, sub] = path;
  const number = (value: string | undefined) => (value && /^\d+$/.test(value) ? Number(value) : undefined);

  let content;
  if (page === 'events' && id === 'group') content = <EventsPage api={api} groupId={number(sub)} />;
  else if (page === 'events' && number(id)) content = <EventPage key={id} api={api} eventId={number(id)!} tab={sub} onOpenDoor={onOpenDoor} />;
  else if (page === 'events') content = <EventsPage api={api} />;
  else if (page === 'share') content = <SharePage api={api} />;
  else if (page === 'access' && caller.manages_access) content = <AccessPage api={api} groupId={number(id) ?? caller.group_id ?? undefined} />;
  else content = <GroupsPage api={api} caller={caller} />;

  return (
    <div className="console">
      <nav className="console-nav" aria-label={t('nav.console')}>
        {PAGES.filter((key) => key !== 'access' || caller.manages_access).map((key) => (
          <a key={key} href={consoleHref(key)} className={page === key ? 'console-link active' : 'console-link'} aria-current={page === key ? 'page' : undefined}>
            {t(`nav.${key}`)}
          </a>
        ))}
        <span className="spacer" />
        <label className="language">
          <span className="sr-only">{t('common:language')}</span>
          <select value={i18n.language} onChange={(e) => setLanguage(e.target.value as Language)}>
            {LANGUAGES.map((l) => (
              <option key={l.code} value={l.code}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={onSignOut}>
          {t('common:signOut')}
        </button>
      </nav>
      <main className="console-main" id="console-main" tabIndex={-1}>
        {content}
      </main>
    </div>
  );
}
