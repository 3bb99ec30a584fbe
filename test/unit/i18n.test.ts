import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const LOCALES = path.join(__dirname, '..', '..', 'renderer', 'src', 'i18n', 'locales');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'];

/** Every key of a (nested) translation file, as dotted paths. */
function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, nested]) => keysOf(nested, prefix ? `${prefix}.${key}` : key));
}

function load(language: string, namespace: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(LOCALES, language, `${namespace}.json`), 'utf8'));
}

describe('screen translations', () => {
  const namespaces = fs.readdirSync(path.join(LOCALES, 'en')).map((file) => path.basename(file, '.json'));
  for (const namespace of namespaces) {
    const english = keysOf(load('en', namespace)).sort();
    for (const language of LANGUAGES.slice(1)) {
      it(`${language}/${namespace} has exactly the English keys (a missing one would show English)`, () => {
        assert.deepEqual(keysOf(load(language, namespace)).sort(), english);
      });
    }
  }
});
