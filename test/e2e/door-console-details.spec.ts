import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { openWithStorage } from './pages/browser-data';
import { picture, RESULT_PICTURES } from './screenshots';
import { checkinsOf, seedEvent, type Seed } from './seed';

/**
 * Issue 44, item 8, where door staff and organisers see it: the Console pill over nothing the
 * counters show, a guest already in shown as in (no Check in beside them), what a screen reader
 * hears, French elision, the console's skip link and its phone header.
 */
let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server, 'Harbour Lights');
});

test.afterAll(async () => {
  await server?.dispose();
});

async function openDoor(page: import('@playwright/test').Page): Promise<DoorPage> {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  return door;
}

async function undoOnServer(guestId: number): Promise<void> {
  for (const c of await checkinsOf(server, seed.eventId, guestId)) await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${c.id}`);
}

test('at 1280×800 the Console pill lies outside the counters, so the newest arrival bars show', async ({ page }) => {
  // Enough stations and sessions that the counters fill their column to its foot.
  for (const station of ['North gate', 'South gate', 'Cloakroom', 'VIP lounge', 'Terrace']) await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { guest_id: seed.guests.radia.id, station, direction: 'out' }).catch(() => undefined);
  await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { guest_id: seed.guests.radia.id, station: 'North gate' });
  const door = await openDoor(page);
  await door.scan(seed.guests.barbara.barcode);
  await door.expectResult('checked_in', 'Barbara Liskov');
  await expect(page.locator('figure.chart')).toBeVisible();
  const pill = (await page.locator('.console-pill a').boundingBox())!;
  const side = (await page.locator('.side').boundingBox())!;
  expect(pill.y, 'the pill starts below the counters').toBeGreaterThanOrEqual(side.y + side.height);
  await door.screenshot('84-console-pill-clear');
  await undoOnServer(seed.guests.barbara.id);
  await undoOnServer(seed.guests.radia.id);
});

test('search: a guest already in shows since when, with check-out, and no Check in', async ({ page }) => {
  // Scanned at a time of the test's choosing (18:05 UTC, shown on the event's Amsterdam clock as 7:05 PM), so the time shown is known whatever the clock says.
  await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { guest_id: seed.guests.grace.id, station: 'North gate', scanned_at: '2026-12-01T18:05:00' });
  const door = await openDoor(page);
  const dialog = await door.search('Hopper');
  const row = dialog.locator(`[data-guest-id="${seed.guests.grace.id}"]`);
  await expect(row).toContainText('In since 7:05 PM');
  await expect(row.getByRole('button', { name: 'Check out Grace Hopper' })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Check in Grace Hopper' })).toHaveCount(0);
  await door.screenshot('85-search-already-in');
  await row.getByRole('button', { name: 'Check out Grace Hopper' }).click();
  await door.expectResult('checked_out', 'Grace Hopper');
  // Out again, the guest is offered the check-in.
  const again = await door.search('Hopper');
  await expect(again.getByRole('button', { name: 'Check in Grace Hopper' })).toBeVisible();
});

test('what a screen reader hears: the attention guest as such, and the connection going offline', async ({ page }) => {
  const guest = await server.must<{ id: number }>(201, 'POST', `/events/${seed.eventId}/guests`, { registration_type: seed.types.general, first_name: 'Ida', last_name: 'Rhodes', email: 'ida.r@example.test', barcode: 'SR-IDA', attention: true, notes: 'VIP: escort to table 1' });
  const door = await openDoor(page);
  await door.scan('SR-IDA');
  await expect(door.announcer()).toHaveText('Needs attention. Checked in. Ida Rhodes, General. VIP: escort to table 1');
  await expect(page.getByRole('status').filter({ hasText: 'Online' })).toHaveAttribute('data-testid', 'connection');
  await page.route('**/api/v1/**', (route) => route.abort());
  await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toHaveAttribute('data-testid', 'connection', { timeout: 15_000 });
  await page.unroute('**/api/v1/**');
  await undoOnServer(guest.id);
});

test('in French the door elides: « Annuler l’entrée d’Ada Lovelace »', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('doorlist.language', 'fr'));
  const door = await openDoor(page);
  await door.scan(seed.guests.ada.barcode);
  await expect(door.result()).toHaveAttribute('data-outcome', 'checked_in');
  await door.undo();
  await expect(page.getByTestId('undo-question')).toContainText('Annuler l’entrée d’Ada Lovelace');
  await page.getByRole('button', { name: 'Annuler le scan' }).click();
  await expect(door.result()).toContainText('L’entrée d’Ada Lovelace a été annulée');
  await door.screenshot('86-french-elision');
});

test('the console: a skip link is the first Tab stop, and a phone shows the page high on its first screen', async ({ page }) => {
  await openWithStorage(page, server.url, `/#/console/events/${seed.eventId}/guests`, { 'doorlist.token': server.adminToken });
  await expect(page.getByRole('heading', { name: 'Harbour Lights' })).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('button', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('#console-main')).toBeFocused();
  await expect(page).toHaveURL(/#\/console\/events\/\d+\/guests$/);

  await page.setViewportSize({ width: 375, height: 667 });
  const section = page.locator('.console-section').first();
  await expect(section).toBeVisible();
  const top = (await section.boundingBox())!.y;
  expect(top, 'the menus and the event head before the page, in px').toBeLessThan(300);
  await picture(page, RESULT_PICTURES, '87-console-phone-header');
});
