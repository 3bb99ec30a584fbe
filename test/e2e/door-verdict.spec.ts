import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, statsOf, type Seed } from './seed';

/**
 * Issue 38 at the door: answers of questions shown at the door on green, amber and attention,
 * online and from the station's offline guest list;
 * a scan's verdict in front of an open dialog with nothing left in a PIN field; counters that
 * meet the server after an undo.
 */
let server: DoorServer;
let seed: Seed;
let meal: { id: number; choices: { id: number; answer: string }[] };

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  const base = `/events/${seed.eventId}`;
  meal = await server.must(201, 'POST', `${base}/custom_questions`, { question: 'Meal', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Vegetarian' }], show_at_door: true });
  const size = await server.must<{ id: number }>(201, 'POST', `${base}/custom_questions`, { question: 'T-shirt size', type: 'text', show_at_door: true });
  const ada = seed.guests.ada;
  await server.must(200, 'PUT', `${base}/guests/${ada.id}`, {
    attention: true,
    notes: 'Wheelchair user: side entrance',
    custom_questions: [
      { question_id: meal.id, answer: meal.choices[1].id },
      { question_id: size.id, answer: 'M' },
    ],
  });
  await server.must(200, 'PUT', `${base}/guests/${seed.guests.grace.id}`, { custom_questions: [{ question_id: meal.id, answer: meal.choices[0].id }] });
});

test.afterAll(async () => {
  await server?.dispose();
});

async function openDoor(page: Page): Promise<DoorPage> {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  return door;
}

for (const size of [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 667 },
]) {
  test(`shows the answers of questions shown at the door on green, attention and amber (${size.name})`, async ({ page }) => {
    await page.setViewportSize(size);
    const door = await openDoor(page);
    const grace = seed.guests.grace;
    await door.scan(grace.barcode);
    await door.expectResult('checked_in', 'Grace');
    await expect(door.result().getByTestId('door-answers')).toContainText('Meal');
    await expect(door.result().getByTestId('door-answers')).toContainText('Fish');
    await door.screenshot(`70-door-answers-green-${size.name}`);
    await door.waitPastRepeatGuard();
    await door.scan(grace.barcode);
    await door.expectResult('already_checked_in');
    await expect(door.result().getByTestId('door-answers')).toContainText('Fish');
    await door.screenshot(`71-door-answers-amber-${size.name}`);
    // Undo both stations' traces, so the other size starts from a guest not in.
    await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${(await checkinsOf(server, seed.eventId, grace.id))[0].id}`);

    const ada = seed.guests.ada;
    await door.scan(ada.barcode);
    const attention = door.result();
    await expect(attention).toHaveAttribute('data-attention', 'true');
    await expect(attention).toContainText('Wheelchair user: side entrance');
    await expect(attention.getByTestId('door-answers')).toContainText('Vegetarian');
    await expect(attention.getByTestId('door-answers')).toContainText('T-shirt size');
    await door.screenshot(`72-door-answers-attention-${size.name}`);
    await attention.getByRole('button', { name: 'Seen (Enter)' }).click();
    await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${(await checkinsOf(server, seed.eventId, ada.id))[0].id}`);
  });
}

for (const size of [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 667 },
]) {
  test(`offline, the answers of questions shown at the door come from the station's guest list (${size.name})`, async ({ page }) => {
    await page.setViewportSize(size);
    const door = await openDoor(page);
    await door.copyHolds(12);
    // The server goes out of reach: the station decides from its offline guest list.
    await page.route('**/api/v1/**', (route) => route.abort());
    const grace = seed.guests.grace;
    await door.scan(grace.barcode);
    await door.expectResult('checked_in', 'Grace', 'Admitted offline');
    await expect(door.result().getByTestId('door-answers')).toContainText('Meal');
    await expect(door.result().getByTestId('door-answers')).toContainText('Fish');
    await door.screenshot(`74-door-answers-offline-green-${size.name}`);
    await door.waitPastRepeatGuard();
    await door.scan(grace.barcode);
    await door.expectResult('already_checked_in', 'decided offline');
    await expect(door.result().getByTestId('door-answers')).toContainText('Fish');
    const ada = seed.guests.ada;
    await door.scan(ada.barcode);
    const attention = door.result();
    await expect(attention).toHaveAttribute('data-attention', 'true');
    await expect(attention).toContainText('Wheelchair user: side entrance');
    await expect(attention.getByTestId('door-answers')).toContainText('Vegetarian');
    await expect(attention.getByTestId('door-answers')).toContainText('T-shirt size');
    await door.screenshot(`75-door-answers-offline-attention-${size.name}`);
    await attention.getByRole('button', { name: 'Seen (Enter)' }).click();
    // Back online, the queue is replayed; both check-ins are taken back for the next size.
    await page.unroute('**/api/v1/**');
    await expect(door.pending()).toBeHidden({ timeout: 15_000 });
    for (const guest of [grace, ada]) for (const checkin of await checkinsOf(server, seed.eventId, guest.id)) await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${checkin.id}`);
  });
}

test('a scan while the kiosk PIN is asked shows its verdict in front, and leaves no digit in the PIN field', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('doorlist.kioskPin', '2468'));
  const door = await openDoor(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  const prompt = page.getByRole('dialog');
  const pin = prompt.locator('input[name="unlock-pin"]');
  await expect(pin).toBeFocused();
  await pin.pressSequentially('13', { delay: 150 });
  // Digits only: the PIN field keeps what it can of a reader's keys.
  await door.scanBurst(seed.guests.radia.barcode);
  await expect(door.verdictOver()).toBeVisible();
  await expect(door.verdictOver().locator('.result')).toHaveAttribute('data-outcome', 'checked_in');
  await expect(door.verdictOver()).toContainText('Radia');
  await expect(pin).toHaveValue('13');
  await expect(prompt).toBeVisible();
  await door.screenshot('73-verdict-over-pin');
  expect(await checkinsOf(server, seed.eventId, seed.guests.radia.id)).toHaveLength(1);
  await door.verdictOver().click();
  await expect(door.verdictOver()).toBeHidden();
});

test('after an undo, the next scan leaves the counter where the server is', async ({ page }) => {
  const door = await openDoor(page);
  const before = await door.count('checked-in');
  await door.scan(seed.guests.barbara.barcode);
  await door.expectResult('checked_in', 'Barbara');
  await expect(door.checkedIn()).toHaveText(String(before + 1));
  await door.undoConfirmed('Barbara');
  await expect(door.checkedIn()).toHaveText(String(before));
  await door.scan(seed.guests.john.barcode);
  await door.expectResult('checked_in', 'John');
  await expect(door.checkedIn()).toHaveText(String(before + 1));
  const server_ = await statsOf(server, seed.eventId);
  expect(server_.checked_in).toBe(before + 1);
  // Over the next polls (every 2 s) the figure stays the server's.
  await expect(async () => {
    const figures = await statsOf(server, seed.eventId);
    expect(await door.count('checked-in')).toBe(figures.checked_in);
  }).toPass({ timeout: 15_000 });
  await door.afterPolls(2); // two more polls: a change counted twice would show by now
  await expect(door.checkedIn()).toHaveText(String(before + 1));
});

/** The wall time and zone label of a UTC API Datetime on a zone's clock, as the door writes them in English. */
function onClock(utc: string, timeZone: string): { time: string; zone: string } {
  const parts = new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }).formatToParts(new Date(`${utc}Z`));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { time: `${part('hour')}:${part('minute')}`, zone: part('timeZoneName') };
}

test.describe("issue 38, one clock: a station whose own clock is elsewhere", () => {
  // The station says Tokyo (UTC+9); the event is in Amsterdam (UTC+1, +2 in summer).
  test.use({ timezoneId: 'Asia/Tokyo' });

  for (const size of [
    { name: 'laptop', width: 1280, height: 800, guest: 'margaret' },
    { name: 'phone', width: 375, height: 667, guest: 'donald' },
  ]) {
    test(`the amber answer and the search's In since show the event's clock, labelled with its zone (${size.name})`, async ({ page }) => {
      await page.setViewportSize(size);
      const door = await openDoor(page);
      const guest = seed.guests[size.guest];
      await door.scan(guest.barcode);
      await door.expectResult('checked_in', guest.first_name);
      const [checkin] = await checkinsOf(server, seed.eventId, guest.id);
      const event = onClock(checkin.scanned_at, 'Europe/Amsterdam');
      const station = onClock(checkin.scanned_at, 'Asia/Tokyo');
      expect(event.time).not.toBe(station.time);
      // "7:05 PM GMT+1": the event's hour and minute, then its zone (a space or a narrow one between).
      const shown = new RegExp(`${event.time}\\s(AM|PM)\\s${event.zone.replace('+', '\\+')}`);

      await door.waitPastRepeatGuard();
      await door.scan(guest.barcode);
      await door.expectResult('already_checked_in', guest.first_name);
      await expect(door.result()).toContainText(new RegExp(`since ${shown.source}`));
      await expect(door.result()).not.toContainText(station.zone);
      await door.screenshot(`73-door-amber-event-clock-${size.name}`);

      const found = await door.search(guest.last_name);
      await expect(found.locator('.guest-row')).toContainText(new RegExp(`In since ${shown.source}`));
      await expect(found.locator('.guest-row')).not.toContainText(station.zone);
      await page.keyboard.press('Escape');
      // A list's times carry the zone once: the scan log's, and the arrivals chart's caption.
      await page.keyboard.press('F3');
      await expect(page.getByTestId('log-zone')).toHaveText(`Times in ${event.zone}`);
      // The first scan's line (the log's last; the amber one above it came a repeat guard later).
      await expect(page.locator('.scan-log .log-time').last()).toHaveText(new RegExp(`^${event.time}\\s(AM|PM)$`));
      await page.keyboard.press('Escape');
      if (size.name === 'laptop') await expect(page.getByTestId('chart-zone')).toHaveText(`Times in ${event.zone}`);
      await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${checkin.id}`);
    });
  }
});
