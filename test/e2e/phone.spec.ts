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
  await door.scanField().fill(seed.guests.katherine.barcode);
  await page.getByRole('button', { name: 'Enter', exact: true }).tap();
  await door.expectResult('checked_in', 'Katherine Johnson', 'VIP', 'NASA');
  const box = await door.result().boundingBox();
  expect(box!.height).toBeGreaterThan(400);
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
