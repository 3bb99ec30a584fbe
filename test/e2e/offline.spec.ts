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

test('decides from its copy while the server is down, and replays each admission exactly once when it is back', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await expect(door.connection()).toHaveText('Online');
  await door.copyHolds(12);

  await server.stop();
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Checked in', 'Ada Lovelace', 'Admitted offline');
  await expect(door.connection()).toHaveText('Offline');
  await expect(door.pending()).toHaveText('1 queued');
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper');
  // Refusals are the station's own answer and nothing for the server.
  await door.scan('NOBODY-404');
  await door.expectResult('not_found', 'NOBODY-404', 'decided offline');
  await door.waitPastRepeatGuard();
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('already_checked_in', 'Ada Lovelace', 'at Front door');
  await expect(door.pending()).toHaveText('2 queued');
  // Counted here at once, although the server cannot be asked.
  await expect(door.checkedIn()).toHaveText('2');
  await door.screenshot('30-offline-decided');

  // The open screen notices the server is back (it polls the stats) and replays on its own.
  await server.restart();

  await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  await expect(door.connection()).toHaveText('Online');
  await expect(door.checkedIn()).toHaveText('2');
  await expect(page.getByTestId('double-admissions')).toHaveCount(0);
  await door.screenshot('31-replayed');

  // Exactly once each, as the server counts them; the scan time is the offline one.
  expect(await checkinsOf(server, seed.eventId, seed.guests.ada.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId)).toHaveLength(2);

  // A second look later changes nothing: nothing is left to replay.
  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await door.afterPolls(2); // each poll flushes the queue first: two show nothing was left
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
