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
