import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';

/**
 * Pictures for people to look at, never assertions: taken only by `npm run screenshots`
 * (DOORLIST_SCREENSHOTS=1), so `npm test` neither writes into docs/ nor spends the CPU of
 * encoding some two hundred pictures and resizing pages to a phone for them.
 */
export const SCREENSHOTS_WANTED = process.env.DOORLIST_SCREENSHOTS === '1';

const ROOT = path.resolve(__dirname, '..', '..');
/** Committed: the console's pages and panels, shown by the guides in docs/. */
export const CONSOLE_PICTURES = path.join(ROOT, 'docs', 'screenshots');
/** Committed: a selection of the door's states, shown by docs/console-and-door.md. */
export const DOOR_PICTURES = path.join(ROOT, 'docs', 'door-screen');
/** Every door state the tests reach, to look through after a run; not committed. */
export const RESULT_PICTURES = path.join(ROOT, 'test-results', 'door-screens');

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** One picture of the page (or of one element) as it is now, into `dir`. */
export async function picture(target: Page | Locator, dir: string, name: string): Promise<void> {
  if (!SCREENSHOTS_WANTED) return;
  fs.mkdirSync(dir, { recursive: true });
  await target.screenshot({ path: path.join(dir, `${name}.png`), animations: 'disabled' });
}

interface WideAndPhone {
  phone?: { width: number; height: number };
  /** Scrolled into view at both sizes: the panel the pictures are of. */
  show?: Locator;
  /** Brings what is worth showing into view once the page is phone-sized. */
  onPhone?: () => Promise<void>;
}

/**
 * The page at its size (1280x800 unless a test changed it) and on a phone (`name` and
 * `name-phone`), then back at its size.
 */
export async function wideAndPhone(page: Page, dir: string, name: string, options: WideAndPhone = {}): Promise<void> {
  if (!SCREENSHOTS_WANTED) return;
  const size = page.viewportSize() ?? LAPTOP;
  await options.show?.scrollIntoViewIfNeeded();
  await picture(page, dir, name);
  await page.setViewportSize(options.phone ?? PHONE);
  await options.show?.scrollIntoViewIfNeeded();
  await options.onPhone?.();
  await picture(page, dir, `${name}-phone`);
  await page.setViewportSize(size);
}

/** A picture drawn by the test itself (a badge PDF's pages), into `dir`. */
export function keepPicture(dir: string, name: string, png: Buffer): void {
  if (!SCREENSHOTS_WANTED) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.png`), png);
}
