import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

// Electron cannot run here; the preload's named functions are stood in for, so the part of
// the desktop app that lives in the door screen is still driven in Chromium.
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    const calls: unknown[] = [];
    let listener: ((action: string, payload?: unknown) => void) | undefined;
    Object.assign(window, {
      __desktopCalls: calls,
      __menu: (action: string, payload?: unknown) => listener?.(action, payload),
      doorlistDesktop: {
        isDesktop: true,
        hostname: async () => 'door-laptop-1',
        exportEvent: async (request: unknown) => {
          calls.push(['exportEvent', request]);
          return { saved: true, path: '/home/door/Launch-Night.doorlist', bytes: 4096 };
        },
        importEvent: async (request: unknown) => {
          calls.push(['importEvent', request]);
          return { imported: false };
        },
        onMenu: (callback: (action: string, payload?: unknown) => void) => {
          listener = callback;
          return () => {
            listener = undefined;
          };
        },
      },
    });
  });
});

test('the menu shows the share panel: the HTTPS address, the QR codes and the authority fingerprint', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const shared = await server.share();
  try {
    await page.evaluate(() => (window as any).__menu('share-info'));
    const dialog = page.getByRole('dialog', { name: 'Share on the LAN' });
    await expect(dialog).toContainText(shared.httpsUrls[0]);
    await expect(dialog.getByTestId('share-fingerprint')).toHaveText(shared.fingerprint!);
    await expect(dialog.getByRole('img', { name: `QR code for ${shared.httpsUrls[0]}` })).toBeVisible();
    await expect(dialog.getByRole('img', { name: `QR code for ${shared.authorityUrls[0]}` })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(door.scanField()).toBeFocused();
  } finally {
    await server.stopSharing();
  }
});

test('Export in the menu saves through the desktop dialog with the event and token', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await page.evaluate(() => (window as any).__menu('export-event'));
  const dialog = page.getByRole('dialog', { name: `Export “${seed.eventName}”` });
  await dialog.getByRole('button', { name: 'Export event file' }).click();
  await expect(dialog).toContainText('Saved /home/door/Launch-Night.doorlist');
  const calls = await page.evaluate(() => (window as any).__desktopCalls);
  expect(calls).toEqual([['exportEvent', { eventId: seed.eventId, eventName: seed.eventName, token: server.adminToken }]]);
});

test('a new station is named after the laptop', async ({ page }) => {
  await new DoorPage(page).open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName }, { station: null });
  await expect(page.getByRole('button', { name: 'door-laptop-1' })).toBeVisible();
  await new DoorPage(page).scan(seed.guests.grace.barcode);
  await expect(page.locator('.result')).toHaveAttribute('data-outcome', 'checked_in');
  const checkins = await server.must<{ results: any[] }>(200, 'GET', `/events/${seed.eventId}/checkins?guest_id=${seed.guests.grace.id}`);
  expect(checkins.results[0].station).toBe('door-laptop-1');
});
