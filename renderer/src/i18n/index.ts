import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { RESOURCES } from './locales';

/** The languages a station can be set to; the first is the fallback. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'fr', name: 'Français' },
  { code: 'es', name: 'Español' },
  { code: 'nl', name: 'Nederlands' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

const LANGUAGE_KEY = 'doorlist.language';

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

void i18next.use(initReactI18next).init({
  resources: RESOURCES,
  lng: initialLanguage(),
  fallbackLng: 'en',
  ns: Object.keys(RESOURCES.en),
  defaultNS: 'common',
  // React escapes what it renders; i18next escaping again would show &amp; to door staff.
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** Picked per station and remembered across reloads. */
export function setLanguage(language: Language): void {
  localStorage.setItem(LANGUAGE_KEY, language);
  void i18next.changeLanguage(language);
  document.documentElement.lang = language;
}

document.documentElement.lang = i18next.language;

export { i18next };
