import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { CONSOLE_PICTURES, picture } from './screenshots';
import { seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  // The cloakroom scanned half an hour ago and never said it was open here: it has left.
  const scanned_at = new Date(Date.now() - 30 * 60_000).toISOString().slice(0, 19);
  await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { barcode: seed.guests.radia.barcode, station: 'Cloakroom', scanned_at });
});

test.afterAll(async () => {
  await server?.dispose();
});

async function openSupervisor(page: Page) {
  await page.addInitScript((token) => localStorage.setItem('doorlist.token', token), server.adminToken);
  await page.goto(`${server.url}/#/console/events/${seed.eventId}/supervisor`);
  await expect(page.getByRole('heading', { name: 'Supervisor' })).toBeVisible();
}

test("a renamed door keeps its history under its new name through a server restart and both reloads: no ghost row, left stations apart", async ({ page, browser }) => {
  test.setTimeout(90_000);
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper');

  // The supervisor on another laptop (a browser of its own).
  const supervisorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const view = await supervisorContext.newPage();
  await openSupervisor(view);
  const open = view.getByRole('region', { name: 'Stations', exact: true });
  const left = view.getByTestId('sv-left');
  await expect(open.locator('tr[data-station="Front door"]')).toContainText('Online');
  await expect(view.getByTestId('sv-online')).toContainText('1 / 1');
  await expect(left).toContainText('Stations that left (1)');

  // Door staff rename the station in its settings.
  await page.getByTestId('station').click();
  const settings = page.getByRole('dialog', { name: 'This station' });
  await settings.getByLabel('Station name (sent with every scan)').fill('Main entrance');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('station')).toHaveText('Main entrance');
  await expect(open.locator('tr[data-station="Main entrance"]')).toContainText('Online');
  await expect(open.locator('tbody tr')).toHaveCount(1);

  // The server restarts (the laptop rebooted); then the supervisor and the door reload.
  await server.stop();
  await server.restart();
  await view.reload();
  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await expect(page.getByTestId('station')).toHaveText('Main entrance');

  // One open station, the renamed one, online with both of its scans; no "Front door" and no
  // unnamed "Door" anywhere; the cloakroom apart, never counted as a door offline.
  const latest = view.getByRole('list', { name: 'Latest scans, all stations' });
  await expect(latest.locator('li', { hasText: 'Ada Lovelace' })).toContainText('Main entrance');
  await expect(latest.locator('li', { hasText: 'Grace Hopper' })).toContainText('Main entrance');
  const renamed = open.locator('tr[data-station="Main entrance"]');
  await expect(renamed).toContainText('Online');
  await expect(renamed.locator('td').nth(3)).toHaveText('0.4');
  await expect(open.locator('tbody tr')).toHaveCount(1);
  await expect(view.getByTestId('sv-online')).toContainText('1 / 1');
  await expect(view.locator('tr[data-station="Front door"]')).toHaveCount(0);
  await expect(view.locator('tr[data-station="Door"]')).toHaveCount(0);
  await expect(left).toContainText('Stations that left (1)');
  await left.locator('summary').click();
  await expect(left.locator('tbody tr')).toHaveCount(1);
  await expect(left.locator('tr[data-station="Cloakroom"]')).toContainText('Left');

  // The renamed door scans on: its new scans join the same row.
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Edsger Dijkstra');
  await expect(renamed.locator('td').nth(3)).toHaveText('0.6');
  await expect(open.locator('tbody tr')).toHaveCount(1);
  // Nothing cut at 1280 px: the station's name in the latest scans, the side column's tables.
  expect(await latest.locator('.sv-station').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).length)).toBe(0);
  expect(await view.locator('.sv-side').evaluate((side) => side.scrollWidth - side.clientWidth)).toBeLessThanOrEqual(0);
  await picture(view, CONSOLE_PICTURES, 'console-supervisor-renamed');
  // On a phone: the stations, open and apart, as a supervisor walking the venue scrolls to them.
  await view.setViewportSize({ width: 375, height: 667 });
  await view.getByRole('heading', { name: /^Stations/ }).first().evaluate((el) => el.scrollIntoView());
  await expect(left.locator('tr[data-station="Cloakroom"]')).toBeVisible();
  const overflows = () => view.locator('.sv-side table, .sv-latest').evaluateAll((boxes) => boxes.filter((b) => b.getBoundingClientRect().right > document.documentElement.clientWidth).length);
  expect(await overflows()).toBe(0);
  await picture(view, CONSOLE_PICTURES, 'console-supervisor-renamed-phone');
  await supervisorContext.close();
});

test('a desktop door whose hostname answers late beats only once named: no "Door" row ever', async ({ page }) => {
  // The desktop app names a new station after the computer; here that answer waits for the test.
  await page.addInitScript(() => {
    let release: (name: string) => void = () => undefined;
    const hostname = new Promise<string>((resolve) => (release = resolve));
    Object.assign(window, {
      __nameStation: (name: string) => release(name),
      doorlistDesktop: { isDesktop: true, hostname: () => hostname, exportEvent: async () => ({ saved: false }), importEvent: async () => ({ imported: false }), onMenu: () => () => undefined },
    });
  });
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName }, { station: null });
  const stations = async () => (await server.must<{ supervisor: { stations: { station: string; health: string }[] } }>(200, 'GET', `/events/${seed.eventId}/stats?supervisor=true`)).supervisor.stations;
  // Polls go on (counters, the probe) while the name is unknown; none of them is a heartbeat.
  await door.afterPolls(2);
  expect((await stations()).map((s) => s.station)).not.toContain('Door');
  await page.evaluate(() => (window as unknown as { __nameStation: (name: string) => void }).__nameStation('kiosk-3'));
  await expect(page.getByTestId('station')).toHaveText('kiosk-3');
  await expect.poll(async () => (await stations()).find((s) => s.station === 'kiosk-3')?.health, { timeout: 10_000 }).toBe('online');
  // The server remembers every name it heard: a beat before the name was known would show here.
  expect((await stations()).map((s) => s.station)).not.toContain('Door');
});
