import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

/**
 * The door screen in each of its five languages: every string through i18next (a key missing
 * in the language is reported as untranslated, none shows as a raw key), no English left in
 * the other four, and the strings of the chosen language only are downloaded.
 */
const LOCALES = path.resolve(__dirname, '..', '..', 'renderer', 'src', 'i18n', 'locales');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'];
// What the door screen shows: the console's strings stay in the console.
const DOOR_NAMESPACES = ['common', 'door', 'badges', 'sync', 'lan'];

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server, 'Sprachen Abend');
});

test.afterAll(async () => {
  await server?.dispose();
});

/** key -> text of a (nested) translation file. */
function flat(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === 'string') out.set(prefix, value);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) for (const [key, text] of flat(v, prefix ? `${prefix}.${k}` : k)) out.set(key, text);
  return out;
}

/** Every string of a language's door namespaces, keyed `namespace:key`. */
function read(language: string, namespaces = DOOR_NAMESPACES): Map<string, string> {
  const out = new Map<string, string>();
  for (const namespace of namespaces) {
    for (const [key, text] of flat(JSON.parse(fs.readFileSync(path.join(LOCALES, language, `${namespace}.json`), 'utf8')))) out.set(`${namespace}:${key}`, text);
  }
  return out;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const asWord = (text: string) => new RegExp(`(^|[^\\p{L}])${escape(text)}($|[^\\p{L}])`, 'u');

/**
 * The English wordings (without placeholders) that the other language words differently,
 * leaving out those that are words of that language too (Dutch says "Scan" as well).
 */
function englishLeftOver(language: string): string[] {
  const english = read('en');
  const other = read(language);
  const own = [...other.values()];
  return [...english]
    .filter(([key, text]) => !text.includes('{{') && other.get(key) !== text && text.length >= 3)
    .map(([, text]) => text)
    .filter((text) => !own.some((words) => asWord(text).test(words)));
}

/**
 * A string only this language has, as it stands in its bundle (ASCII, so the bundler writes it
 * as it is): finding it in a downloaded script means the language was downloaded.
 */
function markerOf(language: string): string {
  const others = LANGUAGES.filter((l) => l !== language).flatMap((l) => [...read(l, ['door']).values()]);
  const own = [...read(language, ['door']).values()].filter((text) => /^[\x20-\x7e]+$/.test(text) && !text.includes('{{') && !others.some((o) => o.includes(text)));
  return own.sort((a, b) => b.length - a.length)[0];
}

/** Everything a door person reads: the text, and the labels, titles and placeholders. */
async function visibleWords(page: Page): Promise<string> {
  return page.evaluate(() => {
    const labels = [...document.querySelectorAll('[aria-label], [title], [placeholder]')].map((el) => [el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('placeholder')].filter(Boolean).join('\n'));
    return [document.body.innerText, ...labels].join('\n');
  });
}

for (const language of LANGUAGES) {
  test(`the door screen in ${language}: every string translated, and only ${language} downloaded`, async ({ page }) => {
    const untranslated: string[] = [];
    page.on('console', (message) => {
      if (message.text().startsWith('Untranslated:')) untranslated.push(message.text());
    });
    const scripts: string[] = [];
    page.on('response', async (response) => {
      if (/\/assets\/.*\.js$/.test(response.url())) scripts.push(await response.text().catch(() => ''));
    });
    await page.addInitScript((lang) => localStorage.setItem('doorlist.language', lang), language);
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await expect(page.locator('html')).toHaveAttribute('lang', language);

    // The screens door staff see: answers, the dialogs they open, the counters.
    const seen: string[] = [];
    await door.scan(seed.guests.radia.barcode);
    await expect(door.result()).toHaveAttribute('data-outcome', /checked_in|already_checked_in/);
    await door.scan('NIEMAND-404');
    await expect(door.result()).toHaveAttribute('data-outcome', 'not_found');
    await expect(door.checkedIn()).toHaveText(/\d/);
    await door.screenshot(`60-language-${language}`);
    seen.push(await visibleWords(page));
    for (const key of ['F2', 'F3', 'F4', 'F7']) {
      await page.keyboard.press(key);
      await expect(page.getByRole('dialog')).toBeVisible();
      if (key === 'F2') await page.keyboard.type('Perlman');
      await expect(page.locator('.guest-row, .scan-log li, form, ul').first()).toBeVisible();
      seen.push(await visibleWords(page));
      if (key === 'F4') await door.screenshot(`62-language-walk-in-${language}`);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toBeHidden();
    }
    await door.toggleCheckOut();
    seen.push(await visibleWords(page));
    const words = seen.join('\n');

    expect(untranslated, 'strings missing in this language').toEqual([]);
    // A key shown as it is (namespace:key, or a dotted key) is a string that never was translated.
    expect(words).not.toMatch(/\b(common|door|badges|sync|lan|console):[\w.]+/);
    expect(words).not.toMatch(/\b[a-z]+\.[a-z]+[A-Z]\w*\b/);
    if (language !== 'en') {
      for (const english of englishLeftOver(language)) expect(asWord(english).test(words), `"${english}" on the ${language} screen`).toBe(false);
    }
    const downloaded = scripts.join('\n');
    for (const other of LANGUAGES) {
      const marker = markerOf(other);
      expect(downloaded.includes(marker), `${other} strings ("${marker}") downloaded by a ${language} station`).toBe(other === language);
    }
  });
}
