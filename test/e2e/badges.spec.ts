import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { openWithStorage } from './pages/browser-data';
import { keepPicture } from './screenshots';
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

/**
 * Counts print() calls in every frame of the page, the badge frames included, in place of the
 * browser's own: headless Chromium has no print dialog to hold print() open, so two copies'
 * frames would print at once in one renderer, which now and then crashes it.
 */
async function countPrints(page: Page): Promise<() => Promise<number>> {
  await page.addInitScript(() => {
    window.print = () => {
      const top = window.top as unknown as { __prints?: number };
      top.__prints = (top.__prints ?? 0) + 1;
    };
  });
  return () => page.evaluate(() => (window as unknown as { __prints?: number }).__prints ?? 0);
}

test.describe('badges at the door', () => {
  test('green answer -> Print badge: the PDF of that guest is fetched, opened for printing, and the print recorded', async ({ page }) => {
    const prints = await countPrints(page);
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
    expect(await prints()).toBe(1);
  });

  test('search results offer Print badge for each guest', async ({ page }) => {
    const prints = await countPrints(page);
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
    await expect.poll(prints).toBe(1);
  });

  test('"print on check-in" (and twice) prints without a click', async ({ page }) => {
    const prints = await countPrints(page);
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
    expect(await prints()).toBe(2);
  });
});

test.describe('badges in the console', () => {
  test('sets the label size, prints everyone not yet printed (500 a PDF), and shows a guest\'s reprints', async ({ page }) => {
    // Signed in from the start: the page reads its token when it loads.
    await openWithStorage(page, server.url, `/#/console/events/${seed.eventId}/badges`, { 'doorlist.token': server.adminToken });
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

/**
 * The pictures in docs/badges/, drawn by poppler from the PDFs the server sends: four badges
 * side by side on each size, and a long name alone on each. Each page's text reads back as typed.
 */
test.describe('badges as printed, for docs/badges.md', () => {
  const DOCS = path.resolve(__dirname, '..', '..', 'docs', 'badges');
  const GAP = 10;
  const GREY = [191, 191, 191, 255];

  /** The PDF of these guests on the event's size, saved for poppler. */
  async function badgesPdf(eventId: number, ids: number[], file: string): Promise<string> {
    const res = await fetch(`${server.url}/api/v1/events/${eventId}/badges.pdf?guest_ids=${ids.join(',')}`, { headers: { authorization: `Token ${server.adminToken}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  /** Every page at `dpi` (pdftoppm), as PNGs. */
  function pages(pdf: string, count: number, dpi: number): PNG[] {
    execFileSync('pdftoppm', ['-r', String(dpi), '-png', pdf, `${pdf}-page`]);
    const files = fs.readdirSync(path.dirname(pdf)).filter((f) => f.startsWith(`${path.basename(pdf)}-page`)).sort();
    expect(files).toHaveLength(count);
    return files.map((f) => PNG.sync.read(fs.readFileSync(path.join(path.dirname(pdf), f))));
  }

  /** The pages in a row on grey, as on a table. */
  function sideBySide(images: PNG[]): PNG {
    const height = Math.max(...images.map((i) => i.height)) + 2 * GAP;
    const width = images.reduce((sum, i) => sum + i.width + GAP, GAP);
    const out = new PNG({ width, height });
    for (let p = 0; p < width * height; p++) out.data.set(GREY, p * 4);
    let x = GAP;
    for (const image of images) {
      PNG.bitblt(image, out, 0, 0, image.width, image.height, x, GAP);
      x += image.width + GAP;
    }
    return out;
  }

  test('four badges on each size and a long name on each, drawn with pdftoppm; every name reads back as typed', async () => {
    test.setTimeout(60_000);
    const group = await server.must<{ id: number }>(201, 'POST', '/groups', { name: 'Badge pictures' });
    const eventId = (await server.must<{ id: number }>(201, 'POST', '/events', { name: 'Badge night', group_id: group.id, timezone: 'Europe/Amsterdam', starts: '2026-12-10T18:00', ends: '2026-12-10T23:00' })).id;
    const type = async (name: string) => (await server.must<{ id: number }>(201, 'POST', `/events/${eventId}/registration_types`, { type: 'ticket', name, description: '' })).id;
    const [speaker, vip, guestOfHonour, attendee] = [await type('Speaker'), await type('VIP'), await type('嘉宾'), await type('Attendee')];
    const guest = async (registration_type: number, first_name: string, last_name: string, company: string, n: number) =>
      (await server.must<{ id: number }>(201, 'POST', `/events/${eventId}/guests`, { registration_type, first_name, last_name, company, email: `badge${n}@example.test`, barcode: `BADGE-${n}` })).id;
    const four = [
      await guest(speaker, 'Ada', 'Lovelace', 'Analytical Engines Ltd', 1),
      await guest(vip, 'Maximilian-Alexander', 'von Hohenzollern-Sigmaringen-Württemberg', 'Ευρωπαϊκή Εταιρεία', 2),
      await guest(guestOfHonour, '王', '小明', '北京公司', 3),
      await guest(attendee, 'محمد', 'عبد الله', 'شركة', 4),
    ];
    const long = await guest(speaker, 'Maximiliane-Alexandra', 'Lefèvre-Dubois', 'Analytical Engines Ltd', 5);
    const dir = fs.mkdtempSync(path.join(server.dir, 'badge-pictures-'));
    for (const size of ['A6', '62x100mm', '4x3in']) {
      await server.must(200, 'PUT', `/events/${eventId}/badge_layout`, { size });
      const overview = await badgesPdf(eventId, four, path.join(dir, `badges-${size}.pdf`));
      const text = execFileSync('pdftotext', [overview, '-'], { encoding: 'utf8' });
      for (const name of ['Ada', 'Lovelace', 'Maximilian-Alexander', 'Ευρωπαϊκή Εταιρεία', '王', '小明']) expect(text).toContain(name);
      const row = sideBySide(pages(overview, 4, 72));
      keepPicture(DOCS, `badges-${size}`, PNG.sync.write(row));

      const alone = await badgesPdf(eventId, [long], path.join(dir, `long-name-${size}.pdf`));
      const lines = execFileSync('pdftotext', [alone, '-'], { encoding: 'utf8' }).split('\n').map((l) => l.trim());
      expect(lines).toContain('Maximiliane-Alexandra');
      expect(lines).toContain('Lefèvre-Dubois');
      const [page] = pages(alone, 1, 110);
      keepPicture(DOCS, `long-name-${size}`, PNG.sync.write(page));
    }
  });
});
