import { expect, test, type Request, type Route } from '@playwright/test';
import { ADMIN, DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { SignInPage } from './pages/sign-in-page';
import { checkinsOf, guestCounts, seedEvent, statsOf, type Seed } from './seed';

// What a door person meets in a long shift: a fast queue, a slow network, Caps Lock, long
// names, and a reload while scans are waiting to be sent.

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server, 'Walk Night');
});

test.afterAll(async () => {
  await server?.dispose();
});

const CHECKINS = '**/api/v1/events/*/checkins';

/**
 * A station that has no copy of the guest list yet (its first load failed): offline, its scans
 * wait undecided as "queued" instead of being answered from the copy.
 */
async function withoutCopy(page: DoorPage['page']) {
  await page.route('**/api/v1/events/*/guests?*', (route) => route.abort('internetdisconnected'));
}

/**
 * Holds the check-in POSTs whose body names `code` until `release` is called; later ones go
 * through (on a busy machine the station may give up on a held scan after its 2.5 s and
 * replay it, which must then reach the server).
 */
async function holdScansOf(page: DoorPage['page'], code: string) {
  const held: Route[] = [];
  let released = false;
  await page.route(CHECKINS, async (route) => {
    if (!released && route.request().method() === 'POST' && route.request().postData()?.includes(`"${code}"`)) held.push(route);
    else await route.fallback();
  });
  return {
    held,
    release: async () => {
      released = true;
      for (const route of held.splice(0)) await route.fallback().catch(() => undefined);
    },
  };
}

test('a lower-case code or one typed with Caps Lock on still finds the guest', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan(`  ${seed.guests.edsger.barcode.toLowerCase()} `);
  await door.expectResult('checked_in', 'Edsger Dijkstra');
  // Caps Lock on a wedge reader swaps every letter's case.
  await door.scan('mh-0006');
  await door.expectResult('checked_in', 'Margaret Hamilton');
  await door.scan(seed.guests.margaret.barcode);
  await door.expectResult('already_checked_in', 'Margaret Hamilton', /since \d{1,2}:\d\d.*\(just now\)/);
  expect(await checkinsOf(server, seed.eventId, seed.guests.edsger.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId, seed.guests.margaret.id)).toHaveLength(1);
  // Nobody under either case: the red answer names the code as it was typed.
  await door.scan('nobody-here');
  await door.expectResult('not_found', 'Code nobody-here');
});

test('Enter on an empty field sends nothing and keeps the answer', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan('EMPTY-TEST-404');
  await door.expectResult('not_found', 'EMPTY-TEST-404');
  let posts = 0;
  page.on('request', (r) => r.method() === 'POST' && r.url().includes('/checkins') && posts++);
  await page.keyboard.press('Enter');
  await page.keyboard.type('   ');
  await page.keyboard.press('Enter');
  // Nothing may be sent: a post, had one started, would have left before the next poll's answer.
  await door.afterPolls(1);
  expect(posts).toBe(0);
  await door.expectResult('not_found', 'EMPTY-TEST-404');
  await expect(door.recent()).toHaveCount(1);
});

test('a scan still on its way covers the last answer at once; a slower earlier answer never replaces a later one', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan(seed.guests.tim.barcode);
  await door.expectResult('checked_in', 'Tim Berners-Lee');

  // The network is slow for Barbara: Tim's green must not stand for her.
  const slow = await holdScansOf(page, seed.guests.barbara.barcode);
  await door.scan(seed.guests.barbara.barcode);
  await expect(door.checking()).toBeVisible();
  await expect(door.checking()).toContainText(seed.guests.barbara.barcode);
  await expect(door.recent().first()).toHaveAttribute('data-outcome', 'checking');
  await expect(door.scanField()).toBeFocused();
  await door.screenshot('40-checking');

  // The next guest is scanned before Barbara's answer is back, and answered first.
  await door.scan(seed.guests.donald.barcode);
  await door.expectResult('checked_in', 'Donald Knuth');
  await expect(door.checking()).toBeHidden();
  await slow.release();
  // Barbara's answer arrives late: it goes to the list of last scans, not over Donald.
  await expect(door.recent().filter({ hasText: 'Barbara Liskov' })).toHaveAttribute('data-outcome', 'checked_in');
  await expect(door.result()).toContainText('Donald Knuth');
  await expect(door.recent()).toHaveCount(3);
  await expect(door.recent().nth(0)).toContainText('Donald Knuth');
  await expect(door.recent().nth(1)).toContainText('Barbara Liskov');
  await expect(door.recent().nth(2)).toContainText('Tim Berners-Lee');
  // A station that gave up on the held request answered from its copy and queued the scan:
  // it reaches the server with the next flush (before a stats poll), once.
  await expect.poll(() => checkinsOf(server, seed.eventId, seed.guests.barbara.id).then((c) => c.length)).toBe(1);
  await expect(door.pending()).toBeHidden();
  await door.afterPolls(2);
  expect(await checkinsOf(server, seed.eventId, seed.guests.barbara.id)).toHaveLength(1);
});

test('30 codes typed at reader speed each get their own answer and are counted once', async ({ page }) => {
  // 30 answers on screen and on the server (20-45 s on a loaded 2-core machine): three times the timeout.
  test.slow();
  const codes: string[] = [];
  for (let i = 0; i < 30; i += 1) {
    const code = `RUSH-${String(i).padStart(3, '0')}`;
    await server.must(201, 'POST', `/events/${seed.eventId}/guests`, {
      registration_type: seed.types.general,
      first_name: 'Rush',
      last_name: `Guest ${i}`,
      email: `rush${i}@example.test`,
      barcode: code,
    });
    codes.push(code);
  }
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const answers: string[] = [];
  page.on('response', async (r) => {
    if (r.request().method() === 'POST' && r.url().includes('/checkins')) answers.push((await r.json()).status);
  });
  const before = (await checkinsOf(server, seed.eventId)).length;
  for (const code of codes) await door.scanFast(code);

  await door.expectResult('checked_in', 'Rush Guest 29');
  await expect.poll(() => answers.length).toBe(30);
  expect(answers.every((status) => status === 'checked_in')).toBe(true);
  // The newest answers stay listed in scan order, none still waiting.
  const listed = door.recent();
  await expect(listed.first()).toContainText('Rush Guest 29');
  for (let i = 0; i < 5; i += 1) {
    await expect(listed.nth(i)).toContainText(`Rush Guest ${29 - i}`);
    await expect(listed.nth(i)).toHaveAttribute('data-outcome', 'checked_in');
  }
  const after = await checkinsOf(server, seed.eventId);
  expect(after.length - before).toBe(30);
  expect(new Set(after.map((c) => c.guest_id)).size).toBe(after.length);
});

test('the buttons under the answer do not move whatever the answer says', async ({ page }) => {
  const long = await server.must<{ id: number }>(201, 'POST', `/events/${seed.eventId}/guests`, {
    registration_type: seed.types.vip,
    first_name: 'Maria Fernanda',
    last_name: 'de los Santos Villanueva-Oyelaran',
    email: 'maria@example.test',
    company: 'Internationale Vereniging voor Evenementenbeheer en Toegangscontrole Nederland',
    barcode: 'LONG-0001',
  });
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const actions = page.getByRole('navigation', { name: 'Door actions' });
  const idle = await actions.boundingBox();
  await door.scan('LONG-0001');
  await door.expectResult('checked_in', 'Maria Fernanda');
  const green = await actions.boundingBox();
  await door.waitPastRepeatGuard();
  await door.scan('LONG-0001');
  await door.expectResult('already_checked_in', 'Maria Fernanda');
  const amber = await actions.boundingBox();
  await door.screenshot('41-amber-long-name');
  expect(green).toEqual(idle);
  expect(amber).toEqual(idle);
  // Everything of the answer is inside the viewport, and the buttons are on one row.
  expect(idle!.y + idle!.height).toBeLessThanOrEqual(800);
  expect(idle!.height).toBeLessThan(60);
  // The time of first entry, the last line of the amber answer, is not cut off.
  const since = await door.result().locator('.detail').boundingBox();
  const panel = await door.result().boundingBox();
  expect(since!.y + since!.height).toBeLessThanOrEqual(panel!.y + panel!.height);
  expect(await checkinsOf(server, seed.eventId, long.id)).toHaveLength(1);
});

test('scans queued offline survive a reload in IndexedDB and are replayed once', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.copyLoaded();
  // The network to the server fails for check-ins only, so the page itself can still reload.
  const offline = (route: Route) => route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback();
  await page.route(CHECKINS, offline);
  await door.scan(seed.guests.john.barcode);
  await door.expectResult('checked_in', 'John McCarthy', 'Admitted offline');
  await door.scan(seed.guests.radia.barcode);
  await expect(door.pending()).toHaveText('2 queued');

  await page.reload();
  await expect(door.scanField()).toBeFocused();
  await expect(door.pending()).toHaveText('2 queued');
  await page.unroute(CHECKINS, offline);

  await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  // The log kept both answers over the reload.
  await expect(door.recent().filter({ hasText: 'John McCarthy' })).toHaveAttribute('data-outcome', 'checked_in');
  await expect(door.recent().filter({ hasText: 'Radia Perlman' })).toHaveAttribute('data-outcome', 'checked_in');
  await page.reload();
  await expect(door.scanField()).toBeFocused();
  // Nothing may be replayed twice: the screen flushes its queue before each stats poll (every
  // 2 s), so two polls answered show whether anything was left to send.
  await door.afterPolls(2);
  expect(await checkinsOf(server, seed.eventId, seed.guests.john.id)).toHaveLength(1);
  expect(await checkinsOf(server, seed.eventId, seed.guests.radia.id)).toHaveLength(1);
});

test('the counters show a scan of this station at once, and keep it while the server\'s answers still predate it', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.count('checked-in');
  const before = await statsOf(server, seed.eventId);
  // Every poll answered with the figures from before the scan: the count can only be the station's own.
  await door.withCountersAnswered(before, async () => {
    await door.scan(seed.guests.frances.barcode);
    await door.expectResult('checked_in', 'Frances Allen');
    await expect(door.checkedIn()).toHaveText(String(before.checked_in + 1));
    await door.afterPolls(1);
    await expect(door.checkedIn()).toHaveText(String(before.checked_in + 1));
  });
  // The server's own figures, which include the scan, count it once.
  await door.afterPolls(1);
  await expect(door.checkedIn()).toHaveText(String(before.checked_in + 1));
  expect((await guestCounts(server, seed.eventId)).checkedIn).toBe(before.checked_in + 1);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('a run of scans never widens the page sideways', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    for (const code of ['PHONE-1', 'PHONE-2', seed.guests.ada.barcode, 'PHONE-3']) await door.scan(code);
    await door.waitPastRepeatGuard();
    await door.scan(seed.guests.ada.barcode);
    await door.expectResult('already_checked_in', 'Ada Lovelace');
    await expect(door.recent()).toHaveCount(5);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await door.screenshot('42-phone-after-a-run');
  });
});

test('a key revoked mid-shift: the scan made at that moment is kept, and signing in again goes straight back to the door', async ({ page }) => {
  const made = await server.must<{ id: number; key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'revoked mid-shift' });
  const guest = await server.must<{ id: number }>(201, 'POST', `/events/${seed.eventId}/guests`, {
    registration_type: seed.types.general,
    first_name: 'Night',
    last_name: 'Owl',
    email: 'owl@example.test',
    barcode: 'OWL-0001',
  });
  const inFlight = new Set<Request>();
  page.on('request', (r) => inFlight.add(r));
  page.on('requestfinished', (r) => inFlight.delete(r));
  page.on('requestfailed', (r) => inFlight.delete(r));
  const door = new DoorPage(page);
  await door.open(server.url, made.key, { id: seed.eventId, name: seed.eventName });
  await door.copyLoaded();
  // Every request but the scan goes on with a key still valid, so the scan is the first to meet
  // the revoked one (a poll meeting it first sends the station to sign-in before anyone scans,
  // which is right, but not this test). The polls are many (counters with a heartbeat, the copy,
  // sync, venue): re-keyed here, whatever their path and query.
  await page.route('**/api/v1/**', (route) => {
    const request = route.request();
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith(`/events/${seed.eventId}/checkins`)) return route.continue();
    return route.continue({ headers: { ...request.headers(), authorization: `Token ${server.adminToken}` } });
  });
  // A poll already on its way before the route was set up still carries the key: it is revoked
  // once every one of those has ended.
  const unrouted = [...inFlight];
  await expect.poll(() => unrouted.filter((r) => inFlight.has(r)).length).toBe(0);
  await server.must(204, 'DELETE', `/groups/${seed.groupId}/api_keys/${made.id}`);
  await door.scan('OWL-0001');
  const signIn = new SignInPage(page);
  await expect(page.getByRole('status')).toHaveText('Your session has expired. Please relogin.');
  await door.screenshot('43-key-revoked');
  expect(await checkinsOf(server, seed.eventId, guest.id)).toHaveLength(0);

  await page.unrouteAll();
  await signIn.signIn(ADMIN.username, ADMIN.password);
  await expect(page.getByRole('heading', { name: seed.eventName })).toBeVisible();
  await expect(door.scanField()).toBeFocused();
  await expect.poll(() => checkinsOf(server, seed.eventId, guest.id).then((c) => c.length), { timeout: 10_000 }).toBe(1);
  await expect(door.pending()).toBeHidden();
  // Nothing may be replayed twice: the screen flushes its queue before each stats poll (every
  // 2 s), so two polls answered show whether anything was left to send.
  await door.afterPolls(2);
  expect(await checkinsOf(server, seed.eventId, guest.id)).toHaveLength(1);
});

test('a queued scan in the list of last scans turns into the answer it got once sent', async ({ page }) => {
  await withoutCopy(page);
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const offline = (route: Route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback());
  await page.route(CHECKINS, offline);
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('queued', 'Queued');
  await expect(door.recent().first()).toHaveAttribute('data-outcome', 'queued');
  await page.unroute(CHECKINS, offline);
  await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  await expect(door.recent().first()).toHaveAttribute('data-outcome', 'checked_in');
  await expect(door.recent().first()).toContainText('Grace Hopper');
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
});

test.describe('on a phone, offline', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('going offline with scans queued does not push the answer down', async ({ page }) => {
    await withoutCopy(page);
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    const top = (await door.result().boundingBox())!.y;
    const offline = (route: Route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback());
    await page.route(CHECKINS, offline);
    await door.scan('PHONE-OFFLINE-1');
    await door.expectResult('queued', 'Queued');
    await expect(door.pending()).toHaveText('1 queued');
    expect((await door.result().boundingBox())!.y).toBe(top);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await door.screenshot('44-phone-offline-queued');
    await page.unroute(CHECKINS, offline);
    await expect(door.pending()).toBeHidden({ timeout: 15_000 });
  });
});

test('two scans run together (a code too long to be anyone\'s) answer red not found, not a form error', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const runOn = `${seed.guests.ada.barcode}${'9'.repeat(150)}`;
  await door.scanFast(runOn);
  await door.expectResult('not_found', 'Not found', `Code ${runOn.slice(0, 32)}… (${runOn.length} characters)`);
  await expect(door.result()).not.toContainText('Ensure');
});
