import i18next, { type BackendModule, type ReadCallback } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { frenchDe } from './elision';

/** The languages a station can be set to; the first is the reference the others are checked against. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'fr', name: 'Français' },
  { code: 'es', name: 'Español' },
  { code: 'nl', name: 'Nederlands' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

/**
 * The screen's strings per namespace: `common` (shared words), `door` (the door screen),
 * `console` (the organiser's screens), `sync` (following a central Doorlist), `badges`
 * (printing them) and `lan` (sharing on the LAN), in `locales/<language>/<namespace>.json`.
 */
export const NAMESPACES = ['common', 'door', 'console', 'sync', 'badges', 'lan'] as const;

const LANGUAGE_KEY = 'doorlist.language';

// Each language is its own chunk, fetched when it is chosen: a station downloads the strings of
// its own language only (the service worker keeps all of them for offline use).
type Strings = Record<(typeof NAMESPACES)[number], Record<string, unknown>>;
const LANGUAGE_CHUNKS = import.meta.glob<Strings>('./locales/*/index.ts', { import: 'strings' });

/** i18next's backend plugin interface (public API): one language's namespace, from its chunk. */
const languageChunks: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language: string, namespace: string, callback: ReadCallback) {
    const load = LANGUAGE_CHUNKS[`./locales/${language}/index.ts`];
    if (!load) return callback(new Error(`No strings in ${language}`), false);
    load().then(
      (strings) => callback(null, strings[namespace as keyof Strings]),
      (err: Error) => callback(err, false),
    );
  },
};

function isLanguage(value: unknown): value is Language {
  return LANGUAGES.some((language) => language.code === value);
}

/** The station's own choice, else the browser's language when we have it, else English. */
function initialLanguage(): Language {
  const saved = localStorage.getItem(LANGUAGE_KEY);
  if (isLanguage(saved)) return saved;
  const browser = navigator.language?.slice(0, 2);
  return isLanguage(browser) ? browser : 'en';
}

/**
 * Loads the chosen language's strings; the screen renders once they are here. No fallback
 * language: every language has every key (test/unit/i18n.test.ts), so none is loaded for
 * nothing, and a key that went missing is reported here and by the language tests rather than
 * shown in English.
 */
export async function startI18n(): Promise<void> {
  await i18next
    .use(languageChunks)
    .use(initReactI18next)
    .init({
      lng: initialLanguage(),
      supportedLngs: LANGUAGES.map((language) => language.code),
      fallbackLng: false,
      ns: [...NAMESPACES],
      defaultNS: 'common',
      // React escapes what it renders; i18next escaping again would show &amp; to door staff.
      interpolation: { escapeValue: false },
      returnNull: false,
      saveMissing: true,
      missingKeyHandler: (languages, namespace, key) => console.warn(`Untranslated: ${namespace}:${key} (${languages.join(', ')})`),
    });
  // French elides "de" before a vowel, and a name is only known at run time: `{{name, de}}`.
  i18next.services.formatter?.add('de', frenchDe);
  document.documentElement.lang = i18next.language;
}

/** Picked per station and remembered across reloads; the screen switches once its strings are here. */
export function setLanguage(language: Language): void {
  localStorage.setItem(LANGUAGE_KEY, language);
  void i18next.changeLanguage(language).then(() => {
    document.documentElement.lang = language;
  });
}

export { i18next };
