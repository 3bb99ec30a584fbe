import { expect, test } from '@playwright/test';
import { ADMIN, DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { EventPickerPage } from './pages/event-picker-page';
import { SignInPage } from './pages/sign-in-page';
import { checkinsOf, guestCounts, seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

test.describe('sign in and event', () => {
  test('signs in with a password, picks the event, stays signed in over a reload and signs out', async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.goto(server.url);
    await new DoorPage(page).screenshot('01-sign-in');
    await signIn.signIn(ADMIN.username, 'wrong password');
    await expect(signIn.error()).toHaveText('Wrong username or password.');
    await signIn.signIn(ADMIN.username, ADMIN.password);

    const picker = new EventPickerPage(page);
    await expect(picker.heading()).toBeVisible();
    await new DoorPage(page).screenshot('02-pick-event');
    await picker.pick(seed.eventName);

    const door = new DoorPage(page);
    await expect(page.getByRole('heading', { name: seed.eventName })).toBeVisible();
    await expect(door.scanField()).toBeFocused();
    // Twelve guests, one of them inactive: counted apart, not in the total to expect.
    await expect(door.total()).toHaveText('11');

    await page.reload();
    await expect(page.getByRole('heading', { name: seed.eventName })).toBeVisible();
    await expect(door.scanField()).toBeFocused();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('heading', { name: 'Doorlist' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  });

  test('signs in with an API key of the group', async ({ page }) => {
    const key = await server.must<{ key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'phone at the door' });
    const signIn = new SignInPage(page);
    await signIn.goto(server.url);
    await signIn.signInWithKey('not-a-key');
    await expect(signIn.error()).toHaveText('This API key is not valid.');
    await signIn.signInWithKey(key.key);
    await new EventPickerPage(page).pick(seed.eventName);
    await expect(new DoorPage(page).scanField()).toBeFocused();
  });
});

test.describe('expired access', () => {
  test('a revoked API key sends the station back to sign-in with the server\'s words', async ({ page }) => {
    const made = await server.must<{ id: number; key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'revoked soon' });
    const door = new DoorPage(page);
    await door.open(server.url, made.key, { id: seed.eventId, name: seed.eventName });
    await server.must(204, 'DELETE', `/groups/${seed.groupId}/api_keys/${made.id}`);
    await door.scan(seed.guests.john.barcode);
    await expect(page.getByRole('status')).toHaveText('Your session has expired. Please relogin.');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(await checkinsOf(server, seed.eventId, seed.guests.john.id)).toHaveLength(0);
  });
});

test.describe('door mode', () => {
  test('scans green, then amber, red for an unknown code and an inactive guest; counters move', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await expect(door.checkedIn()).toHaveText('0');
    await door.screenshot('03-ready');

    await door.scan(seed.guests.ada.barcode);
    await door.expectResult('checked_in', 'Checked in', 'Ada Lovelace', 'VIP', 'Analytical Engines');
    await expect(door.announcer()).toHaveText('Checked in. Ada Lovelace, VIP, Analytical Engines');
    await expect(door.checkedIn()).toHaveText('1');
    await expect(page.getByTestId(`type-${seed.types.vip}`)).toContainText('1 / 3');
    await door.screenshot('04-checked-in');

    await door.waitPastRepeatGuard();
    await door.scan(seed.guests.ada.barcode);
    await door.expectResult('already_checked_in', 'Already checked in', 'Ada Lovelace', /since \d{1,2}:\d\d/, 'at Front door');
    await door.screenshot('05-already-checked-in');

    await door.scan('NOBODY-999');
    await door.expectResult('not_found', 'Not found', 'NOBODY-999');
    await door.screenshot('06-not-found');

    await door.scan(seed.guests.alan.barcode);
    await door.expectResult('inactive', 'Inactive', 'Alan Turing');
    await door.screenshot('07-inactive');

    await expect(door.checkedIn()).toHaveText('1');
    expect(await checkinsOf(server, seed.eventId, seed.guests.ada.id)).toHaveLength(1);
    // Every scan carried the station name.
    expect((await checkinsOf(server, seed.eventId, seed.guests.ada.id))[0].station).toBe('Front door');
  });

  test('an NFC tag typed by a reader is found after the barcode lookup misses', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await door.scan(seed.guests.frances.nfc_tag!);
    await door.expectResult('checked_in', 'Frances Allen', 'VIP', 'IBM');
    expect(await checkinsOf(server, seed.eventId, seed.guests.frances.id)).toHaveLength(1);
  });

  test('typing anywhere goes to the scan field, and the field takes the focus back', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await page.locator('.side').click();
    await expect(door.scanField()).toBeFocused();
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await door.scan(seed.guests.grace.barcode);
    await door.expectResult('checked_in', 'Grace Hopper', 'General', 'US Navy');
  });

  test('undoes the last scan with Ctrl+Z', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const before = (await guestCounts(server, seed.eventId)).checkedIn;
    await door.scan(seed.guests.katherine.barcode);
    await door.expectResult('checked_in', 'Katherine Johnson');
    await expect(door.checkedIn()).toHaveText(String(before + 1));
    await door.undoConfirmed('Katherine Johnson');
    await door.expectResult('undone', 'Undone', 'Katherine Johnson');
    await expect(door.checkedIn()).toHaveText(String(before));
    await door.screenshot('08-undone');
    expect(await checkinsOf(server, seed.eventId, seed.guests.katherine.id)).toHaveLength(0);
    // Undone means not in: the next scan is a first entry again.
    await door.scan(seed.guests.katherine.barcode);
    await door.expectResult('checked_in', 'Katherine Johnson');
  });

  test('finds a guest by company and checks them in from the list', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const dialog = await door.search('Eindhoven');
    const row = dialog.locator('.guest-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('Edsger Dijkstra');
    await expect(row).toContainText('Not in');
    await door.screenshot('09-search');
    await row.getByRole('button', { name: 'Check in Edsger Dijkstra' }).click();
    await expect(dialog).toBeHidden();
    await door.expectResult('checked_in', 'Edsger Dijkstra', 'General');

    const again = await door.search('dijkstra');
    await expect(again.locator('.guest-row')).toContainText(/In since \d{1,2}:\d\d/);
    await page.keyboard.press('Escape');
    await expect(again).toBeHidden();
    await expect(door.scanField()).toBeFocused();
  });

  test('adds a walk-in and checks them in at once', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const before = await door.count('total');
    await page.keyboard.press('F4');
    await page.getByRole('dialog', { name: 'Add a walk-in' }).getByLabel('First name').fill('Hedy');
    await door.screenshot('10-walk-in');
    await page.keyboard.press('Escape');
    await door.addWalkIn({ type: 'VIP', first: 'Hedy', last: 'Lamarr', email: 'hedy@example.test', company: 'Frequency Hopping Inc.' });
    await door.expectResult('checked_in', 'Hedy Lamarr', 'VIP', 'Frequency Hopping Inc.');
    await expect(door.total()).toHaveText(String(before + 1));
    const found = await server.must<{ results: any[] }>(200, 'GET', `/events/${seed.eventId}/guests?search=lamarr`);
    expect(found.results).toHaveLength(1);
    expect(await checkinsOf(server, seed.eventId, found.results[0].id)).toHaveLength(1);
  });

  test('checks a guest out in check-out mode, and says when the guest is not in', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await door.scan(seed.guests.margaret.barcode);
    await door.expectResult('checked_in', 'Margaret Hamilton');
    await door.toggleCheckOut();
    await expect(page.getByText('Check-out mode: scans check guests out')).toBeVisible();
    await door.scan(seed.guests.margaret.barcode);
    await door.expectResult('checked_out', 'Checked out', 'Margaret Hamilton');
    await door.screenshot('11-checked-out');
    await door.scan(seed.guests.tim.barcode);
    await door.expectResult('not_checked_in', 'Not checked in', 'Tim Berners-Lee');
    await door.toggleCheckOut();
    await expect(page.getByText('Check-out mode: scans check guests out')).toBeHidden();
    const directions = (await checkinsOf(server, seed.eventId, seed.guests.margaret.id)).map((c) => c.direction);
    expect(directions.sort()).toEqual(['in', 'out']);
  });

  test('shows arrivals per five minutes from the stats', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await door.scan(seed.guests.barbara.barcode);
    await door.expectResult('checked_in', 'Barbara Liskov');
    const bars = page.locator('.chart rect.bar');
    await expect(bars.first()).toBeVisible();
    // The bars are the polled figures with this station's own scan counted in: waited for until drawn.
    const checkins = (await checkinsOf(server, seed.eventId)).filter((c) => c.direction === 'in').length;
    await expect
      .poll(() => bars.evaluateAll((rects) => rects.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0)), { timeout: 15_000 })
      .toBe(checkins);
  });

  test('each kind of answer has its own beep', async ({ page }) => {
    await page.addInitScript(() => {
      const tones: number[][] = [];
      (window as any).__tones = tones;
      const create = AudioContext.prototype.createOscillator;
      AudioContext.prototype.createOscillator = function (this: AudioContext) {
        const osc = create.call(this);
        const start = osc.start.bind(osc);
        // The tones of one scan go together; the test flags where a new scan begins.
        osc.start = (when?: number) => {
          if ((window as any).__newScan || !tones.length) tones.push([]);
          (window as any).__newScan = false;
          tones[tones.length - 1].push(osc.frequency.value);
          start(when);
        };
        return osc;
      };
    });
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const tonesOf = async (code: string, outcome: string) => {
      await page.evaluate(() => ((window as any).__newScan = true));
      await door.scan(code);
      await door.expectResult(outcome);
      return page.evaluate(() => (window as any).__tones.at(-1));
    };
    expect(await tonesOf(seed.guests.john.barcode, 'checked_in')).toEqual([880, 1320]);
    await door.waitPastRepeatGuard();
    expect(await tonesOf(seed.guests.john.barcode, 'already_checked_in')).toEqual([660, 660]);
    expect(await tonesOf('NO-SUCH-CODE', 'not_found')).toEqual([196]);
  });

  test('is keyboard operable: Tab reaches the buttons with a visible focus ring, Esc returns to the scan field', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await page.keyboard.press('Tab');
    const enter = page.getByRole('button', { name: 'Enter', exact: true });
    await expect(enter).toBeFocused();
    expect(await enter.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'F2 Search' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog', { name: 'Find a guest' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(door.scanField()).toBeFocused();
    await page.keyboard.press('F7');
    await expect(page.getByRole('dialog', { name: 'What does this door admit to?' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(door.scanField()).toBeFocused();
  });
});
