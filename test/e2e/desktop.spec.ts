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

test('the menu shows the LAN addresses, their QR codes and the certificate fingerprint', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const fingerprint = 'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89';
  const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  await page.evaluate(
    ([fp, img]) =>
      (window as any).__menu('share-info', {
        sharing: true,
        httpUrls: ['http://192.168.1.20:8787'],
        httpsUrls: ['https://192.168.1.20:8788'],
        fingerprint: fp,
        httpsQr: img,
        httpQr: img,
      }),
    [fingerprint, pixel],
  );
  const dialog = page.getByRole('dialog', { name: 'Sharing on the LAN' });
  await expect(dialog).toContainText('https://192.168.1.20:8788');
  await expect(dialog).toContainText('http://192.168.1.20:8787');
  await expect(dialog).toContainText(fingerprint);
  await expect(dialog.getByRole('img', { name: 'QR code for https://192.168.1.20:8788' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(door.scanField()).toBeFocused();
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
  await page.goto(server.url);
  await page.evaluate(
    ([token, event]) => {
      localStorage.setItem('doorlist.token', token as string);
      localStorage.setItem('doorlist.event', JSON.stringify(event));
    },
    [server.adminToken, { id: seed.eventId, name: seed.eventName }] as const,
  );
  await page.reload();
  await expect(page.getByRole('button', { name: 'door-laptop-1' })).toBeVisible();
  await new DoorPage(page).scan(seed.guests.grace.barcode);
  await expect(page.locator('.result')).toHaveAttribute('data-outcome', 'checked_in');
  const checkins = await server.must<{ results: any[] }>(200, 'GET', `/events/${seed.eventId}/checkins?guest_id=${seed.guests.grace.id}`);
  expect(checkins.results[0].station).toBe('door-laptop-1');
});
