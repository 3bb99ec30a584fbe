import { expect, test } from '@playwright/test';
import config from './playwright.config';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent } from './seed';
import { ServeProcess } from './serve-process';

// The door screen as an offline app (issue 37): where the browser allows a service worker
// (loopback here), a reload with the server hung comes back from the app shell.

// A name for loopback that is not "localhost": over plain HTTP no secure context, so no app shell.
const PLAIN_HOST = 'doorlist-plain.lan';
const base = config.use!.launchOptions!;
test.use({ launchOptions: { ...base, args: [...(base.args ?? []), `--host-resolver-rules=MAP ${PLAIN_HOST} 127.0.0.1`] } });

let server: ServeProcess;

test.beforeEach(async () => {
  server = await ServeProcess.start();
});

test.afterEach(async () => {
  await server?.dispose();
});

test('reloaded with its server stopped (SIGSTOP), the door comes back signed in on its event, answers a known guest by name from its copy, and hands the scan over once after SIGCONT', async ({ page }) => {
  const seed = await seedEvent(server, 'Power Cut Gala');
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12);
  // The app shell is kept once the service worker controls the page.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

  server.freeze();
  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await expect(page.getByText(seed.eventName).first()).toBeVisible();
  // The first probe times out (a second); until then the station would wait on the server.
  await expect(door.connection()).toHaveText('Offline');

  // Time from the reader's Enter to the guest's name on screen, measured in the page.
  await page.evaluate(() => {
    const w = window as any;
    window.addEventListener('keydown', (e) => e.key === 'Enter' && w.__enterAt === undefined && (w.__enterAt = performance.now()), { capture: true });
    new MutationObserver((_, observer) => {
      if (document.querySelector('.result')?.textContent?.includes('Ada Lovelace')) {
        w.__answeredIn = performance.now() - w.__enterAt;
        observer.disconnect();
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await door.scanFast(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace', 'Admitted offline');
  // Reported, not asserted: the answer is the station's own (offline, no request).
  test.info().annotations.push({ type: 'timing', description: `offline answer on screen ${Math.round(await page.evaluate(() => (window as any).__answeredIn as number))} ms after Enter` });
  await expect(door.pending()).toHaveText('1 queued');
  await door.screenshot('80-app-shell-offline-reload');

  server.thaw();
  await expect(door.pending()).toBeHidden({ timeout: 20_000 });
  await expect(door.connection()).toHaveText('Online');
  expect(await checkinsOf(server, seed.eventId, seed.guests.ada.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId)).toHaveLength(1);
});

test('without an app shell (plain HTTP, no secure context), leaving the page while offline asks first', async ({ page }) => {
  const seed = await seedEvent(server, 'Old Tablet Night');
  const door = new DoorPage(page);
  await door.open(`http://${PLAIN_HOST}:${new URL(server.url).port}`, server.adminToken, { id: seed.eventId, name: seed.eventName });
  expect(await page.evaluate(() => window.isSecureContext || 'serviceWorker' in navigator)).toBe(false);
  expect(await page.evaluate(() => getComputedStyle(document.body).overscrollBehaviorY)).toBe('none');
  await door.copyHolds(12);

  server.freeze();
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper', 'Admitted offline');
  await expect(door.pending()).toHaveText('1 queued');

  const asked = page.waitForEvent('dialog');
  // Only a page the user has touched may ask (Chromium): the scan above was typed into it.
  void page.reload().catch(() => undefined);
  const dialog = await asked;
  expect(dialog.type()).toBe('beforeunload');
  await dialog.dismiss();
  await expect(door.pending()).toHaveText('1 queued');
  server.thaw();
  await expect(door.pending()).toBeHidden({ timeout: 20_000 });
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
});
