import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

// A list of several pages: the station asks for the next page while it reads one, and its
// copy then holds every guest, so a guest from the last page is decided offline.
const EXTRA_GUESTS = 2_500;

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  const rows = ['first_name,last_name,email,barcode,registration_type'];
  for (let i = 1; i <= EXTRA_GUESTS; i++) rows.push(`Fan${i},Number${i},fan${i}@example.com,FAN-${i},General`);
  const res = await fetch(`${server.url}/api/v1/events/${seed.eventId}/guests.csv`, {
    method: 'POST',
    headers: { authorization: `Token ${server.adminToken}`, 'content-type': 'text/csv' },
    body: rows.join('\n'),
  });
  expect(res.status, await res.clone().text()).toBe(201);
});

test.afterAll(async () => {
  await server?.dispose();
});

test('loads a guest list of three pages with two asked for at once, and decides a guest of the last page offline', async ({ page }) => {
  let inFlight = 0;
  let mostInFlight = 0;
  const asked: string[] = [];
  const isGuestPage = (url: string) => /\/events\/\d+\/guests\?page=/.test(url);
  page.on('request', (request) => {
    if (!isGuestPage(request.url())) return;
    asked.push(new URL(request.url()).searchParams.get('page') ?? '');
    mostInFlight = Math.max(mostInFlight, ++inFlight);
  });
  const done = (request: { url(): string }) => {
    if (isGuestPage(request.url())) inFlight--;
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);

  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyHolds(12 + EXTRA_GUESTS);
  expect(asked.slice(0, 3)).toEqual(['1', '2', '3']);
  expect(mostInFlight).toBe(2);

  await server.stop();
  await door.scan(`FAN-${EXTRA_GUESTS}`);
  await door.expectResult('checked_in', `Fan${EXTRA_GUESTS} Number${EXTRA_GUESTS}`, 'Admitted offline');
});
