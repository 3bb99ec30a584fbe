import { expect, test, type Page } from '@playwright/test';
import { expectedLines, shownLines } from './pages/fingerprint-lines';
import { DoorServer } from './door-server';
import { CONSOLE_PICTURES, wideAndPhone } from './screenshots';
import { openWithStorage } from './pages/browser-data';
import { seedEvent, type Seed } from './seed';

// Issue 37: a laptop follows another over the LAN's HTTPS by comparing fingerprints, and picks
// the event by name. The box office shares as its menu does; the side door's console follows it.

let boxOffice: DoorServer;
let sideDoor: DoorServer;
let seed: Seed;
let key: string;
let address: string;
let fingerprint: string;

/** The side door's console, signed in as its administrator, on Events (where following starts). */
async function openEvents(page: Page): Promise<void> {
  await openWithStorage(page, sideDoor.url, '/#/console/events', { 'doorlist.token': sideDoor.adminToken });
}

test.beforeAll(async () => {
  [boxOffice, sideDoor] = await Promise.all([DoorServer.start(), DoorServer.start()]);
  seed = await seedEvent(boxOffice, 'Harbour Lights');
  await boxOffice.must(201, 'POST', '/events', { name: 'Winter Market', starts: '2026-12-12T10:00', ends: '2026-12-12T18:00', timezone: 'Europe/Amsterdam', group_id: seed.groupId });
  key = (await boxOffice.must<{ key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'Side door laptop', role: 'door' })).key;
  const shared = await boxOffice.share();
  // What staff read off the box office's share panel; its certificate names loopback too.
  address = `https://127.0.0.1:${shared.httpsPort}`;
  fingerprint = shared.fingerprint!;
});

test.afterAll(async () => {
  await sideDoor?.dispose();
  await boxOffice?.dispose();
});

test('the follow panel: address and key, the fingerprint to compare, then the upstream events by name; the picked one is followed', async ({ page }) => {
  await openEvents(page);
  const panel = page.getByTestId('follow-panel');
  await expect(panel).toHaveAttribute('data-step', 'address');
  await expect(panel).not.toContainText(/event number/i);
  await panel.getByLabel(/^Address of the central Doorlist/).fill(address);
  await panel.getByLabel('API key of the central server').fill(key);
  await panel.getByRole('button', { name: 'Continue' }).click();

  await expect(panel).toHaveAttribute('data-step', 'compare');
  await expect(panel.getByTestId('offered-fingerprint')).toHaveText(fingerprint);
  // Groups of four pairs, two groups a line, at either width: the box office's share page shows the same lines.
  expect(await shownLines(panel.getByTestId('offered-fingerprint'))).toEqual(expectedLines(fingerprint));
  await page.setViewportSize({ width: 375, height: 667 });
  expect(await shownLines(panel.getByTestId('offered-fingerprint'))).toEqual(expectedLines(fingerprint));
  await wideAndPhone(page, CONSOLE_PICTURES, 'console-follow-compare', { show: panel });
  await panel.getByRole('button', { name: 'They are the same' }).click();

  await expect(panel).toHaveAttribute('data-step', 'pick');
  const events = panel.getByRole('group', { name: 'Event to follow' });
  await expect(events.getByRole('radio')).toHaveCount(2);
  await expect(events).toContainText('Harbour Lights');
  await expect(events).toContainText('Winter Market');
  await wideAndPhone(page, CONSOLE_PICTURES, 'console-follow-pick', { show: panel });
  await events.getByRole('radio', { name: /Harbour Lights/ }).check();
  await panel.getByRole('button', { name: 'Follow' }).click();

  // The followed event opens on its file page; the sync names the upstream and the pinned fingerprint.
  await expect(page).toHaveURL(/#\/console\/events\/\d+\/file$/);
  const followed = Number(/events\/(\d+)\/file/.exec(page.url())![1]);
  const status = await sideDoor.must<{ url: string; fingerprint: string; state: string }>(200, 'GET', `/events/${followed}/sync`);
  expect(status.url).toBe(`${address}/api/v1`);
  expect(status.fingerprint).toBe(fingerprint);
  // The sync's state says one thing a line, the pinned fingerprint in the same groups.
  const state = page.getByTestId('sync-link-state');
  await expect(state.getByTestId('pinned-fingerprint')).toHaveText(fingerprint);
  expect(await shownLines(state.getByTestId('pinned-fingerprint'))).toEqual(expectedLines(fingerprint));
  const tops = await state.locator(':scope > *').evaluateAll((parts) => parts.map((p) => p.getBoundingClientRect().top));
  expect(new Set(tops).size, 'each part of the sync state on a line of its own').toBe(tops.length);
  await wideAndPhone(page, CONSOLE_PICTURES, 'console-follow-result', { show: state });
  expect((await sideDoor.must<{ name: string }>(200, 'GET', `/events/${followed}`)).name).toBe('Harbour Lights');
  expect((await sideDoor.must<{ count: number }>(200, 'GET', `/events/${followed}/guests`)).count).toBe(Object.keys(seed.guests).length);
});

test('fingerprints that differ follow nothing and say why', async ({ page }) => {
  await openEvents(page);
  const panel = page.getByTestId('follow-panel');
  await panel.getByLabel(/^Address of the central Doorlist/).fill(address.replace('https://', ''));
  await panel.getByLabel('API key of the central server').fill(key);
  await panel.getByRole('button', { name: 'Continue' }).click();
  await expect(panel.getByTestId('offered-fingerprint')).toHaveText(fingerprint);
  await panel.getByRole('button', { name: 'They differ' }).click();
  await expect(panel).toHaveAttribute('data-step', 'address');
  await expect(panel.getByRole('alert')).toContainText('the fingerprints differ');
});
