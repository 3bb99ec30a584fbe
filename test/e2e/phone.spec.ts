import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

async function noSideways(page: import('@playwright/test').Page): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
}

test('works on a phone: the answer fills the screen, nothing scrolls sideways', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.screenshot('40-phone-ready');
  await noSideways(page);
  // Focused without the on-screen keyboard covering the answer, until the field is tapped.
  await expect(door.scanField()).toHaveAttribute('inputmode', 'none');
  await door.scanField().tap();
  await expect(door.scanField()).toHaveAttribute('inputmode', 'text');
  await door.scanField().fill(seed.guests.katherine.barcode);
  await page.getByRole('button', { name: 'Enter', exact: true }).tap();
  await door.expectResult('checked_in', 'Katherine Johnson', 'VIP', 'NASA');
  await expect(door.scanField()).toHaveAttribute('inputmode', 'none');
  const box = await door.result().boundingBox();
  expect(box!.height).toBeGreaterThan(280);
  // The ✓ stays (colour-blind staff read the icon), the event's name is whole, and the
  // counters are on the first screen.
  await expect(door.result().locator('.result-icon')).toBeVisible();
  await expect(door.result().locator('.result-icon')).toHaveText('✓');
  const title = page.getByRole('heading', { name: seed.eventName });
  expect(await title.evaluate((h) => h.scrollWidth <= h.clientWidth && h.scrollHeight <= h.clientHeight + 1)).toBe(true);
  await expect(page.getByTestId('mini-count')).toHaveText('1 / 11 in');
  expect((await door.checkedIn().boundingBox())!.y).toBeLessThan(844);
  await door.screenshot('41-phone-checked-in');
  await noSideways(page);

  await door.scan('NOPE-1');
  await door.expectResult('not_found', 'Not found');
  await door.screenshot('42-phone-not-found');

  await page.getByRole('button', { name: 'Search' }).tap();
  await page.getByLabel('Name, e-mail, company or code').fill('hopper');
  await expect(page.locator('.guest-row')).toHaveCount(1);
  await door.screenshot('43-phone-search');
  await noSideways(page);
  await page.getByRole('button', { name: 'Check in Grace Hopper' }).tap();
  await door.expectResult('checked_in', 'Grace Hopper');
});

test('signs in on a phone', async ({ page }) => {
  await page.goto(server.url);
  await new DoorPage(page).screenshot('44-phone-sign-in');
  await noSideways(page);
});

test('reads an NFC tag with Web NFC where the browser has it', async ({ page }) => {
  // Chromium on a desktop has no NDEFReader; this one behaves like Chrome on Android's.
  await page.addInitScript(() => {
    class FakeNdefReader extends EventTarget {
      onreading: ((event: { serialNumber: string }) => void) | null = null;
      async scan() {
        (window as any).__nfcReader = this;
      }
    }
    (window as any).NDEFReader = FakeNdefReader;
  });
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await page.getByRole('button', { name: 'NFC off' }).tap();
  await expect(page.getByRole('button', { name: 'NFC on' })).toBeVisible();
  await page.evaluate((tag) => (window as any).__nfcReader.onreading({ serialNumber: tag }), seed.guests.ada.nfc_tag);
  await door.expectResult('checked_in', 'Ada Lovelace', 'VIP');
  const checkins = await server.must<{ results: any[] }>(200, 'GET', `/events/${seed.eventId}/checkins?guest_id=${seed.guests.ada.id}`);
  expect(checkins.results).toHaveLength(1);
});
