import { expect, test, type Page } from '@playwright/test';
import { EVENT_POINTER, STATION_SETTINGS } from '../../renderer/src/device-data';
import { ADMIN, DoorServer } from './door-server';
import { browserData, foundIn, recordCount, type BrowserData } from './pages/browser-data';
import { DoorPage } from './pages/door-page';
import { EventPickerPage } from './pages/event-picker-page';
import { SignInPage } from './pages/sign-in-page';
import { checkinsOf, seedEvent, type Seed } from './seed';

// Issue 42 item 7 and issue 44 item 6: what the door leaves in the browser when it signs out,
// meets a 401 or changes event, and the counters after a reload while the server is down.

const QUEUE = 'doorlist/queued_scans';

let server: DoorServer;
let seed: Seed;
let other: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  other = await seedEvent(server, 'After Party');
});

test.afterAll(async () => {
  await server?.dispose();
});

test.afterEach(async () => {
  // A test that failed with its server stopped leaves it running for the next one.
  if (!server.isRunning) await server.restart();
});

/** Every guest's e-mail, last name, company and barcode: none may stay in the browser. */
const guestNeedles = () => Object.values(seed.guests).flatMap((g) => [g.email, g.last_name, g.company ?? '', g.barcode]).filter(Boolean);

/** Waits until the event's last known counters are kept (the stats poll has answered). */
async function countsKept(page: Page, eventId: number, checkedIn: number): Promise<void> {
  await page.waitForFunction(([id, n]) => JSON.parse(localStorage.getItem(`doorlist.counts.${id}`) ?? 'null')?.stats?.checked_in === n, [eventId, checkedIn] as const);
}

/** What is left once the wipe after a sign-out or a 401 has run (it runs once the sign-in screen is up). */
async function dataAfterWipe(page: Page, kept: string[]): Promise<BrowserData> {
  let data = await browserData(page);
  await expect.poll(async () => ((data = await browserData(page)), recordCount(data, kept)), { timeout: 10_000 }).toBe(0);
  return data;
}

function expectOnlySettings(data: BrowserData, extra: string[] = []): void {
  for (const key of Object.keys(data.local)) expect([...STATION_SETTINGS, ...extra], `localStorage ${key}`).toContain(key);
  expect(data.session).toEqual({});
  expect(data.cachedOutsideShell).toEqual([]);
}

/** The server out of reach for this page (a venue network gone), until `reachable`. */
async function unreachable(page: Page): Promise<void> {
  await page.route('**/api/v1/**', (route) => route.abort('internetdisconnected'));
}

async function reachable(page: Page): Promise<void> {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
}

async function signOutFromTopBar(page: Page): Promise<void> {
  await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
}

test('signing out leaves no guest in IndexedDB, localStorage or sessionStorage: only the station\'s own settings', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12);
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  await countsKept(page, seed.eventId, 1);
  // The copy, the log and the counters are there to be wiped.
  const before = await browserData(page);
  expect(before.stores['doorlist/guests']).toHaveLength(12);
  expect(foundIn(before, guestNeedles())).toEqual(guestNeedles());
  expect(Object.keys(before.local)).toContain(`doorlist.log.${seed.eventId}`);

  await signOutFromTopBar(page);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  const after = await dataAfterWipe(page, []);
  expect(Object.keys(after.stores)).toContain('doorlist/guests');
  expectOnlySettings(after);
  expect(after.local['doorlist.station']).toBe('Front door');
  expect(foundIn(after, guestNeedles())).toEqual([]);

  // A reload finds nothing either, and does not sign back in.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect(recordCount(await browserData(page))).toBe(0);
});

test.describe('without the app shell', () => {
  // page.route and the service worker do not mix (Playwright): these tests need no app shell.
  test.use({ serviceWorkers: 'block' });

test('signing out with scans the server has not had: kept while the user stays, handed over once it answers, discarded only when the user says so', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12);

  await unreachable(page);
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper', 'Admitted offline');
  await expect(door.pending()).toHaveText('1 queued');
  await signOutFromTopBar(page);
  const dialog = page.getByRole('dialog', { name: 'Sign out' });
  await expect(dialog.getByTestId('sign-out-unsent')).toHaveText('1 scan has not reached the server. Sign out anyway and discard it?');
  await expect(dialog.getByRole('button', { name: 'Stay signed in' })).toBeFocused();
  await door.screenshotForDocs('90-sign-out-unsent');
  await dialog.getByRole('button', { name: 'Stay signed in' }).click();
  await expect(dialog).toBeHidden();
  await expect(door.pending()).toHaveText('1 queued');
  expect((await browserData(page)).stores['doorlist/guests']).toHaveLength(12);

  // Back online, signing out hands the scan over first, then signs out on its own.
  await reachable(page);
  await signOutFromTopBar(page);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible({ timeout: 15_000 });
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
  expectOnlySettings(await dataAfterWipe(page, []));

  // Signed in again, offline once more: this time the user discards the scan.
  await new SignInPage(page).signIn(ADMIN.username, ADMIN.password);
  await new EventPickerPage(page).pick(seed.eventName);
  await door.copyHolds(12);
  await unreachable(page);
  await door.scan(seed.guests.margaret.barcode);
  await door.expectResult('checked_in', 'Margaret Hamilton', 'Admitted offline');
  await signOutFromTopBar(page);
  await dialog.getByRole('button', { name: 'Discard it and sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  const after = await dataAfterWipe(page, []);
  expectOnlySettings(after);
  expect(after.stores[QUEUE]).toEqual([]);
  await expect(page.getByTestId('unsent-scans')).toHaveCount(0);
});

test('a revoked key\'s 401 wipes the copy at once and keeps only the scan the server never had, for whoever signs in next', async ({ page }) => {
  const made = await server.must<{ id: number; key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'Borrowed phone', role: 'door' });
  const door = new DoorPage(page);
  await door.open(server.url, made.key, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12);
  // The phone loses the network, admits a guest from its copy, and the organiser revokes its key.
  await unreachable(page);
  await door.scan(seed.guests.katherine.barcode);
  await door.expectResult('checked_in', 'Katherine Johnson', 'Admitted offline');
  await expect(door.pending()).toHaveText('1 queued');
  await server.must(204, 'DELETE', `/groups/${seed.groupId}/api_keys/${made.id}`);
  await reachable(page);

  // The next poll hands the queue over, meets the 401 and the station is signed out.
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('unsent-scans')).toContainText('1 scan made on this device has not reached the server. Sign in again to hand it over.');
  await door.screenshotForDocs('92-sign-in-unsent');
  const after = await dataAfterWipe(page, [QUEUE]);
  expectOnlySettings(after, [EVENT_POINTER]);
  const queued = after.stores[QUEUE] as { code: string; eventId: number }[];
  expect(queued.map((q) => [q.code, q.eventId])).toEqual([[seed.guests.katherine.barcode, seed.eventId]]);
  // Outside the one waiting scan's own barcode, nothing of any guest.
  expect(foundIn({ ...after, stores: {} }, guestNeedles())).toEqual([]);
  expect(foundIn(after, guestNeedles())).toEqual([seed.guests.katherine.barcode]);
  expect(await checkinsOf(server, seed.eventId, seed.guests.katherine.id)).toHaveLength(0);

  // Whoever signs in next is back on the event, and the scan is handed over once.
  await new SignInPage(page).signIn(ADMIN.username, ADMIN.password);
  await expect(door.scanField()).toBeFocused();
  await expect.poll(() => checkinsOf(server, seed.eventId, seed.guests.katherine.id).then((c) => c.length), { timeout: 10_000 }).toBe(1);
  await expect(door.pending()).toBeHidden();
});

});

test('changing event wipes the old event\'s copy, log and counters', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12);
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Edsger Dijkstra');
  await countsKept(page, seed.eventId, await door.count('checked-in'));

  await page.getByRole('banner').getByRole('button', { name: 'Events' }).click();
  await new EventPickerPage(page).pick(other.eventName);
  await expect(page.getByRole('heading', { name: other.eventName })).toBeVisible();
  await door.copyHolds(12);
  const data = await browserData(page);
  const events = (data.stores['doorlist/guests'] as { eventId: number }[]).map((g) => g.eventId);
  expect(new Set(events)).toEqual(new Set([other.eventId]));
  expect((data.stores['doorlist/meta'] as { key: string }[]).map((m) => m.key)).toEqual([`guests:${other.eventId}`]);
  expect(Object.keys(data.local).filter((key) => key.endsWith(`.${seed.eventId}`))).toEqual([]);
});

test('reloaded while the server is down, the door shows its last known counts plus its own queued admissions, marked as such', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: other.eventId, name: other.eventName });
  await door.copyHolds(12);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await door.scan(other.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  const known = await door.count('checked-in');
  await countsKept(page, other.eventId, known);
  await expect(page.getByTestId('approx')).toHaveCount(0);

  await server.stop();
  await door.scan(other.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper', 'Admitted offline');
  await door.scan(other.guests.katherine.barcode);
  await door.expectResult('checked_in', 'Katherine Johnson', 'Admitted offline');
  await expect(door.pending()).toHaveText('2 queued');

  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await expect(door.connection()).toHaveText('Offline');
  await expect(door.checkedIn()).toHaveText(String(known + 2));
  await expect(door.total()).toHaveText('11');
  await expect(page.getByTestId('approx')).toBeVisible();
  await expect(page.getByTestId('counts-as-of')).toHaveText(/^last known \d{1,2}:\d\d .+ · \+ 2 queued$/);
  await expect(page.getByTestId('mini-count')).toHaveText(`≈ ${known + 2} / 11 in`);
  await expect(page.getByTestId('type-' + other.types.vip)).toContainText(/^VIP/);
  await door.screenshotForDocs('91-offline-reload-counts');
  await page.setViewportSize({ width: 375, height: 667 });
  await expect(page.getByTestId('mini-count')).toHaveText(`≈ ${known + 2} / 11 in`);
  await door.screenshotForDocs('91-offline-reload-counts-phone');
  await page.getByTestId('event-counter').scrollIntoViewIfNeeded();
  await door.screenshotForDocs('91-offline-reload-counts-phone-counter');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The server back: the queue goes, and the figures are live and unmarked again.
  await server.restart();
  await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  await expect(page.getByTestId('approx')).toHaveCount(0);
  await expect(page.getByTestId('counts-as-of')).toHaveCount(0);
  await expect(door.checkedIn()).toHaveText(String(known + 2));
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true, serviceWorkers: 'block' });

  test('the sign-out warning from the station\'s settings fits the screen', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await door.copyHolds(12);
    await unreachable(page);
    await door.scan(seed.guests.donald.barcode);
    await door.expectResult('checked_in', 'Donald Knuth', 'Admitted offline');
    await door.scan(seed.guests.john.barcode);
    await door.expectResult('checked_in', 'John McCarthy', 'Admitted offline');
    await page.getByTestId('station').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out' });
    await expect(dialog.getByTestId('sign-out-unsent')).toHaveText('2 scans have not reached the server. Sign out anyway and discard them?');
    await expect(dialog.getByRole('button', { name: 'Discard 2 scans and sign out' })).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await door.screenshotForDocs('90-sign-out-unsent-phone');
    await dialog.getByRole('button', { name: 'Stay signed in' }).click();
    await reachable(page);
    await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  });
});

