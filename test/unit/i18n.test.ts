import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const LOCALES = path.join(__dirname, '..', '..', 'renderer', 'src', 'i18n', 'locales');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'];
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every key of a (nested) translation file, as dotted paths. */
function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, nested]) => keysOf(nested, prefix ? `${prefix}.${key}` : key));
}

function load(language: string, namespace: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(LOCALES, language, `${namespace}.json`), 'utf8'));
}

/** Keys with their plural forms folded into one, so languages with other plural rules compare equal. */
const folded = (keys: string[]) => [...new Set(keys.map((k) => k.replace(PLURAL, '')))].sort();

describe('screen translations', () => {
  const namespaces = fs.readdirSync(path.join(LOCALES, 'en')).filter((file) => file.endsWith('.json')).map((file) => path.basename(file, '.json'));
  for (const namespace of namespaces) {
    const english = keysOf(load('en', namespace));
    for (const language of LANGUAGES.slice(1)) {
      it(`${language}/${namespace} has exactly the English keys (a missing one would show English)`, () => {
        assert.deepEqual(folded(keysOf(load(language, namespace))), folded(english));
      });
    }
    for (const language of LANGUAGES) {
      it(`${language}/${namespace} has every plural form its language's rules use, and no other`, () => {
        // i18next picks the form with Intl.PluralRules, as these do.
        const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories.slice().sort();
        const keys = keysOf(load(language, namespace));
        const plurals = new Map<string, string[]>();
        for (const key of keys.filter((k) => PLURAL.test(k))) {
          const base = key.replace(PLURAL, '');
          plurals.set(base, [...(plurals.get(base) ?? []), PLURAL.exec(key)![1]]);
        }
        for (const [base, forms] of plurals) assert.deepEqual(forms.sort(), categories, `${language}/${namespace} ${base}`);
      });
    }
  }
});
