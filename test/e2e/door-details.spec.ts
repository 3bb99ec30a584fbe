import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, statsOf, type Seed } from './seed';

/**
 * Issue 38's smaller door findings, each as a tester saw it: check-out mode shows no answer
 * of the last scan under its banner; an unknown code costs one request; closing a dialog gives
 * the scan field the focus back, so the next reader scan lands; on a phone the Console link
 * covers no button; after a double admission the counter is the server's at once.
 */
let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 667 };

async function openDoor(page: Page): Promise<DoorPage> {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  return door;
}

/** Check-in POSTs the page sends from now on. */
function countScanRequests(page: Page): { bodies: string[] } {
  const sent = { bodies: [] as string[] };
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith(`/events/${seed.eventId}/checkins`)) sent.bodies.push(request.postData() ?? '');
  });
  return sent;
}

async function undoOnServer(guestId: number): Promise<void> {
  const body = await server.must<{ results: { id: number; undone_at: string | null }[] }>(200, 'GET', `/events/${seed.eventId}/checkins?guest_id=${guestId}`);
  for (const checkin of body.results.filter((c) => !c.undone_at)) await server.must(204, 'DELETE', `/events/${seed.eventId}/checkins/${checkin.id}`);
}

for (const [name, size] of Object.entries({ laptop: LAPTOP, phone: PHONE })) {
  test(`check-out mode clears the last answer from under its banner (${name})`, async ({ page }) => {
    await page.setViewportSize(size);
    const door = await openDoor(page);
    await door.scan(seed.guests.margaret.barcode);
    await door.expectResult('checked_in', 'Margaret Hamilton');
    await door.toggleCheckOut();
    await expect(page.getByRole('status').filter({ hasText: 'Check-out mode' })).toBeVisible();
    await expect(door.result()).toHaveAttribute('data-outcome', 'idle');
    await expect(door.result()).not.toContainText('Margaret');
    await door.screenshot(`80-check-out-mode-${name}`);
    await door.scan(seed.guests.margaret.barcode);
    await door.expectResult('checked_out', 'Margaret Hamilton');
    // And back: check-in mode starts clean too.
    await door.toggleCheckOut();
    await expect(door.result()).toHaveAttribute('data-outcome', 'idle');
  });
}

test('an unknown code costs one request; a known code in the other case or an NFC tag costs one too', async ({ page }) => {
  const door = await openDoor(page);
  await door.copyHolds(12);
  const sent = countScanRequests(page);
  await door.scan('NOBODY-404');
  await door.expectResult('not_found', 'NOBODY-404');
  await expect.poll(() => sent.bodies.length).toBe(1);
  // A reader with Caps Lock on: found all the same, in one request.
  await door.scan(seed.guests.donald.barcode.toLowerCase());
  await door.expectResult('checked_in', 'Donald Knuth');
  await expect.poll(() => sent.bodies.length).toBe(2);
  expect(JSON.parse(sent.bodies[1]).barcode).toBe(seed.guests.donald.barcode);
  // A keyboard-wedge NFC reader types the tag like a barcode: one request, as a tag.
  await door.scan(seed.guests.frances.nfc_tag!);
  await door.expectResult('checked_in', 'Frances Allen');
  await expect.poll(() => sent.bodies.length).toBe(3);
  expect(JSON.parse(sent.bodies[2]).nfc_tag).toBe(seed.guests.frances.nfc_tag);
  // Two more polls: nothing else was asked for on these scans' behalf.
  await door.afterPolls(2);
  expect(sent.bodies).toHaveLength(3);
  await undoOnServer(seed.guests.donald.id);
  await undoOnServer(seed.guests.frances.id);
});

test('closing a dialog gives the scan field the focus back, so the next reader scan lands', async ({ page }) => {
  const door = await openDoor(page);
  const guests = [seed.guests.tim, seed.guests.barbara, seed.guests.john, seed.guests.radia];
  const scanLands = async (guest: { barcode: string; first_name: string }) => {
    await expect(door.scanField()).toBeFocused();
    await door.scanBurst(guest.barcode);
    await door.expectResult('checked_in', guest.first_name);
  };

  // A reader fires while Search is open: its answer shows in front; tapped away, then the
  // dialog closed with its ✕.
  const search = await door.search('Grace');
  await door.scanBurst(guests[0].barcode);
  await expect(door.verdictOver()).toContainText(guests[0].first_name);
  await door.verdictOver().click();
  await expect(search.getByLabel('Name, e-mail, company or code')).toBeFocused();
  await search.getByRole('button', { name: 'Close' }).click();
  await scanLands(guests[1]);

  // An undo asked from the log and cancelled: the log keeps the focus, then Esc closes it.
  await page.keyboard.press('F3');
  const log = page.getByRole('dialog', { name: 'Scan log' });
  await log.getByRole('button', { name: /^Undo/ }).first().click();
  await page.getByRole('dialog', { name: 'Undo this scan?' }).getByRole('button', { name: 'Close' }).click();
  await expect(page.getByRole('dialog', { name: 'Undo this scan?' })).toBeHidden();
  await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'))).toBe(true);
  await page.keyboard.press('Escape');
  await scanLands(guests[2]);

  // The walk-in form closed by a click on the backdrop.
  await page.keyboard.press('F4');
  await expect(page.getByRole('dialog', { name: 'Add a walk-in' })).toBeVisible();
  await page.mouse.click(5, 790);
  await expect(page.getByRole('dialog')).toBeHidden();
  await scanLands(guests[3]);
  await door.screenshot('81-focus-after-dialog');
  for (const guest of guests) await undoOnServer(guest.id);
});

test('on a phone the Console link covers none of the door buttons', async ({ page }) => {
  await page.setViewportSize(PHONE);
  const door = await openDoor(page);
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Edsger');
  await expect(page.locator('.console-pill')).toBeVisible();
  const buttons = page.getByRole('navigation', { name: 'Door actions' }).getByRole('button');
  for (const button of await buttons.all()) {
    // The button itself is what a finger on its middle touches, also with it at the screen's
    // bottom edge, where a floating link would be.
    const onTop = await button.evaluate((el) => {
      el.scrollIntoView({ block: 'end' });
      const box = el.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return !!hit && el.contains(hit);
    });
    expect(onTop, `${await button.textContent()} is covered`).toBe(true);
  }
  await page.getByRole('button', { name: /Undo/ }).scrollIntoViewIfNeeded();
  await door.screenshot('82-phone-console-link');
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await door.screenshot('83-phone-console-link-bottom');
  await undoOnServer(seed.guests.edsger.id);
});

test('after a double admission a phone counts what the server counts, at once and after', async ({ page }) => {
  await page.setViewportSize(PHONE);
  const door = await openDoor(page);
  await door.copyHolds(12);
  const serverCount = async () => (await statsOf(server, seed.eventId)).checked_in;
  await expect.poll(async () => (await door.count('checked-in')) === (await serverCount())).toBe(true);

  // The phone loses the network; meanwhile another station lets Katherine in.
  await page.route('**/api/v1/**', (route) => route.abort());
  await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { guest_id: seed.guests.katherine.id, station: 'Side door' });
  await door.scan(seed.guests.katherine.barcode);
  await door.expectResult('checked_in', 'Katherine Johnson', 'Admitted offline');
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper', 'Admitted offline');
  await page.unroute('**/api/v1/**');

  await expect(door.result()).toHaveAttribute('data-outcome', 'double_admission', { timeout: 15_000 });
  await expect(door.pending()).toBeHidden();
  const truth = await serverCount();
  // From the first poll after the replay on, and for the polls after (every 2 s).
  await door.afterPolls(1);
  await expect(door.checkedIn()).toHaveText(String(truth));
  for (let poll = 0; poll < 3; poll += 1) {
    await door.afterPolls(1); // a look after each of three polls of the counters
    await expect(door.checkedIn()).toHaveText(String(truth));
  }
  await door.screenshot('84-phone-double-admission-counter');
});

test('an open door screen is online on the supervisor view before its first scan: its poll is its heartbeat', async ({ page }) => {
  await openDoor(page);
  await expect
    .poll(async () => {
      const stats = await server.must(200, 'GET', `/events/${seed.eventId}/stats?supervisor=true`);
      return stats.supervisor.stations.find((s: { station: string }) => s.station === 'Front door')?.health;
    }, { timeout: 10_000 })
    .toBe('online');
});
