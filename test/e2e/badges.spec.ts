import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
});

/** The print log of one guest, through the API. */
async function printsOf(guestId: number): Promise<{ guest_id: number; station: string | null }[]> {
  return (await server.must<{ results: { guest_id: number; station: string | null }[] }>(200, 'GET', `/events/${seed.eventId}/badge_prints?guest_id=${guestId}`)).results;
}

/** The next badge PDF the page fetches for this guest, answered. */
function badgeAnswer(page: Page, guestId: number) {
  return page.waitForResponse((res) => res.url().includes(`/events/${seed.eventId}/guests/${guestId}/badge.pdf`));
}

test.describe('badges at the door', () => {
  test('green answer -> Print badge: the PDF of that guest is fetched, opened for printing, and the print recorded', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const grace = seed.guests.grace;
    await door.scan(grace.barcode);
    await door.expectResult('checked_in', 'Grace Hopper');
    const button = door.result().getByRole('button', { name: 'Print a badge for Grace Hopper' });
    await expect(button).toBeVisible();
    await door.screenshot('badge-01-green-with-print');
    const answer = badgeAnswer(page, grace.id);
    await button.click();
    const res = await answer;
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('application/pdf');
    expect(new URL(res.url()).searchParams.get('station')).toBe('Front door');
    // The browser's print dialog opens on the badge, from a frame holding the PDF.
    await expect(page.getByTestId('badge-print-frame')).toHaveAttribute('src', /^blob:/);
    await expect(page.getByTestId('notice')).toHaveText('Badge for Grace Hopper sent to the printer.');
    await expect.poll(async () => (await printsOf(grace.id)).map((p) => p.station)).toEqual(['Front door']);
  });

  test('search results offer Print badge for each guest', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Find a guest' });
    await dialog.getByLabel('Name, e-mail, company or code').fill('Knuth');
    const print = dialog.getByRole('button', { name: 'Print a badge for Donald Knuth' });
    await expect(print).toBeVisible();
    const answer = badgeAnswer(page, seed.guests.donald.id);
    await print.click();
    expect((await answer).status()).toBe(200);
    await expect.poll(async () => (await printsOf(seed.guests.donald.id)).length).toBe(1);
  });

  test('"print on check-in" (and twice) prints without a click', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await page.getByTestId('station').click();
    const settings = page.getByRole('dialog', { name: 'This station' });
    await settings.getByLabel('Print the badge on check-in').check();
    await settings.getByLabel('Print each badge twice').check();
    await door.screenshot('badge-02-station-settings');
    await settings.getByRole('button', { name: 'Save' }).click();
    await expect(settings).toBeHidden();
    const edsger = seed.guests.edsger;
    const answer = badgeAnswer(page, edsger.id);
    await door.scan(edsger.barcode);
    await door.expectResult('checked_in', 'Edsger Dijkstra');
    expect((await answer).status()).toBe(200);
    await expect.poll(async () => (await printsOf(edsger.id)).length).toBe(2);
    await expect(page.getByTestId('notice')).toHaveText('2 badges for Edsger Dijkstra sent to the printer.');
  });
});

test.describe('badges in the console', () => {
  test('sets the label size, prints everyone not yet printed (500 a PDF), and shows a guest\'s reprints', async ({ page }) => {
    await page.goto(`${server.url}/`);
    await page.evaluate((token) => localStorage.setItem('doorlist.token', token), server.adminToken);
    // Signed in from the start: the page reads its token when it loads.
    await page.goto(`${server.url}/#/console/events/${seed.eventId}/badges`);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Badges' })).toBeVisible();
    await page.getByLabel('Label size').selectOption('62x100mm');
    await expect(page.getByRole('status')).toHaveText('Badges print on 62 × 100 mm label roll.');
    expect((await server.must<{ size: string }>(200, 'GET', `/events/${seed.eventId}/badge_layout`)).size).toBe('62x100mm');

    const printed = async () => (await server.must<{ results: { guest_id: number }[] }>(200, 'GET', `/events/${seed.eventId}/badge_prints?page_size=100`)).results;
    const earlier = await printed();
    const before = new Set(earlier.map((p) => p.guest_id));
    // Headless Chromium's PDF viewer crashes the page when asked to print a sheet of several
    // pages: the server answers (and records) the real sheet, the frame is handed a stand-in.
    await page.route(`**/events/${seed.eventId}/badges.pdf`, async (route) => {
      const real = await route.fetch();
      expect(real.headers()['content-type']).toBe('application/pdf');
      expect((await real.body()).subarray(0, 5).toString()).toBe('%PDF-');
      await route.fulfill({ status: real.status(), contentType: 'text/plain', body: 'badges' });
    });
    const sheet = page.waitForResponse((res) => res.url().endsWith(`/events/${seed.eventId}/badges.pdf`) && res.request().method() === 'POST');
    await page.getByRole('button', { name: 'Print everyone not yet printed' }).click();
    const res = await sheet;
    expect(res.status()).toBe(200);
    // A PDF holds at most 500 badges: everyone not yet printed comes 500 at a time.
    expect(res.request().postDataJSON()).toEqual({ not_printed: true, limit: 500, station: 'Console' });
    await expect(page.getByText('The print dialog is open.')).toBeVisible();
    await expect(page.getByTestId('badge-print-frame')).toHaveAttribute('src', /^blob:/);
    await new DoorPage(page).screenshot('badge-03-console');
    // Every active guest has a badge now, and those printed before were not printed again.
    const active = Object.keys(seed.guests).filter((k) => k !== 'alan').map((k) => seed.guests[k].id);
    const after = await printed();
    expect(new Set(after.map((p) => p.guest_id))).toEqual(new Set(active));
    expect(after.length).toBe(earlier.length + active.filter((id) => !before.has(id)).length);

    // Headless Chromium has no print dialog to close: the frame goes before the page moves on.
    await page.evaluate(() => document.querySelectorAll('iframe.print-frame').forEach((f) => f.remove()));
    // A reprint of Edsger's badge (whatever the tests before this one printed).
    const reprint = await fetch(`${server.url}/api/v1/events/${seed.eventId}/guests/${seed.guests.edsger.id}/badge.pdf?station=Desk`, { headers: { authorization: `Token ${server.adminToken}` } });
    expect(reprint.status).toBe(200);
    await reprint.arrayBuffer();
    const edsgerPrints = (await printsOf(seed.guests.edsger.id)).length;
    await page.getByRole('navigation', { name: 'Parts of the event' }).getByRole('link', { name: 'Guests' }).click();
    await page.getByRole('button', { name: 'Edsger Dijkstra' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edsger Dijkstra' });
    await expect(dialog.getByRole('heading', { name: 'Badges printed' })).toBeVisible();
    await expect(dialog.locator('.history-list').last().locator('li')).toHaveCount(edsgerPrints);
    await expect(dialog.getByText('reprint', { exact: true })).toHaveCount(edsgerPrints - 1);
    await dialog.getByText('Badges printed').scrollIntoViewIfNeeded();
    await new DoorPage(page).screenshot('badge-04-guest-prints');
  });
});
