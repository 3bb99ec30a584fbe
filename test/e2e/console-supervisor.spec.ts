import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { CONSOLE_PICTURES, wideAndPhone } from './screenshots';

// The browser's own clock is Tokyo's and the event is in California: every time on screen must
// read the event's, labelled, and none the browser's or GMT.
test.use({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });

const ZONE = 'US/Pacific';
const STATIONS = 38;
const FIRST = ['Zoë', 'Ana', 'Bruno', 'Chloé', 'Dev', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines'];
const LAST = ['Müller', 'Andersson', 'Okafor', 'Lefèvre', 'Nakamura', 'Costa', 'Haddad', 'Kowalski', 'Brown', 'Ng'];

let server: DoorServer;
let eventId: number;
let vip: number;
let general: number;
let guests: { id: number; first_name: string; last_name: string; barcode: string }[];

/** 1280x800 and a 375x667 phone (scrolled to the section, below the console's menu), for docs/console-and-door.md. */
async function screenshots(page: Page, name: string) {
  await wideAndPhone(page, CONSOLE_PICTURES, name, {
    phone: { width: 375, height: 667 },
    onPhone: () => page.locator('.console-section').first().evaluate((el) => el.scrollIntoView()),
  });
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** Scan as a door station would (UTC scanned_at, a station name). */
function scan(barcode: string, station: string, minutesAgo = 0) {
  const scanned_at = new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 19);
  return server.must(201, 'POST', `/events/${eventId}/checkins`, { barcode, station, scanned_at });
}

/** Every door's poll says it is there: its heartbeat (station, queued). */
async function heartbeats(queuedAt: Record<string, number> = {}) {
  for (let n = 1; n <= STATIONS; n++) {
    const station = `Door ${String(n).padStart(2, '0')}`;
    if (n === 13) continue; // Door 13 went quiet: offline.
    await server.must(200, 'GET', `/events/${eventId}/stats?station=${encodeURIComponent(station)}&queued=${queuedAt[station] ?? 0}`);
  }
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await DoorServer.start();
  const group = await server.must(201, 'POST', '/groups', { name: 'Harbour Events' });
  eventId = (await server.must(201, 'POST', '/events', { name: 'Harbour Gala', group_id: group.id, timezone: ZONE, starts: '2026-12-09T17:00', ends: '2026-12-09T23:30' })).id;
  vip = (await server.must(201, 'POST', `/events/${eventId}/registration_types`, { type: 'ticket', name: 'VIP', description: '', attention: true })).id;
  general = (await server.must(201, 'POST', `/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).id;
  // 18:00 on the event's clock is 02:00 UTC the next day.
  await server.must(200, 'POST', `/events/${eventId}/sessions`, { name: 'Keynote', starts: '2026-12-10T02:00', ends: '2026-12-10T03:00', capacity: 120 });
  guests = [];
  for (let i = 0; i < 60; i++) {
    const g = { first_name: FIRST[i % 10], last_name: `${LAST[Math.floor(i / 6) % 10]}`, email: `guest${i}@harbour.test`, company: i % 3 ? `Company ${i % 4}` : undefined, barcode: `HG-${String(i).padStart(3, '0')}` };
    const { id } = await server.must(201, 'POST', `/events/${eventId}/guests`, { ...g, registration_type: i % 5 === 0 ? vip : general });
    guests.push({ id, ...g });
  }
  // 26 admissions over the last hour across the doors, a burst in the last minutes.
  for (let i = 1; i <= 26; i++) await scan(guests[i].barcode, `Door ${String(((i * 7) % STATIONS) + 1).padStart(2, '0')}`, i < 10 ? i % 4 : 8 + i * 2);
  // Door 13 scanned long ago and sent no heartbeat since.
  await scan(guests[40].barcode, 'Door 13', 50);
});

test.afterAll(async () => {
  await server?.dispose();
});

/** Zoë Müller (VIP) admitted at North gate, once whichever test comes first. */
async function zoeAtNorthGate() {
  const zoe = await server.must(200, 'GET', `/events/${eventId}/guests/${guests[0].id}`);
  if (!zoe.checked_in) await scan(guests[0].barcode, 'North gate');
}

async function signedIn(page: Page, view: string) {
  await page.addInitScript((token) => localStorage.setItem('doorlist.token', token), server.adminToken);
  await page.goto(`${server.url}/#/console/events/${eventId}/${view}`);
}

test('the supervisor view: figures, chart, 38 stations in a compact list, the latest scans, and a scan at another station shows live', async ({ page }) => {
  await heartbeats({ 'Door 07': 3 });
  await signedIn(page, 'supervisor');
  await expect(page.getByRole('heading', { name: 'Supervisor' })).toBeVisible();
  await expect(page.getByTestId('sv-checked-in')).toContainText('27 / 60');
  await expect(page.getByTestId('sv-remaining')).toContainText('33');
  await expect(page.getByTestId('sv-percent')).toContainText('45 %');
  await expect(page.getByText(`Times on the event's clock: ${ZONE}.`)).toBeVisible();

  const stations = page.getByRole('region', { name: 'Stations', exact: true });
  // Door 13 scanned long ago and never sent a heartbeat: it left, listed apart and not counted.
  await expect(stations.locator('tbody tr')).toHaveCount(STATIONS - 1);
  // Problems first: the one still sending its queue.
  await expect(stations.locator('tbody tr').nth(0)).toContainText('Door 07');
  await expect(stations.locator('tr[data-station="Door 07"]')).toContainText('Sending its queue (3)');
  await expect(page.getByTestId('sv-online')).toContainText(`${STATIONS - 1} / ${STATIONS - 1}`);
  const left = page.getByTestId('sv-left');
  await expect(left).toContainText('Stations that left (1)');
  await left.locator('summary').click();
  await expect(left.locator('tr[data-station="Door 13"]')).toContainText('Left');

  // 38 stations do not push the chart down: it is on the first screen, the list scrolls in its box.
  const chart = await page.locator('figure.chart').boundingBox();
  const list = await stations.boundingBox();
  expect(chart!.y + chart!.height).toBeLessThan(800);
  expect(list!.height).toBeLessThanOrEqual(302);

  // Every time reads the event's clock with its zone (PST), never Tokyo's (JST) nor GMT.
  const latest = page.getByRole('list', { name: 'Latest scans, all stations' });
  await expect(latest.locator('.sv-time').first()).toHaveText(/^\d{1,2}:\d\d [AP]M PST$/);
  // The time column is as wide as its longest time: none is cut (issue 44.8).
  const cutTimes = () => latest.locator('.sv-time').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > (c.nextElementSibling?.getBoundingClientRect().left ?? Infinity)).length);
  expect(await cutTimes()).toBe(0);
  await page.setViewportSize({ width: 375, height: 667 });
  expect(await cutTimes()).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.locator('.supervisor')).not.toContainText('GMT');
  await expect(page.locator('.supervisor')).not.toContainText('JST');
  await screenshots(page, 'console-supervisor');

  // Another station admits Zoë Müller: the view shows it within a poll or two, figures and all.
  const pacificTime = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'America/Los_Angeles' });
  const before = pacificTime.format(new Date());
  await zoeAtNorthGate();
  // The scan's minute is the one before it was sent or the one after it was answered.
  const after = pacificTime.format(new Date());
  await expect(latest.locator('li').first()).toContainText('Zoë Müller');
  await expect(latest.locator('li').first()).toContainText('North gate');
  await expect(latest.locator('li').first()).toContainText('VIP');
  await expect(page.getByTestId('sv-checked-in')).toContainText('28 / 60');
  await expect(stations.locator('tr[data-station="North gate"]')).toContainText('Online');
  await expect(latest.locator('li').first().locator('.sv-time')).toHaveText(new RegExp(`^(${before}|${after}) PST$`));

  // By registration type and by session: checked in, remaining, %.
  const vipRow = page.locator('.sv-side table').nth(1).locator('tr', { hasText: 'VIP' });
  await expect(vipRow.locator('td')).toHaveText(['VIP', '7', '5', '58 %']);
});

test('the guest table sorts and filters on the server: checked in or not, registration type, attention, station', async ({ page }) => {
  await zoeAtNorthGate();
  await signedIn(page, 'guests');
  const rows = page.locator('.guest-scroll [role=row]');
  await expect(page.getByText('Guests: 60')).toBeVisible();

  await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'ascending');
  await expect(rows.first()).toContainText('Andersson');
  await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
  await expect(rows.first()).toContainText('Okafor');

  const filters = page.getByRole('group', { name: 'Filters' });
  await filters.getByLabel('Checked in').selectOption('true');
  await expect(page.getByText('Guests: 28')).toBeVisible();
  await filters.getByLabel('Registration type').selectOption(String(vip));
  await expect(page.getByText('Guests: 7', { exact: true })).toBeVisible();
  await page.getByRole('columnheader', { name: `Status (${ZONE})` }).getByRole('button').click();
  // Times in the table and the guest's history are on the event's clock, labelled.
  await expect(rows.first()).toContainText(/In since \d{1,2}:\d\d [AP]M PST/);
  await filters.getByLabel('Registration type').selectOption('');
  await filters.getByLabel('Admitted at').selectOption('North gate');
  await expect(page.getByText('Guests: 1', { exact: true })).toBeVisible();
  await expect(rows.first()).toContainText('Zoë Müller');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await filters.getByLabel('Attention').selectOption('true');
  await expect(page.getByText('Guests: 12')).toBeVisible();
  await expect(rows.first()).toContainText('★');
  await screenshots(page, 'console-guests-sorted');

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('searchbox').fill('zoe muller');
  await page.getByRole('button', { name: 'Zoë Müller' }).first().click();
  const history = page.getByRole('dialog', { name: 'Zoë Müller' }).getByRole('region', { name: 'Check-in history' });
  await expect(history).toContainText(/\d{1,2}:\d\d [AP]M PST/);
  await expect(history).not.toContainText('JST');
});

test('session times and registration types: on the event\'s clock, labelled, and a type\'s attention editable', async ({ page }) => {
  await signedIn(page, 'sessions');
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader', { name: `Starts (${ZONE})` })).toBeVisible();
  await expect(table).toContainText('2026-12-09 18:00');
  await table.getByRole('button', { name: 'Edit' }).click();
  const form = page.getByRole('dialog', { name: 'Edit session' });
  await expect(form.getByLabel(`Starts (${ZONE})`, { exact: true })).toHaveValue('2026-12-09T18:00');
  await form.getByLabel(`Ends (${ZONE})`, { exact: true }).fill('2026-12-09T19:30');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(table).toContainText('2026-12-09 19:30');
  const sessions = await server.must(200, 'GET', `/events/${eventId}/sessions`);
  expect(sessions.results[0].ends).toBe('2026-12-10T03:30:00');

  await page.getByRole('navigation', { name: 'Parts of the event' }).getByRole('link', { name: 'Registration types' }).click();
  const general = page.getByRole('row', { name: /General/ });
  await general.getByRole('button', { name: 'Edit' }).click();
  const typeForm = page.getByRole('dialog', { name: 'Edit registration type' });
  await typeForm.getByLabel('Stop at the door (attention)').check();
  await typeForm.getByRole('button', { name: 'Save changes' }).click();
  await expect(general).toContainText('Yes');
  const stored = await server.must(200, 'GET', `/events/${eventId}/registration_types`);
  expect(stored.results.find((t: { name: string }) => t.name === 'General').attention).toBe(true);
});

test('the supervisor view speaks the console\'s language: German, with no English left', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('doorlist.language', 'de'));
  await signedIn(page, 'supervisor');
  const view = page.locator('.supervisor');
  await expect(page.getByRole('heading', { name: 'Aufsicht' })).toBeVisible();
  await expect(view).toContainText('Eingecheckt');
  await expect(view).toContainText('Letzte Scans, alle Stationen');
  await expect(view).toContainText(`Zeiten nach der Uhr der Veranstaltung: ${ZONE}.`);
  // German names the zone by its offset: still labelled.
  await expect(view.locator('.sv-time').first()).toHaveText(/^\d\d:\d\d GMT-8$/);
  for (const english of ['Remaining', 'Stations', 'Latest scans', 'Scans per minute', 'Sending', 'Last scan', 'By registration type', 'By session', 'Times on']) {
    await expect(view).not.toContainText(english);
  }
});
