import crypto from 'node:crypto';
import { expect, test } from '@playwright/test';
import config from './playwright.config';
import { DoorServer } from './door-server';
import { ConsolePage } from './pages/console-page';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, type Seed } from './seed';
import { lanAddresses } from '../../server/lan';
import { expectedLines, shownLines } from './pages/fingerprint-lines';

// A LAN name for this machine's network address: requests come from a non-loopback address,
// exactly like a phone opening the laptop's address. Without such an address it maps to
// loopback and the tests that need a LAN client are skipped.
const LAN_ADDRESS = lanAddresses()[0];
const LAN_HOST = 'doorlist.lan';
// A name for loopback that is not "localhost": over plain HTTP no secure context, like an old
// client that DOORLIST_LAN_HTTP=1 lets in.
const PLAIN_HOST = 'doorlist-plain.lan';
const base = config.use!.launchOptions!;
test.use({
  ignoreHTTPSErrors: true,
  launchOptions: {
    ...base,
    args: [...(base.args ?? []), `--host-resolver-rules=MAP ${LAN_HOST} ${LAN_ADDRESS ?? '127.0.0.1'}, MAP ${PLAIN_HOST} 127.0.0.1`],
  },
});

let server: DoorServer;
let seed: Seed;
let httpsPort: number;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
  const shared = await server.share();
  httpsPort = shared.httpsPort;
  expect(shared.sharing).toBe(true);
  expect(shared.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
});

test.afterAll(async () => {
  await server?.dispose();
});

const port = () => new URL(server.url).port;

test('a LAN browser over HTTPS gets a secure page: the same screen, camera allowed', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(`https://${LAN_HOST}:${httpsPort}`, server.adminToken, { id: seed.eventId, name: seed.eventName });
  expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  await door.screenshot('70-lan-https');
});

test('a LAN browser over plain HTTP is sent to HTTPS; a plain API call from the LAN is refused', async ({ page }) => {
  test.skip(!LAN_ADDRESS, 'no non-loopback address on this machine');
  await page.goto(`http://${LAN_HOST}:${port()}/`);
  expect(page.url()).toBe(`https://${LAN_HOST}:${httpsPort}/`);
  expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  // The request context resolves names itself (no browser mapping): the address, then.
  const api = await page.request.get(`http://${LAN_ADDRESS}:${port()}/api/v1/events`, { headers: { authorization: `Token ${server.adminToken}` } });
  expect(api.status()).toBe(403);
  expect((await api.json()).detail).toContain(`https://${LAN_ADDRESS}:${httpsPort}/api/v1/events`);
});

test('a plain-HTTP page that is no secure context (an old client) still scans, with uids made without crypto.randomUUID', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(`http://${PLAIN_HOST}:${port()}`, server.adminToken, { id: seed.eventId, name: seed.eventName });
  expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
  await expect(page.getByRole('button', { name: 'F8 Camera' })).toHaveCount(0);
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper');
  const [checkin] = await checkinsOf(server, seed.eventId, seed.guests.grace.id);
  expect(checkin.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(checkin.station).toBe('Front door');
});

test('the console shows the share panel in a browser: HTTPS address, QR codes, the authority fingerprint and how to trust it', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  const lan = (await server.request('GET', '/lan')).body;
  await page.getByRole('link', { name: 'Console' }).click();
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Share on the LAN' }).click();
  const panel = page.getByTestId('share-details');
  await expect(panel).toContainText(lan.https_urls[0]);
  await expect(panel.getByTestId('share-fingerprint')).toHaveText(lan.fingerprint);
  expect(await shownLines(panel.getByTestId('share-fingerprint'))).toEqual(expectedLines(lan.fingerprint));
  await expect(panel.getByRole('img', { name: `QR code for ${lan.https_urls[0]}` })).toBeVisible();
  await expect(panel.getByRole('img', { name: `QR code for ${lan.authority_urls[0]}` })).toBeVisible();
  await expect(panel.getByRole('heading', { name: 'Android' })).toBeVisible();
  await expect(panel.getByRole('heading', { name: 'iPhone and iPad' })).toBeVisible();
  // The authority's QR code leads to the certificate whose fingerprint the panel shows.
  const authority = await page.request.get(lan.authority_urls[0].replace(/\/\/[^/]+/, `//127.0.0.1:${port()}`));
  expect(authority.headers()['content-type']).toBe('application/x-x509-ca-cert');
  expect(new crypto.X509Certificate(await authority.text()).fingerprint256).toBe(lan.fingerprint);
  await new ConsolePage(page).screenshot('console-share');
});

test('stop sharing: HTTPS goes away, loopback keeps working', async ({ page }) => {
  await server.stopSharing();
  await expect(page.request.get(`https://127.0.0.1:${httpsPort}/`)).rejects.toThrow();
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Edsger Dijkstra');
});
