import { expect, test, type Locator } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, statsOf, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;
const sessions: Record<string, number> = {};

async function createSession(fields: Record<string, unknown>): Promise<number> {
  const answer = await server.request<{ id: number }>('POST', `/events/${seed.eventId}/sessions`, { starts: '2026-12-01T19:00', ends: '2026-12-01T20:00', ...fields });
  expect([200, 201]).toContain(answer.status);
  return answer.body.id;
}

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  sessions.keynote = await createSession({ name: 'Keynote', access_control: true, auto_registration: false, capacity: 100 });
  sessions.workshop = await createSession({ name: 'Workshop', access_control: true, auto_registration: true, capacity: 1, overbook_capacity: 0 });
  await server.must(200, 'PUT', `/events/${seed.eventId}/guests/${seed.guests.ada.id}/registration/session/${sessions.keynote}`, { attend: true });
});

test.afterAll(async () => {
  await server?.dispose();
});

test('session attendance honours access control and shows the count against capacity', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  // The sessions' times (kept in UTC) on the event's clock, its zone named once over the list.
  await page.keyboard.press('F7');
  await expect(page.getByTestId('session-zone')).toHaveText('Times in GMT+1');
  await expect(page.getByRole('dialog').getByRole('button', { name: /^Keynote/ })).toContainText(/8:00\sPM–9:00\sPM/);
  await door.screenshot('19-session-panel-zone');
  await page.keyboard.press('Escape');
  await door.pickSession('Keynote');
  await expect(page.getByRole('button', { name: 'Session: Keynote' })).toBeVisible();
  await expect(page.getByTestId('session-capacity')).toHaveText('100');
  await expect(page.getByTestId('session-checked-in')).toHaveText('0');

  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('not_registered', 'Not registered', 'Grace Hopper', 'Keynote');
  await door.screenshot('20-session-not-registered');

  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'In: Keynote', 'Ada Lovelace');
  await expect(page.getByTestId('session-checked-in')).toHaveText('1');
  await door.screenshot('21-session-checked-in');
  const keynote = await checkinsOf(server, seed.eventId, seed.guests.ada.id);
  expect(keynote.map((c) => c.session_id)).toEqual([sessions.keynote]);

  // The session survives a reload: the station keeps admitting to it.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Session: Keynote' })).toBeVisible();
});

test('auto-registration admits while there is room, then the session is full', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.pickSession('Workshop');
  await expect(page.getByTestId('session-capacity')).toHaveText('1');
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'In: Workshop', 'Grace Hopper');
  await expect(page.getByTestId('session-checked-in')).toHaveText('1');
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('session_full', 'Session full', 'Edsger Dijkstra', 'Workshop');
  await door.screenshot('22-session-full');

  // Back to the event door: scans carry no session again.
  await door.pickSession('The event');
  await expect(page.locator('.session-chip')).toHaveCount(0);
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Checked in', 'Edsger Dijkstra');
});

test('a session door without access control: the counter turns red at capacity, says so, and the door refuses past its seats', async ({ page }) => {
  const tasting = await createSession({ name: 'Tasting', access_control: false, auto_registration: false, capacity: 2, overbook_capacity: 1 });
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.pickSession('Tasting');
  const counter = page.getByTestId('session-counter');
  const colour = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).color);
  await expect(counter).toHaveAttribute('data-fill', 'open');
  const plain = await colour(counter.locator('.count'));

  await door.scan(seed.guests.katherine.barcode);
  await door.expectResult('checked_in', 'In: Tasting', 'Katherine Johnson');
  await expect(counter).toHaveAttribute('data-fill', 'open');
  await door.scan(seed.guests.margaret.barcode);
  await door.expectResult('checked_in', 'In: Tasting', 'Margaret Hamilton');
  // Two of two: at capacity, red, in words too; the one overbooking seat still lets a guest in.
  await expect(page.getByTestId('session-checked-in')).toHaveText('2');
  await expect(counter).toHaveAttribute('data-fill', 'atCapacity');
  await expect(page.getByTestId('session-fill')).toHaveText('At capacity: overbooking only');
  await expect.poll(() => colour(counter.locator('.count'))).toBe('rgb(248, 113, 113)');
  expect(plain).not.toBe('rgb(248, 113, 113)');
  await door.scan(seed.guests.tim.barcode);
  await door.expectResult('checked_in', 'In: Tasting', 'Tim Berners-Lee');
  await expect(counter).toHaveAttribute('data-fill', 'full');
  await expect(page.getByTestId('session-fill')).toHaveText('Full: the door refuses new guests');
  await door.scan(seed.guests.barbara.barcode);
  await door.expectResult('session_full', 'Session full', 'Barbara Liskov', 'Tasting');
  await expect(page.getByTestId('session-checked-in')).toHaveText('3');
  // The other sessions' rows turn red at capacity too: Workshop holds its one seat.
  await expect(page.getByTestId('sessions-counts').locator('li', { hasText: 'Workshop' })).toHaveAttribute('data-fill', 'full');
  await expect(page.getByTestId('sessions-counts').locator('li', { hasText: 'Keynote' })).toHaveAttribute('data-fill', 'open');
  await door.screenshotForDocs('57-session-full-counter');
  await page.setViewportSize({ width: 375, height: 667 });
  await counter.scrollIntoViewIfNeeded();
  await expect(counter).toBeInViewport();
  await door.screenshotForDocs('57-session-full-counter-phone');
  const stats = await statsOf(server, seed.eventId);
  expect(stats.sessions.find((s) => s.id === tasting)?.checked_in).toBe(3);
});
