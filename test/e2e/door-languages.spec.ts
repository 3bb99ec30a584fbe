import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

const LOCALES = path.resolve(__dirname, '..', '..', 'renderer', 'src', 'i18n', 'locales');

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

const read = (language: string) => flat(JSON.parse(fs.readFileSync(path.join(LOCALES, language, 'door.json'), 'utf8')));

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

for (const language of ['de', 'fr', 'es', 'nl']) {
  test(`the door screen in ${language} has no English left`, async ({ page }) => {
    await page.addInitScript((lang) => localStorage.setItem('doorlist.language', lang), language);
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await expect(page.locator('html')).toHaveAttribute('lang', language);
    await door.scan(seed.guests.radia.barcode);
    await expect(door.result()).toHaveAttribute('data-outcome', /checked_in|already_checked_in/);
    await door.scan('NIEMAND-404');
    await expect(door.result()).toHaveAttribute('data-outcome', 'not_found');
    await expect(door.checkedIn()).toHaveText(/\d/);
    await door.screenshot(`60-language-${language}`);
    const seen = await page.evaluate(() => document.body.innerText);
    const labels = await page.evaluate(() => [...document.querySelectorAll('[aria-label], [title], [placeholder]')].map((el) => [el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('placeholder')].filter(Boolean).join('\n')).join('\n'));
    for (const english of englishLeftOver(language)) {
      const word = asWord(english);
      expect(word.test(seen), `"${english}" on the ${language} screen`).toBe(false);
      expect(word.test(labels), `"${english}" in a ${language} label`).toBe(false);
    }
  });
}
