import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

test('queues scans while the server is down and replays each exactly once when it is back', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await expect(door.connection()).toHaveText('Online');

  await server.stop();
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('queued', 'Queued', seed.guests.ada.barcode);
  await expect(door.connection()).toHaveText('Offline');
  await expect(door.pending()).toHaveText('1 queued');
  await door.scan(seed.guests.grace.barcode);
  await door.scan('NOBODY-404');
  // The same guest twice while offline: two scans, the second one answered "already in".
  await door.scan(seed.guests.ada.barcode);
  await expect(door.pending()).toHaveText('4 queued');
  await door.screenshot('30-offline-queued');

  // The open screen notices the server is back (it polls the stats) and replays on its own.
  await server.restart();

  await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  await expect(door.connection()).toHaveText('Online');
  const replayed = page.getByRole('region', { name: 'Sent from the offline queue' }).locator('li');
  await expect(replayed).toHaveCount(4);
  await expect(replayed.filter({ hasText: 'Ada Lovelace' })).toHaveCount(2);
  await expect(replayed.filter({ hasText: 'checked in' }).filter({ hasNotText: 'already' })).toHaveCount(2);
  await expect(replayed.filter({ hasText: 'already checked in' })).toHaveCount(1);
  await expect(replayed.filter({ hasText: 'not found' })).toHaveCount(1);
  await expect(door.checkedIn()).toHaveText('2');
  await door.screenshot('31-replayed');

  // Exactly once each, as the server counts them; the scan time is the offline one.
  expect(await checkinsOf(server, seed.eventId, seed.guests.ada.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId)).toHaveLength(2);

  // A second look later changes nothing: nothing is left to replay.
  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await page.waitForTimeout(5000);
  expect(await checkinsOf(server, seed.eventId)).toHaveLength(2);
});

test('a scan replayed with its uid is answered with its first answer (server side)', async () => {
  const uid = 'e2e-replay-uid-1';
  const body = { barcode: seed.guests.tim.barcode, uid, station: 'Phone 2', scanned_at: '2026-12-01T18:30:00' };
  const first = await server.request('POST', `/events/${seed.eventId}/checkins`, body);
  const again = await server.request('POST', `/events/${seed.eventId}/checkins`, body);
  expect(first.status).toBe(201);
  expect(again).toEqual(first);
  expect(await checkinsOf(server, seed.eventId, seed.guests.tim.id)).toHaveLength(1);
});
