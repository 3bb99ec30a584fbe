import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page, type Route } from '@playwright/test';
import { DoorServer } from './door-server';
import { CONSOLE_SCREENSHOTS } from './pages/console-page';
import { seedEvent, type Seed } from './seed';

// Issue 47: the side door's sync panel shows its venue and, once the box office has been silent
// for a while, offers to take over as the venue's upstream; after it, that this laptop is the
// upstream. The venue's answers (GET .../sync with venue and epoch, .../sync/venue, the takeover)
// are given at the browser here, as the venue branch's server answers them.

let sideDoor: DoorServer;
let seed: Seed;

const BOX_OFFICE = 'https://192.168.1.20:8788/api/v1';
const FINGERPRINT_A = '3F:9A:11:C2:7D:04:5B:E8:90:AA:13:6C:2D:F1:47:B9:0E:63:D5:28:7A:C4:19:E2:55:0B:8F:36:D7:61:A4:2C';
const VENUE = [
  { name: 'Box office', url: BOX_OFFICE, fingerprint: FINGERPRINT_A },
  { name: 'Side door', url: 'https://192.168.1.21:8788/api/v1', fingerprint: FINGERPRINT_A },
  { name: 'Bar entrance', url: 'https://192.168.1.22:8788/api/v1', fingerprint: FINGERPRINT_A },
];

// As the API writes a datetime: UTC, to the second, no zone.
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString().slice(0, 19);

function status(eventId: number, silentSeconds: number, note: string | null = null) {
  return {
    sync_id: 1,
    url: BOX_OFFICE,
    event_id: eventId,
    remote_event_id: 7,
    state: 'offline',
    error: null,
    fingerprint: FINGERPRINT_A,
    last_pull_at: ago(silentSeconds),
    last_push_at: ago(silentSeconds),
    pending: 3,
    double_admissions_count: 0,
    conflicts_count: 0,
    double_admissions: [],
    conflicts: [],
    epoch: 1,
    venue: VENUE.map((m, i) => ({ ...m, last_seen_at: ago(silentSeconds + i * 4) })),
    venue_note: note,
  };
}

/** The panel at 1280x800 and on a phone, scrolled into view, for the docs; the caller looks at them. */
async function screenshot(page: Page, panel: Locator, name: string): Promise<void> {
  fs.mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  for (const [suffix, size] of [['', { width: 1280, height: 800 }], ['-phone', { width: 390, height: 844 }]] as const) {
    await page.setViewportSize(size);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}${suffix}.png`), animations: 'disabled' });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const json = (route: Route, code: number, body: unknown) => route.fulfill({ status: code, contentType: 'application/json', body: JSON.stringify(body) });

async function openFilePage(page: Page): Promise<void> {
  await page.goto(`${sideDoor.url}/`);
  await page.evaluate((token) => localStorage.setItem('doorlist.token', token), sideDoor.adminToken);
  await page.goto(`${sideDoor.url}/#/console/events/${seed.eventId}/file`);
  await page.reload();
}

test.beforeAll(async () => {
  sideDoor = await DoorServer.start();
  seed = await seedEvent(sideDoor, 'Harbour Lights');
});

test.afterAll(async () => {
  await sideDoor?.dispose();
});

test('the sync panel offers the takeover once the upstream is silent, says what it means, and after it shows this laptop as the upstream', async ({ page }) => {
  let takenOver = false;
  let takeovers = 0;
  await page.route(`**/api/v1/events/${seed.eventId}/sync`, (route) => (takenOver ? json(route, 404, { detail: 'This event is not followed.' }) : json(route, 200, status(seed.eventId, 150))));
  await page.route(`**/api/v1/events/${seed.eventId}/sync/venue`, (route) =>
    json(route, 200, { part: takenOver ? 'upstream' : 'follower', epoch: takenOver ? 2 : 1, upstream_url: takenOver ? null : BOX_OFFICE, note: null, venue: VENUE.slice(1).map((m) => ({ ...m, last_seen_at: ago(2) })) }),
  );
  await page.route(`**/api/v1/events/${seed.eventId}/sync/takeover`, (route) => {
    takeovers += 1;
    takenOver = true;
    return json(route, 200, { epoch: 2 });
  });
  await openFilePage(page);

  const venue = page.getByTestId('venue');
  await expect(venue.getByRole('heading')).toHaveText('This venue (epoch 1)');
  await expect(venue.getByTestId('venue-list').getByRole('listitem')).toHaveCount(3);
  const offer = venue.getByTestId('takeover');
  await expect(offer).toContainText('The upstream has not answered for 2 min.');
  await expect(offer).toContainText(`instead of ${BOX_OFFICE}`);
  await expect(offer).toContainText('If it comes back, it follows this laptop');
  await screenshot(page, venue, 'console-venue-before-takeover');

  await offer.getByRole('button', { name: "Take over as this venue's upstream" }).click();
  const upstream = page.getByTestId('venue-upstream');
  await expect(upstream).toContainText("This laptop is the venue's upstream (epoch 2)");
  await expect(upstream.getByTestId('venue-list').getByRole('listitem')).toHaveCount(2);
  expect(takeovers).toBe(1);
  await screenshot(page, page.locator('.sync-panel'), 'console-venue-after-takeover');
});

test('while the upstream answers, the takeover waits behind a request; a laptop that lost a tie says whom it follows', async ({ page }) => {
  const note = 'Another laptop of this venue took over at the same time: this laptop now follows Box office (https://192.168.1.20:8788/api/v1).';
  await page.route(`**/api/v1/events/${seed.eventId}/sync`, (route) => json(route, 200, { ...status(seed.eventId, 1, note), state: 'ok', epoch: 2 }));
  await openFilePage(page);
  const venue = page.getByTestId('venue');
  await expect(venue.getByTestId('venue-note')).toHaveText(note);
  await expect(venue.getByTestId('takeover')).toHaveCount(0);
  await venue.getByRole('button', { name: "Take over as this venue's upstream…" }).click();
  await expect(venue.getByTestId('takeover')).toContainText('Taking over makes this laptop');
  await expect(venue.getByTestId('takeover')).not.toContainText('has not answered');
  await venue.getByRole('button', { name: 'Cancel' }).click();
  await expect(venue.getByTestId('takeover')).toHaveCount(0);
  await screenshot(page, venue, 'console-venue-lost-tie');
});
